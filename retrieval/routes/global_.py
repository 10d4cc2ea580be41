"""The global route: a question about the whole corpus ("What are the main themes of the
tales?", "What do the papers say about harbours?"), or `mode` "global", answered from its
communities and every document on the topic (global_search)."""

from __future__ import annotations

import time
from typing import ClassVar

from ... import llm
from .. import global_search
from .. import structured as structure
from ..modes import GLOBAL_MODE
from .base import Asked, Decline, Done, Found, LLMUse, RouteTrace

MAX_PASSED_OVER = 5  # communities not used that --explain lists


class GlobalRoute:
    name: ClassVar[str] = "global"
    fields: ClassVar[dict] = {"global": None, "communities": []}
    drawn: ClassVar[tuple[str, ...]] = ()

    def claim(self, asked: Asked):
        if asked.options.mode != GLOBAL_MODE and getattr(asked.analysis.route, "kind", "search") == "relation":
            return Decline(self.name)
        corpora = structure.catalog(asked.graph).corpora
        found: global_search.GlobalQuestion | None
        if asked.options.mode == GLOBAL_MODE:
            found = global_search.forced(asked.text, corpora, asked.analysis.keywords)
        else:
            found = global_search.classify(asked.text, corpora)
        return found if found is not None else Decline(self.name)

    def answer(self, asked: Asked, claim: global_search.GlobalQuestion) -> Found | Decline:
        started = time.perf_counter()
        result = global_search.answer(
            asked.graph, asked.settings, asked.analysis, claim, asked.options.use_llm, asked.on_token, asked.conversion
        )
        asked.time("global_ms", started)
        if result.family is None:
            result.reason = f"{claim.reason}; but {result.reason}"
            return Decline(self.name, RouteTrace(self.name, {"global": result.to_dict()}))
        used = result.llm_used
        note = None if used else global_search.EXTRACTIVE_NOTES[result.family]
        done = Done(
            text=result.text,
            titled=result.titled,
            cited=list(result.cited),
            dropped=list(result.dropped),
            sources=result.sources,
            llm=LLMUse(
                used,
                asked.settings.llm_label if used else None,
                note,
                llm.describe(asked.settings) if used else {},
            ),
            web_reason="answered from the whole corpus (the global route)",
        )
        trace = RouteTrace(self.name, {"global": result.to_dict(), "communities": result.communities})
        return Found(trace, GLOBAL_MODE, result.evidence, done=done)

    def draw(self, answer: dict, nodes: dict, edges: dict, limit: int) -> None:
        pass  # its evidence is chunks: the evidence subgraph has them already

    def notes(self, answer: dict) -> list[str]:
        found = answer.get("global") or {}
        if found and not found.get("family"):  # it looked global: say why the answer is a local one
            return [f"(not answered from the whole corpus: {found.get('reason')})"]
        return []

    def explain(self, answer: dict) -> list[str]:
        """The `global:` lines: the family, why the route and the level were chosen, the counts,
        and each community used (or passed over) and why; or why a question that looked global
        went to the local route."""
        found, communities = answer.get("global"), answer.get("communities") or []
        if not found:
            return []
        if not found.get("family"):
            return [f"  global: not taken ({found.get('reason')})"]
        scope = found.get("scope") or {}
        lines = [
            f"  global: {found['family']} ({found.get('method')}"
            + (f", term {found['term']!r}" if found.get("term") else "")
            + (f", level {found['level']}" if found.get("level") is not None else ", no community level")
            + f"; scope {scope.get('noun')}, corpus {scope.get('corpus') or 'any'}, {scope.get('documents')} documents)",
            f"    why: {found.get('reason')}",
        ]
        if found["family"] == "topic":
            counts = f"{found.get('documents_total')} documents mention it, {found.get('shown')} quoted (budget {found.get('budget')})"
        else:
            counts = f"{found.get('shown')} themes shown (budget {found.get('budget')}), {found.get('rest')} more at this level"
        lines.append(f"    {counts}; {found.get('ms')} ms")
        if found.get("method") == "map-reduce":
            lines.append(
                f"    map-reduce: {found.get('map_requests')} map request(s), {found.get('map_points')} point(s); "
                f"dropped in the map: {', '.join(found.get('map_dropped') or []) or 'none'}"
            )
        shown = [c for c in communities if c.get("used")]
        shown += [c for c in communities if not c.get("used")][:MAX_PASSED_OVER]
        for c in shown:
            mark = "used" if c.get("used") else "not used"
            lines.append(
                f"    community {c.get('id')} (level {c.get('level')}, {c.get('chunks')} chunks, {c.get('documents')} in-scope "
                f"documents) {c.get('title') or ''}: {mark}, {c.get('why')}"
            )
        if len(communities) > len(shown):
            lines.append(f"    … {len(communities) - len(shown)} more not used (--json has them all)")
        return lines
