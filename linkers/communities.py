"""Communities of the phrase/entity graph: themes of the corpus found by graph statistics, no LLM.

LazyGraphRAG's idea on our graph: chunks that share rare phrases, mention the same entities,
follow each other or say similar things belong together. The graph is projected into Open GDS
through the `graphdatascience` client (``cypher/queries/communities/project.cypher``):

* chunk–phrase for phrases 2..``MAX_PHRASE_CHUNKS`` chunks share, weight 1/sqrt(chunks sharing
  it) (the graph mode's cap; a name in hundreds of chunks joins everything to everything);
* chunk–entity (MENTIONS), weight 1/sqrt(chunks mentioning the entity); entity–entity
  relations between mentioned entities, weight 1;
* chunk–document, weight 1/sqrt(chunks of the document); chunk–next chunk, weight 1;
* chunk–chunk by meaning: GDS KNN over the chunk embeddings (top ``KNN_TOP_K``, cosine as the
  weight, fixed seed, one thread), so corpora whose phrases join nothing across documents
  (fairy tales) still have cross-document links. Chunks without an embedding take no part in
  KNN and keep their other edges.

Leiden (weighted, ``includeIntermediateCommunities``, fixed ``randomSeed``) finds hierarchical
communities; Louvain stands in where Leiden cannot run. Level 0 is the coarsest; a level equal
to the one above it is dropped; communities of one member are skipped. Phrases and documents
only join: members are chunks and entities.

A community's id is ``L{level}-{first 12 hex of sha1 over its sorted member ids}``: a second
build on an unchanged graph writes nothing, and after new documents only communities whose
members changed are written (with their reports); those that no longer exist are deleted. The
GDS projection is dropped in every case, also after an error.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from graphrag_cypher.admin.doctor import community_fingerprint
from graphrag_cypher.db import Graph, query
from graphrag_cypher.errors import GraphragError

from .base import no_progress
from .community_reports import Level, Members

MAX_PHRASE_CHUNKS = 50  # the graph mode's floor, maxPhraseChunks (retrieval/base.py WEIGHTS)
KNN_TOP_K = 10
SEED = 42
BATCH = 5000  # rows per write statement
MEMBER_BATCH = 10000  # node ids per member lookup


@dataclass
class BuildResult:
    """What a build found and wrote; `to_dict` is the --json output."""

    levels: int = 0
    counts: list[int] = field(default_factory=list)  # communities per level, level 0 (coarsest) first
    created: int = 0
    updated: int = 0  # same members, changed content (a chunk's text): report written again
    kept: int = 0
    deleted: int = 0
    members: int = 0  # chunks and entities in a community of two or more
    chunks: int = 0
    embedded: int = 0
    projected_nodes: int = 0
    projected_relationships: int = 0
    knn_relationships: int = 0
    algorithm: str = "leiden"
    by_corpus: bool = False  # each corpus's communities found apart
    seed: int = SEED
    written: bool = False  # whether the build changed the graph
    llm: dict = field(default_factory=dict)  # requested, cached, written, failed, model
    built_at: str | None = None
    fingerprint: str = ""
    ms: int = 0
    seconds: dict = field(default_factory=dict)  # phase -> seconds

    def to_dict(self) -> dict:
        return asdict(self)


def _require_plugins(graph: Graph) -> None:
    """One actionable line when GDS (the algorithms) or APOC (the fingerprint's counts) is missing."""
    present = {row["name"] for row in graph.read("admin/procedure_namespaces")}
    for procedure, name in (("gds.version", "Open GDS"), ("apoc.version", "APOC")):
        if procedure not in present:
            raise GraphragError(
                f"{name} is not installed in this Neo4j: communities need it (`graphrag neo4j start` ships it; "
                'with Docker set NEO4J_PLUGINS=["apoc","graph-data-science"])'
            )


def _gds(graph: Graph):
    """The graphdatascience client on the project's driver and database (Bolt only: Open GDS
    has no Arrow server)."""
    from graphdatascience import GraphDataScience

    return GraphDataScience(graph.driver, database=graph.database, arrow=False, show_progress=False)


def _community_id(level: int, member_ids: list[str]) -> str:
    digest = hashlib.sha1("\n".join(sorted(member_ids)).encode("utf-8")).hexdigest()
    return f"L{level}-{digest[:12]}"


def _members_hash(member_ids: list[str], hashes: list[str | None]) -> str:
    pairs = sorted(f"{m}\x1f{h or ''}" for m, h in zip(member_ids, hashes, strict=True))
    return hashlib.sha1("\n".join(pairs).encode("utf-8")).hexdigest()


def _run_algorithm(gds, G, embedded: int, result: BuildResult, progress: Callable[[str], None]):
    """KNN edges between embedded chunks, then Leiden (Louvain when Leiden refuses): the
    stream of nodeId, intermediateCommunityIds (finest level first)."""
    types = ["LINK"]
    if embedded >= 2:
        progress(f"communities: KNN over {embedded} chunk embeddings")
        knn = gds.knn.mutate(
            G,
            mutate_relationship_type="SIMILAR",
            mutate_property="weight",
            node_properties=["embedding"],
            node_labels=["Embedded"],
            top_k=min(KNN_TOP_K, embedded - 1),
            random_seed=SEED,
            concurrency=1,
        )
        result.knn_relationships += int(knn.relationships_written)
        gds.graph.relationships.to_undirected(G, "SIMILAR", "SIMILAR_BOTH", aggregation="MAX")
        types.append("SIMILAR_BOTH")
    progress("communities: Leiden")
    try:
        return gds.leiden.stream(
            G,
            relationship_types=types,
            relationship_weight_property="weight",
            include_intermediate_communities=True,
            random_seed=SEED,
            concurrency=1,
        )
    except Exception as exc:  # noqa: BLE001 - any refusal of Leiden falls back to Louvain
        if type(exc).__module__.split(".")[0] not in {"neo4j", "graphdatascience"}:
            raise
        progress("communities: Leiden could not run; Louvain")
        result.algorithm = "louvain"
        return gds.louvain.stream(
            G,
            relationship_types=types,
            relationship_weight_property="weight",
            include_intermediate_communities=True,
            concurrency=1,
        )


def _find_communities(
    graph: Graph,
    result: BuildResult,
    progress: Callable[[str], None],
    corpus: str | None = None,
    embedded: int | None = None,
) -> tuple[list, list]:
    """Project (the whole graph, or one corpus's chunks and what they reach), run the algorithm,
    drop the projection: (node ids, per node its community per level, finest first)."""
    gds = _gds(graph)
    name = f"graphrag-communities-{uuid.uuid4().hex[:12]}"
    try:
        if corpus is None:
            progress("communities: projecting the graph")
            G, projected = gds.graph.project.cypher(
                query("communities/project"), graphName=name, maxPhraseChunks=MAX_PHRASE_CHUNKS
            )
        else:
            progress(f"communities: projecting corpus {corpus or '(none)'}")
            G, projected = gds.graph.project.cypher(
                query("communities/project_corpus"), graphName=name, maxPhraseChunks=MAX_PHRASE_CHUNKS, corpus=corpus
            )
        result.projected_nodes += int(projected.node_count)
        result.projected_relationships += int(projected.relationship_count)
        stream = _run_algorithm(gds, G, result.embedded if embedded is None else embedded, result, progress)
        node_ids = [int(n) for n in stream["nodeId"]]
        if "intermediateCommunityIds" in stream and stream["intermediateCommunityIds"].notna().all():
            levels = [list(x) for x in stream["intermediateCommunityIds"]]
        else:
            levels = [[int(c)] for c in stream["communityId"]]
        return node_ids, levels
    finally:
        try:
            gds.graph.drop(name, fail_if_missing=False)
        finally:
            gds.close()


def _resolve_members(graph: Graph, node_ids: list[int], per_node: list[list]) -> tuple[Members, list[list]]:
    """Chunks and entities among the projected nodes, and their communities per level."""
    where = {nid: i for i, nid in enumerate(node_ids)}
    members = Members([], [], [], [], [])
    labels: list[list] = []
    for start in range(0, len(node_ids), MEMBER_BATCH):
        for row in graph.read("communities/members", nodeIds=node_ids[start : start + MEMBER_BATCH]):
            members.ids.append(row["id"])
            members.chunk.append(bool(row["chunk"]))
            members.name.append(row["name"])
            members.document.append(row["document"])
            members.hash.append(row["hash"])
            labels.append(per_node[where[row["nodeId"]]])
    return members, labels


def _by_corpus(graph: Graph, result: BuildResult, progress: Callable[[str], None]) -> tuple[Members, list[list]]:
    """Communities found in each corpus apart (`--by-corpus`): the members of every corpus's run
    one after the other, their labels told apart by the corpus and padded to the deepest run's
    levels (a corpus with fewer levels keeps its coarsest at the levels above), so no community
    holds chunks of two corpora and a key scoped to a corpus sees all of that corpus's themes.
    An entity two corpora name is a member in each."""
    members = Members([], [], [], [], [])
    labels: list[list] = []
    for row in graph.read("communities/corpora"):
        if row["chunks"] < 2:  # one chunk is no community
            continue
        node_ids, per_node = _find_communities(graph, result, progress, row["corpus"], row["embedded"])
        part, part_labels = _resolve_members(graph, node_ids, per_node)
        members.extend(part)
        labels.extend([(row["corpus"], c) for c in per] for per in part_labels)
    depth = max((len(per) for per in labels), default=0)
    return members, [per + [per[-1]] * (depth - len(per)) for per in labels]


def _levels(members: Members, labels: list[list]) -> list[Level]:
    """Communities per level, coarsest first, a level equal to the one above it dropped,
    communities of one member skipped; each with its parent at the level above (the community
    of the level above that holds most of its members)."""
    depth = len(labels[0]) if labels else 0
    partitions: list[list] = []
    for j in reversed(range(depth)):  # GDS gives the finest level first
        column = [row[j] for row in labels]
        if partitions and _same_partition(partitions[-1], column):
            continue
        partitions.append(column)
    levels: list[Level] = []
    for number, column in enumerate(partitions):
        groups: dict[Any, list[int]] = defaultdict(list)
        for i, community in enumerate(column):
            groups[community].append(i)
        communities = {
            _community_id(number, [members.ids[i] for i in rows]): rows for rows in groups.values() if len(rows) > 1
        }
        levels.append(Level(number, dict(sorted(communities.items()))))
    for above, level in zip(levels, levels[1:], strict=False):
        owner = {i: cid for cid, rows in above.communities.items() for i in rows}
        for cid, rows in level.communities.items():
            votes = Counter(owner[i] for i in rows if i in owner)
            if votes:
                level.parents[cid] = min(votes, key=lambda p: (-votes[p], p))
    return [level for level in levels if level.communities]


def _same_partition(a: list, b: list) -> bool:
    pairs = set(zip(a, b, strict=True))
    return len(pairs) == len(set(a)) == len(set(b))


def _batches(rows: list, size: int = BATCH):
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def build(
    graph: Graph,
    embedder=None,
    settings=None,
    progress: Callable[[str], None] | None = None,
    llm_reports: bool = False,
    parallel: int = 4,
    by_corpus: bool | None = None,
) -> BuildResult:
    """Find the communities of the graph and bring the graph's :Community nodes, their member and
    parent edges, their reports and the :__CommunityState to exactly that.

    `embedder` embeds the extractive report of a community none of whose chunks has an
    embedding (without one, such a community has no embedding); `settings` (default: the
    graph's) names the LLM for `llm_reports`, written `parallel` requests at a time.
    `by_corpus` finds each corpus's communities apart (see `_by_corpus`); None: as the last build
    did (the whole graph when none ran)."""
    from . import community_reports as reports

    progress = progress or no_progress
    settings = settings or graph.settings
    started = time.perf_counter()
    if llm_reports:
        reports.require_llm(settings)
    _require_plugins(graph)
    result = BuildResult()
    fingerprint, counts = community_fingerprint(graph, with_counts=True)
    result.fingerprint = fingerprint
    result.chunks, result.embedded = counts["chunks"], counts["embedded"]
    if not result.chunks:
        raise GraphragError("no chunks in the graph: load documents first (e.g. `graphrag load sample`)")

    state = graph.read("communities/state")
    if by_corpus is None:
        by_corpus = bool(state and state[0].get("byCorpus"))
    result.by_corpus = by_corpus

    phase = time.perf_counter()
    if by_corpus:
        members, labels = _by_corpus(graph, result, progress)
        result.seconds["gds"] = round(time.perf_counter() - phase, 3)
        phase = time.perf_counter()
    else:
        node_ids, per_node = _find_communities(graph, result, progress)
        result.seconds["gds"] = round(time.perf_counter() - phase, 3)
        phase = time.perf_counter()
        progress(f"communities: reading {len(node_ids)} placed nodes")
        members, labels = _resolve_members(graph, node_ids, per_node)
        del node_ids, per_node
    levels = _levels(members, labels)
    del labels
    result.levels = len(levels)
    result.counts = [len(level.communities) for level in levels]
    result.members = len({i for level in levels for rows in level.communities.values() for i in rows})
    wanted: dict[str, tuple[Level, list[int], str]] = {}
    for level in levels:
        for cid, rows in level.communities.items():
            wanted[cid] = (level, rows, _members_hash([members.ids[i] for i in rows], [members.hash[i] for i in rows]))
    existing = {row["id"]: row for row in graph.read("communities/existing")}
    stale = sorted(set(existing) - set(wanted))
    fresh: list[str] = []
    for cid, (_, rows, digest) in wanted.items():
        old = existing.get(cid)
        if old is None:
            result.created += 1
            fresh.append(cid)
        elif old["membersHash"] != digest or old["size"] != len(rows) or old["edges"] != len(rows):
            result.updated += 1
            fresh.append(cid)
        else:
            result.kept += 1
    result.deleted = len(stale)
    result.seconds["compare"] = round(time.perf_counter() - phase, 3)

    built_at = datetime.now(UTC).isoformat(timespec="seconds")
    if fresh:
        phase = time.perf_counter()
        written = reports.extractive(graph, members, levels, set(fresh), embedder=embedder, progress=progress)
        result.seconds["reports"] = round(time.perf_counter() - phase, 3)
    phase = time.perf_counter()
    for ids in _batches(stale):
        graph.write("communities/delete", ids=ids)
    if fresh:
        upserts = []
        for cid in fresh:
            level, member_rows, digest = wanted[cid]
            props = written[cid]
            props.update(level=level.level, membersHash=digest, builtAt=built_at)
            upserts.append({"id": cid, "props": props})
        for batch in _batches(upserts, 500):
            graph.write("communities/upsert", rows=batch)
        edges = []
        for cid in fresh:
            level, member_rows, _ = wanted[cid]
            edges.append(
                {
                    "community": cid,
                    "level": level.level,
                    "chunks": [members.ids[i] for i in member_rows if members.chunk[i]],
                    "entities": [members.ids[i] for i in member_rows if not members.chunk[i]],
                }
            )
        done = 0
        for batch in _edge_batches(edges):
            graph.write("communities/link_members", rows=batch)
            done += len(batch)
            progress(f"communities: {done}/{len(edges)} communities linked to their members")
    changed = set(fresh)
    parents = [
        {"child": child, "parent": parent}
        for level in levels
        for child, parent in level.parents.items()
        if child in changed or parent in changed
    ]
    for batch in _batches(parents):
        graph.write("communities/link_parents", rows=batch)
    result.seconds["write"] = round(time.perf_counter() - phase, 3)

    if llm_reports:
        phase = time.perf_counter()
        result.llm = reports.llm_reports(graph, settings, parallel=parallel, progress=progress)
        result.seconds["llm"] = round(time.perf_counter() - phase, 3)

    result.written = bool(fresh or stale or parents or (result.llm or {}).get("written"))
    result.ms = round((time.perf_counter() - started) * 1000)
    unchanged_state = bool(state) and (
        state[0]["fingerprint"] == fingerprint
        and state[0]["counts"] == result.counts
        and state[0]["algorithm"] == result.algorithm
        and bool(state[0].get("byCorpus")) == by_corpus
    )
    if result.written or not unchanged_state:
        result.built_at = built_at
        graph.write(
            "communities/set_state",
            state={
                "builtAt": built_at,
                "levels": result.levels,
                "counts": result.counts,
                "algorithm": result.algorithm,
                "seed": result.seed,
                "ms": result.ms,
                "fingerprint": fingerprint,
                "byCorpus": by_corpus,
            },
        )
    else:
        result.built_at = state[0]["builtAt"]
    return result


def _edge_batches(rows: list[dict], edges: int = BATCH):
    """Member-edge rows in batches of about `edges` edges (a large community is one row)."""
    batch: list[dict] = []
    size = 0
    for row in rows:
        batch.append(row)
        size += len(row["chunks"]) + len(row["entities"])
        if size >= edges:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch
