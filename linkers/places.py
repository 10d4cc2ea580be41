"""`graphrag link places`: chunks -[:MENTIONS]-> gazetteer places, by either of two engines.

Both engines look for the same names under the same rule (see :mod:`.matcher`) and differ
only in how they find them:

* ``fast`` — one pass over all chunk texts with an Aho–Corasick automaton of all names;
* ``cypher`` — the reference: per name, a full-text shortlist on the `chunk_text` index and
  a word-boundary regex, in `cypher/queries/linkers/match_names.cypher`.

What happens to the matches is shared: a name of one place links it (rule
``unique-name``); a name shared by several places links the candidate the document's
other places point to (``context-document`` when that very place is linked unambiguously
elsewhere in the document, ``context-nearest`` when one candidate is clearly the nearest
to the centre of those places), or else every candidate with ``ambiguous: true``. Edges
are written with `linkers/merge_mentions.cypher` (one per chunk and place) and edges of an
earlier run that this run no longer makes are removed, so the graph always shows the
result of the last run and a repeated run changes nothing.
"""

from __future__ import annotations

import math
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterator

from graphrag_cypher.db import Graph
from graphrag_cypher.errors import GraphragError

from .matcher import Matcher, NameTable, build_name_table, fulltext_query, java_pattern, load_stoplist

LINKER = "places"
ENGINE_SOURCES = {"fast": "aho-corasick", "cypher": "fulltext+regex"}
# Sections whose place names are publishers' cities and titles, not the article's places.
# The same pattern runs in Python (re.fullmatch) and in Cypher (=~); keep it to syntax both share.
SKIP_SECTIONS = (r"(?is)(?:.*>[ ]*)?(?:select |selected )?(?:bibliography|works cited|titles cited|references"
                 r"|references cited|literature cited|sources cited|abbreviations|further reading)(?:[ ]*>.*)?")
RULE_RANK = {"unique-name": 0, "context-document": 1, "context-nearest": 2, "ambiguous": 3}
NO_MATCH = "(?!)"  # a regex nothing matches: "skip no section"


@dataclass
class PlaceLinkOptions:
    engine: str = "fast"
    min_length: int = 3
    stoplist: frozenset[str] = field(default_factory=load_stoplist)
    require_capital: bool = True
    skip_tails: bool = True
    skip_sections: str | None = SKIP_SECTIONS
    context_ratio: float = 0.5  # nearest candidate wins when at most this fraction of the runner-up's distance
    corpus: str | None = None
    gazetteers: tuple[str, ...] | None = None  # Place.source values; None = all
    dry_run: bool = False
    name_batch: int = 1  # names per reference-engine query: 1 is the seed's method, one query per name
    write_batch: int = 2000
    only_keys: frozenset[str] | None = None  # restrict to these folded names (benchmarks on a sample)


@dataclass
class LinkResult:
    """What a run found and did; `to_dict` is the --json output."""

    engine: str
    names: int = 0
    places: int = 0
    stoplisted: int = 0
    too_short: int = 0
    chunks_scanned: int = 0
    chunks_skipped: int = 0
    matches: int = 0
    mentions: int = 0
    mentions_created: int = 0
    mentions_removed: int = 0
    mentions_total: int = 0
    ambiguous: int = 0
    ambiguous_edges: int = 0
    decided_by_context: dict = field(default_factory=lambda: {"context-document": 0, "context-nearest": 0})
    dry_run: bool = False
    seconds: dict = field(default_factory=dict)
    edges: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k != "edges"}
        return out


def link_places(graph: Graph, options: PlaceLinkOptions,
                progress: Callable[[str], None] = lambda _: None) -> LinkResult:
    if options.engine not in ENGINE_SOURCES:
        raise GraphragError(f"unknown engine {options.engine!r}: use fast or cypher")
    result = LinkResult(engine=options.engine, dry_run=options.dry_run)
    started = time.perf_counter()
    table, coords = place_names(graph, options, result)
    if not table.targets:
        raise GraphragError("no places to link: load a gazetteer first (`graphrag load pleiades FILE`)")
    result.seconds["names"] = round(time.perf_counter() - started, 3)
    progress(f"{result.names} names of {result.places} places ({result.stoplisted} stop-listed, "
             f"{result.too_short} too short)")

    started = time.perf_counter()
    skip = re.compile(options.skip_sections) if options.skip_sections else None
    chunks = list(iter_chunks(graph, options.corpus, with_text=options.engine == "fast"))
    chunk_doc = {c["id"]: c["docId"] for c in chunks}
    eligible = [c for c in chunks if not (skip and skip.fullmatch(c["section"] or ""))]
    result.chunks_scanned, result.chunks_skipped = len(eligible), len(chunks) - len(eligible)
    if options.engine == "fast":
        hits = match_fast(table, eligible, options)
    else:
        hits = match_reference(graph, table, options, progress)
    result.seconds["match"] = round(time.perf_counter() - started, 3)
    result.matches = len(hits)

    edges = resolve(hits, table.targets, chunk_doc, coords, options.context_ratio, result)
    for props in edges.values():
        props["source"] = ENGINE_SOURCES[options.engine]
    result.edges = edges
    result.mentions = len(edges)
    if not options.dry_run:
        started = time.perf_counter()
        result.mentions_created, result.mentions_removed = write_mentions(
            graph, edges, [c["id"] for c in chunks], LINKER, options.write_batch)
        result.seconds["write"] = round(time.perf_counter() - started, 3)
    result.mentions_total = graph.read("linkers/count_mentions", linker=LINKER)[0]["total"]
    return result


def place_names(graph: Graph, options: PlaceLinkOptions, result: LinkResult) -> tuple[NameTable, dict]:
    rows = graph.read("places/names", sources=list(options.gazetteers) if options.gazetteers else None)
    names: dict[str, list[str]] = defaultdict(list)
    coords = {}
    for row in sorted(rows, key=lambda r: r["id"]):
        for name in row["names"] or []:
            names[name].append(row["id"])
        if row["lat"] is not None and row["lon"] is not None:
            coords[row["id"]] = (row["lat"], row["lon"])
    table = build_name_table(names, min_length=options.min_length, stoplist=options.stoplist)
    if options.only_keys is not None:
        table.targets = {k: v for k, v in table.targets.items() if k in options.only_keys}
    result.places, result.names = len(rows), len(table.targets)
    result.stoplisted, result.too_short = table.stoplisted, table.too_short
    return table, coords


def iter_chunks(graph: Graph, corpus: str | None, with_text: bool, page: int = 5000) -> Iterator[dict]:
    after = ""
    while True:
        rows = graph.read("linkers/chunks", after=after, limit=page, corpus=corpus, withText=with_text)
        yield from rows
        if len(rows) < page:
            return
        after = rows[-1]["id"]


def match_fast(table: NameTable, chunks: list[dict], options: PlaceLinkOptions) -> dict:
    """(chunk id, folded name) → surfaces, by one Aho–Corasick pass per chunk."""
    matcher = Matcher(table, require_capital=options.require_capital, skip_tails=options.skip_tails)
    hits: dict[tuple[str, str], set[str]] = defaultdict(set)
    for chunk in chunks:
        for match in matcher.find(chunk["text"] or ""):
            hits[(chunk["id"], match.key)].add(match.surface)
    return hits


def match_reference(graph: Graph, table: NameTable, options: PlaceLinkOptions,
                    progress: Callable[[str], None]) -> dict:
    """(chunk id, folded name) → surfaces, one full-text query and regex per name, in Neo4j."""
    hits: dict[tuple[str, str], set[str]] = defaultdict(set)
    keys = sorted(table.targets)
    for start in range(0, len(keys), options.name_batch):
        batch = [{"key": k, "query": fulltext_query(k), "capital": options.require_capital,
                  "pattern": java_pattern(k, skip_tails=options.skip_tails)}
                 for k in keys[start:start + options.name_batch]]
        for row in graph.read("linkers/match_names", names=batch, corpus=options.corpus,
                              skipSections=options.skip_sections or NO_MATCH):
            hits[(row["chunkId"], row["key"])].update(row["surfaces"])
        done = min(start + options.name_batch, len(keys))
        if done % 5000 < options.name_batch or done == len(keys):
            progress(f"cypher engine: {done}/{len(keys)} names")
    return hits


def _distance_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(min(1.0, math.sqrt(h)))


def nearest_candidate(candidates, context, coords, ratio: float):
    """The candidate clearly nearest to the centre of the document's unambiguous places, or None."""
    points = [coords[p] for p in sorted(context) if p in coords]
    located = [p for p in candidates if p in coords]
    if not points or len(located) < 2:
        return None
    centre = (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))
    ranked = sorted((_distance_km(coords[p], centre), p) for p in located)
    (d1, best), (d2, _) = ranked[0], ranked[1]
    return best if d1 <= ratio * d2 and d1 < d2 else None


def resolve(hits: dict, targets: dict, chunk_doc: dict, coords: dict, ratio: float,
            result: LinkResult | None = None) -> dict:
    """Matches → edges {(chunk id, target id): props}, deciding names shared by several targets."""
    context: dict[str, set] = defaultdict(set)
    for (chunk, key) in hits:
        if len(targets[key]) == 1:
            context[chunk_doc[chunk]].add(targets[key][0])
    edges: dict[tuple[str, str], dict] = {}
    for (chunk, key), surfaces in sorted(hits.items()):
        candidates = targets[key]
        if len(candidates) == 1:
            chosen, rule = candidates, "unique-name"
        else:
            known = context[chunk_doc[chunk]]
            inside = [p for p in candidates if p in known]
            nearest = None if len(inside) == 1 else nearest_candidate(candidates, known, coords, ratio)
            if len(inside) == 1:
                chosen, rule = inside, "context-document"
            elif nearest:
                chosen, rule = [nearest], "context-nearest"
            else:
                chosen, rule = candidates, "ambiguous"
            if result is not None:
                if rule == "ambiguous":
                    result.ambiguous += 1
                else:
                    result.decided_by_context[rule] += 1
        for target in chosen:
            edge = edges.get((chunk, target))
            if edge is None:
                edges[(chunk, target)] = {"matched": sorted(surfaces), "keys": [key], "rule": rule,
                                          "candidates": len(candidates), "linker": LINKER}
                continue
            edge["matched"] = sorted(set(edge["matched"]) | set(surfaces))
            edge["keys"] = sorted({*edge["keys"], key})
            edge["candidates"] = min(edge["candidates"], len(candidates))
            if RULE_RANK[rule] < RULE_RANK[edge["rule"]]:
                edge["rule"] = rule
    for edge in edges.values():
        edge["ambiguous"] = edge["rule"] == "ambiguous"
    if result is not None:
        result.ambiguous_edges = sum(1 for e in edges.values() if e["ambiguous"])
    return edges


def write_mentions(graph: Graph, edges: dict, chunk_ids: list[str], linker: str, batch: int) -> tuple[int, int]:
    """Merge the edges, then drop this linker's edges of the scanned chunks that were not made."""
    rows = [{"chunkId": c, "targetId": t, "props": props} for (c, t), props in sorted(edges.items())]
    created = 0
    for start in range(0, len(rows), batch):
        created += graph.write("linkers/merge_mentions", rows=rows[start:start + batch])[0]["created"]
    keep: dict[str, list[str]] = defaultdict(list)
    for chunk, target in edges:
        keep[chunk].append(target)
    removed = 0
    chunks = [{"id": c, "keep": keep.get(c, [])} for c in chunk_ids]
    for start in range(0, len(chunks), batch):
        removed += graph.write("linkers/prune_mentions", chunks=chunks[start:start + batch], linker=linker)[0]["removed"]
    return created, removed


def link_set(edges: dict) -> set[tuple]:
    """Edges in a comparable form: (chunk, place, matched, rule, ambiguous) — for parity checks."""
    return {(c, t, tuple(p["matched"]), p["rule"], p["ambiguous"]) for (c, t), p in edges.items()}
