"""Entity documents: one text document per entity, rendered from its name, type, description,
properties and relations (both directions, with the other entity's name and type), so vector
and full-text search can find an entity by what the graph knows about it.

Each is a ``:Document:EntityDocument`` (kind ``entity``, id ``entity:<entity id>``) loaded by the
same :class:`~graphrag_cypher.store.ingest.Loader` as every other document: chunked, embedded, and
skipped when its content hash is unchanged, so a second run changes nothing and an entity whose
properties or relations changed regenerates only its own document (a changed relation changes
the documents of both its ends). Every chunk is linked ``(:Chunk)-[:MENTIONS {rule: 'own-title',
source: 'entity-document'}]->(entity)``: the rule retrieval reads as "this chunk is about the
entity". Documents whose entity is gone are removed.

The text is data: values are rendered as they are, travel as parameters, and no label or
relationship type is ever built from them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from graphrag_cypher.store.ingest import LoadOptions, LoadStats, load

from ..db import Graph
from ..model import ParsedDocument, Section

LOADER = "entity-docs"
SOURCE_ROOT = "graphrag:entities"
ID_PREFIX = "entity:"
PAGE = 500  # entities read per query
MAX_RELATIONS = 200  # relations rendered each way; the rest are counted
# Titles turned into entities by `link titles`: the document carrying the title is already their text.
DEFAULT_EXCLUDED_TYPES = ("Topic",)

# Properties that are bookkeeping, not knowledge: not rendered.
HIDDEN = frozenset(
    {
        "id",
        "name",
        "type",
        "description",
        "aliases",
        "normName",
        "confidence",
        "confidenceBy",
        "heuristicConfidence",
        "heuristicType",
        "reason",
        "typeScores",
        "needsReview",
        "typedBy",
        "validatedBy",
        "validatedType",
        "validationReason",
        "infoboxType",
        "source",
        "schema",
        "documentId",
        "canonical",
        "uri",
        "embedding",
        "embeddingModel",
        "title",
        "linkedAs",  # what `link entities` last linked it as (linkers/entities.py)
    }
)
_HIDDEN_SUFFIX = re.compile(r"(?:Id|Ids|Hash|At|Checksum)$")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass
class EntityDocStats:
    entities: int = 0
    by_type: Counter = field(default_factory=Counter)
    pruned_documents: int = 0
    pruned_chunks: int = 0
    mentions_created: int = 0
    load: LoadStats = field(default_factory=LoadStats)

    def to_dict(self) -> dict:
        out = self.load.to_dict()
        out["documents"]["pruned"] = self.pruned_documents
        out["chunks"]["deleted"] += self.pruned_chunks
        out["entities"] = self.entities
        out["entitiesByType"] = dict(sorted(self.by_type.items()))
        out["mentionsCreated"] = self.mentions_created
        return out


def document_id(entity_id: str) -> str:
    return ID_PREFIX + entity_id


def _words(key: str) -> str:
    return _CAMEL.sub(" ", key).replace("_", " ").lower()


def _value(value) -> str | None:
    """A property value as text, or None when it has none worth showing."""
    if value is None or isinstance(value, bool) and not value:
        return None
    if isinstance(value, bool):
        return "yes"
    if isinstance(value, (list, tuple)):
        parts = [_value(v) for v in value]
        text = "; ".join(p for p in parts if p)
        return text or None
    if isinstance(value, float):
        return f"{value:g}"
    text = str(value).strip()
    if text.startswith("{") and text.endswith("}"):
        try:  # a JSON object kept as text (e.g. scores): bookkeeping, not knowledge
            json.loads(text)
            return None
        except ValueError:
            pass
    return text or None


def entity_type(row: dict) -> str:
    if row.get("type"):
        return str(row["type"])
    labels = sorted(label for label in row.get("labels") or [] if label != "__Entity__")
    return labels[0] if labels else "Entity"


def _relation_line(subject: str, rel: dict, other_first: bool) -> str:
    other = rel["name"] + (f" ({rel['otherType']})" if rel.get("otherType") else "")
    verb = _words(rel["type"])
    line = f"{other} {verb} {subject}" if other_first else f"{subject} {verb} {other}"
    if rel.get("description"):
        line += f": {str(rel['description']).strip()}"
    return line + "."


def render(row: dict) -> str:
    """The text of one entity's document (deterministic: the same graph gives the same text)."""
    name = row.get("name") or row["id"]
    props = row.get("props") or {}
    kind = entity_type(row)
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    lines = [name, f"{name} is {article} {kind}."]
    aliases = [a for a in props.get("aliases") or [] if a and a != name]
    if aliases:
        lines.append("Also known as: " + "; ".join(sorted(aliases)) + ".")
    description = _value(props.get("description"))
    if description:
        lines += ["", description]
    facts = []
    for key in sorted(props):
        if key in HIDDEN or _HIDDEN_SUFFIX.search(key):
            continue
        text = _value(props[key])
        if text:
            facts.append(f"{_words(key)}: {text}")
    if facts:
        lines += ["", "Properties:"] + facts
    outgoing, incoming = row.get("outgoing") or [], row.get("incoming") or []
    if outgoing or incoming:
        lines += ["", "Relations:"]
        lines += [_relation_line(name, rel, other_first=False) for rel in outgoing]
        if row.get("outgoingTotal", 0) > len(outgoing):
            lines.append(f"… and {row['outgoingTotal'] - len(outgoing)} more relations from {name}.")
        lines += [_relation_line(name, rel, other_first=True) for rel in incoming]
        if row.get("incomingTotal", 0) > len(incoming):
            lines.append(f"… and {row['incomingTotal'] - len(incoming)} more relations to {name}.")
    return "\n".join(lines)


def to_document(row: dict) -> ParsedDocument:
    return ParsedDocument(
        id=document_id(row["id"]),
        title=row.get("name") or row["id"],
        kind="entity",
        source=f"entity {row['id']}",
        labels=("EntityDocument",),
        metadata={"entityId": row["id"], "entityType": entity_type(row)},
        sections=[Section(render(row))],
    )


@dataclass
class Selection:
    """Which entities a run covers: a corpus (or all), types (or all but the excluded ones)."""

    corpus: str | None = None
    types: tuple[str, ...] = ()

    @property
    def excluded(self) -> list[str]:
        return [] if self.types else list(DEFAULT_EXCLUDED_TYPES)

    def covers(self, entity_type: str | None, labels: list[str]) -> bool:
        """Whether an existing entity of this type and labels is in this run's scope."""
        if self.types:
            return entity_type in self.types or any(label in self.types for label in labels)
        return (entity_type or "") not in self.excluded


def entity_rows(graph: Graph, selection: Selection, page: int = PAGE) -> Iterator[dict]:
    after = ""
    while True:
        rows = graph.read(
            "kg/entity_document_sources",
            after=after,
            limit=page,
            corpus=selection.corpus,
            types=list(selection.types),
            excludeTypes=selection.excluded,
            maxRelations=MAX_RELATIONS,
        )
        yield from rows
        if len(rows) < page:
            return
        after = rows[-1]["id"]


def stale_documents(graph: Graph, selection: Selection, keep: set[str]) -> list[str]:
    """Entity documents to remove: their entity is gone, or it is in this run's scope (its
    --corpus, else every corpus; its types) and was not selected this time (it left the corpus)."""
    stale = []
    for row in graph.read("kg/entity_documents"):
        if not row["entityExists"]:
            stale.append(row["id"])
        elif (
            row["id"] not in keep
            and (selection.corpus is None or row["corpus"] == selection.corpus)
            and selection.covers(row["entityType"], row["entityLabels"])
        ):
            stale.append(row["id"])
    return stale


def _corpus(row: dict, selection: Selection) -> str | None:
    """A run's --corpus, else the one corpus of the documents about the entity (none when several)."""
    if selection.corpus:
        return selection.corpus
    corpora = row.get("corpora") or []
    return corpora[0] if len(corpora) == 1 else None


def _add(total: LoadStats, part: LoadStats) -> LoadStats:
    """`total` plus `part`, as a new LoadStats."""
    out = LoadStats()
    for name in ("created", "updated", "unchanged", "failed", "chunks_created", "chunks_deleted", "embedded"):
        setattr(out, name, getattr(total, name) + getattr(part, name))
    out.reused_vectors = total.reused_vectors + part.reused_vectors
    out.errors = total.errors + part.errors
    out.warnings = total.warnings + part.warnings
    return out


def run(
    graph: Graph,
    embedder,
    selection: Selection,
    *,
    chunk_size: int = 1000,
    overlap: int = 100,
    on_error: Callable[[str], None] = lambda line: None,
    on_progress: Callable[[LoadStats], None] = lambda stats: None,
) -> EntityDocStats:
    """Generate, update and prune the entity documents of the selected entities.

    Documents are grouped by corpus (chunks carry their document's corpus) and each group goes
    through the Loader; the entities are read first, a page at a time."""
    stats = EntityDocStats()
    groups: dict[str | None, list[ParsedDocument]] = {}
    failed = LoadStats()
    for row in entity_rows(graph, selection):
        stats.entities += 1
        stats.by_type[entity_type(row)] += 1
        try:
            doc = to_document(row)
        except Exception as exc:  # one entity that cannot be rendered never stops the rest
            failed.failed += 1
            failed.errors.append({"item": f"entity {row['id']}", "error": f"cannot render: {exc}"})
            on_error(f"entity {row['id']}: cannot render: {exc}")
            continue
        groups.setdefault(_corpus(row, selection), []).append(doc)
    total = failed
    for corpus in sorted(groups, key=lambda c: (c is not None, c or "")):
        options = LoadOptions(
            loader=LOADER, source_root=SOURCE_ROOT, corpus=corpus, chunk_size=chunk_size, overlap=overlap
        )
        done = total

        def progress(part: LoadStats, done: LoadStats = done) -> None:
            on_progress(_add(done, part))

        total = _add(done, load(graph, embedder, options, groups[corpus], on_error=on_error, on_progress=progress))
    stats.load = total
    keep = [doc.id for docs in groups.values() for doc in docs]
    at = datetime.now(UTC).isoformat()
    for start in range(0, len(keep), PAGE):
        stats.mentions_created += graph.write("kg/link_entity_documents", ids=keep[start : start + PAGE], at=at)[0][
            "created"
        ]
    if total.failed:
        on_error("pruning skipped: some entities failed, so no entity document is removed")
        return stats
    stale = stale_documents(graph, selection, set(keep))
    for start in range(0, len(stale), PAGE):
        ids = stale[start : start + PAGE]
        result = graph.write_steps(
            ("phrases/release_documents", {"ids": ids}), ("kg/delete_entity_documents", {"ids": ids})
        )[-1][0]
        stats.pruned_documents += result["documents"]
        stats.pruned_chunks += result["chunks"] or 0
    return stats
