"""Text-to-Cypher's rows as structured rows: each cited to where its first node came from (its
document, its record), and shown by what the graph holds."""

from __future__ import annotations

import json
import re

from .plans import Plan, Row


def from_cypher(graph, question: str, result) -> tuple[Plan, list[Row], int | float]:
    """(plan, rows, total) of a text-to-Cypher answer: each row cited to where its first node came
    from (its document, its record), and shown by what the graph holds.

    Only text read from the graph goes under a citation: a value of the row is quoted when it is
    a value of a node the row names from the cited source (those nodes re-read by id in a read
    transaction); anything else the statement returned (a literal, a computed value) is kept in
    the row's `uncited` values and `returned` row, never in the cited text. A row with nothing
    to quote is shown by its node's name or title as the graph holds it; a row naming no node of
    the graph is shown as it came, without a citation."""
    found = {r["id"]: r for r in graph.read("structured/ref_sources", ids=result.refs)} if result.refs else {}
    held = {r["id"]: set(r["values"]) for r in graph.read("structured/ref_values", ids=list(found))} if found else {}
    rows: list[Row] = []
    for raw in result.rows:
        shown: list[str] = []
        ids: list[str] = []
        labels: list[str] = []
        _show_values(raw, shown, ids, labels)
        ref = next((i for i in ids if i in found), None)
        origin = found.get(ref or "", {})
        record = None
        if origin and not origin.get("documentId") and origin.get("recordSource"):
            record = f"{origin['recordSource']}#{origin.get('name') or ref}"
        source = _source_of(origin, ref) if ref else None
        if source is None:  # nothing to cite it to: the row as it came
            name, uncited = ", ".join(shown) or json.dumps(raw, ensure_ascii=False)[:200], []
        else:
            readable = set().union(
                *(held.get(i, set()) for i in dict.fromkeys(ids) if _source_of(found.get(i), i) == source)
            )
            quoted = [v for v in shown if _read_from(v, readable)]
            uncited = [v for v in shown if not _read_from(v, readable)]
            name = ", ".join(quoted) or str(origin.get("name") or ref)
        rows.append(
            Row(
                name,
                ref or "",
                labels,
                via="text2cypher",
                document_id=origin.get("documentId"),
                chunk_id=origin.get("chunkId"),
                title=origin.get("title"),
                uri=origin.get("uri"),
                text=origin.get("text") or "",
                record=record,
                uncited=uncited,
                returned=raw,
            )
        )
    number = _single_number(result.rows)
    plan = Plan(
        "cypher",
        f"text-to-Cypher: the templates did not cover the question; the model's statement gave {len(rows)} row(s)",
        term="number" if number is not None else None,
    )
    if number is not None:
        return plan, [], number
    return plan, rows, len(rows)


def _source_of(origin: dict | None, ref: str) -> tuple | None:
    """What a node found by ref_sources is cited to: its document, else its record."""
    if not origin:
        return None
    if origin.get("documentId"):
        return ("document", origin["documentId"])
    if origin.get("recordSource"):
        return ("record", origin["recordSource"], origin.get("name") or ref)
    return None


def _read_from(value: str, readable: set[str]) -> bool:
    """Whether a shown value is one the graph holds (a string cut by the result budget: its start)."""
    if value in readable or (value.lower() in ("true", "false") and value.lower() in readable):
        return True
    if value.endswith("…") and len(value) >= 16:  # the shortest cut (GRAPHRAG_CYPHER_MAX_VALUE_CHARS)
        start = value[:-1]
        return any(v.startswith(start) for v in readable)
    return False


def _single_number(rows: list[dict]) -> int | float | None:
    if len(rows) == 1 and len(rows[0]) == 1:
        value = next(iter(rows[0].values()))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
    return None


_ID_LIKE = re.compile(r"(?i)^(?:id|ids|element_?id)$|_id$|Id$")


def _show_values(value, shown: list[str], ids: list[str], labels: list[str], column: str | None = None) -> None:
    if isinstance(value, dict):
        if "labels" in value and "id" in value:  # a node
            ids.append(str(value["id"]))
            labels.extend(label for label in value.get("labels") or [] if label != "__Entity__")
            shown.append(str(value.get("name") or value.get("title") or value["id"]))
            return
        for key, item in value.items():
            _show_values(item, shown, ids, labels, key)
        return
    if isinstance(value, list):
        for item in value[:50]:
            _show_values(item, shown, ids, labels, column)
        return
    if value is None:
        return
    if column is not None and _ID_LIKE.search(column):
        ids.append(str(value))
        return
    shown.append(str(value))
