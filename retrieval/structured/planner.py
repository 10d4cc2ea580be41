"""The route's two steps over the graph: a question to a plan (by author, documents that
mention, else a relation lookup) or a refusal, and a plan to its rows."""

from __future__ import annotations

from ..base import Filters
from .authored import AUTHORED_FAMILIES, _authored, _authored_plan, _authored_question
from .documents import _documents, _documents_plan, _documents_question
from .graph_catalog import catalog
from .lookup import _lookup, _lookup_plan
from .plans import MAX_ROWS, Plan, Refusal, Row
from .shape import _COUNT


def plan(graph, analysis, embedder=None) -> Plan | Refusal:
    """What the question asks of the graph's structure, or why it does not."""
    question = analysis.search_text or analysis.question
    counting = bool(_COUNT.search(question))
    authored = _authored_question(question)
    if authored is not None:
        found = _authored_plan(graph, authored, counting)
        if found is not None:
            return found
    cat = catalog(graph)
    docs = _documents_question(question, cat)
    if docs is not None:
        return _documents_plan(graph, analysis, cat, docs, counting)
    return _lookup_plan(graph, analysis, cat, embedder, counting)


def run(graph, p: Plan, filters: Filters, limit: int = MAX_ROWS) -> tuple[list[Row], int]:
    """(rows, total): the plan's answer rows and, for documents, how many the scope holds."""
    if p.family in ("documents", "count_documents"):
        return _documents(graph, p, filters)
    if p.family in AUTHORED_FAMILIES:
        return _authored(graph, p, filters)
    rows = _lookup(graph, p, limit)
    return rows, len(rows)
