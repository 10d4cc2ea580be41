"""`graphrag link places`: chunks -[:MENTIONS]-> gazetteer places, by either of two engines.

Both engines look for the same names under the same rule (see :mod:`.matcher`) and differ
only in how they find them:

* ``fast`` — one pass over all chunk texts with an Aho–Corasick automaton of all names;
* ``cypher`` — the reference: per name, a full-text shortlist on the `chunk_text` index and
  a word-boundary regex, in `cypher/queries/linkers/match_names.cypher`.

What happens to the matches is shared, and reads only what both engines give for each
match (where it is, the text as written and the words around it: :mod:`.contexts`): of
overlapping names the longest wins; matches in not-a-place contexts (a person's epithet, a
siglum, an institution, an italic title, a person's name) are dropped and counted; then
each mention (a name in a chunk) gets one decision (:mod:`.disambiguation`): the record it
means, a confidence, the rule that decided and the candidates, best first. A decision below
`min_confidence` links nothing and is counted as undecided. The linker's edges are read
first (`linkers/mentions.cypher`); only the difference is written
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

from .contexts import RAW_WINDOW, Occurrence, kind_cues, longest_matches, not_a_place, qualifier, title_cue, window
from .disambiguation import Decision, Profile, Profiles, decide, distance_km, document_context
from .matcher import Matcher, NameTable, build_name_table, fold, fulltext_query, java_pattern, load_stoplist

LINKER = "places"
ENGINE_SOURCES = {"fast": "aho-corasick", "cypher": "fulltext+regex"}
# Sections whose place names are publishers' cities and titles, not the article's places.
# The same pattern runs in Python (re.fullmatch) and in Cypher (=~); keep it to syntax both share.
SKIP_SECTIONS = (r"(?is)(?:.*>[ ]*)?(?:select |selected |annotated )?(?:bibliography|bibliographie|bibliografia"
                 r"|literaturverzeichnis|works cited|works consulted|titles cited|references|references cited"
                 r"|literature cited|sources cited|abbreviations|abbreviations and [a-z ]+|abbreviations used[a-z ]*"
                 r"|further reading|ludography|filmography|discography|catalogues)[ ]*[.:]?(?:[ ]*>.*)?")
MIN_CONFIDENCE = 0.5
MAX_CANDIDATES = 10  # alternatives kept on an edge
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
    min_confidence: float = MIN_CONFIDENCE  # decisions below it link nothing (counted as undecided)
    contexts: bool = True  # drop matches in not-a-place contexts (epithets, sigla, institutions, titles)


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
    overlapped: int = 0  # matches inside a longer name's match
    not_a_place: dict = field(default_factory=dict)  # rule → matches dropped
    linked: int = 0  # mentions (occurrences of names) that got an edge: each one edge
    undecided: int = 0  # mentions whose best candidate is below min_confidence: no edge
    rules: dict = field(default_factory=dict)  # rule → mentions decided by it
    names_cached: bool = False
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
        chunks_read = pool.submit(lambda: (list(iter_chunks(graph, options.corpus, with_text=fast)),
                                           document_emphasis(graph, options.corpus)))
        started = time.perf_counter()
        source = PlaceNameSource(graph, options, result, pool)
        if not fast:
            source.confirm()  # before a long match
        _check_places(source.names)
        result.seconds["names"] = round(time.perf_counter() - started, 3)
        progress(f"{result.names} names of {result.places} places ({result.stoplisted} stop-listed, "
                 f"{result.too_short} too short)")

        started = time.perf_counter()
        chunks, emphasis = chunks_read.result()
        skip = re.compile(options.skip_sections) if options.skip_sections else None
        chunk_doc = {c["id"]: c["docId"] for c in chunks}
        eligible = [c for c in chunks if not (skip and skip.fullmatch(c["section"] or ""))]
        result.chunks_scanned, result.chunks_skipped = len(eligible), len(chunks) - len(eligible)
        found = match_fast(_matcher(source.names, options), eligible) if fast \
            else match_reference(graph, source.names.table, options, progress)
        if not source.confirm():  # the places changed since the cached table was built
            _check_places(source.names)
            found = match_fast(_matcher(source.names, options), eligible)
        result.seconds["match"] = round(time.perf_counter() - started, 3)
        result.matches = sum(len(v) for v in found.values())

    started = time.perf_counter()
    names = source.names
    mentions = place_mentions(found, names, chunk_doc, emphasis if options.contexts else None, result)
    edges = resolve(mentions, names.table.targets, chunk_doc, names.profiles, options.min_confidence, result,
                    exonyms=names.exonyms)
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


def document_emphasis(graph: Graph, corpus: str | None) -> dict[str, list[str]]:
    """Each document's italic spans (titles as the source marked them), by document id."""
    row = graph.read_row("linkers/document_emphasis", corpus=corpus)
    return {doc: list(spans) for doc, spans in zip(row["docIds"], row["emphasis"]) if spans}


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
    profiles: Profiles  # place id → Profile (what the decision knows of it, made on first use)
    exonyms: dict = field(default_factory=dict)  # folded English name → place ids it was given to
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
    raw = {}
    for pid, aliases, (lat, lon), (title, description, source, types) in sorted(
            zip(row["ids"], row["names"], row["points"], row["profiles"]), key=lambda r: r[0]):
        for name in aliases or []:
            if isinstance(name, str):
                names[name].append(pid)
        raw[pid] = [title, description, source, list(types or []), lat, lon, len(aliases or [])]
    profiles = Profiles(raw, fold)
    exonyms: dict[str, list[str]] = defaultdict(list)
    for name, pid in load_exonyms():
        if pid in profiles:
            if pid not in names[name]:
                names[name].append(pid)
            exonyms[fold(name)].append(pid)
    table = build_name_table(names, min_length=options.min_length, stoplist=options.stoplist)
    return PlaceNames([len(row["ids"]), row["fingerprint"]], len(row["ids"]), table, profiles, dict(exonyms))


def load_exonyms() -> list[tuple[str, str]]:
    """English names the gazetteer lacks, given to a record (`exonyms.txt`: "Egypt = pleiades:981503")."""
    pairs = []
    text = resources.files("graphrag_cypher.linkers").joinpath("exonyms.txt").read_text("utf-8")
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if "=" in line:
            name, pid = (part.strip() for part in line.split("=", 1))
            if name and pid:
                pairs.append((name, pid))
    return pairs


def rules_key(sources: list[str] | None, options: PlaceLinkOptions) -> str:
    """The cache file for a name table: one per set of name rules and version of the code
    and queries that build it (the places it was built from are checked each run)."""
    code = hashlib.sha256()
    for module in ("matcher.py", "places.py", "disambiguation.py", "exonyms.txt"):
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
        profiles = Profiles(data["profiles"], fold)
        names = PlaceNames(list(data["fingerprint"]), data["places"], table, profiles,
                           {k: list(v) for k, v in data["exonyms"].items()}, data["automaton"])
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        return None
    os.utime(path)  # recently used: kept when older tables are dropped
    return names


def _write_cache(path: Path, names: PlaceNames) -> None:
    table = names.table
    data = {"fingerprint": names.fingerprint, "places": names.places, "targets": table.targets,
            "too_short": table.too_short, "stoplisted": table.stoplisted, "unsearchable": table.unsearchable,
            "profiles": names.profiles.raw,
            "exonyms": names.exonyms, "automaton": names.automaton}
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


def match_fast(matcher: Matcher, chunks: list[dict]) -> dict[str, list[Occurrence]]:
    """chunk id → the names found in it, by one Aho–Corasick pass per chunk."""
    found: dict[str, list[Occurrence]] = {}
    for chunk in chunks:
        text = chunk["text"] or ""
        occurrences = []
        for match in matcher.find(text):
            before, after = window(text[max(0, match.start - RAW_WINDOW):match.start],
                                   text[match.end:match.end + RAW_WINDOW])
            occurrences.append(Occurrence(chunk["id"], match.key, match.start, match.end, match.surface, before, after))
        if occurrences:
            found[chunk["id"]] = occurrences
    return found


def match_reference(graph: Graph, table: NameTable, options: PlaceLinkOptions,
                    progress: Callable[[str], None]) -> dict[str, list[Occurrence]]:
    """chunk id → the names found in it, one full-text query and regex per name, in Neo4j
    (positions are in the chunk's NFD text)."""
    found: dict[str, list[Occurrence]] = defaultdict(list)
    keys = sorted(table.targets)
    for start in range(0, len(keys), options.name_batch):
        batch = [{"key": k, "query": fulltext_query(k), "capital": options.require_capital,
                  "pattern": java_pattern(k, skip_tails=options.skip_tails)}
                 for k in keys[start:start + options.name_batch]]
        for row in graph.read("linkers/match_names", names=batch, corpus=options.corpus, window=RAW_WINDOW,
                              skipSections=options.skip_sections or NO_MATCH):
            for begin, end, surface, before, after in row["found"]:
                before, after = window(before, after)
                found[row["chunkId"]].append(Occurrence(row["chunkId"], row["key"], begin, end,
                                                        unicodedata.normalize("NFC", surface), before, after))
        done = min(start + options.name_batch, len(keys))
        if done % 5000 < options.name_batch or done == len(keys):
            progress(f"cypher engine: {done}/{len(keys)} names")
    return dict(found)


def load_person_names(paths=()) -> frozenset[str]:
    """Folded gazetteer names usually meant as people (`persons.txt`): linked only after a place word."""
    return load_stoplist(paths, shipped="persons.txt")


def place_mentions(found: dict[str, list[Occurrence]], names: PlaceNames, chunk_doc: dict,
                   emphasis: dict[str, list[str]] | None, result: LinkResult | None = None,
                   person_names: frozenset[str] | None = None) -> dict[tuple[str, str], list[Occurrence]]:
    """(chunk id, folded name) → its occurrences that stand: the longest of overlapping names,
    and (unless `emphasis` is None) none in a not-a-place context."""
    targets, profiles = names.table.targets, names.profiles
    persons = load_person_names() if person_names is None else person_names
    joined = {doc: "\x00".join(spans) for doc, spans in (emphasis or {}).items()}
    place_words: dict[str, bool] = {}

    def is_place(word: str) -> bool:
        if word not in place_words:
            place_words[word] = any(profiles.get(t, Profile()).quality >= 1.0 for t in targets.get(word, ()))
        return place_words[word]

    mentions: dict[tuple[str, str], list[Occurrence]] = defaultdict(list)
    dropped: dict[str, int] = defaultdict(int)
    overlapped = 0
    kept_by_chunk = {}
    for chunk in sorted(found):
        kept_by_chunk[chunk] = longest_matches(found[chunk])
        overlapped += len(found[chunk]) - len(kept_by_chunk[chunk])
    # A name the document italicises on its own, and somewhere calls a game or a book, is a
    # title in that whole document (the board game *Thebes*).
    titles: set[tuple[str, str]] = set()
    if emphasis is not None:
        bare = {doc: {fold(span) for span in spans} for doc, spans in emphasis.items()}
        for chunk, kept in kept_by_chunk.items():
            doc = chunk_doc.get(chunk)
            titles.update((doc, occ.key) for occ in kept if occ.key in bare.get(doc, ()) and title_cue(occ))
    for chunk, kept in kept_by_chunk.items():
        doc = chunk_doc.get(chunk)
        for occ in kept:
            if (doc, occ.key) in titles:
                dropped["title"] += 1
                continue
            if emphasis is not None:
                spans = emphasis.get(doc, []) if occ.surface in joined.get(doc, "") else []
                why = not_a_place(occ, is_place=is_place, person_names=persons,
                                  emphasis=[span for span in spans if occ.surface in span])
                if why:
                    dropped[why] += 1
                    continue
            mentions[(chunk, occ.key)].append(occ)
    if result is not None:
        result.overlapped, result.not_a_place = overlapped, dict(sorted(dropped.items()))
    return mentions


def resolve(mentions: dict[tuple[str, str], list[Occurrence]], targets: dict, chunk_doc: dict, profiles: dict,
            min_confidence: float = MIN_CONFIDENCE, result: LinkResult | None = None, *,
            exonyms: dict | None = None, linker: str = LINKER) -> dict:
    """Names found → edges {(chunk id, target id): props}: one decision per mention (each
    occurrence of a name; see :mod:`.disambiguation`), none below `min_confidence`. An edge
    gathers the mentions of its chunk that decided for its place (`mentions`: how many)."""
    exonyms = exonyms or {}
    unique: dict[tuple, set] = defaultdict(set)
    for (chunk, key) in mentions:
        if len(targets[key]) == 1:
            unique[(chunk_doc[chunk], chunk)].add(targets[key][0])
    known, by_chunk = document_context(unique, profiles)
    doc_points: dict[str, list] = defaultdict(list)
    for (doc, _), points in sorted(by_chunk.items()):
        doc_points[doc].extend(points)
    doc_points = {doc: sorted(set(points)) for doc, points in doc_points.items()}
    distances: dict[tuple, float | None] = {}
    doc_distances: dict[tuple, float | None] = {}

    def distance(doc: str, chunk: str, target: str) -> float | None:
        """Median distance from a record to the document's places, the chunk's own counting as much."""
        cached = distances.get((chunk, target), False)
        if cached is not False:
            return cached
        prof = profiles.get(target)
        value = None
        if prof is not None and prof.point is not None:
            whole = _median_distance(prof.point, doc_points.get(doc) or [], doc_distances, (doc, target))
            near = _median_distance(prof.point, by_chunk.get((doc, chunk)) or [], None, None)
            value = whole if near is None else near if whole is None else (whole + near) / 2
        distances[(chunk, target)] = value
        return value

    edges: dict[tuple[str, str], dict] = {}
    rules: dict[str, int] = defaultdict(int)
    undecided = linked = 0
    # A mention is one occurrence of a name; occurrences of a name in a chunk with the same
    # words-around evidence (kind cues, qualifier) get the same decision, made once.
    groups: dict[tuple[str, str], dict[tuple, list[Occurrence]]] = {}
    cued: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))

    memo: dict[str, Decision] = {}

    def decision_for(chunk: str, key: str, cues: frozenset, qualifiers: frozenset, sense: str | None) -> Decision:
        doc = chunk_doc[chunk]
        candidates = targets[key]
        if len(candidates) == 1 and not (cues or qualifiers):
            prof = profiles.get(candidates[0])
            if prof is not None and prof.quality >= 1.0:  # a lone described record: the same decision everywhere
                if key not in memo:
                    memo[key] = decide(key, candidates, profiles, cues=set(), exonyms=frozenset(exonyms.get(key, ())))
                return memo[key]
        return decide(key, targets[key], profiles, cues=set(cues), exonyms=frozenset(exonyms.get(key, ())),
                      known=known.get(doc, set()), distance=lambda target: distance(doc, chunk, target),
                      qualifiers=set(qualifiers), sense=sense)

    for (chunk, key), occurrences in sorted(mentions.items()):
        by_evidence: dict[tuple, list[Occurrence]] = defaultdict(list)
        for occ in occurrences:
            cues = frozenset(kind_cues(occ)) if len(targets[key]) > 1 else frozenset()  # they choose among candidates
            found = qualifier(occ)
            qualifiers = frozenset({fold(found)} if found and fold(found) in targets and fold(found) != key else ())
            by_evidence[(cues, qualifiers)].append(occ)
        groups[(chunk, key)] = by_evidence
        for (cues, qualifiers) in by_evidence:
            # What the words around say this name means in this document ("modern" and
            # "ancient" contrast one mention with the others, so they do not count).
            if cues - {"modern", "ancient"} or qualifiers:
                first = decision_for(chunk, key, cues, qualifiers, None)
                if first.confidence >= min_confidence and first.rule in ("kind-cue", "qualifier"):
                    cued[(chunk_doc[chunk], key)][first.target] += 1
    # One sense per document: a name the words around decide somewhere ("Roman Africa") means
    # the same where they say nothing ("coins found in Africa").
    senses = {place: max(sorted(votes), key=lambda t: votes[t]) for place, votes in cued.items()}
    for (chunk, key), by_evidence in sorted(groups.items()):
        for (cues, qualifiers), occurrences in sorted(by_evidence.items(), key=lambda g: (sorted(g[0][0]), sorted(g[0][1]))):
            sense = senses.get((chunk_doc[chunk], key)) if not (cues or qualifiers) and len(targets[key]) > 1 else None
            decision = decision_for(chunk, key, cues, qualifiers, sense)
            if decision.confidence < min_confidence:
                undecided += len(occurrences)
                continue
            linked += len(occurrences)
            rules[decision.rule] += len(occurrences)
            surfaces = sorted({occ.surface for occ in occurrences})
            props = {"matched": surfaces, "keys": [key], "mentions": len(occurrences), "rule": decision.rule,
                     "confidence": decision.confidence, "candidates": decision.candidates[:MAX_CANDIDATES],
                     "linker": linker}
            edge = edges.get((chunk, decision.target))
            if edge is None:
                edges[(chunk, decision.target)] = props
                continue
            edge["matched"] = sorted(set(edge["matched"]) | set(surfaces))
            edge["keys"] = sorted({*edge["keys"], key})
            edge["mentions"] += len(occurrences)
            if (decision.confidence, key) > (edge["confidence"], edge["keys"][0]):
                edge.update(rule=decision.rule, confidence=decision.confidence, candidates=props["candidates"])
    if result is not None:
        result.undecided, result.rules = undecided, dict(sorted(rules.items()))
        result.linked = linked
    return edges


def _median_distance(point, points: list, cache: dict | None, key) -> float | None:
    if cache is not None and key in cache:
        return cache[key]
    value = None
    if points:
        value = sorted(distance_km(point, p) for p in points)[len(points) // 2]
    if cache is not None:
        cache[key] = value
    return value


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
    """Edges in a comparable form: (chunk, place, matched, rule, confidence, candidates) — for parity checks."""
    return {(c, t, tuple(p["matched"]), p["rule"], p["confidence"], tuple(p["candidates"])) for (c, t), p in edges.items()}
