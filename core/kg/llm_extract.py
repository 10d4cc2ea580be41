"""An LLM reads each story and returns typed entities and relations, checked by the schema.

Per story (or per chunk when the story is longer than ``max_chars``) the model is asked
for JSON ``{"entities": [{id, type, name, original_name, description}], "relations":
[{source, target, type, description}]}``. Structured output is requested where the
endpoint supports it (``response_format`` json_schema, then json_object, then plain
text); a reply that is not valid JSON gets one repair attempt. Types outside the schema,
relations the schema does not allow and relations between unknown ids are rejected and
counted. Ids are scoped to the story (``T2::E4``); each story entity is tied to a
canonical one (``folktale:<name>``, ``canonical: true``) by INSTANCE_OF, and to the
chunks that mention it. A story's checkpoint (``extractionChecksum`` on its Document:
model, schema, prompt and text) is written after its graph, so ``--resume`` continues an
interrupted run where it stopped. 429s and 5xx are retried by the openai client with
exponential backoff and jitter (``max_retries``), honouring Retry-After.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from .. import llm
from ..errors import GraphragError
from ..schema import KGSchema
from .names import norm_name
from .store import Extraction

PROMPT_VERSION = "kg-extract-1"
MAX_NAME = 500
MAX_DESCRIPTION = 2000
_LOCAL_ID = re.compile(r"^[A-Za-z0-9_\-]{1,32}$")
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.IGNORECASE)


def system_prompt(schema: KGSchema) -> str:
    types = "\n".join(f"- {t}: {d}" for t, d in schema.entity_types.items())
    rels = "\n".join(
        f"- {r.name} ({', '.join(sorted(r.sources))} -> {', '.join(sorted(r.targets))})"
        + (f": {r.description}" if r.description else "")
        for r in schema.relation_types.values()
    )
    return (
        "You extract a knowledge graph from a story. Return only a JSON object with two lists:\n"
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
    """Chat completions with the best response format the endpoint accepts."""

    FORMATS = ("json_schema", "json_object", "text")

    def __init__(self, settings, schema: KGSchema, json_schema: dict | None = None):
        self.settings = settings
        self.client = llm.client(settings)
        self.schema = schema
        self.json_schema = json_schema or response_schema(schema)
        self.format_index = 0
        self.calls = 0

    def _format(self):
        kind = self.FORMATS[self.format_index]
        if kind == "json_schema":
            return {"type": "json_schema", "json_schema": self.json_schema}
        if kind == "json_object":
            return {"type": "json_object"}
        return None

    def complete(self, messages: list[dict]) -> str:
        while True:
            try:
                self.calls += 1
                return llm.complete(self.settings, messages, self._format(), llm_client=self.client)
            except llm.LLMRequestRefused:
                # An endpoint without structured output says 400: try the next format.
                if self.format_index + 1 < len(self.FORMATS):
                    self.format_index += 1
                    continue
                raise

    def extract(self, text: str) -> tuple[dict, bool]:
        """The parsed reply for one text, and whether a repair was needed."""
        messages = [
            {"role": "system", "content": system_prompt(self.schema)},
            {"role": "user", "content": f"Story:\n\n{text}"},
        ]
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


def short_id(document_id: str) -> str:
    return document_id.rsplit(":", 1)[-1]


def _text(value, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


def add_story(out: Extraction, schema: KGSchema, story: dict, replies: list[dict], source: str) -> None:
    """Checked, story-scoped entities and relations of one story's replies into `out`."""
    sid = short_id(story["id"])
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


def checksum(model: str, schema: KGSchema, text: str, max_chars: int) -> str:
    fingerprint = json.dumps(schema.describe(), sort_keys=True)
    raw = "\n".join([PROMPT_VERSION, model or "", fingerprint, str(max_chars), text])
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


def run(
    graph,
    settings,
    schema: KGSchema,
    corpus: str | None = None,
    resume: bool = False,
    limit: int | None = None,
    max_chars: int = 12000,
    progress=None,
) -> dict:
    from . import store

    if not settings.llm_configured:
        raise GraphragError("no LLM configured: set GRAPHRAG_LLM_MODEL and OPENAI_BASE_URL (or OPENAI_API_KEY)")
    stories = graph.read("kg/stories", corpus=corpus)
    if not stories:
        raise GraphragError(
            "no stories loaded"
            + (f" in corpus {corpus!r}" if corpus else "")
            + ": run `graphrag load stories FILE` or `graphrag load sample` first"
        )
    llm = LLM(settings, schema)
    source = f"llm:{settings.llm_label}"
    totals = Extraction()
    stats = store.WriteStats()
    counts = {"extracted": 0, "skipped": 0, "failed": 0, "repaired": 0, "total": len(stories)}
    errors: list[dict] = []
    done_now = 0
    if stories:
        store.record_schema(graph, schema)
    for story in stories:
        text_units = units(story, max_chars)
        mark = checksum(settings.llm_label, schema, "\n\n".join(text_units), max_chars)
        if resume and story.get("extractionChecksum") == mark:
            counts["skipped"] += 1
            continue
        if limit is not None and done_now >= limit:
            break
        try:
            replies = []
            for text in text_units:
                reply, repaired = llm.extract(text)
                replies.append(reply)
                counts["repaired"] += int(repaired)
        except ValueError as exc:
            counts["failed"] += 1
            errors.append({"story": story["id"], "error": f"unusable LLM reply after one repair: {exc}"})
            if progress:
                progress(f"error: {story['id']}: unusable LLM reply after one repair: {exc}")
            continue
        extraction = Extraction()
        add_story(extraction, schema, story, replies, source)
        part = store.write(graph, extraction, schema.labels)
        graph.write(
            "kg/mark_extracted",
            rows=[
                {"documentId": story["id"], "checksum": mark, "extractedBy": f"{source} {schema.name} {PROMPT_VERSION}"}
            ],
        )
        for attr in ("nodes_created", "relationships_created", "labels_added", "properties_set"):
            setattr(stats, attr, getattr(stats, attr) + getattr(part, attr))
        _merge(totals, extraction)
        counts["extracted"] += 1
        done_now += 1
        if progress:
            progress(
                f"extract llm: {story['id']} ({len(extraction.entities)} entities, "
                f"{len(extraction.relations)} relations)"
            )
    result = store.summary(totals, stats)
    result.update(
        schema=schema.name,
        extractor="llm",
        model=settings.llm_label,
        stories=counts,
        llmCalls=llm.calls,
        responseFormat=LLM.FORMATS[llm.format_index],
        errors=errors,
    )
    result["entitiesRejected"] = sum(n for r, n in totals.skipped.items() if r.startswith("entity"))
    result["relationsRejected"] = sum(n for r, n in totals.skipped.items() if not r.startswith("entity"))
    return result


def _merge(total: Extraction, part: Extraction) -> None:
    for row in part.entities.values():
        total.entity(dict(row), implied=row["implied"])
    total.relations.update(part.relations)
    total.skipped.update(part.skipped)
    total.skipped_examples.extend(part.skipped_examples[: max(0, 20 - len(total.skipped_examples))])
