"""A text-to-Cypher result as plain JSON values, read within a budget.

:class:`ResultBudget` says how much of a statement's result is read (rows, bytes of their JSON,
characters of one string; ``GRAPHRAG_CYPHER_MAX_ROWS``, ``_MAX_BYTES``, ``_MAX_VALUE_CHARS``);
:class:`RowValues` turns driver values into JSON values as they arrive, cutting long ones, and
collects the ids the rows name: a node as ``{"id", "name" or "title", "labels"}``, a relationship
as ``{"type", "start", "end"}`` (the ends' ``id``), a path as its nodes, temporal values as ISO
strings.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any

from ...db import query
from ...errors import GraphragError

MAX_LIST_ITEMS = 100  # of one list value in a row
# `id`, `ids`, `chunkId`, `document_id`... (not `elementId`: an element id is no `id` property)
ID_COLUMN = re.compile(r"^(?:id|ids|ID|Id)$|(?<!element)_(?:id|ids)$|(?<!element)(?<!^)(?:Id|Ids|ID)$")


@dataclass(frozen=True)
class ResultBudget:
    """How much of a statement's result is read: rows, bytes of their JSON, characters of one string."""

    rows: int = 50
    bytes: int = 64 * 1024
    value_chars: int = 1000

    # the environment variable, and the bounds it is checked against, of each field
    ENV = {
        "rows": ("GRAPHRAG_CYPHER_MAX_ROWS", 1, 10_000),
        "bytes": ("GRAPHRAG_CYPHER_MAX_BYTES", 1024, 64 * 1024 * 1024),
        "value_chars": ("GRAPHRAG_CYPHER_MAX_VALUE_CHARS", 16, 1_000_000),
    }

    @classmethod
    def from_env(cls, environ=None) -> ResultBudget:
        """The budget GRAPHRAG_CYPHER_MAX_ROWS, _MAX_BYTES and _MAX_VALUE_CHARS set (defaults for
        those unset); a value that is not a whole number in bounds is a one-line GraphragError."""
        env = os.environ if environ is None else environ
        values = {}
        for name, (variable, low, high) in cls.ENV.items():
            raw = (env.get(variable) or "").strip()
            if not raw:
                continue
            if not raw.isdigit() or not low <= int(raw) <= high:
                raise GraphragError(f"{variable}={raw!r}: give a whole number from {low} to {high}")
            values[name] = int(raw)
        return cls(**values)


def row_bytes(row: dict) -> int:
    """The bytes of a row's JSON (as --json writes it)."""
    return len(json.dumps(row, ensure_ascii=False, default=str).encode("utf-8"))


def kib(n: int) -> str:
    return f"{n / 1024:g} KiB" if n % 1024 == 0 else f"{n} bytes"


class RowValues:
    """Driver values as plain JSON values, collecting refs on the way; a string longer than
    `value_chars` is cut (with "…"), a list after MAX_LIST_ITEMS items, and `cut` says so."""

    def __init__(self, value_chars: int = ResultBudget.value_chars) -> None:
        self.refs: dict[str, None] = {}
        self._pending: dict[str, list[tuple[dict, str]]] = {}  # element id -> (relationship, "start"/"end")
        self.value_chars = value_chars
        self.cut = False

    def convert(self, value: Any, column: str | None = None) -> Any:
        from neo4j.graph import Node, Path, Relationship
        from neo4j.spatial import Point

        if value is None or isinstance(value, (bool, int, float)):
            return value
        if isinstance(value, str):
            if column is not None and ID_COLUMN.search(column):
                self.refs.setdefault(value, None)
            if len(value) > self.value_chars:
                self.cut = True
                return value[: self.value_chars - 1] + "…"
            return value
        if isinstance(value, Node):
            return self.node(value)
        if isinstance(value, Relationship):
            return self.relationship(value)
        if isinstance(value, Path):
            return [self.node(n) for n in value.nodes[:MAX_LIST_ITEMS]]
        if isinstance(value, Point):
            return {"srid": value.srid, **dict(zip(("x", "y", "z"), value, strict=False))}
        if isinstance(value, (list, tuple)):
            if len(value) > MAX_LIST_ITEMS:
                self.cut = True
            return [self.convert(v, column) for v in value[:MAX_LIST_ITEMS]]
        if isinstance(value, dict):
            if len(value) > MAX_LIST_ITEMS:
                self.cut = True
            return {str(k): self.convert(v, str(k)) for k, v in list(value.items())[:MAX_LIST_ITEMS]}
        if isinstance(value, (bytes, bytearray)):
            return self.convert(bytes(value[: self.value_chars]).hex(), column)
        iso = getattr(value, "iso_format", None) or getattr(value, "isoformat", None)
        return iso() if callable(iso) else str(value)

    def node(self, node) -> dict:
        out: dict[str, Any] = {"id": self.convert(node.get("id"))}
        if node.get("name") is not None:
            out["name"] = self.convert(node.get("name"))
        elif node.get("title") is not None:
            out["title"] = self.convert(node.get("title"))
        out["labels"] = sorted(node.labels)
        if isinstance(out["id"], str):
            self.refs.setdefault(out["id"], None)
        return out

    def relationship(self, rel) -> dict:
        out: dict[str, Any] = {"type": rel.type, "start": None, "end": None}
        for end, node in (("start", rel.start_node), ("end", rel.end_node)):
            if node is None:
                continue
            if "id" in node:  # the node came with its properties (it is in the result too)
                out[end] = self.convert(node.get("id"))
                if isinstance(out[end], str):
                    self.refs.setdefault(out[end], None)
            else:
                self._pending.setdefault(node.element_id, []).append((out, end))
        return out

    def resolve(self, tx) -> None:
        """The `id` of relationship ends that came without their properties."""
        if not self._pending:
            return
        found = {
            r["elementId"]: r["id"] for r in tx.run(query("retrieval/node_ids"), elementIds=list(self._pending)).data()
        }
        for element_id, places in self._pending.items():
            node_id = self.convert(found.get(element_id))
            for rel, end in places:
                rel[end] = node_id
            if isinstance(node_id, str):
                self.refs.setdefault(node_id, None)
