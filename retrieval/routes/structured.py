"""The structured route: a question about the graph itself ("Who killed Aldric Vane?", "How many
tales mention wolves?", "Which papers are about harbours?") answered from its relations and
every matching document (structured/); with an LLM, a question the templates do not cover is
given to text-to-Cypher (one read-only statement)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

from ... import llm
from .. import structured as structure
from ..answer import neutral
from .base import Asked, Decline, Done, Found, LLMUse, RouteTrace

STRUCTURED_NOTE = "Answered from the graph's structure (its relations and every matching document); no LLM was needed."
CUT_NOTE = "(The result was cut: {cut}.)"
UNCITED_NOTE = (
    "(Values the statement returned that are not read from a cited source are not quoted here: "
    "the rows in --json have them.)"
)
MAX_ROWS_SHOWN = 20  # rows --explain lists
MAX_OTHERS_SHOWN = 12  # entities not chosen that --explain lists


@dataclass
class _AskTheModel:
    """The claim that text-to-Cypher answers: why the templates did not."""

    why: str


class StructuredRoute:
    name: ClassVar[str] = "structured"
    fields: ClassVar[dict] = {"structured": None, "rows": []}
    drawn: ClassVar[tuple[str, ...]] = ("structured", "rows")

    def claim(self, asked: Asked):
        started = time.perf_counter()
        plan = structure.plan(asked.graph, asked.analysis, asked.embedder)
        asked.time("structured_ms", started)
        if not isinstance(plan, structure.Refusal):
            return plan
        if plan.looks_structured and asked.llm_ready:
            return _AskTheModel(plan.reason)
        return self._decline(plan.to_dict())

    def answer(self, asked: Asked, claim) -> Found | Decline:
        if isinstance(claim, _AskTheModel):
            return self._text_to_cypher(asked, claim.why)
        started = time.perf_counter()
        rows, total = structure.run(asked.graph, claim, asked.analysis.filters)
        ms = asked.time("structured_ms", started, add=True)
        if not rows and claim.family not in ("documents", "count_documents"):
            name = claim.entity["name"] if claim.entity else "the entity"
            reason = f"{claim.reason}; but no such edge of {name} is in the graph"
            if asked.llm_ready and structure.looks_structured(asked.text, structure.catalog(asked.graph)):
                return self._text_to_cypher(asked, reason)
            return self._decline(dict(claim.to_dict(), family=None, reason=reason))
        result, sources = structure.answer(asked.graph, claim, rows, total, asked.analysis.language)
        result.ms = ms
        return self._found(asked, result, sources)

    def _decline(self, trace: dict) -> Decline:
        return Decline(self.name, RouteTrace(self.name, {"structured": trace}))

    def _found(self, asked: Asked, result, sources) -> Found:
        done = Done(
            text=result.text,
            titled=result.titled,
            cited=list(result.cited),
            sources=sources,
            llm=LLMUse(False, None, STRUCTURED_NOTE),
            web_reason="answered from the graph's structure",
            emit=asked.on_token is not None and asked.llm_ready,
        )
        trace = RouteTrace(self.name, {"structured": result.to_dict(), "rows": result.row_dicts()})
        return Found(trace, self.name, [ev for s in sources for ev in s.chunks], done=done)

    def _text_to_cypher(self, asked: Asked, why: str) -> Found | Decline:
        """The LLM's one read-only statement for a question the templates did not cover; a refused
        or failed statement leaves the question to the search route, with the one line saying why."""
        started = time.perf_counter()
        try:
            found = structure.text_to_cypher(asked.graph, asked.settings, asked.text, asked.analysis.language)
        except llm.LLMError as exc:
            asked.time("text2cypher_ms", started)
            return self._decline(
                {"family": None, "method": "text2cypher", "reason": f"{why}; text-to-Cypher failed: {exc}"}
            )
        ms = asked.time("text2cypher_ms", started)
        trace = {"family": None, "method": "text2cypher", "cypher": found.statement, "attempts": found.attempts}
        if found.refused or found.error:
            reason = f"{why}; {found.refused or found.error}"
            return self._decline(dict(trace, refused=found.refused, error=found.error, reason=reason))
        plan, rows, total = structure.from_cypher(asked.graph, asked.analysis.question, found)
        if not rows and plan.term != "number":
            nothing = f"its rows were cut ({found.cut})" if found.cut else "the model's statement found nothing"
            return self._decline(dict(trace, reason=f"{why}; {nothing}", cut=found.cut))
        plan.reason = f"{why}; {plan.reason}"
        result, sources = structure.answer(asked.graph, plan, rows, total, asked.analysis.language)
        result.method, result.cypher, result.ms, result.cut = "text2cypher", found.statement, ms, found.cut
        notes = [CUT_NOTE.format(cut=neutral(found.cut))] if found.cut else []
        if any(row.uncited for row, cite in zip(result.rows, result.cites, strict=True) if cite):
            notes.append(UNCITED_NOTE)
        if notes:  # said after the rows, apart from every citation
            result.text, result.titled = (f"{text} {' '.join(notes)}" for text in (result.text, result.titled))
        return self._found(asked, result, sources)

    def draw(self, answer: dict, nodes: dict, edges: dict, limit: int) -> None:
        """A lookup's entity and its rows as nodes (at most `limit` in all), and for one hop the
        relation joining each row to the entity: an answer read from loaded records has no chunks
        to draw, and its rows are its evidence."""
        plan = answer.get("structured") or {}
        entity, hops = plan.get("entity"), plan.get("hops") or []
        if plan.get("family") not in ("lookup", "list", "count") or not entity:
            return

        def node(item: dict) -> None:
            if item["id"] not in nodes and len(nodes) < limit:
                nodes[item["id"]] = {"id": item["id"], "label": item.get("type") or "Entity", "name": item["name"]}

        node(entity)
        for row in answer.get("rows") or []:
            node(row)
            if len(hops) != 1 or not row.get("relation") or row["id"] not in nodes:
                continue
            # the entity is the source of an "out" hop; an edge of the inverse type reads the other way
            out = (hops[0]["direction"] == "out") == (row["relation"] == hops[0]["relation"])
            source, target = (entity["id"], row["id"]) if out else (row["id"], entity["id"])
            edges.setdefault(
                (source, row["relation"], target), {"source": source, "target": target, "type": row["relation"]}
            )

    def notes(self, answer: dict) -> list[str]:
        structured = answer.get("structured") or {}
        if structured.get("refused") or structured.get("error"):
            return [f"text-to-Cypher: {structured.get('refused') or structured.get('error')}"]
        return []

    def explain(self, answer: dict) -> list[str]:
        """The `structured:` lines: which relation, direction, entity and scope the question was
        matched to and why, the entities it was not, and the rows; or why it did not take the route."""
        plan, rows = answer.get("structured"), answer.get("rows") or []
        if not plan:
            return []
        if not plan.get("family"):
            return [f"  structured: not taken ({plan.get('reason')})"]
        lines = [f"  structured: {plan.get('reason')}"]
        for hop in plan.get("hops") or []:
            lines.append(
                f"    relation {hop.get('relation')} {hop.get('direction')} (matched by {hop.get('matched_by')} "
                f"{hop.get('phrase')!r}, score {hop.get('score')})"
            )
        entity = plan.get("entity")
        if entity:
            lines.append(
                f"    entity {entity.get('name')} ({entity.get('id')}, {entity.get('type') or 'Entity'}"
                + (f", {entity['chunks']} chunks)" if entity.get("chunks") is not None else ")")
            )
        others = plan.get("others") or []
        if others:
            shown = ", ".join(f"{o.get('id')} ({o.get('chunks')})" for o in others[:MAX_OTHERS_SHOWN])
            more = f" and {len(others) - MAX_OTHERS_SHOWN} more" if len(others) > MAX_OTHERS_SHOWN else ""
            lines.append(f"    not chosen: {shown}{more}")
        scope = plan.get("scope") or {}
        if scope:
            lines.append(
                f"    scope: {scope.get('noun')}, labels {scope.get('labels') or 'any'}, corpus {scope.get('corpus') or 'any'}"
            )
        if plan.get("cypher"):
            lines.append(f"    cypher: {plan['cypher']}")
        lines.append(f"    rows: {plan.get('count')} (method {plan.get('method')}, total {plan.get('total')})")
        for row in rows[:MAX_ROWS_SHOWN]:
            lines.append(f"      {row.get('title') or row.get('name')} [{row.get('cite') or '-'}] {row.get('id')}")
        if len(rows) > MAX_ROWS_SHOWN:
            lines.append(f"      … {len(rows) - MAX_ROWS_SHOWN} more (--json has them all)")
        return lines
