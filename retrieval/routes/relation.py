"""The relation route: "How are A and B related?" answered from the typed paths that join the
two entities, or from paths through shared chunks (relation.py reads them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..answer import Context, describe_paths
from ..context import path_graph
from ..relation import relation
from .base import Asked, Decline, Found, RouteTrace


@dataclass
class PathTrace(RouteTrace):
    """The paths, each node with the id it has in the answer's context (`cite`) once that is built."""

    def complete(self, context: Context) -> RouteTrace:
        paths = [
            dict(p, nodes=[dict(n, cite=context.node_ids.get(n["id"])) for n in p["nodes"]])
            for p in self.fields["paths"]
        ]
        return RouteTrace(self.route, {"paths": paths})


class RelationRoute:
    name: ClassVar[str] = "relation"
    fields: ClassVar[dict] = {"paths": []}
    drawn: ClassVar[tuple[str, ...]] = ("paths",)

    def claim(self, asked: Asked):
        route = asked.analysis.route
        if getattr(route, "kind", "search") != "relation":
            return Decline(self.name)
        return route

    def answer(self, asked: Asked, claim) -> Found | Decline:
        found = relation(asked.analyzer, asked.analysis, asked.options.k)
        if found is None or not found[1]:
            return Decline(self.name)  # a side names no entity, or no path joins them: searched instead
        paths, evidence = found
        return Found(
            PathTrace(self.name, {"paths": paths}),
            self.name,
            evidence,
            graph_context=path_graph(paths),
            lead=lambda context: describe_paths(paths, context),
        )

    def notes(self, answer: dict) -> list[str]:
        return []

    def draw(self, answer: dict, nodes: dict, edges: dict, limit: int) -> None:
        """The nodes and steps of the answer's paths, added to an evidence subgraph (GET /graph)."""
        for path in answer.get("paths") or []:
            for node in path.get("nodes", []):
                nodes.setdefault(
                    node["id"],
                    {"id": node["id"], "label": node.get("type") or "Entity", "name": node.get("name") or node["id"]},
                )
            for rel in path.get("relationships", []):
                edges.setdefault(
                    (rel["start"], rel["type"], rel["end"]),
                    {"source": rel["start"], "target": rel["end"], "type": rel["type"]},
                )

    def explain(self, answer: dict) -> list[str]:
        """One line per path: Reynold (T1::E1) -[DEFEATS]-> Brannock (T1::E4)."""
        return [
            f"  path {number} ({path.get('kind', 'typed')}, {len(path.get('relationships') or [])} step(s)): "
            + path_text(path)
            for number, path in enumerate(answer.get("paths") or [], 1)
        ]


def path_text(path: dict) -> str:
    """Reynold (T1::E1) -[DEFEATS]-> Brannock (T1::E4), each step in its own direction."""
    nodes = {n["id"]: n for n in path["nodes"]}

    def node(node_id: str) -> str:
        return f"{(nodes.get(node_id) or {}).get('name') or node_id} ({node_id})"

    order = [n["id"] for n in path["nodes"]]
    text = node(order[0]) if order else ""
    for i, rel in enumerate(path["relationships"]):
        following = order[i + 1] if i + 1 < len(order) else rel["end"]
        arrow = f" -[{rel['type']}]-> " if rel["end"] == following else f" <-[{rel['type']}]- "
        text += arrow + node(following)
    return text
