"""Typed entities and relations from wiki pages and their infoboxes, by heuristics the schema declares.

Each wiki page becomes one entity, with an infobox or without. Its type comes from a scoring
system: rules on the infobox template name, the fields present, the title, the categories
and the first sentence add points to types (``type_scores``); the best type wins and the
margin over the runner-up gives the confidence (High / Medium / Low), with a ``reason`` that
lists the rules that fired. A page no rule scores gets the schema's ``fallback`` type (Low
confidence), or is skipped when the schema has none. Low, tied and close calls are flagged
``needsReview``: the candidates `extract --validate` sends to an LLM.
Mapped infobox fields become relations (``father`` → CHILD_OF, ``seat`` → SEATED_AT …);
a relation the schema does not allow between the two types is skipped and counted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from ..schema import KGSchema
from .names import norm_name
from .store import Extraction

DEFAULT_SPLIT = r"\s*(?:;|,|/|&|\s[-–—]\s|\band\b|\bor\b)\s*"
_PARENS = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
DEFAULT_MAX_WORDS = 6


@dataclass
class Typing:
    type: str | None
    scores: dict[str, float]
    confidence: str
    reason: str
    margin: float

    @property
    def doubtful(self) -> bool:
        """Low confidence, a tie, or a close runner-up: worth a second opinion."""
        return self.confidence == "Low" or self.margin < 2


def first_sentence(text: str | None, limit: int = 300) -> str:
    """The lead sentence of a page's text (what "X is a castle in the North" cues read)."""
    from ..text import split_sentences

    text = (text or "").strip()
    if not text:
        return ""
    sentences = split_sentences(text[: limit * 3])
    return (sentences[0] if sentences else text)[:limit].strip()


def classify(
    schema: KGSchema, title: str, template: str | None, fields: dict, categories: list[str], lead: str = ""
) -> Typing:
    rules = schema.infobox
    scores: dict[str, float] = {}
    reasons: list[str] = []

    def add(points: dict, why: str) -> None:
        for type_name, value in (points or {}).items():
            scores[type_name] = scores.get(type_name, 0) + float(value)
        reasons.append(f"{why} -> " + ", ".join(f"{t} +{v:g}" for t, v in points.items()))

    for rule in rules.get("templates") or []:
        if re.search(rule["match"], template or "", re.IGNORECASE):
            add(rule["scores"], f"template '{template}'")
    lowered = {k.casefold(): k for k in fields}
    for name, points in (rules.get("fields") or {}).items():
        if name.casefold() in lowered:
            add(points, f"field '{name}'")
    for rule in rules.get("titles") or []:
        found = re.search(rule["match"], title or "")
        if found:
            add(rule["scores"], f"title '{found.group(0).strip()}'")
    for rule in rules.get("categories") or []:
        hit = next((c for c in categories if re.search(rule["match"], c, re.IGNORECASE)), None)
        if hit:
            add(rule["scores"], f"category '{hit}'")
    for rule in rules.get("leads") or []:
        found = re.search(rule["match"], lead or "", re.IGNORECASE)
        if found:
            add(rule["scores"], f"first sentence '{found.group(0).strip()}'")
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    ranked = [(t, s) for t, s in ranked if s > 0]
    if not ranked:
        fallback = rules.get("fallback")
        if fallback:
            return Typing(fallback, {}, "Low", f"no rule matched: fallback {fallback}", 0.0)
        return Typing(None, {}, "Low", "no rule matched", 0.0)
    best, top = ranked[0]
    margin = top - (ranked[1][1] if len(ranked) > 1 else 0.0)
    if top >= 5 and margin >= 3:
        confidence = "High"
    elif top >= 3 and margin >= 1.5:
        confidence = "Medium"
    else:
        confidence = "Low"
    if len(ranked) > 1 and ranked[1][1] == top:
        reasons.append(f"tie with {ranked[1][0]}")
    return Typing(best, dict(ranked), confidence, "; ".join(reasons), margin)


def field_values(value: str, spec: dict) -> list[str]:
    """The entity names in one infobox value (parentheticals dropped, lists split)."""
    text = _PARENS.sub(" ", value or "")
    parts = [p.strip(" .;:'\"") for p in re.split(spec.get("split", DEFAULT_SPLIT), text)]
    parts = [" ".join(p.split()) for p in parts if p and re.search(r"[^\W\d_]", p)]
    if spec.get("take") == "first":
        parts = parts[:1]
    return parts


def is_name(value: str, spec: dict) -> bool:
    words = value.split()
    return (
        0 < len(words) <= spec.get("max_words", DEFAULT_MAX_WORDS)
        and not value.endswith(".")
        and (value[0].isupper() or value[0].isdigit())
    )


def extract(schema: KGSchema, pages: list[dict]) -> Extraction:
    """Entities, relations and provenance for the given wiki pages (rows of kg/wiki_pages)."""
    out = Extraction()
    source = f"infobox:{schema.name}"
    typed: dict[str, tuple[dict, dict, Typing]] = {}
    for page in pages:
        fields = json.loads(page.get("infobox") or "{}")
        typing = classify(
            schema,
            page["title"],
            page.get("infoboxType"),
            fields,
            page.get("categories") or [],
            first_sentence(page.get("lead")),
        )
        validated = schema.entity_type(page.get("validatedType"))
        if validated and validated != typing.type:
            # the LLM's verdict (`extract --validate`) decides the type, so also which edges are allowed
            typing = replace(typing, type=validated, reason=f"{typing.reason}; validated as {validated}")
        if typing.type is None:
            out.skip("untyped: no rule matched", f"{page['title']} ({page.get('infoboxType') or 'no infobox'})")
            continue
        norm = norm_name(page["title"])
        if not norm:
            out.skip("untyped: empty name", page["id"])
            continue
        entity_id = schema.entity_id(norm)
        aliases = [a for a in (page.get("aliases") or []) if isinstance(a, str)]
        label = fields.get("name") or fields.get("Name")
        if label and norm_name(label) != norm and is_name(label, {}):
            aliases.append(label)
        out.entity(
            {
                "id": entity_id,
                "type": typing.type,
                "name": page["title"],
                "normName": norm,
                "aliases": sorted(set(aliases)),
                "confidence": typing.confidence,
                "reason": typing.reason,
                "typeScores": typing.scores,
                "needsReview": typing.doubtful,
                "typedBy": "infobox" if page.get("infoboxType") else "page",
                "infoboxType": page.get("infoboxType"),
                "source": source,
                "schema": schema.name,
            }
        )
        out.describes.append({"documentId": page["id"], "entityId": entity_id, "source": source})
        out.mentions.append(
            {
                "documentId": page["id"],
                "entityId": entity_id,
                "name": page["title"],
                "rule": "infobox-subject",
                "source": source,
                "fromChunk": False,
            }
        )
        typed[entity_id] = (page, fields, typing)

    properties = schema.infobox.get("properties") or {}
    for entity_id, (page, fields, typing) in typed.items():
        for field_name, raw in fields.items():
            spec = properties.get(field_name) or properties.get(field_name.casefold())
            if not spec:
                continue
            for value in field_values(raw, spec):
                if not is_name(value, spec):
                    out.skip("value is not a name", f"{page['title']}: {field_name} = {value[:60]}")
                    continue
                target_norm = norm_name(value)
                target_id = schema.entity_id(target_norm)
                if target_id == entity_id:
                    continue
                known = typed.get(target_id)
                target_type = known[2].type if known else spec["target"]
                relation = spec["relation"]
                src, dst = (target_id, entity_id) if spec.get("reverse") else (entity_id, target_id)
                src_type, dst_type = (target_type, typing.type) if spec.get("reverse") else (typing.type, target_type)
                if not schema.allows(src_type, relation, dst_type):
                    out.skip(
                        f"schema: {schema.why_not(src_type, relation, dst_type)}",
                        f"{page['title']}: {field_name} = {value}",
                    )
                    continue
                if not known:
                    out.entity(
                        {
                            "id": target_id,
                            "type": target_type,
                            "name": value,
                            "normName": target_norm,
                            "aliases": [],
                            "confidence": "Low",
                            "typedBy": "relation",
                            "reason": f"named in '{field_name}' of {page['title']}",
                            "source": source,
                            "schema": schema.name,
                        },
                        implied=True,
                    )
                out.relation(
                    src,
                    relation,
                    dst,
                    {
                        "source": source,
                        "property": field_name,
                        "documentId": page["id"],
                        "confidence": typing.confidence,
                    },
                )
                out.mentions.append(
                    {
                        "documentId": page["id"],
                        "entityId": target_id,
                        "name": value,
                        "rule": f"infobox-{field_name}",
                        "source": source,
                        "fromChunk": False,
                    }
                )
    return out


def run(graph, schema: KGSchema, corpus: str | None = None) -> dict:
    from . import store

    pages = graph.read("kg/wiki_pages", corpus=corpus, schema=schema.name)
    extraction = extract(schema, pages)
    stats = store.write(graph, extraction, schema.labels)
    store.record_schema(graph, schema)
    result = store.summary(extraction, stats)
    result.update(pages=len(pages), schema=schema.name, extractor="infobox", confidence=_confidences(extraction))
    return result


def _confidences(extraction: Extraction) -> dict:
    from collections import Counter

    return dict(
        Counter(e["confidence"] for e in extraction.entities.values() if e.get("typedBy") in ("infobox", "page"))
    )
