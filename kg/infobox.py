"""Typed entities and relations from wiki pages and their infoboxes, by heuristics the schema declares.

Each wiki page becomes one entity, with an infobox or without. Its type comes from a scoring
system: rules on the infobox template name, the fields present, the title, the categories
and the first sentence add points to types (``type_scores``); the best type wins and the
margin over the runner-up gives the confidence (High / Medium / Low), with a ``reason`` that
lists the rules that fired. A page no rule scores gets the schema's ``fallback`` type (Low
confidence), or is skipped when the schema has none. Low, tied and close calls are flagged
``needsReview``: the candidates `extract --validate` sends to an LLM.
Mapped infobox fields become relations (``father`` → CHILD_OF, ``seat`` → SEATED_AT …);
a relation the schema does not allow between the two types is skipped and counted. A field
may list several relations (``place``: SET_IN for a chapter, LOCATED_IN for a battle): the
first the schema allows between the two types is built. Numbered fields (``commander1``,
``combatants2``) map as their base name. A linked value (``[[Jon Snow|Jon]]``) names the
link's target, its text becoming an alias. A place relative to another ("Near Meereen",
"north of the Wall") is no place of its own: the edge goes to the other place and keeps the
preposition (``qualifier``). Edges a page's infobox no longer gives are removed, and so are
entities only such edges named.
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
_NUMBERED = re.compile(r"\s*\d+$")
# a place given relative to another: "Near Meereen", "Yunkish camp near Meereen", "north of the Wall"
_DIRECTION = r"(?:north|south|east|west|north-?east|north-?west|south-?east|south-?west)"
_RELATIVE = re.compile(
    r"^(?:(?P<detail>.*?)\s+)??(?P<qualifier>near|nearby|close to|not far from|"
    + _DIRECTION
    + r" of|to the "
    + _DIRECTION
    + r" of|outside(?: the walls of| of)?|beyond|between|off the coast of|somewhere (?:in|near|(?:to the )?"
    + _DIRECTION
    + r" of))"
    r"\s+(?:the\s+)?(?P<target>[^\W\d_].*)$",
    re.IGNORECASE,
)
_SEASONS = re.compile(r"\b(\d{1,2})(?:\s*[-–]\s*(\d{1,2}))?\b")


def field_key(name: str) -> str:
    """An infobox field's name as the schema lists it: case and underscores folded, a number
    at the end dropped ("Commanders_2" -> "commanders")."""
    key = " ".join(str(name).replace("_", " ").casefold().split())
    return _NUMBERED.sub("", key) or key


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
    present = {field_key(k) for k in fields} | {k.casefold() for k in fields}
    for name, points in (rules.get("fields") or {}).items():
        if name.casefold() in present:
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


def relative_place(value: str) -> dict | None:
    """A place given relative to another ("Near Meereen", "Yunkish camp near Meereen", "north of
    the Wall"): the other place, the preposition and what lies there; None for a plain place."""
    found = _RELATIVE.match(value.strip())
    if not found:
        return None
    detail = (found.group("detail") or "").strip(" ,-")
    return {
        "target": found.group("target").strip(" .,;"),
        "qualifier": " ".join(found.group("qualifier").lower().split()),
        "detail": detail or None,
    }


def season_names(value: str, spec: dict) -> list[str]:
    """`numbers: "Season {n}"`: every number in the value, ranges expanded ("1-3, 5")."""
    names: list[str] = []
    for first, last in _SEASONS.findall(value or ""):
        low, high = int(first), int(last or first)
        for n in range(low, min(high, low + 30) + 1):
            name = spec["numbers"].replace("{n}", str(n))
            if name not in names:
                names.append(name)
    return names


def is_name(value: str, spec: dict) -> bool:
    words = value.split()
    return (
        0 < len(words) <= spec.get("max_words", DEFAULT_MAX_WORDS)
        and not value.endswith(".")
        and (value[0].isupper() or value[0].isdigit())
    )


def extract(
    schema: KGSchema,
    pages: list[dict],
    value_types: dict[str, str] | None = None,
    merged: dict[str, tuple[str, str]] | None = None,
) -> Extraction:
    """Entities, relations and provenance for the given wiki pages (rows of kg/wiki_pages);
    `value_types`: entity id -> the type the LLM gave an entity known only as a value; `merged`:
    the id of a name `resolve` merged -> the entity it merged into, and that entity's type."""
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
                "confidenceBy": "heuristic",
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

    properties = {field_key(k): v for k, v in (schema.infobox.get("properties") or {}).items()}
    value_types, merged = value_types or {}, merged or {}
    for entity_id, (page, fields, typing) in typed.items():
        links = json.loads(page.get("infoboxLinks") or "{}")
        for field_name, raw in fields.items():
            specs = properties.get(field_key(field_name))
            if not specs:
                continue
            specs = specs if isinstance(specs, list) else [specs]
            numbered = bool(specs[0].get("numbers"))  # "Season {n}": names made from the numbers, not links
            named = {} if numbered else links.get(field_name) or {}
            values = season_names(raw, specs[0]) if numbered else field_values(raw, specs[0])
            for value in values:
                name, alias, extra = named.get(value) or value, None, {}
                where = None
                if name != value:
                    alias = value  # [[Jon Snow|Jon]]: the page Jon Snow, also called Jon
                elif specs[0].get("relative") and schema.entity_id(norm_name(value)) not in typed:
                    where = relative_place(value)
                if where:  # "Near Meereen" is no place: the edge goes to Meereen, "near" kept
                    name = where["target"]
                    extra = {"qualifier": where["qualifier"], "value": value}
                    if where["detail"]:
                        extra["detail"] = where["detail"]
                if not is_name(name, specs[0]):
                    out.skip("value is not a name", f"{page['title']}: {field_name} = {value[:60]}")
                    continue
                target_norm = norm_name(name)
                target_id = schema.entity_id(target_norm)
                survivor = merged.get(target_id) if target_id not in typed else None
                if survivor:  # "Jon", merged into Jon Snow by `resolve`: the edge goes to Jon Snow
                    target_id = survivor[0]
                if target_id == entity_id:
                    continue
                known = typed.get(target_id)
                value_type = known[2].type if known else (survivor[1] if survivor else value_types.get(target_id))
                assert typing.type is not None  # `typed` holds only the pages that got a type
                chosen = _choose(schema, specs, typing.type, value_type)
                spec, target_type, allowed = chosen
                relation = spec["relation"]
                src, dst = (target_id, entity_id) if spec.get("reverse") else (entity_id, target_id)
                src_type, dst_type = (target_type, typing.type) if spec.get("reverse") else (typing.type, target_type)
                if not allowed:
                    out.skip(
                        f"schema: {schema.why_not(src_type, relation, dst_type)}",
                        f"{page['title']}: {field_name} = {value}",
                    )
                    continue
                if not known and not survivor:
                    out.entity(
                        {
                            "id": target_id,
                            "type": target_type,
                            "name": name,
                            "normName": target_norm,
                            "aliases": [alias] if alias else [],
                            "confidence": "Low",
                            "confidenceBy": "heuristic",
                            "needsReview": True,  # known only as an infobox value: a validation candidate
                            "typedBy": "relation",
                            "reason": f"named in '{field_name}' of {page['title']}",
                            "source": source,
                            "schema": schema.name,
                        },
                        implied=True,
                    )
                elif alias:
                    out.entities[target_id]["aliases"] = sorted(set(out.entities[target_id]["aliases"]) | {alias})
                out.relation(
                    src,
                    relation,
                    dst,
                    {
                        "source": source,
                        "property": field_name,
                        "documentId": page["id"],
                        "confidence": typing.confidence,
                        **extra,
                    },
                )
                out.mentions.append(
                    {
                        "documentId": page["id"],
                        "entityId": target_id,
                        "name": alias or name,
                        "rule": f"infobox-{field_name}",
                        "source": source,
                        "fromChunk": False,
                    }
                )
    return out


def _choose(schema: KGSchema, specs: list[dict], page_type: str, target_type: str | None) -> tuple[dict, str, bool]:
    """The first of a field's relations the schema allows between the page's type and the
    value's (its page's or validated type, else the relation's target type); else the first."""
    options = []
    for spec in specs:
        value_type = target_type or spec["target"]
        pair = (value_type, page_type) if spec.get("reverse") else (page_type, value_type)
        if schema.allows(pair[0], spec["relation"], pair[1]):
            return spec, value_type, True
        options.append((spec, value_type, False))
    return options[0]


def run(graph, schema: KGSchema, corpus: str | None = None) -> dict:
    from . import store

    pages = graph.read("kg/wiki_pages", corpus=corpus, schema=schema.name)
    validated: dict[str, str] = {}
    merged: dict[str, tuple[str, str]] = {}
    for row in graph.read("kg/value_decisions", schema=schema.name):
        if row["validated"]:
            validated[row["id"]] = row["type"]
        merged.update({old: (row["id"], row["type"]) for old in row["mergedIds"]})
    extraction = extract(schema, pages, validated, merged)
    stats = store.write(graph, extraction, schema.labels)
    pruned = prune(graph, schema, extraction)
    store.record_schema(graph, schema)
    result = store.summary(extraction, stats)
    result.update(
        pages=len(pages),
        schema=schema.name,
        extractor="infobox",
        confidence=_confidences(extraction),
        pruned=pruned,
    )
    return result


def prune(graph, schema: KGSchema, extraction: Extraction) -> dict:
    """Remove the edges the pages' infoboxes gave before and no longer give (a mapping changed,
    a value was read again, a type was validated), then the entities only they named."""
    source = f"infobox:{schema.name}"
    keep: dict[str, list[str]] = {d["documentId"]: [] for d in extraction.describes}
    for r in extraction.relations.values():
        keep.setdefault(r["props"]["documentId"], []).append(f"{r['source']}|{r['type']}|{r['target']}")
    rows = [
        {"entityId": d["entityId"], "documentId": d["documentId"], "keep": keep[d["documentId"]]}
        for d in extraction.describes
    ]
    edges, others = 0, set()
    for start in range(0, len(rows), 500):
        for row in graph.write("kg/prune_infobox_edges", rows=rows[start : start + 500], source=source):
            edges += row["removed"]
            others.update(row["others"])
    entities = 0
    if others:
        entities = graph.write("kg/prune_infobox_orphans", ids=sorted(others), source=source)[0]["removed"]
    return {"edges": edges, "entities": entities}


def _confidences(extraction: Extraction) -> dict:
    from collections import Counter

    return dict(
        Counter(e["confidence"] for e in extraction.entities.values() if e.get("typedBy") in ("infobox", "page"))
    )
