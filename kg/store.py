"""Batched, MERGE-idempotent writes of entities, relations and provenance.

Rows are plain dicts; the labels and relationship types in them must already have passed
the schema's allowlist (:meth:`KGSchema.entity_type` / :meth:`KGSchema.relation_type`):
the Cypher applies them as dynamic labels and types (`SET e:$(row.type)`), never as text.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from .. import audit
from ..budget import MAX_KEY_CHARS
from ..db import Graph, query

BATCH = 500


@dataclass
class WriteStats:
    nodes_created: int = 0
    relationships_created: int = 0
    labels_added: int = 0
    properties_set: int = 0

    def add(self, counters) -> None:
        self.nodes_created += counters.nodes_created
        self.relationships_created += counters.relationships_created
        self.labels_added += counters.labels_added
        self.properties_set += counters.properties_set

    def to_dict(self) -> dict:
        return {
            "nodesCreated": self.nodes_created,
            "relationshipsCreated": self.relationships_created,
            "labelsAdded": self.labels_added,
        }


def run_batched(graph: Graph, name: str, rows: list[dict], stats: WriteStats, batch: int = BATCH, **params) -> None:
    """The named write query over `rows` in batches, one transaction each."""
    text = query(name)
    for start in range(0, len(rows), batch):
        part = rows[start : start + batch]

        def work(tx, part=part):
            return tx.run(text, rows=part, **params).consume().counters

        with graph.session() as session:
            counters = session.execute_write(work)
        stats.add(counters)
        audit.counted(counters)


@dataclass
class Extraction:
    """What one extraction run wants in the graph, checked against the schema."""

    entities: dict[str, dict] = field(default_factory=dict)
    relations: dict[tuple, dict] = field(default_factory=dict)
    describes: list[dict] = field(default_factory=list)
    mentions: list[dict] = field(default_factory=list)
    instance_of: list[dict] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    skipped_examples: list[str] = field(default_factory=list)

    def entity(self, row: dict, *, implied: bool = False) -> dict:
        """Add or improve an entity; a typed (non-implied) row wins over one implied by a relation."""
        old = self.entities.get(row["id"])
        row = dict(row, implied=implied)
        if old is None or (old["implied"] and not implied):
            if old is not None:
                row["aliases"] = sorted(set(old.get("aliases") or []) | set(row.get("aliases") or []))
            self.entities[row["id"]] = row
            return row
        old["aliases"] = sorted(set(old.get("aliases") or []) | set(row.get("aliases") or []))
        return old

    def relation(self, source: str, rel_type: str, target: str, props: dict) -> None:
        key = (source, rel_type, target)
        if key not in self.relations:
            self.relations[key] = {"source": source, "target": target, "type": rel_type, "props": props}

    def skip(self, reason: str, example: str) -> None:
        self.skipped[reason] += 1
        if len(self.skipped_examples) < 20:
            self.skipped_examples.append(example)

    def by_type(self) -> dict[str, int]:
        return dict(sorted(Counter(e["type"] for e in self.entities.values()).items()))

    def relations_by_type(self) -> dict[str, int]:
        return dict(sorted(Counter(r["type"] for r in self.relations.values()).items()))


def _too_long(entity: dict) -> bool:
    """Whether an entity's id or normName is over MAX_KEY_CHARS: index keys Neo4j would refuse,
    failing the whole batch; such a "name" (a blob an extractor took for one) is skipped."""
    return any(isinstance(entity.get(k), str) and len(entity[k]) > MAX_KEY_CHARS for k in ("id", "normName"))


def entity_rows(extraction: Extraction) -> list[dict]:
    """The entities' write rows; one whose id or normName is too long to index is left out and
    counted in `extraction.skipped` (its relations then find no end and are not written)."""
    rows = []
    for e in list(extraction.entities.values()):
        if _too_long(e):
            extraction.skip("name too long to index", (e.get("name") or e["id"])[:80])
            continue
        props = {k: v for k, v in e.items() if k not in {"id", "type", "implied", "aliases"} and v is not None}
        if isinstance(props.get("typeScores"), dict):
            props["typeScores"] = json.dumps(props["typeScores"], sort_keys=True)
        rows.append(
            {
                "id": e["id"],
                "type": e["type"],
                "implied": e["implied"],
                "aliases": e.get("aliases") or [],
                "props": props,
            }
        )
    return rows


def write(graph: Graph, extraction: Extraction, schema_labels: list[str], batch: int = BATCH) -> WriteStats:
    """Entities first (relations and provenance need both ends), then everything else."""
    return write_in_order(graph, [extraction], schema_labels, batch)


def write_in_order(
    graph: Graph, extractions: list[Extraction], schema_labels: list[str], batch: int = BATCH
) -> WriteStats:
    """Several extractions in few transactions, their rows in the given order: the graph is the
    one writing them one after the other would leave (a later row's SET wins, aliases add up)."""
    stats = WriteStats()
    entities = [row for part in extractions for row in entity_rows(part)]
    run_batched(graph, "kg/merge_entities", entities, stats, batch, schemaLabels=schema_labels)
    run_batched(graph, "kg/merge_relations", [r for part in extractions for r in part.relations.values()], stats, batch)
    for name, attr in (
        ("kg/merge_describes", "describes"),
        ("kg/merge_mentions", "mentions"),
        ("kg/merge_instance_of", "instance_of"),
    ):
        rows = [row for part in extractions for row in getattr(part, attr)]
        if rows:
            run_batched(graph, name, rows, stats, batch)
    return stats


def record_schema(graph: Graph, schema) -> None:
    """Keep the schema's relation types and question phrases in the graph (`:__Schema`), so the
    structured route knows how questions name them whichever file the schema came from."""
    relations = {name: rel.to_dict() for name, rel in schema.relation_types.items()}
    text = query("kg/record_schema")
    with graph.session() as session:
        session.execute_write(
            lambda tx: tx.run(
                text,
                name=schema.name,
                relations=json.dumps(relations, sort_keys=True),
                types=json.dumps(dict(schema.entity_types), sort_keys=True),
                where=schema.path,
            ).consume()
        )


def summary(extraction: Extraction, stats: WriteStats) -> dict:
    return {
        "nodesByType": extraction.by_type(),
        "entities": len(extraction.entities),
        "edgesBuilt": len(extraction.relations),
        "edgesByType": extraction.relations_by_type(),
        "edgesSkippedBySchema": sum(n for r, n in extraction.skipped.items() if r.startswith("schema")),
        "skipped": dict(sorted(extraction.skipped.items())),
        "skippedExamples": extraction.skipped_examples,
        "written": stats.to_dict(),
    }
