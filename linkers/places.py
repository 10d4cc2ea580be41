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
to the centre of those places), or else every candidate with ``ambiguous: true``. The
linker's edges are read first (`linkers/mentions.cypher`); only the difference is written
(`linkers/write_mentions.cypher`: new edges, one per chunk and place, changed properties,
edges this run no longer makes), so the graph always shows the result of the last run and
a repeated run writes nothing.

The name table (and the fast engine's automaton) is built from the places in Neo4j and kept
under ``.graphrag/cache/``, one file per set of name rules, with the fingerprint of the places
it was built from. Each run has Neo4j fingerprint the places again (`places/fingerprint.cypher`)
and decides nothing with the file's names unless they are the same (:class:`PlaceNameSource`):
while the gazetteer is unchanged a run reads no names at all, and a changed gazetteer is never
linked with an old table. The fast engine matches while Neo4j computes the fingerprint.
"""

from __future__ import annotations

import gc
import hashlib
import json
import marshal
import math
import os
import re
import sys
import time
import unicodedata
from collections import defaultdict
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Iterator

import ahocorasick

from graphrag_cypher.db import Graph
from graphrag_cypher.errors import GraphragError
from graphrag_cypher.queries import query

from .matcher import Matcher, NameTable, build_name_table, fulltext_query, java_pattern, load_stoplist

LINKER = "places"
ENGINE_SOURCES = {"fast": "aho-corasick", "cypher": "fulltext+regex"}
# Sections whose place names are publishers' cities and titles, not the article's places.
# The same pattern runs in Python (re.fullmatch) and in Cypher (=~); keep it to syntax both share.
SKIP_SECTIONS = (r"(?is)(?:.*>[ ]*)?(?:select |selected )?(?:bibliography|works cited|titles cited|references"
                 r"|references cited|literature cited|sources cited|abbreviations|further reading)(?:[ ]*>.*)?")
RULE_RANK = {"unique-name": 0, "context-document": 1, "context-nearest": 2, "ambiguous": 3}
NO_MATCH = "(?!)"  # a regex nothing matches: "skip no section"
CACHE_DIR = Path(".graphrag") / "cache"
CACHE_KEEP = 4  # name tables kept on disk, one per set of name rules (the most recently used)


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
    write_batch: int = 5000
    only_keys: frozenset[str] | None = None  # restrict to these folded names (benchmarks on a sample)
    cache_dir: Path | None = CACHE_DIR  # the built name table, reused while the places are unchanged; None = off


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
    mentions_updated: int = 0
    ambiguous: int = 0
    ambiguous_edges: int = 0
    names_cached: bool = False
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
    # A fast run makes a few hundred thousand objects that live to its end (the name table)
    # and no reference cycles, so Python's cycle collector would only walk them over and over
    # (a tenth of the run): it pauses for the run. The reference engine's tens of thousands
    # of queries keep it on.
    with _collector_paused(options.engine == "fast"):
        return _link_places(graph, options, progress)


def _link_places(graph: Graph, options: PlaceLinkOptions, progress: Callable[[str], None]) -> LinkResult:
    result = LinkResult(engine=options.engine, dry_run=options.dry_run)
    fast = options.engine == "fast"
    # Neo4j reads the chunks while the names load, then fingerprints the places while the fast
    # engine matches: cached names are confirmed before anything is decided with them.
    with ThreadPoolExecutor(max_workers=1) as pool:
        chunks_read = pool.submit(lambda: list(iter_chunks(graph, options.corpus, with_text=fast)))
        started = time.perf_counter()
        source = PlaceNameSource(graph, options, result, pool)
        if not fast:
            source.confirm()  # before a long match
        _check_places(source.names)
        result.seconds["names"] = round(time.perf_counter() - started, 3)
        progress(f"{result.names} names of {result.places} places ({result.stoplisted} stop-listed, "
                 f"{result.too_short} too short)")

        started = time.perf_counter()
        chunks = chunks_read.result()
        skip = re.compile(options.skip_sections) if options.skip_sections else None
        chunk_doc = {c["id"]: c["docId"] for c in chunks}
        eligible = [c for c in chunks if not (skip and skip.fullmatch(c["section"] or ""))]
        result.chunks_scanned, result.chunks_skipped = len(eligible), len(chunks) - len(eligible)
        hits = match_fast(_matcher(source.names, options), eligible) if fast \
            else match_reference(graph, source.names.table, options, progress)
        if not source.confirm():  # the places changed since the cached table was built
            _check_places(source.names)
            hits = match_fast(_matcher(source.names, options), eligible)
        result.seconds["match"] = round(time.perf_counter() - started, 3)
        result.matches = len(hits)
    table, coords = source.names.table, source.names.coords

    started = time.perf_counter()
    edges = resolve(hits, table.targets, chunk_doc, coords, options.context_ratio, result)
    for props in edges.values():
        props["source"] = ENGINE_SOURCES[options.engine]
    result.seconds["decide"] = round(time.perf_counter() - started, 3)
    result.edges = edges
    result.mentions = len(edges)
    if options.dry_run:
        result.mentions_total = graph.read("linkers/count_mentions", linker=LINKER)[0]["total"]
        return result
    started = time.perf_counter()
    changes = sync_mentions(graph, edges, [c["id"] for c in chunks], LINKER, options.write_batch)
    result.seconds["write"] = round(time.perf_counter() - started, 3)
    result.mentions_created, result.mentions_updated = changes.created, changes.updated
    result.mentions_removed, result.mentions_total = changes.removed, changes.total
    return result


def _check_places(names: PlaceNames) -> None:
    if not names.table.targets:
        raise GraphragError("no places to link: load a gazetteer first (`graphrag load pleiades FILE`)")


def _matcher(names: PlaceNames, options: PlaceLinkOptions) -> Matcher:
    rules = {"require_capital": options.require_capital, "skip_tails": options.skip_tails}
    try:
        return Matcher(names.table, saved=names.automaton, **rules)
    except (TypeError, ValueError, KeyError, IndexError):  # a damaged cache file: build it again
        return Matcher(names.table, **rules)


@contextmanager
def _collector_paused(pause: bool) -> Iterator[None]:
    was_enabled = gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause and was_enabled:
            gc.enable()


@dataclass
class PlaceNames:
    """The names both engines look for, built from the places with this fingerprint."""

    fingerprint: list  # [places, MD5]: see places/fingerprint.cypher
    places: int
    table: NameTable
    coords: dict  # place id → (lat, lon)
    automaton: dict | None = None  # Matcher(table).save(), kept with the table in the cache


class PlaceNameSource:
    """The run's place names: the name table, each place's point and the fast engine's automaton.

    With a cache file for these name rules they are there at once, unconfirmed (Neo4j may be
    fingerprinting the places meanwhile): :meth:`confirm` says whether they are still the
    places the file was built from, and if not, reads the names again and rewrites the file.
    Without a file (or a cache) the names are read, built and saved at once.
    """

    def __init__(self, graph: Graph, options: PlaceLinkOptions, result: LinkResult, pool: Executor | None = None):
        """With a `pool`, the places are fingerprinted there while the cached names load."""
        self.graph, self.options, self.result = graph, options, result
        self.sources = sorted(options.gazetteers) if options.gazetteers else None
        self.path = Path(options.cache_dir) / f"place-names-{rules_key(self.sources, options)}.marshal" \
            if options.cache_dir else None
        cached = self.path is not None and self.path.exists()
        self._asked = pool.submit(graph.read, "places/fingerprint", sources=self.sources) if pool and cached \
            else None
        self.names = _read_cache(self.path) if cached else None
        self.unconfirmed = self.names is not None
        if self.names is None:
            self._read()
        else:
            self._settle(cached=True)

    def confirm(self) -> bool:
        """True when the names in hand are those of the places now; else they are read again."""
        if not self.unconfirmed:
            return True
        [row] = self._asked.result() if self._asked else self.graph.read("places/fingerprint", sources=self.sources)
        self.unconfirmed, self._asked = False, None
        if self.names.fingerprint == [row["places"], row["fingerprint"]]:
            return True
        self._read()
        return False

    def _read(self) -> None:
        self.names = read_place_names(self.graph, self.sources, self.options)
        if self.path:
            self.names.automaton = Matcher(self.names.table).save()
            _write_cache(self.path, self.names)
        self._settle(cached=False)

    def _settle(self, cached: bool) -> None:
        names, result = self.names, self.result
        if self.options.only_keys is not None:
            names.table.targets = {k: v for k, v in names.table.targets.items() if k in self.options.only_keys}
            names.automaton = None  # it was built for all the names
        result.names_cached = cached
        result.places, result.names = names.places, len(names.table.targets)
        result.stoplisted, result.too_short = names.table.stoplisted, names.table.too_short


def place_names(graph: Graph, options: PlaceLinkOptions, result: LinkResult) -> PlaceNames:
    """The run's place names, confirmed (see :class:`PlaceNameSource`)."""
    source = PlaceNameSource(graph, options, result)
    source.confirm()
    return source.names


def read_place_names(graph: Graph, sources: list[str] | None, options: PlaceLinkOptions) -> PlaceNames:
    row = graph.read_row("places/names", sources=sources)
    names: dict[str, list[str]] = defaultdict(list)
    coords = {}
    for pid, aliases, (lat, lon) in sorted(zip(row["ids"], row["names"], row["points"]), key=lambda r: r[0]):
        for name in aliases or []:
            if isinstance(name, str):
                names[name].append(pid)
        if lat is not None and lon is not None:
            coords[pid] = (lat, lon)
    table = build_name_table(names, min_length=options.min_length, stoplist=options.stoplist)
    return PlaceNames([len(row["ids"]), row["fingerprint"]], len(row["ids"]), table, coords)


def rules_key(sources: list[str] | None, options: PlaceLinkOptions) -> str:
    """The cache file for a name table: one per set of name rules and version of the code
    and queries that build it (the places it was built from are checked each run)."""
    code = hashlib.sha256()
    for module in ("matcher.py", "places.py"):
        code.update(resources.files("graphrag_cypher.linkers").joinpath(module).read_bytes())
    for name in ("places/names", "places/fingerprint"):
        code.update(query(name).encode())
    automaton = os.stat(ahocorasick.__file__)  # the saved automaton fits one build of pyahocorasick
    key = [sources, options.min_length, sorted(options.stoplist), code.hexdigest(), unicodedata.unidata_version,
           list(sys.version_info[:2]),  # marshal's format follows the Python version
           [Path(ahocorasick.__file__).name, automaton.st_size, automaton.st_mtime_ns]]
    return hashlib.sha256(json.dumps(key, ensure_ascii=False).encode()).hexdigest()[:32]


def _read_cache(path: Path) -> PlaceNames | None:
    try:
        data = marshal.loads(path.read_bytes())
        table = NameTable(targets=data["targets"], too_short=data["too_short"], stoplisted=data["stoplisted"],
                          unsearchable=data["unsearchable"])
        names = PlaceNames(list(data["fingerprint"]), data["places"], table, data["coords"], data["automaton"])
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        return None
    os.utime(path)  # recently used: kept when older tables are dropped
    return names


def _write_cache(path: Path, names: PlaceNames) -> None:
    table = names.table
    data = {"fingerprint": names.fingerprint, "places": names.places, "targets": table.targets,
            "too_short": table.too_short, "stoplisted": table.stoplisted, "unsearchable": table.unsearchable,
            "coords": names.coords, "automaton": names.automaton}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_bytes(marshal.dumps(data))
        os.replace(partial, path)  # readers see the whole file or none
        older = sorted(path.parent.glob("place-names-*.marshal"), key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in older[CACHE_KEEP:]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass  # a cache that cannot be written only costs time


def iter_chunks(graph: Graph, corpus: str | None, with_text: bool, page: int = 5000) -> Iterator[dict]:
    """Chunks to link as {id, docId, section, text}, in id order (text "" unless `with_text`)."""
    after = ""
    while True:
        row = graph.read_row("linkers/chunks", after=after, limit=page, corpus=corpus, withText=with_text)
        for chunk, doc, section, text in zip(row["ids"], row["docIds"], row["sections"], row["texts"]):
            yield {"id": chunk, "docId": doc, "section": section, "text": text}
        if len(row["ids"]) < page:
            return
        after = row["ids"][-1]


def match_fast(matcher: Matcher, chunks: list[dict]) -> dict:
    """(chunk id, folded name) → surfaces, by one Aho–Corasick pass per chunk."""
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


@dataclass
class MentionChanges:
    created: int = 0
    updated: int = 0
    removed: int = 0
    total: int = 0  # the linker's edges in the graph afterwards, in all chunks


def read_mentions(graph: Graph, linker: str) -> list[tuple[str, str, dict]]:
    """The linker's edges in the graph: (chunk id, entity id, properties but `at`)."""
    row = graph.read_row("linkers/mentions", linker=linker)
    return list(zip(row["chunkIds"], row["targetIds"], row["props"]))


def sync_mentions(graph: Graph, edges: dict, chunk_ids: list[str], linker: str, batch: int,
                  existing: list[tuple[str, str, dict]] | None = None) -> MentionChanges:
    """Make the linker's edges of the scanned chunks exactly `edges`, given the edges there are
    (:func:`read_mentions`, read here unless given): create the missing, update the changed,
    remove those not made, and send nothing else."""
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
        for kind, item in work[start:start + batch]:
            part[kind].append(item)
        done = graph.write("linkers/write_mentions", linker=linker, **part)[0]
        changes.created += done["created"]
        changes.updated += done["updated"]
        changes.removed += done["removed"]
    changes.total += changes.created - changes.removed
    return changes


def write_mentions(graph: Graph, edges: dict, chunk_ids: list[str], linker: str, batch: int) -> tuple[int, int]:
    """:func:`sync_mentions`, as (created, removed)."""
    changes = sync_mentions(graph, edges, chunk_ids, linker, batch)
    return changes.created, changes.removed


def link_set(edges: dict) -> set[tuple]:
    """Edges in a comparable form: (chunk, place, matched, rule, ambiguous) — for parity checks."""
    return {(c, t, tuple(p["matched"]), p["rule"], p["ambiguous"]) for (c, t), p in edges.items()}
