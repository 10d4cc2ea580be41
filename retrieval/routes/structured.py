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
from ..abstain import Abstention
from ..answer import neutral
from .base import Asked, Decline, Done, Found, LLMUse, RouteTrace

STRUCTURED_NOTE = "Answered from the graph's structure (its relations and every matching document); no LLM was needed."
NO_RECORD_NOTE = "The graph's relations were read for this: it holds no such record, so nothing is cited."
CUT_NOTE = "(The result was cut: {cut}.)"
UNCITED_NOTE = (
    "(Values the statement returned that are not read from a cited source are not quoted here: "
    "the rows in --json have them.)"
)
MAX_ROWS_SHOWN = 20  # rows --explain lists
MAX_OTHERS_SHOWN = 12  # entities not chosen that --explain lists


def _no_record(claim) -> bool:
    """A lookup that abstains when it finds no edge: its relation was named by the question's own
    words (a phrase or a lemma, not a guess by similarity), and no passage mentions its entity (a
    passage might say what the records do not: the search route reads them)."""
    if not claim.hops or not claim.entity or claim.entity.get("chunks"):
        return False
    by = claim.hops[0].by
    return by == "phrase" or by.startswith("graph (lemma") or by.startswith("graph (answer type")


def _candidate_lines(directed: dict | None) -> list[str]:
    """The graph-directed choice: what the question asks for, and each relation the entity has."""
    if not directed:
        return []
    lines = [f"    the entity's own relations (asks for {directed.get('asks')}): {directed.get('why')}"]
    for c in (directed.get("candidates") or [])[:MAX_OTHERS_SHOWN]:
        fits = {True: "fits", False: "wrong type", None: "type not asked"}[c.get("fits")]
        chosen = " <- chosen" if c.get("relation") == directed.get("chosen") else ""
        lines.append(
            f"      {c.get('relation')} {c.get('direction')} -> {', '.join(c.get('far') or [])} ({c.get('edges')} edges): "
            f"{fits}, lemma {c.get('lemma')} {c.get('matched') or ''}, similarity {c.get('similarity')}{chosen}"
        )
    return lines


def _asked(question: str) -> str:
    """ "Who killed Jaime Lannister?" as "who killed Jaime Lannister" (a clause after "record of")."""
    text = neutral(question).strip().rstrip("?？.! ")
    first = text.split(" ", 1)[0].lower()
    if first in ("who", "whom", "whose", "what", "which", "where", "when", "how"):
        return text[0].lower() + text[1:]
    return f"what was asked ({text})"


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
            if _no_record(claim):
                return self._no_record(asked, claim, reason)
            return self._decline(dict(claim.to_dict(), family=None, reason=reason))
        result, sources = structure.answer(asked.graph, claim, rows, total, asked.analysis.language)
        result.ms = ms
        return self._found(asked, result, sources)

    def _no_record(self, asked: Asked, claim, reason: str) -> Found:
        """ "Who killed Jaime Lannister?" where the graph holds him and no such edge: it says so,
        citing nothing, rather than quoting passages about someone else."""
        entity = neutral(claim.entity["name"]) if claim.entity else "the entity"
        hop = claim.hops[0]
        edge = f"no {hop.relation} edge {'out of' if hop.x_is_source else 'into'} {entity}"
        text = f"The graph has no record of {_asked(asked.text)} ({edge})."
        done = Done(
            text=text,
            titled=text,
            cited=[],
            sources=[],
            llm=LLMUse(False, None, NO_RECORD_NOTE),
            web_reason="the graph's relations were read: it holds no such record",
            emit=asked.on_token is not None and asked.llm_ready,
            abstained=Abstention(f"the graph has {edge}", "lookup"),
        )
        trace = RouteTrace(self.name, {"structured": dict(claim.to_dict(), reason=reason, count=0), "rows": []})
        return Found(trace, self.name, [], done=done)

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
        from graphrag_cypher.principal import current

        if current().corpora is not None:
            # a statement the model writes can MATCH any node of any corpus: no rewrite of it is
            # proven to stay inside the key's corpora, so a scoped key is answered from its passages
            return self._decline(
                {
                    "family": None,
                    "method": "text2cypher",
                    "reason": f"{why}; text-to-Cypher is off for a key scoped to corpora "
                    "(a written statement could read any corpus)",
                }
            )
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
            return [f"  structured: not taken ({plan.get('reason')})", *_candidate_lines(plan.get("candidates"))]
        lines = [f"  structured: {plan.get('reason')}"]
        for hop in plan.get("hops") or []:
            lines.append(
                f"    relation {hop.get('relation')} {hop.get('direction')} (matched by {hop.get('matched_by')} "
                f"{hop.get('phrase')!r}, score {hop.get('score')})"
            )
        lines.extend(_candidate_lines(plan.get("candidates")))
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
