"""Named entities in any document's chunks, without an LLM: spaCy's recogniser, mapped by the schema.

What the self-learning users ran on every chunk: a spaCy pipeline (``en_core_web_sm`` by
default, GRAPHRAG_NER_MODEL or ``--model`` for another, e.g. ``zh_core_web_sm``) finds names;
the schema's ``ner: {labels: ...}`` maps its labels to entity types (PERSON → Person, GPE/LOC
→ Place, ...), a label it does not map is skipped and counted. Only the recogniser runs (the
tagger, parser and lemmatizer are switched off), over the chunks in batches (``nlp.pipe``); its
tokenizer also cuts a footnote's number from the word before it ("Egypt.25").

A name is kept when it looks like one: the span without a leading article or a trailing
possessive, with a letter, starting with a capital in a script that has them, at most eight
words. Its ``normName`` is the one rule of the graph (``graphrag_cypher.text.norm_name``), so
"Sebastian Heath" in three articles is one entity ``person:sebastian heath``, the same node as
the author of those articles; an existing global entity of that name and type (a gazetteer
place, a canonical LLM entity) is used when there is exactly one. Each chunk gets
``(:Chunk)-[:MENTIONS {rule: 'ner', matched, count, offsets}]->(e)`` and ``(e)-[:FROM_CHUNK]->(c)``.

Incremental and idempotent: a chunk carries the checkpoint of the pipeline and mapping that read
it (``nerBy``) and of the text it read (``nerHash``), written in the transaction of its mentions;
a run reads only chunks without one (new, changed, or read by another pipeline), so a second run
on an unchanged corpus reads nothing and writes nothing, and an interrupted one resumes.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..config import NER_DEFAULT_MODEL as DEFAULT_MODEL
from ..config import NER_PINNED_FALLBACK as PINNED_FALLBACK
from ..db import Graph
from ..errors import GraphragError
from ..schema import KGSchema
from .names import norm_name
from .ner_gazetteer import CACHE_DIR as GAZETTEER_CACHE
from .ner_gazetteer import RULE as GAZETTEER_RULE
from .ner_gazetteer import Gazetteer
from .ner_gazetteer import load as load_gazetteer

RULES_VERSION = "ner-4"  # bump when the name rules below change: every chunk is read again
PAGE = 256  # chunks per read, recognition batch and write transaction
MAX_WORDS = 8
MAX_CHARS = 80
_ARTICLES = {"the", "a", "an"}
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_EDGE = " \t\n\r\"'“”‘’`«»()[]{}<>,.;:!?*_|/\\-–—"
_LETTER = re.compile(r"[^\W\d_]")
_INSTALL = (
    "install a spaCy pipeline: `python -m spacy download en_core_web_sm` (the official package), "
    "or `make setup`, which installs the same pipeline pinned by version and hash"
)


@dataclass
class Pipeline:
    """A loaded spaCy pipeline with only what its recogniser needs switched on."""

    nlp: object
    name: str  # "en_core_web_sm-3.8.0": what the graph records as the source
    gazetteer: Gazetteer | None = None  # the graph's names as patterns (ner_gazetteer), when read

    def _found(self, doc) -> list[tuple[str, str, int, int, tuple]]:
        from .ner_rules import mentions

        return [(m.name, m.label, m.start, m.weight, m.ids) for m in mentions(doc, self.gazetteer, self.nlp)]

    def stream(self, chunks: Iterable[dict], processes: int = 1, batch_size: int = 64):
        """(chunk, its names) for each chunk of a stream, parsed by `processes` worker processes
        started once for the whole stream (spaCy's `n_process`), the rules and the gazetteer applied here."""
        pairs = ((c["text"] or "", c) for c in chunks)
        for doc, chunk in self.nlp.pipe(pairs, as_tuples=True, batch_size=batch_size, n_process=processes):  # type: ignore[attr-defined]
            yield chunk, self._found(doc)

    def entities(self, texts: list[str], batch_size: int = 64) -> Iterable[list[tuple[str, str, int, int, tuple]]]:
        """Per text: (name, label, start offset, vote weight, gazetteer ids) of each name, in order, after
        graphrag's rules (:mod:`ner_rules`: lists split, titles, citations, the parse's subjects and
        places, junk) and the gazetteer's names (:mod:`ner_gazetteer`)."""
        for doc in self.nlp.pipe(texts, batch_size=batch_size):  # type: ignore[attr-defined]
            yield self._found(doc)


def clean_name(text: str) -> str | None:
    """A recognised span as an entity name, or None when it does not look like one."""
    name = " ".join(text.split()).strip(_EDGE)
    if len(name) < 2 or len(name) > MAX_CHARS or len(name.split()) > MAX_WORDS:
        return None
    first = _LETTER.search(name)
    if first is None:
        return None
    letter = first.group(0)
    if letter.lower() != letter.upper() and not letter.isupper():  # a cased script: names start upper case
        return None
    name = _POSSESSIVE.sub("", name).strip(_EDGE) if len(name) > 3 else name
    if sum(ch.isdigit() for ch in name) > len(name) // 3:  # "1997", "fig. 12", "AE 1998, 282"
        return None
    return name


# a footnote's number written against the word before it: "from the land of Egypt.25" is "Egypt" and a note
_NOTE_NUMBER = r"(?<=[^\W\d_]{2})\.(?=\d{1,3}(?:\W|$))"


def _split_note_numbers(nlp) -> None:
    """Have the tokenizer cut "Egypt.25" into "Egypt", ".", "25", so the name is seen (offsets unchanged)."""
    from spacy.util import compile_infix_regex

    infixes = list(nlp.Defaults.infixes or [])
    if _NOTE_NUMBER not in infixes:
        nlp.tokenizer.infix_finditer = compile_infix_regex([*infixes, _NOTE_NUMBER]).finditer


def load_pipeline(name: str | None = None) -> Pipeline:
    """The named spaCy pipeline (default en_core_web_sm, or its pinned re-upload when only that
    is installed), its recogniser and what that listens to enabled, the rest off."""
    name = (name or DEFAULT_MODEL).strip()
    try:
        import spacy
    except ImportError:
        raise GraphragError(f"spaCy is not installed (pip install 'spacy>=3.8,<3.9'); then {_INSTALL}") from None
    candidates = [name] + ([PINNED_FALLBACK] if name == DEFAULT_MODEL else [])
    for candidate in candidates:
        try:
            nlp = spacy.load(candidate)
        except OSError:
            continue
        if "ner" not in nlp.pipe_names:
            raise GraphragError(f"spaCy pipeline {candidate!r} has no named-entity recogniser (ner)")
        wanted = {"ner", "parser"} & set(nlp.pipe_names)  # the parse: subjects, prepositions, sentences
        keep = wanted | {
            pipe
            for pipe, component in nlp.pipeline
            if wanted & set(getattr(component, "listening_components", None) or [])
        }
        nlp.select_pipes(enable=[pipe for pipe in nlp.pipe_names if pipe in keep])
        _split_note_numbers(nlp)
        meta = nlp.meta
        label = f"{meta.get('lang', '')}_{meta.get('name', candidate)}-{meta.get('version', '')}"
        return Pipeline(nlp, label)
    raise GraphragError(f"no spaCy pipeline {name!r}: {_INSTALL}")


# The confidence of a mention the gazetteer decided: the Place precision with the gazetteer on the
# annotated sets of bench/ner.py (sample 0.89, heldout 0.87), rounded.
GAZETTEER_CONFIDENCE = 0.9


def fingerprint(pipeline_name: str, schema: KGSchema, gazetteer: str = "") -> str:
    """What a chunk's checkpoint compares: the pipeline, the label mapping and confidences, the
    name rules and the gazetteer's fingerprint."""
    raw = json.dumps(
        [
            RULES_VERSION,
            pipeline_name,
            schema.name,
            sorted(schema.ner_labels.items()),
            sorted(schema.ner_confidence.items()),
            gazetteer,
            GAZETTEER_CONFIDENCE,
        ]
    )
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]


def entity_id(type_name: str, norm: str) -> str:
    return f"{type_name.lower()}:{norm}"


@dataclass
class Selection:
    corpus: str | None = None
    kinds: list[str] | None = None
    document_ids: list[str] | None = None

    def params(self) -> dict:
        return {"corpus": self.corpus, "kinds": self.kinds, "documentIds": self.document_ids}


@dataclass
class NerStats:
    chunks: int = 0
    pending: int = 0
    entities_created: int = 0
    mentions_created: int = 0
    mentions_removed: int = 0
    entities_removed: int = 0
    by_type: Counter = field(default_factory=Counter)  # mentions found this run, by entity type
    skipped_labels: Counter = field(default_factory=Counter)  # recognised, but a label the schema does not map
    rejected: int = 0  # spans that do not look like names
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {
            "chunks": self.chunks,
            "pending": self.pending,
            "entitiesCreated": self.entities_created,
            "entitiesRemoved": self.entities_removed,
            "mentionsCreated": self.mentions_created,
            "mentionsRemoved": self.mentions_removed,
            "mentionsByType": dict(sorted(self.by_type.items())),
            "skippedLabels": dict(sorted(self.skipped_labels.items())),
            "rejectedSpans": self.rejected,
            "seconds": round(self.seconds, 2),
        }


_LOWER_WORD = re.compile(r"(?<![\w’'])[a-z][a-z’'-]+")


def _common_words(texts: Iterable[str]) -> set[str]:
    """The words a document writes in lower case: a one-word name that is one of them is a common
    noun capitalised in a title ("the Antikythera Mechanism ... the mechanism")."""
    return {w for text in texts for w in _LOWER_WORD.findall(text or "")}


def chunk_rows(
    schema: KGSchema,
    chunks: list[dict],
    found: Iterable[list[tuple]],
    stats: NerStats,
    decided: dict[str, set[str]] | None = None,
) -> tuple[dict[str, dict], list[dict]]:
    """Entity rows (by id) and per-chunk mention rows from what the recogniser found; within one
    document (the chunks of a page that share it) a name takes the type most of its mentions got.

    A name the gazetteer decided links to its entity when the gazetteer has one of that type, or
    when the place linker decided one of its entities for that chunk (`decided`: chunk id → place
    ids); else it is the recogniser's own entity, as every other name. A one-word name only the
    recogniser typed, that the document also writes in lower case, is a common noun: dropped."""
    from .ner_rules import RULED, vote

    decided = decided or {}
    typed: list[tuple[dict, list[tuple[str, str, str | None, str, int, tuple]]]] = []
    by_document: dict[str, list[tuple[str, str, int]]] = {}
    texts: dict[str, list[str]] = {}
    for chunk in chunks:
        texts.setdefault(chunk["id"].rsplit("::", 1)[0], []).append(chunk.get("text") or "")
    common = {doc: _common_words(parts) for doc, parts in texts.items()}
    for chunk, spans in zip(chunks, found, strict=True):
        kept: list[tuple[str, str, str | None, str, int, tuple]] = []
        document = chunk["id"].rsplit("::", 1)[0]
        for surface, label, start, weight, *rest in spans:
            ids = tuple(rest[0]) if rest else ()
            type_name = schema.ner_labels.get(label)
            name = clean_name(surface)
            norm = norm_name(name) if name else ""
            if type_name is not None and (not name or not norm):
                stats.rejected += 1
                continue
            if not name or not norm:
                stats.skipped_labels[label] += 1
                continue
            if weight < RULED and not ids and " " not in norm and norm in common[document]:
                stats.rejected += 1
                continue
            kept.append((name, norm, type_name, label, start, ids))  # type None: a label the schema does not map
            if type_name is not None:
                by_document.setdefault(document, []).append((norm, type_name, weight))
        typed.append((chunk, kept))
    voted = {doc: vote(found) for doc, found in by_document.items()}
    entities: dict[str, dict] = {}
    rows = []
    for chunk, kept in typed:
        types = voted.get(chunk["id"].rsplit("::", 1)[0], {})
        mentions: dict[str, dict] = {}
        for name, norm, label_type, label, start, ids in kept:
            type_name = types.get(norm, label_type)  # an unmapped label takes the document's type of the name
            if type_name is None:
                stats.skipped_labels[label] += 1
                continue
            known = ids if type_name == label_type else ()
            if len(known) > 1:  # a name several gazetteer entities share: the place linker's choice, if one
                known = tuple(sorted(set(known) & decided.get(chunk["id"], set())))
            confidence: float | None
            if known and len(known) == 1:
                key, rule, confidence = known[0], GAZETTEER_RULE, GAZETTEER_CONFIDENCE
            else:
                key, rule = entity_id(type_name, norm), "ner"
                confidence = (
                    GAZETTEER_CONFIDENCE if ids and type_name == label_type else schema.ner_confidence.get(type_name)
                )
                row = entities.setdefault(
                    key, {"id": key, "name": name, "normName": norm, "type": type_name, "confidence": confidence}
                )
                if confidence is not None and (row["confidence"] is None or confidence > row["confidence"]):
                    row["confidence"] = confidence
            mention = mentions.setdefault(
                key,
                {
                    "entityId": key,
                    "matched": name,
                    "count": 0,
                    "offsets": [],
                    "label": label,
                    "rule": rule,
                    "confidence": confidence,
                    "type": type_name,
                },
            )
            mention["count"] += 1
            mention["offsets"].append(start)
            stats.by_type[type_name] += 1
        rows.append({"chunkId": chunk["id"], "mentions": list(mentions.values())})
    return entities, rows


def run(
    graph: Graph,
    schema: KGSchema,
    selection: Selection | None = None,
    model: str | None = None,
    pipeline: Pipeline | None = None,
    progress: Callable[[int, int], None] | None = None,
    processes: int | None = None,
    gazetteer: bool = True,
    cache_dir: Path | None = GAZETTEER_CACHE,
) -> dict:
    """Recognise names in the chunks of the selected documents that need it; the summary.

    `processes` parse in parallel (default GRAPHRAG_NER_PROCESSES, else 2 on a machine with two
    cores or more); the chunks are read ahead in pages while they parse, written a page at a time.
    With `gazetteer` the names of the graph's persons and places are patterns too (:mod:`ner_gazetteer`,
    its table cached in `cache_dir`)."""
    if not schema.ner_labels:
        raise GraphragError(
            f"schema {schema.name!r} maps no named-entity labels: add `ner: {{labels: {{PERSON: <type>, ...}}}}` "
            "to it, or use --schema generic"
        )
    started = time.monotonic()
    selection = selection or Selection()
    stats = NerStats()
    pipe = pipeline or load_pipeline(model)
    source = f"ner:{pipe.name}"
    pipe.gazetteer = load_gazetteer(graph, schema, cache_dir) if gazetteer else None
    mark = fingerprint(pipe.name, schema, pipe.gazetteer.key if pipe.gazetteer else "")
    scope = selection.params()
    stats.pending = graph.read_row("ner/pending_count", fingerprint=mark, **scope)["chunks"]
    if processes is None and os.environ.get("GRAPHRAG_NER_PROCESSES"):
        processes = int(os.environ["GRAPHRAG_NER_PROCESSES"])
    if processes is None:  # by default, workers only for enough chunks to be worth starting them
        processes = min(2, os.cpu_count() or 1) if stats.pending >= 4 * PAGE else 1
    processes = max(1, processes)

    def pending():
        after = ""
        while True:  # pages by id: what is read ahead is not read again
            page = graph.read("ner/pending_chunks", after=after, fingerprint=mark, limit=PAGE, **scope)
            if not page:
                return
            after = page[-1]["id"]
            yield from page

    parsed = pipe.stream(pending(), processes=processes)
    while True:
        batch = list(itertools.islice(parsed, PAGE))
        if not batch:
            break
        chunks = [chunk for chunk, _ in batch]
        decided = {
            row["chunkId"]: set(row["placeIds"])
            for row in graph.read("ner/chunk_places", chunkIds=[c["id"] for c in chunks])
        }
        entities, rows = chunk_rows(schema, chunks, (found for _, found in batch), stats, decided)
        resolved = {}
        if entities:
            for row in graph.write(
                "ner/merge_entities", rows=list(entities.values()), source=source, schema=schema.name
            ):
                resolved[row["id"]] = row["entityId"]
                stats.entities_created += int(row["created"])
        for row in rows:
            merged: dict[str, dict] = {}
            for mention in row["mentions"]:  # two names of one known entity: one mention
                target = resolved.get(mention["entityId"], mention["entityId"])
                if target in merged:
                    merged[target]["count"] += mention["count"]
                    merged[target]["offsets"] = sorted(merged[target]["offsets"] + mention["offsets"])
                else:
                    merged[target] = dict(mention, entityId=target)
            row["mentions"] = list(merged.values())
        written = graph.write("ner/write_mentions", rows=rows, source=source, fingerprint=mark)[0]
        stats.mentions_created += written["created"] or 0
        stats.mentions_removed += written["removed"] or 0
        stats.chunks += len(chunks)
        if progress:
            progress(stats.chunks, stats.pending)
    if stats.chunks:  # also names only the old chunks of a re-loaded document held
        stats.entities_removed = graph.write("ner/prune_entities", sourcePrefix="ner:")[0]["entities"]
    stats.seconds = time.monotonic() - started
    result = stats.to_dict()
    result.update(
        extractor="ner",
        model=pipe.name,
        schema=schema.name,
        entitiesByType={r["type"]: r["entities"] for r in graph.read("ner/entity_counts", corpus=selection.corpus)},
    )
    return result
