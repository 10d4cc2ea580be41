"""Gazetteer place rows into the graph: batched, idempotent, one error line per bad row.

Rows come from the parsers in :mod:`graphrag_cypher.loaders.gazetteers` (Pleiades, GeoNames)
and :mod:`graphrag_cypher.loaders.modern_places`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from graphrag_cypher.db import Graph
from graphrag_cypher.errors import Neo4jUnavailable
from graphrag_cypher.store.ingest import LoadInterrupted

from .gazetteers import GazetteerError


@dataclass
class PlaceStats:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: int = 0
    errors: list[dict] = field(default_factory=list)

    @property
    def written(self) -> int:
        return self.created + self.updated + self.unchanged

    def to_dict(self) -> dict:
        return {
            "places": {
                "created": self.created,
                "updated": self.updated,
                "unchanged": self.unchanged,
                "failed": self.failed,
            },
            "errors": self.errors,
        }


def write_places(
    graph: Graph,
    rows: Iterable[dict | GazetteerError],
    batch: int = 2000,
    on_error: Callable[[GazetteerError], None] = lambda error: None,
    on_progress: Callable[[PlaceStats], None] = lambda stats: None,
) -> PlaceStats:
    """Write place rows as :Place nodes, `batch` per transaction; a GazetteerError is counted and
    reported, the rest still loads. Idempotent: unchanged places are left alone.

    Raises :class:`~graphrag_cypher.store.ingest.LoadInterrupted` when Neo4j goes away mid-load."""
    from graphrag_cypher.audit import audited

    stats = PlaceStats()
    with audited(graph, "load") as audit:
        try:
            return _write_places(graph, rows, batch, on_error, on_progress, stats)
        finally:
            audit.add({"loaders": {"places": 1}})
            audit.add({"places": {"created": stats.created, "updated": stats.updated, "failed": stats.failed}})


def _write_places(graph: Graph, rows, batch: int, on_error, on_progress, stats: PlaceStats) -> PlaceStats:
    pending: list[dict] = []

    def flush() -> None:
        if pending:
            row = graph.write("places/upsert_places", rows=pending)[0]
            stats.created += row["created"]
            stats.updated += row["updated"]
            stats.unchanged += row["unchanged"]
            pending.clear()
            on_progress(stats)

    try:
        for item in rows:
            if isinstance(item, GazetteerError):
                stats.failed += 1
                stats.errors.append({"item": item.item, "error": item.error})
                on_error(item)
                continue
            pending.append(item)
            if len(pending) >= batch:
                flush()
        flush()
    except Neo4jUnavailable as exc:
        raise LoadInterrupted(
            str(exc),
            f"{stats.created} place(s) created, {stats.updated} updated, {stats.unchanged} unchanged, all kept",
            stats.to_dict(),
        ) from None
    return stats
