"""What the linkers that write `(:Chunk)-[:MENTIONS]->()` share: reading the chunks, and
bringing the linker's edges to exactly the set a run decided on.

A run reads the linker's edges first (`linkers/mentions.cypher`) and sends only the
difference (`linkers/write_mentions.cypher`: new edges, one per chunk and target, changed
properties, edges this run no longer makes), so the graph always shows the result of the
last run and a repeated run writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from graphrag_cypher.db import Graph


def iter_chunks(graph: Graph, corpus: str | None, with_text: bool, page: int = 5000) -> Iterator[dict]:
    """Chunks to link as {id, docId, section, text}, in id order (text "" unless `with_text`)."""
    after = ""
    while True:
        row = graph.read_row("linkers/chunks", after=after, limit=page, corpus=corpus, withText=with_text)
        for chunk, doc, section, text in zip(row["ids"], row["docIds"], row["sections"], row["texts"], strict=True):
            yield {"id": chunk, "docId": doc, "section": section, "text": text}
        if len(row["ids"]) < page:
            return
        after = row["ids"][-1]


@dataclass
class MentionChanges:
    created: int = 0
    updated: int = 0
    removed: int = 0
    total: int = 0  # the linker's edges in the graph afterwards, in all chunks


def read_mentions(graph: Graph, linker: str) -> list[tuple[str, str, dict]]:
    """The linker's edges in the graph: (chunk id, entity id, properties but `at`)."""
    row = graph.read_row("linkers/mentions", linker=linker)
    return list(zip(row["chunkIds"], row["targetIds"], row["props"], strict=True))


def count_mentions(graph: Graph, linker: str) -> int:
    """The linker's edges in the graph."""
    return graph.read("linkers/count_mentions", linker=linker)[0]["total"]


def sync_mentions(
    graph: Graph,
    edges: dict,
    chunk_ids: list[str],
    linker: str,
    batch: int,
    existing: list[tuple[str, str, dict]] | None = None,
) -> MentionChanges:
    """Make the linker's edges of the scanned chunks exactly `edges` ({(chunk id, target id):
    properties}), given the edges there are (:func:`read_mentions`, read here unless given):
    create the missing, update the changed, remove those not made, and send nothing else."""
    if existing is None:
        existing = read_mentions(graph, linker)
    scanned = set(chunk_ids)
    before = {(c, t): props for c, t, props in existing if c in scanned}
    changes = MentionChanges(total=len(existing))
    create, update = [], []
    for (chunk, target), props in sorted(edges.items()):
        old = before.get((chunk, target))
        if old is None:
            create.append({"chunkId": chunk, "targetId": target, "props": props})
        elif any(old.get(k) != v for k, v in props.items()):
            update.append({"chunkId": chunk, "targetId": target, "props": props})
    remove = [{"chunkId": c, "targetId": t} for c, t in sorted(before) if (c, t) not in edges]
    work = [("create", r) for r in create] + [("update", r) for r in update] + [("remove", r) for r in remove]
    for start in range(0, len(work), batch):
        part: dict[str, list] = {"create": [], "update": [], "remove": []}
        for kind, item in work[start : start + batch]:
            part[kind].append(item)
        done = graph.write("linkers/write_mentions", linker=linker, **part)[0]
        changes.created += done["created"]
        changes.updated += done["updated"]
        changes.removed += done["removed"]
    changes.total += changes.created - changes.removed
    return changes
