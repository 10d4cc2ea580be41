"""Named phrases shared by chunks: a passage graph built from the text alone, no LLM.

Multi-hop questions hop through names: "the country Signmark is from" is answered by a
passage that says *Finland*, and the next hop is a passage about the Finnish markka that
also says *Finland*. Dense retrieval finds the first passage and misses the second; a
shared name joins them. This linker finds the names a reader would underline — runs of
capitalised words ("American Psychological Association", "McDowell County", "Johann
Strauss II"), and each capitalised word in them ("Finland", "Ibsen") — and records every
one that at least two chunks share as a `:Phrase`, with `(:Chunk)-[:HAS_PHRASE]->(:Phrase)`.

The rule is deliberately plain and language-light, in the spirit of noun-phrase graph
builders that skip the LLM (Microsoft GraphRAG's "fast" indexer, for one):

* a phrase is a run of capitalised tokens inside one clause (commas, brackets, quotes,
  colons and sentence ends break it), joined by connectors such as "of", "de", "von";
* leading stop words are dropped ("The Hague" → "hague" is kept, "The" alone is not);
  a capitalised first word of a sentence is dropped when the corpus also writes it in
  lower case ("During the war" drops "During");
* phrases are accent- and case-folded (`graphrag_cypher.text.fold`); the display name is the
  first spelling met;
* only phrases shared by 2 ≤ n ≤ ``max_chunks`` chunks are kept: a name in one chunk
  joins nothing, and one in hundreds ("United States") joins everything to everything;
* a token longer than ``MAX_TOKEN_CHARS`` (a base64 blob, a minified line) is neither a word
  nor part of a phrase: it breaks the run it sits in, as a comma does; a phrase longer than
  ``MAX_PHRASE_CHARS`` is not kept. Words and phrases are index keys, and Neo4j refuses a key
  of more than about 8 KB.

Graph retrieval weights a shared phrase by 1 / (chunks sharing it), so rare names count most.

The run is incremental, so learning stays cheap however much was learned before. Every
candidate phrase of every chunk is a `:Term` whose `chunks` counts the chunks that have it;
it is also a `:Phrase` while 2 ≤ chunks ≤ ``max_chunks`` (its pairs are `HAS_PHRASE`, the
others `HAS_TERM`, each with the `surface` the chunk writes). The lower-case vocabulary
the sentence-start rule reads is `(:Word {lower})` (chunks writing the word in lower case),
and `(:Chunk)-[:LEADS]->(:Word)` records the words a chunk's clauses start with. A new chunk
carries `:PendingPhrases` until a run has linked it; a deleted one gives its counts back in
the deleting transaction (`phrases/release_documents`) and leaves its terms `:StaleTerm`, so
the next run only re-decides what changed: the pending chunks, the chunks whose clause
start a vocabulary change re-decides, and the stale terms (a term crossing 2 or
``max_chunks`` gains or loses its links). A full run (``full=True``, or a graph with no
phrase state) streams every chunk and brings the graph to exactly what the incremental
path keeps; a second run of either changes nothing.
"""

from __future__ import annotations

import dataclasses
import marshal
import re
import tempfile
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import ClassVar

from graphrag_cypher import lexicon
from graphrag_cypher.budget import MAX_PHRASE_CHARS, MAX_TOKEN_CHARS, refused_reason, refused_write
from graphrag_cypher.db import Graph
from graphrag_cypher.text import fold

from .base import LinkOptions, LinkResult, options_for
from .matcher import LUCENE_STOP_WORDS

PAGE = 2000
MAX_CHUNKS, MIN_LENGTH = 250, 3  # 2% of 12,500 chunks: what the graph mode reads (WEIGHTS phraseChunksShare)
VERSION = 2  # the phrase state a graph keeps (:__PhraseState.version)
CONNECTORS = lexicon.words("name_connectors")
LEADING_STOP = LUCENE_STOP_WORDS | lexicon.words("leading_stop")
# Clause breaks: punctuation that never sits inside a name, and a sentence end.
_CLAUSE = re.compile(r"[,;:()\[\]{}\"“”«»!?|/]|\s[-–—]\s|\.(?:\s|$)|\n")
_TOKEN = re.compile(r"[^\W_](?:[\w'’.\-]*[^\W_])?", re.UNICODE)
_POSSESSIVE = re.compile(r"['’]s$")
_BREAK = "\x00"  # stands for a token too long to be a word: it ends the run of a phrase


def _tokens(text: str) -> list[str]:
    """The tokens of `text`, each longer than MAX_TOKEN_CHARS as `_BREAK`."""
    return [t if len(t) <= MAX_TOKEN_CHARS else _BREAK for t in _TOKEN.findall(text or "")]


@dataclass(kw_only=True)
class PhraseLinkOptions(LinkOptions):
    """Phrases are shared across corpora: this linker takes no `corpus`."""

    # None: what the graph's last full run used (MAX_CHUNKS / MIN_LENGTH on a first run)
    max_chunks: int | None = None  # keep a phrase only when at most this many chunks share it
    min_length: int | None = None  # shortest phrase (folded) kept
    full: bool = False  # re-read every chunk (the default: only what changed since the last run)
    batch: int = 2000


@dataclass(kw_only=True)
class PhraseLinkResult(LinkResult):
    """What a phrase run found and did; `to_dict` is the --json output."""

    JSON_KEYS: ClassVar[dict[str, str | None]] = {
        "found": "links",
        "created": "links_created",
        "removed": "links_removed",
        "updated": None,
    }

    chunks: int = 0  # chunks read (a full run: all of them; else the pending ones)
    full: bool = False  # whether this run re-read every chunk
    max_chunks: int = MAX_CHUNKS  # the bound it linked by
    fresh: bool = field(default=False, repr=False)  # a full run into a graph with no terms: nothing to compare
    phrases_found: int = 0
    phrases: int = 0
    too_common: int = 0
    phrases_written: int = 0
    phrases_removed: int = 0
    errors: list[dict] = field(default_factory=list)  # chunks skipped: {"item": chunk id, "error": why}

    @property
    def skipped(self) -> dict[str, int]:
        return {"too_common": self.too_common}


def _is_capitalised(token: str) -> bool:
    return token[0].isupper()


def _is_lower(token: str) -> bool:
    return token[0].islower()


def lowercase_vocabulary(texts: Iterable[str]) -> frozenset[str]:
    """Words the corpus writes in lower case somewhere: capitalised only at a sentence start."""
    seen: set[str] = set()
    for text in texts:
        seen.update(t for t in _tokens(text) if _is_lower(t))
    return frozenset(seen)


def extract_phrases(text: str, common: frozenset[str] = frozenset(), min_length: int = 3) -> dict[str, str]:
    """Folded phrase → its spelling in `text`: runs of capitalised words and each word in them.

    ``extract_phrases("Signmark won in Finland's national final.")`` →
    ``{"signmark": "Signmark", "finland": "Finland"}`` (a possessive "'s" is dropped).
    """
    found: dict[str, str] = {}
    for clause in _CLAUSE.split(text or ""):
        tokens = [_POSSESSIVE.sub("", t) for t in _tokens(clause)]
        i = 0
        while i < len(tokens):
            if not _is_capitalised(tokens[i]):
                i += 1
                continue
            j = i + 1
            while j < len(tokens) and (
                _is_capitalised(tokens[j])
                or (tokens[j].lower() in CONNECTORS and j + 1 < len(tokens) and _is_capitalised(tokens[j + 1]))
            ):
                j += 1
            span = tokens[i:j]
            start_of_clause = i == 0
            while span and (
                span[0].lower() in LEADING_STOP
                or span[0].lower() in CONNECTORS
                or (start_of_clause and span[0].lower() in common)
            ):
                span, start_of_clause = span[1:], False
            while span and span[-1].lower() in CONNECTORS:
                span = span[:-1]
            if span:
                _add(found, " ".join(span), min_length)
                if len(span) > 1:
                    for word in span:
                        low = word.lower()
                        if _is_capitalised(word) and low not in LEADING_STOP and low not in CONNECTORS:
                            _add(found, word, min_length)
            i = j
    return found


def _add(found: dict[str, str], surface: str, min_length: int) -> None:
    key = fold(surface.rstrip("'’."))
    if min_length <= len(key) <= MAX_PHRASE_CHARS and any(ch.isalpha() for ch in key):
        found.setdefault(key, surface.rstrip("'’."))


def chunk_text(row: dict) -> str:
    """The text a chunk's phrases are read from: the title of what it is about, then its text."""
    return (f"{row['title']}.\n" if row.get("title") else "") + (row.get("text") or "")


def chunk_words(text: str) -> tuple[list[str], list[str]]:
    """The words `text` writes in lower case (its share of the vocabulary) and the capitalised
    words its clauses start with, lower-cased (those the sentence-start rule decides on), sorted.

    ``chunk_words("During the war. Signmark won, Finland said")`` →
    ``(["said", "the", "war", "won"], ["finland", "signmark"])`` ("During" is a leading stop
    word: dropped whatever the vocabulary says, so no lead).
    """
    lower = sorted({t for t in _tokens(text) if _is_lower(t)})
    leads: set[str] = set()
    for clause in _CLAUSE.split(text or ""):
        first = _TOKEN.search(clause)
        if first is None or len(first.group()) > MAX_TOKEN_CHARS:
            continue
        token = _POSSESSIVE.sub("", first.group())
        low = token.lower()
        if _is_capitalised(token) and low not in LEADING_STOP and low not in CONNECTORS:
            leads.add(low)
    return lower, sorted(leads)


def link_phrases(graph: Graph, options: PhraseLinkOptions | None = None, **fields) -> PhraseLinkResult:
    """Bring the graph's terms, phrases and chunk–phrase links to what its chunks say: only what
    changed since the last run, or everything (``full=True``, or no phrase state yet)."""
    options = options_for(PhraseLinkOptions, options, fields)
    options.refuse("phrases", corpus=True)
    started = time.perf_counter()
    state = graph.read("phrases/state")
    stored = state[0] if state and state[0]["version"] == VERSION else {}
    options = dataclasses.replace(
        options,
        max_chunks=options.max_chunks or stored.get("maxChunks") or MAX_CHUNKS,
        min_length=options.min_length or stored.get("minLength") or MIN_LENGTH,
    )
    current = bool(state) and (state[0]["version"], state[0]["maxChunks"], state[0]["minLength"]) == (
        VERSION,
        options.max_chunks,
        options.min_length,
    )
    result = PhraseLinkResult(
        dry_run=options.dry_run,
        full=options.full or not current or options.dry_run,
        max_chunks=options.max_chunks or MAX_CHUNKS,
    )
    if result.full:
        _full(graph, options, result)
    else:
        _incremental(graph, options, result)
    if not options.dry_run:
        clock = time.perf_counter()
        counts = graph.read("phrases/counts", maxChunks=options.max_chunks)[0]
        result.seconds["count"] = round(time.perf_counter() - clock, 3)
        result.phrases, result.found = counts["phrases"], counts["links"]
        result.phrases_found, result.too_common = counts["terms"], counts["tooCommon"]
    result.seconds["total"] = round(time.perf_counter() - started, 3)
    return result


# -- the incremental run ------------------------------------------------------------------


def _incremental(graph: Graph, options: PhraseLinkOptions, result: PhraseLinkResult) -> None:
    batch, progress = options.batch, options.progress
    max_chunks, min_length = result.max_chunks, options.min_length or MIN_LENGTH
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        result.seconds[name] = round(now - clock, 3)
        clock = now

    # 1. new chunks give their words to the vocabulary (before any is decided on: the rule
    #    reads the whole corpus's vocabulary, theirs included)
    while rows := graph.read("phrases/pending_words", limit=batch):
        _each_chunk(graph, rows, lambda part: _write_words(graph, part, counted=True), result)
        progress(f"phrases: vocabulary of {len(rows)} new chunk(s)")
    lap("words")
    # 2. words that entered or left the vocabulary send the chunks they start a clause of back
    while (settled := graph.write("phrases/settle_words", limit=batch)[0])["words"]:
        if settled["requeued"]:
            progress(f"phrases: {settled['requeued']} chunk(s) re-read for a vocabulary change")
    lap("vocabulary")
    # 3. pending chunks: their terms, against what they have now
    while rows := graph.read("phrases/pending_chunks", limit=batch):
        changes = []
        for row in rows:
            found = extract_phrases(chunk_text(row), frozenset(row["known"]), min_length)
            have = {term: surface for term, surface in row["terms"]}
            changes.append(
                {
                    "id": row["id"],
                    "chunkId": row["id"],
                    "add": [{"id": k, "surface": s} for k, s in sorted(found.items()) if k not in have],
                    "remove": sorted(k for k in have if k not in found),
                    "surface": [{"id": k, "surface": s} for k, s in sorted(found.items()) if have.get(k, s) != s],
                }
            )

        def link(part: list[dict]) -> None:
            done = graph.write("phrases/link_chunks", rows=part)[0]
            result.chunks += done["chunks"]
            result.created += done["created"]
            result.removed += done["removed"]

        _each_chunk(graph, changes, link, result)
        progress(f"phrases: {result.chunks} chunk(s) linked")
    lap("link")
    # 4. terms whose count moved: label, link type, name
    while (settled := graph.write("phrases/settle_terms", limit=batch, maxChunks=max_chunks)[0])["terms"]:
        result.phrases_written += settled["phrasesAdded"]
        result.phrases_removed += settled["phrasesRemoved"]
        result.created += settled["created"]
        result.removed += settled["removed"]
    lap("settle")


def _each_chunk(graph: Graph, rows: list[dict], write: Callable[[list[dict]], None], result: PhraseLinkResult) -> None:
    """`write(rows)` in one transaction; when Neo4j refuses it (not a server gone or busy),
    each row alone, and a chunk refused alone is skipped (`phrases/skip_chunks`) and reported
    in `result.errors`: one chunk the graph cannot hold never stops the run, nor the next."""
    try:
        write(rows)
        return
    except Exception as exc:
        if not refused_write(exc):
            raise
    for row in rows:  # one of them, or more, Neo4j cannot hold: find which
        try:
            write([row])
        except Exception as exc:
            if not refused_write(exc):
                raise
            reason = refused_reason(exc)
            graph.write("phrases/skip_chunks", rows=[{"id": row["id"], "error": reason}])
            result.errors.append({"item": row["id"], "error": reason})


def _write_words(graph: Graph, rows: list[dict], counted: bool) -> None:
    """Store each chunk's lower-case words and clause leads; `counted`: add them to the counts."""
    writes: list[dict] = []
    counts: Counter[str] = Counter()
    for row in rows:
        lower, leads = chunk_words(chunk_text(row))
        counts.update(lower)
        writes.append({"id": row["id"], "lower": " ".join(lower), "leads": leads})
    words = [{"id": w, "n": n} for w, n in sorted(counts.items())] if counted else []
    graph.write("phrases/set_chunk_words", rows=writes, words=words)


# -- the full run: every chunk, streamed; memory grows with the vocabulary and the terms ----


def _pages(graph: Graph, name: str, limit: int = PAGE) -> Iterator[list[dict]]:
    after = ""
    while True:
        page = graph.read(name, after=after, limit=limit)
        if page:
            yield page
        if len(page) < limit:
            return
        after = page[-1]["id"]


def _spilled(spill) -> Iterator:
    spill.seek(0)
    while True:
        try:
            yield marshal.load(spill)
        except EOFError:
            return


class _Writes:
    """Write statements run in order on one background thread while the caller reads and
    extracts the next page (at most `depth` waiting); the first failure is raised."""

    def __init__(self, graph: Graph, depth: int = 4):
        self.graph, self.depth = graph, depth
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphrag-phrases")
        self.pending: deque[tuple[Future, Callable[[dict], None]]] = deque()

    def write(self, name: str, on_row: Callable[[dict], None] = lambda row: None, **params) -> None:
        self.pending.append((self.pool.submit(self.graph.write, name, **params), on_row))
        while len(self.pending) > self.depth:
            self._settle()

    def _settle(self) -> None:
        future, on_row = self.pending.popleft()
        on_row(future.result()[0])

    def drain(self) -> None:
        while self.pending:
            self._settle()

    def close(self) -> None:
        try:
            self.drain()
        finally:
            self.pool.shutdown(wait=True, cancel_futures=True)


def _full(graph: Graph, options: PhraseLinkOptions, result: PhraseLinkResult) -> None:
    batch, progress, write = options.batch, options.progress, not options.dry_run
    max_chunks, min_length = result.max_chunks, options.min_length or MIN_LENGTH
    if write:
        graph.write("phrases/set_state", version=None, maxChunks=None, minLength=None)
        while graph.write("phrases/adopt_phrases", limit=batch)[0]["adopted"]:
            pass
    started = time.perf_counter()
    vocabulary: Counter[str] = Counter()
    lead_words: set[str] = set()
    writes = _Writes(graph)
    with (
        tempfile.TemporaryFile() as texts,
        tempfile.TemporaryFile() as words_file,
        tempfile.TemporaryFile() as found_file,
    ):
        try:
            # 1. the vocabulary, and each chunk's words where they differ from what it stores
            for page in _pages(graph, "phrases/chunks"):
                stale = []
                for row in page:
                    text = chunk_text(row)
                    lower, leads = chunk_words(text)
                    vocabulary.update(lower)
                    lead_words.update(leads)
                    joined = " ".join(lower)
                    if row["lowerWords"] != joined or sorted(row["leads"]) != leads:
                        fresh = row["lowerWords"] is None and not row["leads"]
                        stale.append((row["id"], joined, leads, fresh))
                marshal.dump([(row["id"], chunk_text(row)) for row in page], texts)
                marshal.dump(stale, words_file)
                result.chunks += len(page)
                progress(f"phrases: reading {result.chunks} chunks")
            # 2. each chunk's terms with the whole vocabulary; counts and names in id order
            common = frozenset(vocabulary)
            df: Counter[str] = Counter()
            names: dict[str, tuple[str, str]] = {}
            for page in _spilled(texts):
                per = []
                for cid, text in page:
                    found = extract_phrases(text, common, min_length)
                    df.update(found.keys())
                    for key, surface in found.items():
                        names.setdefault(key, (surface, cid))
                    per.append((cid, found))
                marshal.dump(per, found_file)
            result.phrases_found = len(df)
            result.phrases = sum(1 for n in df.values() if 2 <= n <= max_chunks)
            result.too_common = sum(1 for n in df.values() if n > max_chunks)
            result.found = sum(n for n in df.values() if 2 <= n <= max_chunks)
            result.seconds["match"] = round(time.perf_counter() - started, 3)
            if not write:
                return
            started = time.perf_counter()
            # 3. the vocabulary's counts, then each chunk's words (their leads need the words)
            _sync_words(graph, writes, vocabulary, lead_words, batch)
            del lead_words
            lap = time.perf_counter()
            for page in _spilled(words_file):
                first = [(cid, lower, leads) for cid, lower, leads, new in page if new]
                if first:
                    writes.write(
                        "phrases/create_chunk_words",
                        rows=[{"id": cid, "lower": lower} for cid, lower, _ in first],
                        leads=[{"c": cid, "w": w} for cid, _, leads in first for w in leads],
                    )
                changed = [{"id": cid, "lower": lower, "leads": leads} for cid, lower, leads, new in page if not new]
                if changed:
                    writes.write("phrases/set_chunk_words", rows=changed, words=[])
            # 4. terms: counts, names, :Phrase labels
            writes.drain()
            result.seconds["words"] = round(time.perf_counter() - lap, 3)
            lap = time.perf_counter()
            _sync_terms(graph, writes, df, names, max_chunks, batch, result)
            del names
            writes.drain()
            result.seconds["terms"] = round(time.perf_counter() - lap, 3)
            lap = time.perf_counter()
            progress(f"phrases: {result.phrases} phrase(s), {result.phrases_found} term(s)")
            # 5. each chunk's pairs against what it has now
            done = 0

            def created(row: dict) -> None:
                result.created += row["created"]

            def removed(row: dict) -> None:
                result.removed += row["removed"]

            for page in _spilled(found_file):
                ids = [cid for cid, _ in page]
                stored = (
                    {}
                    if result.fresh
                    else {r["chunkId"]: r["terms"] for r in graph.read("phrases/chunk_terms", ids=ids)}
                )
                links: dict[str, list[list[str]]] = {}
                pairs: dict[str, list[list[str]]] = {}
                remove = []
                for cid, found in page:
                    have = {term: (surface, link) for term, surface, link in stored.get(cid, [])}
                    for k, s in found.items():
                        link = 2 <= df[k] <= max_chunks
                        if have.get(k) != (s, link):
                            (links if link else pairs).setdefault(cid, []).append([k, s])
                    remove += [
                        {"c": cid, "t": k}
                        for k, (s, link) in have.items()
                        if k not in found or (found[k], 2 <= df[k] <= max_chunks) != (s, link)
                    ]
                if remove:
                    writes.write("phrases/delete_pairs", removed, pairs=remove)
                if links:
                    writes.write("phrases/create_links", created, rows=[{"c": c, "t": t} for c, t in links.items()])
                if pairs:
                    writes.write("phrases/create_term_pairs", rows=[{"c": c, "t": t} for c, t in pairs.items()])
                done += len(page)
                progress(f"phrases: {done}/{result.chunks} chunks linked")
            writes.drain()
            result.seconds["pairs"] = round(time.perf_counter() - lap, 3)
        finally:
            writes.close()
    while graph.write("phrases/clear_marks", limit=batch)[0]["cleared"]:
        pass
    graph.write("phrases/set_state", version=VERSION, maxChunks=max_chunks, minLength=min_length)
    result.seconds["write"] = round(time.perf_counter() - started, 3)


def _sync_words(graph: Graph, writes: _Writes, vocabulary: Counter[str], leads: set[str], batch: int) -> None:
    """The :Word nodes a full run wants: every lower-case word (its count) and every lead."""
    seen: set[str] = set()
    rows, gone = [], []
    for page in _pages(graph, "phrases/words_page"):
        for word in page:
            wid, n = word["id"], vocabulary.get(word["id"], 0)
            if n or wid in leads:
                seen.add(wid)
                if word["lower"] != n or word["known"] is not (n > 0):
                    rows.append({"id": wid, "lower": n})
            else:
                gone.append(wid)
    for start in range(0, len(gone), batch):
        writes.write("phrases/delete_words", ids=gone[start : start + batch])
    for start in range(0, len(rows), batch):
        writes.write("phrases/write_words", rows=rows[start : start + batch])
    new = [{"id": w, "lower": vocabulary.get(w, 0)} for w in sorted(vocabulary.keys() | leads) if w not in seen]
    for start in range(0, len(new), batch * 5):
        writes.write("phrases/create_words", rows=new[start : start + batch * 5])


def _sync_terms(
    graph: Graph,
    writes: _Writes,
    df: Counter[str],
    names: dict[str, tuple[str, str]],
    max_chunks: int,
    batch: int,
    result: PhraseLinkResult,
) -> None:
    """The :Term nodes a full run wants, with their counts, names and :Phrase labels."""
    seen: set[str] = set()
    rows, gone = [], []

    def row(key: str) -> dict:
        name, chunk = names[key]
        return {"id": key, "name": name, "chunks": df[key], "nameChunk": chunk, "phrase": 2 <= df[key] <= max_chunks}

    for page in _pages(graph, "phrases/terms_page"):
        for term in page:
            if term["id"] not in df:
                gone.append(term["id"])
                result.phrases_removed += bool(term["phrase"])
                continue
            seen.add(term["id"])
            want = row(term["id"])
            if {k: term[k] for k in want} != want:
                rows.append(want)
                result.phrases_written += want["phrase"] and not term["phrase"]
                result.phrases_removed += term["phrase"] and not want["phrase"]
    result.fresh = not seen
    for start in range(0, len(gone), batch):
        writes.write("phrases/delete_terms", ids=gone[start : start + batch])
    for start in range(0, len(rows), batch):
        writes.write("phrases/write_terms", rows=rows[start : start + batch])
    fresh: dict[bool, list[dict]] = {True: [], False: []}

    def create(phrase: bool) -> None:
        writes.write("phrases/create_phrases" if phrase else "phrases/create_terms", rows=fresh[phrase])
        fresh[phrase] = []

    for key in sorted(df):
        if key not in seen:
            want = row(key)
            fresh[want["phrase"]].append(want)
            result.phrases_written += want["phrase"]
            if len(fresh[want["phrase"]]) >= batch * 5:
                create(want["phrase"])
    for phrase in (True, False):
        if fresh[phrase]:
            create(phrase)
