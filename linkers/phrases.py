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
  joins nothing, and one in hundreds ("United States") joins everything to everything.

Graph retrieval weights a shared phrase by 1 / (chunks sharing it), so rare names count most.
A run writes only the difference from the graph's current state, so a second run changes
nothing; phrases and links that no longer hold are removed.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from graphrag_cypher.db import Graph
from graphrag_cypher.text import fold

from .base import LinkOptions, LinkResult, options_for
from .matcher import LUCENE_STOP_WORDS

PAGE = 5000
CONNECTORS = frozenset("of the de du des da di del della do dos von van der den la le les y and & for on upon".split())
LEADING_STOP = LUCENE_STOP_WORDS | frozenset(
    "he she his her its we our you your i my me him them who which what when where why how "
    "after before during since until while although though however also".split()
)
# Clause breaks: punctuation that never sits inside a name, and a sentence end.
_CLAUSE = re.compile(r"[,;:()\[\]{}\"“”«»!?|/]|\s[-–—]\s|\.(?:\s|$)|\n")
_TOKEN = re.compile(r"[^\W_](?:[\w'’.\-]*[^\W_])?", re.UNICODE)
_POSSESSIVE = re.compile(r"['’]s$")


@dataclass(kw_only=True)
class PhraseLinkOptions(LinkOptions):
    """Phrases are shared across corpora: this linker takes no `corpus`."""

    max_chunks: int = 100  # keep a phrase only when at most this many chunks share it
    min_length: int = 3  # shortest phrase (folded) kept


@dataclass(kw_only=True)
class PhraseLinkResult(LinkResult):
    """What a phrase run found and did; `to_dict` is the --json output."""

    JSON_KEYS: ClassVar[dict[str, str | None]] = {
        "found": "links",
        "created": "links_created",
        "removed": "links_removed",
        "updated": None,
    }

    chunks: int = 0
    phrases_found: int = 0
    phrases: int = 0
    too_common: int = 0
    phrases_written: int = 0
    phrases_removed: int = 0

    @property
    def skipped(self) -> dict[str, int]:
        return {"too_common": self.too_common}


def _is_capitalised(token: str) -> bool:
    return token[0].isupper()


def lowercase_vocabulary(texts: Iterable[str]) -> frozenset[str]:
    """Words the corpus writes in lower case somewhere: capitalised only at a sentence start."""
    seen: set[str] = set()
    for text in texts:
        seen.update(t for t in _TOKEN.findall(text or "") if t[0].islower())
    return frozenset(seen)


def extract_phrases(text: str, common: frozenset[str] = frozenset(), min_length: int = 3) -> dict[str, str]:
    """Folded phrase → its spelling in `text`: runs of capitalised words and each word in them.

    ``extract_phrases("Signmark won in Finland's national final.")`` →
    ``{"signmark": "Signmark", "finland": "Finland"}`` (a possessive "'s" is dropped).
    """
    found: dict[str, str] = {}
    for clause in _CLAUSE.split(text or ""):
        tokens = [_POSSESSIVE.sub("", t) for t in _TOKEN.findall(clause)]
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
    if len(key) >= min_length and any(ch.isalpha() for ch in key):
        found.setdefault(key, surface.rstrip("'’."))


def link_phrases(graph: Graph, options: PhraseLinkOptions | None = None, **fields) -> PhraseLinkResult:
    """Find the phrases chunks share and bring the graph's :Phrase links to exactly that set."""
    options = options_for(PhraseLinkOptions, options, fields)
    options.refuse("phrases", corpus=True)
    max_chunks, batch, on_progress = options.max_chunks, options.batch, options.progress
    started = time.perf_counter()
    chunks: list[dict] = []
    after = ""
    while True:
        page = graph.read("phrases/chunks", after=after, limit=PAGE)
        chunks += page
        if len(page) < PAGE:
            break
        after = page[-1]["id"]
    on_progress(f"phrases: reading {len(chunks)} chunks")
    texts = {c["id"]: (f"{c['title']}.\n" if c["title"] else "") + (c["text"] or "") for c in chunks}
    common = lowercase_vocabulary(texts.values())
    per_chunk = {cid: extract_phrases(text, common, options.min_length) for cid, text in texts.items()}
    df = Counter(key for found in per_chunk.values() for key in found)
    keep = {key for key, n in df.items() if 2 <= n <= max_chunks}
    names: dict[str, str] = {}
    wanted: set[tuple[str, str]] = set()
    for cid in sorted(per_chunk):
        for key, surface in per_chunk[cid].items():
            if key in keep:
                names.setdefault(key, surface)
                wanted.add((cid, key))
    result = PhraseLinkResult(
        chunks=len(chunks),
        phrases_found=len(df),
        phrases=len(keep),
        too_common=sum(1 for n in df.values() if n > max_chunks),
        found=len(wanted),
        dry_run=options.dry_run,
    )
    result.seconds["match"] = round(time.perf_counter() - started, 3)
    if options.dry_run:
        return result
    started = time.perf_counter()
    current = {r["id"]: r for r in graph.read("phrases/existing_phrases")}
    existing = {(r["chunkId"], r["phraseId"]) for r in graph.read("phrases/existing_links")}
    upserts = [
        {"id": key, "name": names[key], "chunks": df[key]}
        for key in sorted(keep)
        if key not in current or current[key]["name"] != names[key] or current[key]["chunks"] != df[key]
    ]
    create = [{"chunkId": c, "phraseId": p} for c, p in sorted(wanted - existing)]
    remove = [{"chunkId": c, "phraseId": p} for c, p in sorted(existing - wanted)]
    stale = sorted(set(current) - keep)
    for start in range(0, len(upserts), batch):
        result.phrases_written += graph.write("phrases/upsert_phrases", rows=upserts[start : start + batch])[0][
            "phrases"
        ]
    for start in range(0, len(remove), batch):
        result.removed += graph.write("phrases/delete_links", rows=remove[start : start + batch])[0]["removed"]
    for start in range(0, len(create), batch):
        result.created += graph.write("phrases/create_links", rows=create[start : start + batch])[0]["created"]
        on_progress(f"phrases: {min(start + batch, len(create))}/{len(create)} links written")
    for start in range(0, len(stale), batch):
        result.phrases_removed += graph.write("phrases/delete_phrases", ids=stale[start : start + batch])[0]["removed"]
    result.seconds["write"] = round(time.perf_counter() - started, 3)
    return result
