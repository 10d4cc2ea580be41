"""KG schemas as YAML: entity types, relation types and the allowed (source → target) pairs.

A schema is the allowlist for labels and relationship types: nothing from data or an LLM
becomes a label or a type unless the schema names it, and the schema's own names must be
plain identifiers (letters, digits, underscores) that do not clash with the graph's
structural labels. Built-in schemas ship in ``kg/schemas/*.yaml``; a user passes a path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from .errors import GraphragError

IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
# Labels and types the graph itself uses: a schema may not claim them.
RESERVED = {
    "__Entity__",
    "__Migration",
    "__KGBuilder__",
    "Document",
    "Chunk",
    "Story",
    "WikiPage",
    "Article",
    "Place",
    "WikidataEntity",
    "MENTIONS",
    "FROM_CHUNK",
    "FROM_DOCUMENT",
    "NEXT_CHUNK",
    "INSTANCE_OF",
    "DESCRIBES",
    "SAME_AS",
    "CO_OCCURS",
}
# `Place` and `Article` are also graph labels (gazetteer places, ISAW articles), but a schema
# may type entities with them: the entity keeps the __Entity__ label and its own id.
SHARED_LABELS = {"Place", "Article"}
SCOPES = {"global", "story"}


class SchemaError(GraphragError):
    """A schema or mapping file is invalid."""


@dataclass
class RelationType:
    """A relation type: the types it joins, and how questions say it.

    ``forward`` phrases read "source <phrase> target" ("Eddard Stark *was killed by* Ilyn
    Payne"), ``inverse`` ones "target <phrase> source" ("Ilyn Payne *killed* Eddard Stark").
    ``inverse_of`` names the type that reads the same edge the other way (CHILD_OF and
    PARENT_OF); a ``symmetric`` type holds both ways (SIBLING_OF).
    """

    name: str
    description: str = ""
    sources: frozenset[str] = frozenset()
    targets: frozenset[str] = frozenset()
    forward: tuple[str, ...] = ()
    inverse: tuple[str, ...] = ()
    inverse_of: str | None = None
    symmetric: bool = False

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "description": self.description,
            "source": sorted(self.sources),
            "target": sorted(self.targets),
            "forward": list(self.forward),
            "inverse": list(self.inverse),
            "inverseOf": self.inverse_of,
            "symmetric": self.symmetric,
        }


def default_phrases(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(forward, inverse) phrases from a type name, for schemas that give none: KILLED_BY reads
    "killed by" / "killed", DEFEATS "defeats" / "defeated by", CHILD_OF "child of"."""
    words = [w for w in name.lower().split("_") if w]
    if not words:
        return (), ()
    text = " ".join(words)
    if len(words) > 1 and words[-1] == "by":
        return (text,), (" ".join(words[:-1]),)
    if len(words) == 1 and words[0].endswith("s") and len(words[0]) > 3:
        stem = words[0][:-1]
        participle = stem + ("d" if stem.endswith("e") else "ed")
        return (text, stem), (f"{participle} by",)
    return (text,), ()


@dataclass
class KGSchema:
    name: str
    entity_types: dict[str, str]
    relation_types: dict[str, RelationType]
    scope: str = "global"
    id_prefix: str = ""
    description: str = ""
    infobox: dict = field(default_factory=dict)
    path: str = ""
    # `extract --extractor ner`: a named-entity label of the spaCy pipeline (PERSON, GPE, ...) ->
    # the schema's entity type; labels not listed are skipped and counted
    ner_labels: dict[str, str] = field(default_factory=dict)
    # `extract --extractor ner`: entity type -> the measured precision of the recogniser's names of
    # that type (0-1), written as their `confidence`; a type not listed gets none
    ner_confidence: dict[str, float] = field(default_factory=dict)
    # `resolve`: the types whose short names ("Jon") are merged into the one longer name of the
    # same type and scope that starts with them ("Jon Snow")
    prefix_types: tuple[str, ...] = ()

    # --- the allowlist -------------------------------------------------------------------
    def entity_type(self, value) -> str | None:
        """The schema's spelling of an entity type (case-insensitive), or None if not allowed."""
        if not isinstance(value, str):
            return None
        return self._entity_index().get(value.strip().casefold())

    def relation_type(self, value) -> str | None:
        """The schema's spelling of a relation type ("child of" → CHILD_OF), or None."""
        if not isinstance(value, str):
            return None
        key = re.sub(r"[\s\-]+", "_", value.strip()).casefold()
        return self._relation_index().get(key)

    def allows(self, source_type: str | None, relation: str, target_type: str | None) -> bool:
        """Whether the schema allows `relation` between the two types (an unknown type: never)."""
        rel = self.relation_types.get(relation)
        return rel is not None and source_type in rel.sources and target_type in rel.targets

    def why_not(self, source_type: str | None, relation: str, target_type: str | None) -> str:
        return f"{relation} not allowed from {source_type} to {target_type}"

    @property
    def labels(self) -> list[str]:
        return sorted(self.entity_types)

    def entity_id(self, norm: str) -> str:
        """The id of a global (or canonical) entity with this normalised name."""
        return f"{self.id_prefix}:{norm}"

    def _entity_index(self) -> dict[str, str]:
        if not hasattr(self, "_eidx"):
            self._eidx = {name.casefold(): name for name in self.entity_types}
        return self._eidx

    def _relation_index(self) -> dict[str, str]:
        if not hasattr(self, "_ridx"):
            self._ridx = {name.casefold(): name for name in self.relation_types}
        return self._ridx

    def describe(self) -> dict:
        return {
            "name": self.name,
            "scope": self.scope,
            "idPrefix": self.id_prefix,
            "path": self.path,
            "entityTypes": self.labels,
            "relationTypes": {
                r.name: {"source": sorted(r.sources), "target": sorted(r.targets)} for r in self.relation_types.values()
            },
        }


def builtin_schemas() -> list[str]:
    folder = resources.files("graphrag_cypher.kg").joinpath("schemas")
    return sorted(f.name[:-5] for f in folder.iterdir() if f.name.endswith(".yaml"))


def load_schema(name_or_path: str | Path) -> KGSchema:
    """A built-in schema by name (`got`, `folktale`, …) or a YAML file by path."""
    text, where, file = _schema_text(str(name_or_path))
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SchemaError(f"schema {where}: not valid YAML ({str(exc).splitlines()[0]})") from None
    schema = parse_schema(data, where)
    if file is not None:  # the graph records the whole path, so later commands find it from any folder
        schema.path = str(file)
    return schema


def _schema_text(name: str) -> tuple[str, str, Path | None]:
    """(the schema's YAML, how messages name it, the file's whole path or None for a built-in)."""
    path = Path(name).expanduser()
    if path.suffix.lower() in {".yaml", ".yml"} or path.exists():
        if not path.is_file():
            raise SchemaError(f"schema file not found: {path.resolve()}")
        return path.read_text(encoding="utf-8"), str(path), path.resolve()
    builtin = resources.files("graphrag_cypher.kg").joinpath("schemas", f"{name}.yaml")
    if not builtin.is_file():
        raise SchemaError(
            f"unknown schema {name!r}: use one of {', '.join(builtin_schemas())} or a path to a YAML file"
        )
    return builtin.read_text(encoding="utf-8"), name, None


def _identifier(value, what: str, where: str) -> str:
    if not isinstance(value, str) or not IDENTIFIER.match(value):
        raise SchemaError(f"schema {where}: {what} {value!r} must be letters, digits and underscores")
    if value in RESERVED and value not in SHARED_LABELS:
        raise SchemaError(f"schema {where}: {what} {value!r} is reserved by the graph model")
    return value


def parse_schema(data, where: str = "<schema>") -> KGSchema:
    if not isinstance(data, dict):
        raise SchemaError(f"schema {where}: expected a mapping at the top level")
    name = data.get("name") or Path(where).stem
    scope = data.get("scope", "global")
    if scope not in SCOPES:
        raise SchemaError(f"schema {where}: scope must be one of {sorted(SCOPES)}, not {scope!r}")
    entities = data.get("entity_types") or {}
    if isinstance(entities, list):
        entities = {e: {} for e in entities}
    if not isinstance(entities, dict) or not entities:
        raise SchemaError(f"schema {where}: entity_types must name at least one type")
    entity_types = {}
    for key, spec in entities.items():
        entity_types[_identifier(key, "entity type", where)] = (
            (spec or {}).get("description", "") if isinstance(spec, dict) else str(spec or "")
        )
    relations = data.get("relation_types") or {}
    if isinstance(relations, list):
        relations = {r: {} for r in relations}
    relation_types = {}
    for key, spec in relations.items():
        spec = spec or {}
        rel = _identifier(key, "relation type", where)
        ends = []
        for end in ("source", "target"):
            listed = spec.get(end, "*")
            listed = (
                sorted(entity_types) if listed in ("*", None) else ([listed] if isinstance(listed, str) else listed)
            )
            unknown = [t for t in listed if t not in entity_types]
            if unknown:
                raise SchemaError(f"schema {where}: relation {rel} names unknown {end} type {unknown[0]!r}")
            ends.append(frozenset(listed))
        forward, inverse = _phrases(spec.get("phrases"), rel, where)
        relation_types[rel] = RelationType(
            rel,
            spec.get("description", ""),
            ends[0],
            ends[1],
            forward,
            inverse,
            spec.get("inverse"),
            bool(spec.get("symmetric", False)),
        )
    for spec_ in relation_types.values():
        if spec_.inverse_of is not None and spec_.inverse_of not in relation_types:
            raise SchemaError(f"schema {where}: relation {spec_.name} is the inverse of unknown {spec_.inverse_of!r}")
    infobox = data.get("infobox") or {}
    _check_infobox(infobox, entity_types, relation_types, where)
    ner_labels = _ner_labels(data.get("ner"), entity_types, where)
    ner_confidence = _ner_confidence(data.get("ner"), entity_types, where)
    prefix_types = (data.get("resolve") or {}).get("prefix_types") or []
    if not isinstance(prefix_types, list) or any(t not in entity_types for t in prefix_types):
        raise SchemaError(f"schema {where}: resolve prefix_types must list entity types, not {prefix_types!r}")
    prefix = str(data.get("id_prefix") or name)
    if not re.match(r"^[A-Za-z0-9_\-]+$", prefix):
        raise SchemaError(f"schema {where}: id_prefix {prefix!r} must be letters, digits, '-' and '_'")
    return KGSchema(
        name=str(name),
        entity_types=entity_types,
        relation_types=relation_types,
        scope=scope,
        id_prefix=prefix,
        description=data.get("description", ""),
        infobox=infobox,
        path=where,
        ner_labels=ner_labels,
        ner_confidence=ner_confidence,
        prefix_types=tuple(prefix_types),
    )


def _ner_labels(spec, entity_types: dict, where: str) -> dict[str, str]:
    """The schema's `ner: {labels: {PERSON: Person, GPE: Place, ...}}` mapping, checked."""
    if spec is None:
        return {}
    labels = spec.get("labels") if isinstance(spec, dict) else None
    if not isinstance(labels, dict) or not labels:
        raise SchemaError(f"schema {where}: ner must be a mapping with `labels: {{NER label: entity type}}`")
    out = {}
    for label, type_name in labels.items():
        if not re.match(r"^[A-Z][A-Z0-9_]*$", str(label)):
            raise SchemaError(f"schema {where}: ner label {label!r} must be upper case (PERSON, GPE, WORK_OF_ART)")
        if type_name not in entity_types:
            raise SchemaError(f"schema {where}: ner label {label} maps to unknown entity type {type_name!r}")
        out[str(label)] = str(type_name)
    return out


def _ner_confidence(spec, entity_types: dict, where: str) -> dict[str, float]:
    """The schema's `ner: {confidence: {Person: 0.9, ...}}`, checked: known types, numbers in 0..1."""
    found = (spec or {}).get("confidence") if isinstance(spec, dict) else None
    if found is None:
        return {}
    if not isinstance(found, dict):
        raise SchemaError(f"schema {where}: ner confidence must be a mapping {{entity type: 0..1}}")
    out = {}
    for type_name, value in found.items():
        if type_name not in entity_types:
            raise SchemaError(f"schema {where}: ner confidence names unknown entity type {type_name!r}")
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise SchemaError(f"schema {where}: ner confidence of {type_name} must be a number from 0 to 1")
        out[str(type_name)] = float(value)
    return out


def _phrases(spec, rel: str, where: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The relation's question phrases: the schema's, else defaults from its name."""
    if spec is None:
        return default_phrases(rel)
    if not isinstance(spec, dict) or set(spec) - {"forward", "inverse"}:
        raise SchemaError(f"schema {where}: relation {rel} phrases must be a mapping with forward and inverse lists")
    out = []
    for key in ("forward", "inverse"):
        listed = spec.get(key) or []
        if isinstance(listed, str):
            listed = [listed]
        if not isinstance(listed, list) or not all(isinstance(p, str) and p.strip() for p in listed):
            raise SchemaError(f"schema {where}: relation {rel} phrases.{key} must be a list of phrases")
        out.append(tuple(" ".join(p.split()) for p in listed))
    return out[0], out[1]


def _check_infobox(infobox: dict, entity_types: dict, relation_types: dict, where: str) -> None:
    def check_scores(scores, what):
        for t in scores or {}:
            if t not in entity_types:
                raise SchemaError(f"schema {where}: infobox {what} scores unknown type {t!r}")

    fallback = infobox.get("fallback")
    if fallback is not None and fallback not in entity_types:
        raise SchemaError(f"schema {where}: infobox fallback {fallback!r} is not an entity type")
    for section in ("templates", "titles", "categories", "leads"):
        for rule in infobox.get(section) or []:
            try:
                re.compile(rule["match"])
            except (KeyError, re.error) as exc:
                raise SchemaError(f"schema {where}: infobox {section} rule {rule!r}: {exc}") from None
            check_scores(rule.get("scores"), f"{section} rule {rule['match']!r}")
    for fname, scores in (infobox.get("fields") or {}).items():
        check_scores(scores, f"field {fname!r}")
    for fname, specs in (infobox.get("properties") or {}).items():
        # one relation, or several: the first the schema allows between the two types is built
        for spec in specs if isinstance(specs, list) and specs else [specs]:
            if not isinstance(spec, dict):
                raise SchemaError(f"schema {where}: infobox property {fname!r} must be a mapping or a list of them")
            if spec.get("relation") not in relation_types:
                raise SchemaError(
                    f"schema {where}: infobox property {fname!r} maps to unknown relation {spec.get('relation')!r}"
                )
            if spec.get("target") not in entity_types:
                raise SchemaError(
                    f"schema {where}: infobox property {fname!r} has unknown target type {spec.get('target')!r}"
                )
            if "numbers" in spec and "{n}" not in str(spec["numbers"]):
                raise SchemaError(f"schema {where}: infobox property {fname!r}: numbers must contain {{n}}")
