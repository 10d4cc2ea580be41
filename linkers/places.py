"""`graphrag link places`: chunks -[:MENTIONS]-> gazetteer places, by either of two engines.

A run reads, matches, decides and writes (:func:`link_places`):

* **read** — the chunks, and the place names (:mod:`.name_cache`: the name table, each
  place's profile and the fast engine's automaton, kept on disk while the places are
  unchanged);
* **match** — the engines look for the same names under the same rule (see :mod:`.matcher`)
  and differ only in how they find them: ``fast``, one pass over all chunk texts with an
  Aho–Corasick automaton of all names; ``cypher``, the reference: per name, a full-text
  shortlist on the `chunk_text` index and a word-boundary regex, in
  `cypher/queries/linkers/match_names.cypher`;
* **decide** — what happens to the matches is shared, and reads only what both engines
  give for each match (where it is, the text as written and the words around it:
  :mod:`.contexts`): of overlapping names the longest wins; matches in not-a-place contexts
  (a person's epithet, a siglum, an institution, an italic title, a person's name) are
  dropped and counted; then each mention (a name in a chunk) gets one decision
  (:mod:`.disambiguation`): the record it means, a confidence, the rule that decided and the
  candidates, best first. A decision below `min_confidence` links nothing and is counted as
  undecided;
* **write** — only the difference from the linker's edges in the graph (:mod:`.mentions`).

The ``procedure`` engine does all four inside Neo4j, in one call of the graphrag plugin's
`graphrag.link.places` (:func:`link_in_database`): the Java port of these very rules (the
word lists and the section rule are this package's files, copied into the plugin's jar), so
neither the texts nor the names cross Bolt; one row of counts comes back. Its link set is the
fast engine's (the parity tests compare them on fixtures and on the real data).

The fast engine matches while Neo4j fingerprints the places: cached names are confirmed
before anything is decided with them.
"""

from __future__ import annotations

import gc
import re
import time
import unicodedata
from collections import defaultdict
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import ClassVar, Protocol

from neo4j.exceptions import Neo4jError

from graphrag_cypher import lexicon
from graphrag_cypher.admin import plugin
from graphrag_cypher.db import Graph
from graphrag_cypher.errors import GraphragError
from graphrag_cypher.text import fold

from .base import LinkOptions, LinkResult, options_for
from .contexts import RAW_WINDOW, Occurrence, kind_cues, longest_matches, not_a_place, qualifier, title_cue, window
from .disambiguation import NO_PROFILE, Decision, Profile, decide, distance_km, document_context
from .matcher import Matcher, NameTable, fulltext_query, java_pattern, load_stoplist
from .mentions import count_mentions, iter_chunks, sync_mentions
from .name_cache import CACHE_DIR, PlaceNames, PlaceNameSource

LINKER = "places"
ENGINE_SOURCES = {"fast": "aho-corasick", "cypher": "fulltext+regex", "procedure": "aho-corasick-in-neo4j"}
PROCEDURE = "graphrag.link.places"


def load_skip_sections() -> str:
    """The regex of sections not scanned (`skip_sections.txt`: its lines but comments, joined)."""
    text = resources.files("graphrag_cypher.linkers").joinpath("skip_sections.txt").read_text("utf-8")
    return "".join(line for line in text.splitlines() if line and not line.startswith("#"))


# Sections whose place names are publishers' cities and titles, not the article's places.
SKIP_SECTIONS = load_skip_sections()
MIN_CONFIDENCE = 0.5
NAME_ENDINGS = tuple(sorted(lexicon.words("place_name_endings")))
MAX_CANDIDATES = 10  # alternatives kept on an edge
NO_MATCH = "(?!)"  # a regex nothing matches: "skip no section"


@dataclass(kw_only=True)
class PlaceLinkOptions(LinkOptions):
    engine: str = "fast"
    min_length: int = 3
    stoplist: frozenset[str] = field(default_factory=load_stoplist)
    require_capital: bool = True
    skip_tails: bool = True
    skip_sections: str | None = SKIP_SECTIONS
    gazetteers: tuple[str, ...] | None = None  # Place.source values; None = all
    name_batch: int = 1  # names per reference-engine query: 1 is the seed's method, one query per name
    only_keys: frozenset[str] | None = None  # restrict to these folded names (benchmarks on a sample)
    cache_dir: Path | None = CACHE_DIR  # the built name table, reused while the places are unchanged; None = off
    min_confidence: float = MIN_CONFIDENCE  # decisions below it link nothing (counted as undecided)
    contexts: bool = True  # drop matches in not-a-place contexts (epithets, sigla, institutions, titles)


@dataclass(kw_only=True)
class PlaceLinkResult(LinkResult):
    """What a place run found and did; `to_dict` is the --json output."""

    JSON_KEYS: ClassVar[dict[str, str | None]] = {
        "found": "mentions",
        "created": "mentions_created",
        "updated": "mentions_updated",
        "removed": "mentions_removed",
        "total": "mentions_total",
    }

    engine: str
    names: int = 0
    places: int = 0
    stoplisted: int = 0
    too_short: int = 0
    chunks_scanned: int = 0
    chunks_skipped: int = 0
    matches: int = 0
    overlapped: int = 0  # matches inside a longer name's match
    not_a_place: dict = field(default_factory=dict)  # rule → matches dropped
    linked: int = 0  # mentions (occurrences of names) that got an edge: each one edge
    undecided: int = 0  # mentions whose best candidate is below min_confidence: no edge
    rules: dict = field(default_factory=dict)  # rule → mentions decided by it
    names_cached: bool = False
    edges: dict = field(default_factory=dict, repr=False)  # {(chunk id, place id): properties}

    @property
    def mentions(self) -> int:
        return self.found

    @property
    def mentions_created(self) -> int:
        return self.created

    @property
    def mentions_updated(self) -> int:
        return self.updated

    @property
    def mentions_removed(self) -> int:
        return self.removed

    @property
    def mentions_total(self) -> int | None:
        return self.total

    @property
    def skipped(self) -> dict[str, int]:
        return {
            "stoplisted": self.stoplisted,
            "too_short": self.too_short,
            "bibliography_chunks": self.chunks_skipped,
            "overlapped": self.overlapped,
            **self.not_a_place,
            "undecided": self.undecided,
        }


def link_places(graph: Graph, options: PlaceLinkOptions | None = None, **fields) -> PlaceLinkResult:
    """Link the chunks to the places they mention: read → match → decide → write."""
    options = options_for(PlaceLinkOptions, options, fields)
    if options.engine not in ENGINE_SOURCES:
        raise GraphragError(f"unknown engine {options.engine!r}: use fast, procedure or cypher")
    if options.engine == "procedure" and not plugin.has(graph, PROCEDURE):
        raise GraphragError(
            f"the procedure engine needs the graphrag plugin ({PROCEDURE}) in Neo4j's plugins/: "
            "use --engine fast on a server without it"
        )
    if options.engine == "procedure":
        return link_in_database(graph, options)
    # A fast run makes a few hundred thousand objects that live to its end (the name table)
    # and no reference cycles, so Python's cycle collector would only walk them over and over
    # (a tenth of the run): it pauses for the run. The reference engine's tens of thousands
    # of queries keep it on.
    with _collector_paused(options.engine == "fast"):
        result = PlaceLinkResult(engine=options.engine, dry_run=options.dry_run)
        with ThreadPoolExecutor(max_workers=1) as pool:
            names, chunks, emphasis, found = _read_and_match(graph, options, result, pool)
        edges = _decide(names, chunks, emphasis, found, options, result)
        _write(graph, edges, chunks, options, result)
    return result


def _read_and_match(graph: Graph, options: PlaceLinkOptions, result: PlaceLinkResult, pool):
    """Read the chunks (in `pool`) and the names, then match; cached names are confirmed
    (fingerprinted in `pool` while the fast engine matches) before they are given back."""
    fast = options.engine == "fast"
    chunks_read = pool.submit(
        lambda: (list(iter_chunks(graph, options.corpus, with_text=fast)), document_emphasis(graph, options.corpus))
    )
    started = time.perf_counter()
    source = PlaceNameSource(
        graph,
        sources=list(options.gazetteers) if options.gazetteers else None,
        min_length=options.min_length,
        stoplist=options.stoplist,
        cache_dir=options.cache_dir,
        only_keys=options.only_keys,
        pool=pool,
    )
    if not fast:
        source.confirm()  # before a long match
    _count_names(source, result)
    result.seconds["names"] = round(time.perf_counter() - started, 3)
    options.progress(
        f"{result.names} names of {result.places} places ({result.stoplisted} stop-listed, "
        f"{result.too_short} too short)"
    )

    started = time.perf_counter()
    chunks, emphasis = chunks_read.result()
    skip = re.compile(options.skip_sections) if options.skip_sections else None
    eligible = [c for c in chunks if not (skip and skip.fullmatch(c["section"] or ""))]
    result.chunks_scanned, result.chunks_skipped = len(eligible), len(chunks) - len(eligible)
    rules = {"require_capital": options.require_capital, "skip_tails": options.skip_tails}
    if fast:
        found = match_fast(source.names.matcher(**rules), eligible)
    else:
        found = match_reference(graph, source.names.table, options)
    if not source.confirm():  # the places changed since the cached table was built
        _count_names(source, result)
        found = match_fast(source.names.matcher(**rules), eligible)
    result.seconds["match"] = round(time.perf_counter() - started, 3)
    result.matches = sum(len(v) for v in found.values())
    return source.names, chunks, emphasis, found


def _decide(
    names: PlaceNames,
    chunks: list[dict],
    emphasis: dict,
    found: dict,
    options: PlaceLinkOptions,
    result: PlaceLinkResult,
) -> dict:
    started = time.perf_counter()
    chunk_doc = {c["id"]: c["docId"] for c in chunks}
    mentions = place_mentions(found, names, chunk_doc, emphasis if options.contexts else None, result)
    edges = resolve(
        mentions, names.table.targets, chunk_doc, names.profiles, options.min_confidence, result, exonyms=names.exonyms
    )
    for props in edges.values():
        props["source"] = ENGINE_SOURCES[options.engine]
    result.seconds["decide"] = round(time.perf_counter() - started, 3)
    result.edges, result.found = edges, len(edges)
    return edges


def _write(graph: Graph, edges: dict, chunks: list[dict], options: PlaceLinkOptions, result: PlaceLinkResult) -> None:
    if options.dry_run:
        result.total = count_mentions(graph, LINKER)
        return
    started = time.perf_counter()
    changes = sync_mentions(graph, edges, [c["id"] for c in chunks], LINKER, options.batch)
    result.seconds["write"] = round(time.perf_counter() - started, 3)
    result.created, result.updated, result.removed, result.total = (
        changes.created,
        changes.updated,
        changes.removed,
        changes.total,
    )


def _count_names(source: PlaceNameSource, result: PlaceLinkResult) -> None:
    names = source.names
    if not names.table.targets:
        raise GraphragError("no places to link: load a gazetteer first (`graphrag load pleiades FILE`)")
    result.names_cached = source.cached
    result.places, result.names = names.places, len(names.table.targets)
    result.stoplisted, result.too_short = names.table.stoplisted, names.table.too_short


def document_emphasis(graph: Graph, corpus: str | None) -> dict[str, list[str]]:
    """Each document's italic spans (titles as the source marked them), by document id."""
    row = graph.read_row("linkers/document_emphasis", corpus=corpus)
    return {doc: list(spans) for doc, spans in zip(row["docIds"], row["emphasis"], strict=True) if spans}


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


def match_fast(matcher: Matcher, chunks: list[dict]) -> dict[str, list[Occurrence]]:
    """chunk id → the names found in it, by one Aho–Corasick pass per chunk."""
    found: dict[str, list[Occurrence]] = {}
    for chunk in chunks:
        text = chunk["text"] or ""
        occurrences = []
        for match in matcher.find(text):
            before, after = window(
                text[max(0, match.start - RAW_WINDOW) : match.start], text[match.end : match.end + RAW_WINDOW]
            )
            occurrences.append(Occurrence(chunk["id"], match.key, match.start, match.end, match.surface, before, after))
        if occurrences:
            found[chunk["id"]] = occurrences
    return found


def link_in_database(graph: Graph, options: PlaceLinkOptions) -> PlaceLinkResult:
    """The whole run inside Neo4j: `graphrag.link.places` reads the places and chunks, matches,
    decides and writes the difference (in one transaction); its counts as a PlaceLinkResult. On a
    dry run it writes nothing and sends the decided edges back (`result.edges`)."""
    config = {
        "corpus": options.corpus,
        "sources": sorted(options.gazetteers) if options.gazetteers else None,
        "minLength": options.min_length,
        "stoplist": sorted(options.stoplist),
        "requireCapital": options.require_capital,
        "skipTails": options.skip_tails,
        "skipSections": options.skip_sections or "",
        "minConfidence": options.min_confidence,
        "contexts": options.contexts,
        "dryRun": options.dry_run,
        "returnEdges": options.dry_run,
    }
    if options.only_keys is not None:
        config["keys"] = sorted(options.only_keys)
    options.progress("graphrag.link.places: matching, deciding and writing inside Neo4j")
    started = time.perf_counter()
    try:
        [row] = graph.write("linkers/link_places_procedure", config=config)
    except Neo4jError as exc:
        message = str(exc.message or exc)
        if "no places to link" in message:
            raise GraphragError("no places to link: load a gazetteer first (`graphrag load pleiades FILE`)") from None
        first = message.splitlines()[0] if message else "no message"
        reason = first.split("IllegalArgumentException: ", 1)[-1]  # the procedure's own one-line error
        raise GraphragError(reason if reason.startswith(PROCEDURE) else f"{PROCEDURE} failed: {first}") from None
    result = PlaceLinkResult(
        engine="procedure",
        dry_run=options.dry_run,
        names=row["names"],
        places=row["places"],
        stoplisted=row["stoplisted"],
        too_short=row["tooShort"],
        chunks_scanned=row["chunksScanned"],
        chunks_skipped=row["chunksSkipped"],
        matches=row["matches"],
        overlapped=row["overlapped"],
        not_a_place=dict(sorted(row["notAPlace"].items())),
        linked=row["linked"],
        undecided=row["undecided"],
        rules=dict(sorted(row["rules"].items())),
        found=row["mentions"],
        created=row["created"],
        updated=row["updated"],
        removed=row["removed"],
        total=row["total"],
    )
    result.edges = {(e["chunkId"], e["targetId"]): e["props"] for e in row["edges"] or []}
    result.seconds = {**row["seconds"], "call": round(time.perf_counter() - started, 3)}
    return result


def match_reference(graph: Graph, table: NameTable, options: PlaceLinkOptions) -> dict[str, list[Occurrence]]:
    """chunk id → the names found in it, one full-text query and regex per name, in Neo4j
    (positions are in the chunk's NFD text)."""
    found: dict[str, list[Occurrence]] = defaultdict(list)
    keys = sorted(table.targets)
    for start in range(0, len(keys), options.name_batch):
        batch = [
            {
                "key": k,
                "query": fulltext_query(k),
                "capital": options.require_capital,
                "pattern": java_pattern(k, skip_tails=options.skip_tails),
            }
            for k in keys[start : start + options.name_batch]
        ]
        for row in graph.read(
            "linkers/match_names",
            names=batch,
            corpus=options.corpus,
            window=RAW_WINDOW,
            skipSections=options.skip_sections or NO_MATCH,
        ):
            for begin, end, surface, before, after in row["found"]:
                before, after = window(before, after)
                found[row["chunkId"]].append(
                    Occurrence(
                        row["chunkId"], row["key"], begin, end, unicodedata.normalize("NFC", surface), before, after
                    )
                )
        done = min(start + options.name_batch, len(keys))
        if done % 5000 < options.name_batch or done == len(keys):
            options.progress(f"cypher engine: {done}/{len(keys)} names")
    return dict(found)


def load_person_names(paths=()) -> frozenset[str]:
    """Folded gazetteer names usually meant as people (`persons.txt`): linked only after a place word."""
    return load_stoplist(paths, shipped="persons.txt")


def place_mentions(
    found: dict[str, list[Occurrence]],
    names: PlaceNames,
    chunk_doc: dict,
    emphasis: dict[str, list[str]] | None,
    result: PlaceLinkResult | None = None,
    person_names: frozenset[str] | None = None,
) -> dict[tuple[str, str], list[Occurrence]]:
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
            if doc is not None:
                titles.update((doc, occ.key) for occ in kept if occ.key in bare.get(doc, ()) and title_cue(occ))
    for chunk, kept in kept_by_chunk.items():
        doc = chunk_doc.get(chunk)
        for occ in kept:
            if (doc, occ.key) in titles:
                dropped["title"] += 1
                continue
            if emphasis is not None:
                spans = emphasis.get(doc, []) if doc is not None and occ.surface in joined.get(doc, "") else []
                why = not_a_place(
                    occ,
                    is_place=is_place,
                    person_names=persons,
                    emphasis=[span for span in spans if occ.surface in span],
                )
                if why:
                    dropped[why] += 1
                    continue
            mentions[(chunk, occ.key)].append(occ)
    if result is not None:
        result.overlapped, result.not_a_place = overlapped, dict(sorted(dropped.items()))
    return mentions


class DecisionCounts(Protocol):
    """What :func:`resolve` counts its decisions into: a place run's result, or an entity run's."""

    undecided: int
    linked: int
    rules: dict


def resolve(
    mentions: dict[tuple[str, str], list[Occurrence]],
    targets: dict,
    chunk_doc: dict,
    profiles: dict,
    min_confidence: float = MIN_CONFIDENCE,
    result: DecisionCounts | None = None,
    *,
    exonyms: dict | None = None,
    linker: str = LINKER,
) -> dict:
    """Names found → edges {(chunk id, target id): props}: one decision per mention (each
    occurrence of a name; see :mod:`.disambiguation`), none below `min_confidence`. An edge
    gathers the mentions of its chunk that decided for its place (`mentions`: how many)."""
    exonyms = exonyms or {}
    unique: dict[tuple, set] = defaultdict(set)
    for chunk, key in mentions:
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
        if qualifiers:
            candidates = candidates + qualified_forms(key, qualifiers, targets, profiles)
        if len(candidates) == 1 and not (cues or qualifiers):
            prof = profiles.get(candidates[0])
            if prof is not None and prof.quality >= 1.0:  # a lone described record: the same decision everywhere
                if key not in memo:
                    memo[key] = decide(key, candidates, profiles, cues=set(), exonyms=frozenset(exonyms.get(key, ())))
                return memo[key]
        return decide(
            key,
            candidates,
            profiles,
            cues=set(cues),
            exonyms=frozenset(exonyms.get(key, ())),
            known=known.get(doc, set()),
            distance=lambda target: distance(doc, chunk, target),
            qualifiers=set(qualifiers),
            sense=sense,
        )

    for (chunk, key), occurrences in sorted(mentions.items()):
        by_evidence: dict[tuple, list[Occurrence]] = defaultdict(list)
        for occ in occurrences:
            cues = frozenset(kind_cues(occ)) if len(targets[key]) > 1 else frozenset()  # they choose among candidates
            found = qualifier(occ)
            qualifiers = frozenset({fold(found)} if found and _qualifies(fold(found), key, targets, profiles) else ())
            by_evidence[(cues, qualifiers)].append(occ)
        groups[(chunk, key)] = by_evidence
        for cues, qualifiers in by_evidence:
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
        for (cues, qualifiers), occurrences in sorted(
            by_evidence.items(), key=lambda g: (sorted(g[0][0]), sorted(g[0][1]))
        ):
            sense = senses.get((chunk_doc[chunk], key)) if not (cues or qualifiers) and len(targets[key]) > 1 else None
            decision = decision_for(chunk, key, cues, qualifiers, sense)
            if decision.confidence < min_confidence:
                undecided += len(occurrences)
                continue
            linked += len(occurrences)
            rules[decision.rule] += len(occurrences)
            surfaces = sorted({occ.surface for occ in occurrences})
            props = {
                "matched": surfaces,
                "keys": [key],
                "mentions": len(occurrences),
                "rule": decision.rule,
                "confidence": decision.confidence,
                "candidates": decision.candidates[:MAX_CANDIDATES],
                "linker": linker,
            }
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


def qualified_forms(key: str, qualifiers: AbstractSet[str], targets: dict, profiles: dict) -> tuple:
    """Records of a longer form of the name (its Greek or Latin ending: `place_name_endings`)
    that say the region the words around name, where none of the name's own records does:
    "Antioch in Pisidia", "Pisidian Antioch" → Antiochia, "an ancient city in Pisidia"."""
    own = targets[key]
    if any(q in (profiles.get(t) or NO_PROFILE).about for t in own for q in qualifiers):
        return ()
    found: list[str] = []
    for ending in NAME_ENDINGS:
        for target in targets.get(key + ending, ()):
            about = (profiles.get(target) or NO_PROFILE).about
            if target not in own and target not in found and any(q in about for q in qualifiers):
                found.append(target)
    return tuple(found)


def _qualifies(name: str, key: str, targets: dict, profiles: dict) -> bool:
    """Whether `name` after a mention ("Antioch in Pisidia") can qualify it: another name of
    the gazetteer, not only a country of today ("Methana-Arsinoe in Greece": an ancient
    record's description does not name the modern state it lies in)."""
    return name in targets and name != key and any(not (profiles.get(t) or NO_PROFILE).modern for t in targets[name])


def _median_distance(point, points: list, cache: dict | None, key) -> float | None:
    if cache is not None and key in cache:
        return cache[key]
    value = None
    if points:
        value = sorted(distance_km(point, p) for p in points)[len(points) // 2]
    if cache is not None:
        cache[key] = value
    return value


def link_set(edges: dict) -> set[tuple]:
    """Edges in a comparable form: (chunk, place, matched, rule, confidence, candidates) — for parity checks."""
    return {
        (c, t, tuple(p["matched"]), p["rule"], p["confidence"], tuple(p["candidates"])) for (c, t), p in edges.items()
    }
