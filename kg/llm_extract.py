"""An LLM reads each document and returns typed entities and relations, checked by the schema.

Per document (or per run of its chunks, merged while under ``max_chars``) the model is asked
for JSON ``{"entities": [{id, type, name, original_name, description}], "relations":
[{source, target, type, description}]}``. Stories are read as stories, every other kind as a
document (``Selection``: a corpus, kinds, ids). Structured output is requested where the
endpoint supports it (``response_format`` json_schema, then json_object, then plain text); a
reply that is not valid JSON gets one repair attempt. Types outside the schema, relations
the schema does not allow and relations between unknown ids are rejected and counted. Ids
are scoped to the document (``T2::E4``); each scoped entity is tied to a canonical one
(``folktale:<name>``, ``canonical: true``) by INSTANCE_OF, and to the chunks that mention it.

Requests run ``concurrency`` at a time; replies are consumed and written in document order,
in batches of ``WRITE_BATCH`` documents, so the graph does not depend on the concurrency.
Usable replies are kept on disk (``ReplyCache``: unit text, model, schema, prompt), so a re-run
or a resumed run asks nothing twice. A document's checkpoint (``extractionChecksum``: model,
schema, prompt and text) is written after its graph, so ``--resume`` continues an interrupted
run where it stopped. 429s and 5xx are retried by the openai client in each request's own
thread, with exponential backoff and jitter (``max_retries``), honouring Retry-After.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import llm
from ..errors import GraphragError
from ..schema import KGSchema
from .names import norm_name
from .store import Extraction

PROMPT_VERSION = "kg-extract-1"  # the story prompt: bump when its wording changes
DOCUMENT_PROMPT_VERSION = "kg-extract-document-1"  # the same for every other kind
WRITE_BATCH = 25  # documents per write
MAX_NAME = 500
MAX_DESCRIPTION = 2000
_LOCAL_ID = re.compile(r"^[A-Za-z0-9_\-]{1,32}$")
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Prompt:
    """How a kind of document is named to the model, and the version its checkpoints carry."""

    noun: str
    heading: str
    version: str


STORY_PROMPT = Prompt("story", "Story", PROMPT_VERSION)
DOCUMENT_PROMPT = Prompt("document", "Document", DOCUMENT_PROMPT_VERSION)


def prompt_for(kind: str | None) -> Prompt:
    return STORY_PROMPT if kind == "story" else DOCUMENT_PROMPT


def system_prompt(schema: KGSchema, prompt: Prompt = STORY_PROMPT) -> str:
    types = "\n".join(f"- {t}: {d}" for t, d in schema.entity_types.items())
    rels = "\n".join(
        f"- {r.name} ({', '.join(sorted(r.sources))} -> {', '.join(sorted(r.targets))})"
        + (f": {r.description}" if r.description else "")
        for r in schema.relation_types.values()
    )
    return (
        f"You extract a knowledge graph from a {prompt.noun}. Return only a JSON object with two lists:\n"
        '"entities": [{"id": "E1", "type": ..., "name": ..., "original_name": ..., "description": ...}] and\n'
        '"relations": [{"source": "E1", "target": "E2", "type": ..., "description": ...}].\n'
        'Ids are E1, E2, ... in order of first appearance. `name` is the canonical name ("Reynold"),'
        " `original_name` the words used in the text. Relations may only join ids you listed.\n"
        f"Entity types (use exactly these):\n{types}\n"
        f"Relation types (source types -> target types; use exactly these):\n{rels}"
    )


def response_schema(schema: KGSchema) -> dict:
    entity = {
        "type": "object",
        "additionalProperties": False,
        "required": ["id", "type", "name", "original_name", "description"],
        "properties": {
            "id": {"type": "string"},
            "type": {"type": "string", "enum": schema.labels},
            "name": {"type": "string"},
            "original_name": {"type": "string"},
            "description": {"type": "string"},
        },
    }
    relation = {
        "type": "object",
        "additionalProperties": False,
        "required": ["source", "target", "type", "description"],
        "properties": {
            "source": {"type": "string"},
            "target": {"type": "string"},
            "type": {"type": "string", "enum": sorted(schema.relation_types)},
            "description": {"type": "string"},
        },
    }
    return {
        "name": "knowledge_graph",
        "strict": True,
        "schema": {
            "type": "object",
            "additionalProperties": False,
            "required": ["entities", "relations"],
            "properties": {
                "entities": {"type": "array", "items": entity},
                "relations": {"type": "array", "items": relation},
            },
        },
    }


def parse_reply(text: str) -> dict:
    """The JSON object in a reply (code fences tolerated); ValueError when there is none."""
    cleaned = _FENCE.sub("", (text or "").strip())
    try:
        data = json.loads(cleaned)
    except json.JSONDecodeError:
        start, end = cleaned.find("{"), cleaned.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("the reply holds no JSON object") from None
        try:
            data = json.loads(cleaned[start : end + 1])
        except json.JSONDecodeError as exc:
            raise ValueError(f"invalid JSON: {exc}") from None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("entities", []), list)
        or not isinstance(data.get("relations", []), list)
    ):
        raise ValueError('expected {"entities": [...], "relations": [...]}')
    return data


class LLM:
    """Chat completions with the best response format the endpoint accepts; safe to share
    between threads (one client, counters and the format choice under a lock)."""

    FORMATS = ("json_schema", "json_object", "text")

    def __init__(self, settings, schema: KGSchema, json_schema: dict | None = None):
        self.settings = settings
        self.client = llm.client(settings)
        self.schema = schema
        self.json_schema = json_schema or response_schema(schema)
        self.format_index = 0
        self.calls = 0
        self._lock = threading.Lock()

    def _format(self, index: int):
        kind = self.FORMATS[index]
        if kind == "json_schema":
            return {"type": "json_schema", "json_schema": self.json_schema}
        if kind == "json_object":
            return {"type": "json_object"}
        return None

    def complete(self, messages: list[dict]) -> str:
        while True:
            with self._lock:
                index = self.format_index
                self.calls += 1
            try:
                return llm.complete(self.settings, messages, self._format(index), llm_client=self.client)
            except llm.LLMRequestRefused:
                # An endpoint without structured output says 400: try the next format (once,
                # whichever of the threads in flight hears it first).
                with self._lock:
                    if self.format_index == index:
                        if index + 1 >= len(self.FORMATS):
                            raise
                        self.format_index = index + 1

    def messages(self, text: str, prompt: Prompt = STORY_PROMPT) -> list[dict]:
        return [
            {"role": "system", "content": system_prompt(self.schema, prompt)},
            {"role": "user", "content": f"{prompt.heading}:\n\n{text}"},
        ]

    def extract(self, text: str, prompt: Prompt = STORY_PROMPT) -> tuple[dict, bool]:
        """The parsed reply for one text, and whether a repair was needed."""
        messages = self.messages(text, prompt)
        reply = self.complete(messages)
        try:
            return parse_reply(reply), False
        except ValueError as first:
            messages += [
                {"role": "assistant", "content": reply},
                {
                    "role": "user",
                    "content": f"That reply was not usable ({first}). Reply again with only "
                    "the JSON object, complete and valid.",
                },
            ]
            return parse_reply(self.complete(messages)), True


def cache_path() -> Path:
    """The reply cache: extract.sqlite in GRAPHRAG_CACHE_DIR (default .graphrag/cache, beside the judge's)."""
    return Path(os.environ.get("GRAPHRAG_CACHE_DIR") or ".graphrag/cache") / "extract.sqlite"


class ReplyCache:
    """Usable replies on disk (sqlite), by a key of everything that shapes them; one connection
    shared by the request threads under a lock, and safe beside another process (WAL)."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL)")
        self._db.commit()
        self._lock = threading.Lock()

    @staticmethod
    def prefix(model: str | None, schema: KGSchema, prompt: Prompt) -> str:
        """The key's part that every unit of a run shares: model, schema fingerprint, prompt
        version and the prompt's own text, so a changed prompt misses even when its version was not bumped."""
        parts = [
            prompt.version,
            system_prompt(schema, prompt),
            prompt.heading,
            model or "",
            json.dumps(schema.describe(), sort_keys=True),
            json.dumps(response_schema(schema), sort_keys=True),
        ]
        return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()

    @staticmethod
    def key(prefix: str, text: str) -> str:
        return hashlib.sha256(f"{prefix}\x1f{text}".encode()).hexdigest()

    def get(self, key: str) -> dict | None:
        with self._lock:
            row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, reply: dict) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO replies VALUES (?, ?)", (key, json.dumps(reply)))
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()


def short_id(document_id: str) -> str:
    return document_id.rsplit(":", 1)[-1]


def scope_id(document: dict) -> str:
    """The prefix of a document's scoped entity ids: a story's short id (`T2`), as always;
    any other document's whole id, since the tail of `file:<key>:readme.txt` repeats across folders."""
    return short_id(document["id"]) if document.get("kind", "story") == "story" else document["id"]


def _text(value, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


def add_story(out: Extraction, schema: KGSchema, story: dict, replies: list[dict], source: str) -> None:
    """Checked, document-scoped entities and relations of one document's replies into `out`."""
    sid = scope_id(story)
    by_key: dict[tuple[str, str], str] = {}  # (type, normName) -> story-scoped id, across chunks
    count = 0
    for reply in replies:
        local: dict[Any, tuple[str, str]] = {}  # reply id (a string, when well formed) -> (scoped id, type)
        for item in reply.get("entities") or []:
            if not isinstance(item, dict):
                out.skip("entity is not an object", sid)
                continue
            local_id, type_name = item.get("id"), schema.entity_type(item.get("type"))
            name = _text(item.get("name"), MAX_NAME).strip()
            if not isinstance(local_id, str) or not _LOCAL_ID.match(local_id):
                out.skip("entity id malformed", f"{sid}: {str(local_id)[:40]!r}")
                continue
            if local_id in local:
                out.skip("entity id repeated", f"{sid}: {local_id}")
                continue
            if type_name is None:
                out.skip("entity type not in schema", f"{sid}: {str(item.get('type'))[:40]!r}")
                continue
            norm = norm_name(name)
            if not norm:
                out.skip("entity without a name", f"{sid}: {local_id}")
                continue
            key = (type_name, norm)
            if key not in by_key:
                count += 1
                by_key[key] = f"{sid}::E{count}" if len(replies) > 1 else f"{sid}::{local_id}"
            scoped = by_key[key]
            local[local_id] = (scoped, type_name)
            original = _text(item.get("original_name"), MAX_NAME).strip()
            out.entity(
                {
                    "id": scoped,
                    "type": type_name,
                    "name": name,
                    "normName": norm,
                    "aliases": [original] if original and norm_name(original) != norm else [],
                    "description": _text(item.get("description"), MAX_DESCRIPTION),
                    "originalName": original,
                    "storyId": sid,
                    "documentId": story["id"],
                    "scope": "story",
                    "typedBy": "llm",
                    "source": source,
                    "schema": schema.name,
                }
            )
            canonical = schema.entity_id(norm)
            out.entity(
                {
                    "id": canonical,
                    "type": type_name,
                    "name": name,
                    "normName": norm,
                    "aliases": [],
                    "canonical": True,
                    "scope": "global",
                    "typedBy": "llm",
                    "source": source,
                    "schema": schema.name,
                },
                implied=True,
            )
            out.instance_of.append({"id": scoped, "canonicalId": canonical, "source": source})
            out.mentions.append(
                {
                    "documentId": story["id"],
                    "entityId": scoped,
                    "name": name,
                    "rule": "llm",
                    "source": source,
                    "fromChunk": True,
                }
            )
        for item in reply.get("relations") or []:
            if not isinstance(item, dict):
                out.skip("relation is not an object", sid)
                continue
            rel = schema.relation_type(item.get("type"))
            src, dst = local.get(item.get("source")), local.get(item.get("target"))
            if src is None or dst is None:
                out.skip(
                    "relation between unknown ids",
                    f"{sid}: {str(item.get('source'))[:20]} -> {str(item.get('target'))[:20]}",
                )
                continue
            if rel is None:
                out.skip("relation type not in schema", f"{sid}: {str(item.get('type'))[:40]!r}")
                continue
            if not schema.allows(src[1], rel, dst[1]):
                out.skip(f"schema: {schema.why_not(src[1], rel, dst[1])}", f"{sid}: {src[0]} -> {dst[0]}")
                continue
            out.relation(
                src[0],
                rel,
                dst[0],
                {
                    "source": source,
                    "storyId": sid,
                    "documentId": story["id"],
                    "description": _text(item.get("description"), MAX_DESCRIPTION),
                },
            )


def checksum(model: str, schema: KGSchema, text: str, max_chars: int, version: str = PROMPT_VERSION) -> str:
    fingerprint = json.dumps(schema.describe(), sort_keys=True)
    raw = "\n".join([version, model or "", fingerprint, str(max_chars), text])
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def units(story: dict, max_chars: int) -> list[str]:
    """The whole story when it fits, else its chunks (merged while they fit)."""
    chunks = [c["text"] or "" for c in story["chunks"]]
    whole = "\n\n".join(chunks)
    if len(whole) <= max_chars:
        return [whole] if whole.strip() else []
    parts, current = [], ""
    for text in chunks:
        if current and len(current) + len(text) + 2 > max_chars:
            parts.append(current)
            current = ""
        current = f"{current}\n\n{text}" if current else text
    return parts + ([current] if current else [])


@dataclass(frozen=True)
class Selection:
    """Which documents to extract: of a corpus, of these kinds (None: every kind but the
    generated entity documents), these ids (None: all)."""

    corpus: str | None = None
    kinds: tuple[str, ...] | None = ("story",)
    ids: tuple[str, ...] | None = None

    def params(self) -> dict:
        return {
            "corpus": self.corpus,
            "kinds": list(self.kinds) if self.kinds is not None else None,
            "ids": list(self.ids) if self.ids is not None else None,
        }


@dataclass
class Job:
    """One request's worth of text: unit `index` of document `doc` (`text` None: a document without text)."""

    doc: int
    index: int
    last: bool
    text: str | None
    prompt: Prompt


@dataclass
class Answer:
    reply: dict | None = None
    repaired: bool = False
    cached: bool = False
    error: str | None = None


def _nothing_selected(graph, selection: Selection) -> str:
    where = f" in corpus {selection.corpus!r}" if selection.corpus else ""
    if selection.kinds == ("story",) and selection.ids is None:
        kinds = graph.read("kg/extract_kinds", corpus=selection.corpus)
        others = ", ".join(f"{r['documents']} {r['kind']}" for r in kinds)
        if others:
            return f"no stories loaded{where}; it holds {others} document(s): pass --kind KIND, or --kind all"
        return f"no stories loaded{where}: run `graphrag load stories FILE` or `graphrag load sample` first"
    return f"no document matched{where} (kinds: {', '.join(selection.kinds or ['all'])})"


def run(
    graph,
    settings,
    schema: KGSchema,
    selection: Selection | None = None,
    resume: bool = False,
    limit: int | None = None,
    max_chars: int = 12000,
    concurrency: int = 1,
    cache: ReplyCache | None = None,
    on_progress: Callable[[int, int, int, int], None] | None = None,
    on_error: Callable[[str], None] | None = None,
) -> dict:
    """Extract the selected documents; `on_progress(units done, units, requests, cache hits)`
    after each unit, `on_error(line)` for a document whose reply stayed unusable."""
    from . import store

    if not settings.llm_configured:
        raise GraphragError("no LLM configured: set GRAPHRAG_LLM_MODEL and OPENAI_BASE_URL (or OPENAI_API_KEY)")
    selection = selection or Selection()
    docs = graph.read("kg/extract_documents", **selection.params())
    if not docs:
        raise GraphragError(_nothing_selected(graph, selection))
    model = LLM(settings, schema)
    source = f"llm:{settings.llm_label}"
    counts = {"extracted": 0, "skipped": 0, "failed": 0, "repaired": 0, "total": len(docs)}
    todo: list[tuple[dict, str]] = []  # (document, checksum)
    jobs: list[Job] = []
    for doc in docs:
        prompt = prompt_for(doc.get("kind"))
        text_units = units(doc, max_chars)
        mark = checksum(settings.llm_label, schema, "\n\n".join(text_units), max_chars, prompt.version)
        if resume and doc.get("extractionChecksum") == mark:
            counts["skipped"] += 1
            continue
        if limit is not None and len(todo) >= limit:
            continue
        for i, text in enumerate(text_units or [None]):
            jobs.append(Job(len(todo), i, i == max(len(text_units), 1) - 1, text, prompt))
        todo.append((doc, mark))
    store.record_schema(graph, schema)
    ask = _asker(model, schema, settings.llm_label, cache)
    writer = _Writer(graph, schema, source, store)
    errors: list[dict] = []
    hits = done = 0
    replies: list[dict] = []
    failure: str | None = None
    try:
        for job, answer in llm.map_ordered(lambda j: (j, ask(j)), jobs, concurrency):
            done += 1
            hits += int(answer.cached)
            counts["repaired"] += int(answer.repaired)
            if answer.error:
                failure = failure or answer.error
            elif answer.reply is not None:
                replies.append(answer.reply)
            if job.last:
                doc, mark = todo[job.doc]
                if failure:
                    counts["failed"] += 1
                    errors.append({"story": doc["id"], "error": f"unusable LLM reply after one repair: {failure}"})
                    if on_error:
                        on_error(f"{doc['id']}: unusable LLM reply after one repair: {failure}")
                else:
                    writer.add(doc, mark, replies, schema)
                    counts["extracted"] += 1
                replies, failure = [], None
            if on_progress:
                on_progress(done, len(jobs), model.calls, hits)
    finally:
        writer.flush()  # what was read before an error is kept, and checkpointed
        if cache is not None:
            cache.close()
    result = store.summary(writer.totals, writer.stats)
    result.update(
        schema=schema.name,
        extractor="llm",
        model=settings.llm_label,
        stories=counts,
        documents=counts,
        kinds=list(selection.kinds) if selection.kinds is not None else "all",
        llmCalls=model.calls,
        requests=model.calls,
        cacheHits=hits,
        concurrency=concurrency,
        responseFormat=LLM.FORMATS[model.format_index],
        errors=errors,
    )
    result["entitiesRejected"] = sum(n for r, n in writer.totals.skipped.items() if r.startswith("entity"))
    result["relationsRejected"] = sum(n for r, n in writer.totals.skipped.items() if not r.startswith("entity"))
    return result


def _asker(model: LLM, schema: KGSchema, label: str | None, cache: ReplyCache | None) -> Callable[[Job], Answer]:
    """One job's answer, from the cache when it holds one (runs in the request threads)."""
    prefixes = {p: ReplyCache.prefix(label, schema, p) for p in (STORY_PROMPT, DOCUMENT_PROMPT)}

    def ask(job: Job) -> Answer:
        if job.text is None:
            return Answer()
        key = ReplyCache.key(prefixes[job.prompt], job.text)
        if cache is not None and (hit := cache.get(key)) is not None:
            return Answer(hit, cached=True)
        try:
            reply, repaired = model.extract(job.text, job.prompt)
        except ValueError as exc:
            return Answer(error=str(exc))
        if cache is not None:
            cache.put(key, reply)
        return Answer(reply, repaired)

    return ask


class _Writer:
    """Documents' graphs written in the order they come, WRITE_BATCH documents a time, each
    batch's checkpoints after it: an interruption redoes at most one batch."""

    def __init__(self, graph, schema: KGSchema, source: str, store):
        self.graph, self.schema, self.source, self.store = graph, schema, source, store
        self.totals = store.Extraction()
        self.stats = store.WriteStats()
        self.parts: list = []
        self.marks: list[dict] = []

    def add(self, doc: dict, mark: str, replies: list[dict], schema: KGSchema) -> None:
        extraction = self.store.Extraction()
        add_story(extraction, schema, doc, replies, self.source)
        self.parts.append(extraction)
        prompt = prompt_for(doc.get("kind"))
        self.marks.append(
            {"documentId": doc["id"], "checksum": mark, "extractedBy": f"{self.source} {schema.name} {prompt.version}"}
        )
        if len(self.parts) >= WRITE_BATCH:
            self.flush()

    def flush(self) -> None:
        if not self.parts:
            return
        part = self.store.write_in_order(self.graph, self.parts, self.schema.labels)
        self.graph.write("kg/mark_extracted", rows=self.marks)
        for attr in ("nodes_created", "relationships_created", "labels_added", "properties_set"):
            setattr(self.stats, attr, getattr(self.stats, attr) + getattr(part, attr))
        for extraction in self.parts:
            _merge(self.totals, extraction)
        self.parts, self.marks = [], []


def _merge(total: Extraction, part: Extraction) -> None:
    for row in part.entities.values():
        total.entity(dict(row), implied=row["implied"])
    total.relations.update(part.relations)
    total.skipped.update(part.skipped)
    total.skipped_examples.extend(part.skipped_examples[: max(0, 20 - len(total.skipped_examples))])


def graph_fingerprint(graph) -> str:
    """A sha256 of every node and relationship with its properties, times left out (a checkpoint's
    `extractedAt`, a mention's `at`): equal for two runs that left the same graph."""
    import neo4j.time

    def kept(props: dict) -> dict:
        temporal = (neo4j.time.DateTime, neo4j.time.Date, neo4j.time.Time, neo4j.time.Duration)
        return {k: v for k, v in props.items() if not isinstance(v, temporal)}

    rows = sorted(
        json.dumps(
            [r["kind"], sorted(r["labels"]), kept(r["props"]), r["start"], r["end"]], sort_keys=True, default=str
        )
        for r in graph.read("kg/extract_graph_rows")
    )
    return hashlib.sha256("\n".join(rows).encode("utf-8")).hexdigest()


def reset(graph, settings) -> int:
    """Remove this model's extraction (entities and checkpoints); the documents it had read."""
    return graph.write("kg/extract_reset", source=f"llm:{settings.llm_label}")[0]["documents"]
