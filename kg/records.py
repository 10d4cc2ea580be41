"""Structured records (JSON / JSON Lines) to typed entities and relations via a YAML mapping.

A mapping names the schema, where the records are, how a record becomes an entity (name
field, type, per-name type overrides, aliases, properties) and which fields become which
relations (``parents`` → CHILD_OF …). A name in a relation field that is itself a record
takes that record's type; otherwise the mapping's ``values`` table or the relation's
target type. Relations the schema does not allow between the two types are skipped and
counted. Built-in mappings ship in ``kg/mappings/*.yaml``; a user passes a path.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..schema import KGSchema, SchemaError, load_schema
from .names import norm_name
from .store import Extraction


@dataclass
class Mapping:
    schema: KGSchema
    data: dict
    where: str


def builtin_mappings() -> list[str]:
    folder = resources.files("graphrag_cypher.kg").joinpath("mappings")
    return sorted(f.name[:-5] for f in folder.iterdir() if f.name.endswith(".yaml"))


def mapping_hint(schema_name: str | None = None) -> str:
    """What `load records` without `--mapping` says: each built-in mapping on a line of its own
    (what it reads, its schema, its entity type), then the smallest mapping YAML one can write."""
    import yaml

    lines = ["Built-in mappings (--mapping NAME):"]
    for name in builtin_mappings():
        text = resources.files("graphrag_cypher.kg").joinpath("mappings", f"{name}.yaml").read_text(encoding="utf-8")
        try:
            data = yaml.safe_load(text) or {}
        except yaml.YAMLError:
            continue
        entity = (data.get("entity") or {}).get("type") or "Entity"
        lines.append(f"  {name}  {data.get('description') or ''} (schema {data.get('schema') or 'generic'}, {entity})")
    lines += [
        "Or a mapping YAML of your own (--mapping FILE.yaml), at least:",
        f"  schema: {schema_name or 'generic'}  # a built-in name, or a YAML path beside the mapping",
        "  entity: {name: <field holding the name>, type: <entity type>}",
        "  relations: [{field: <field>, relation: <RELATION>, target: <entity type>}]",
    ]
    if schema_name:
        lines.append("--schema only replaces the schema a mapping names: the mapping is still needed.")
    return "\n".join(lines)


def load_mapping(name_or_path: str | Path, schema: str | None = None) -> Mapping:
    import yaml

    path = Path(str(name_or_path))
    if path.suffix.lower() in {".yaml", ".yml"} or path.exists():
        if not path.is_file():
            raise SchemaError(f"mapping file not found: {path}")
        text, where = path.read_text(encoding="utf-8"), str(path)
    else:
        builtin = resources.files("graphrag_cypher.kg").joinpath("mappings", f"{name_or_path}.yaml")
        if not builtin.is_file():
            raise SchemaError(
                f"unknown mapping {name_or_path!r}: use one of {', '.join(builtin_mappings())} or a YAML path"
            )
        text, where = builtin.read_text(encoding="utf-8"), str(name_or_path)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SchemaError(f"mapping {where}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict) or not isinstance(data.get("entity"), dict):
        raise SchemaError(f"mapping {where}: needs an `entity` section")
    named = data.get("schema")
    if not schema and path.is_file():
        named = schema_beside(named, path, where)
    kg_schema = load_schema(schema or named or "generic")
    check_mapping(kg_schema, data, where)
    return Mapping(kg_schema, data, where)


def schema_beside(named, mapping_path: Path, where: str):
    """The schema a mapping file names, as its author means it: a built-in name (`got`) as it is;
    a path (`music.yaml`, `schemas/music.yaml`) read from the mapping file's folder, whatever
    the current folder."""
    if not isinstance(named, str) or not (named.lower().endswith((".yaml", ".yml")) or "/" in named or "\\" in named):
        return named
    target = Path(named).expanduser()
    if not target.is_absolute():
        target = mapping_path.resolve().parent / target
    if not target.is_file():
        raise SchemaError(
            f"mapping {where}: schema file not found: {target} (a schema path is read from the mapping's folder)"
        )
    return str(target)


def check_mapping(schema: KGSchema, data: dict, where: str) -> None:
    entity = data["entity"]
    if not entity.get("name"):
        raise SchemaError(f"mapping {where}: entity.name (the field holding the name) is required")
    types = [entity.get("type")] + list((entity.get("types") or {}).keys()) + list((data.get("values") or {}).keys())
    for t in types:
        if schema.entity_type(t) != t:
            raise SchemaError(f"mapping {where}: type {t!r} is not in schema {schema.name}")
    for rel in data.get("relations") or []:
        if not isinstance(rel, dict) or not rel.get("field"):
            raise SchemaError(f"mapping {where}: every relation needs a `field`")
        if schema.relation_type(rel.get("relation")) != rel.get("relation"):
            raise SchemaError(f"mapping {where}: relation {rel.get('relation')!r} is not in schema {schema.name}")
        if schema.entity_type(rel.get("target")) != rel.get("target"):
            raise SchemaError(f"mapping {where}: target type {rel.get('target')!r} is not in schema {schema.name}")


def read_records(path: Path, key: str | None) -> tuple[list[dict], list[dict]]:
    """(records, errors): a JSON list (under `key` when the mapping names one) or JSON Lines.

    Every problem is an error ({"item", "error"}, one line) rather than an exception: a bad
    line of JSON Lines is skipped and the others load; a whole file that is not usable (not
    JSON, not UTF-8, nested too deeply, too large, not a list) gives one error and no records."""
    from graphrag_cypher.model import ContentError
    from graphrag_cypher.safe_io import iter_lines, loads_json, open_bytes, read_json

    errors: list[dict] = []
    try:
        if path.suffix.lower() in {".jsonl", ".ndjson"}:
            data = []
            with open_bytes(path) as handle:
                for number, line in iter_lines(handle):
                    try:
                        if isinstance(line, ContentError):
                            raise line
                        if line.strip():
                            data.append(loads_json(line))
                    except ValueError as exc:  # JSONDecodeError and ContentError
                        errors.append({"item": f"{path.name}:{number}", "error": _reason(exc)})
        else:
            data = read_json(path)
    except (ContentError, OSError) as exc:
        return [], errors + [{"item": path.name, "error": getattr(exc, "strerror", None) or str(exc)}]
    if key and not isinstance(data, list):  # JSON Lines are the records themselves
        if not isinstance(data, dict) or key not in data:
            return [], [{"item": path.name, "error": f"no top-level key {key!r} (the mapping's `records`)"}]
        data = data[key]
    if not isinstance(data, list):
        return [], [{"item": path.name, "error": "expected a list of records"}]
    return [r for r in data if isinstance(r, dict)], errors


def _reason(exc: ValueError) -> str:
    msg = getattr(exc, "msg", None)
    return f"invalid JSON ({msg} at column {getattr(exc, 'colno', '?')})" if msg else str(exc)


def values_at(record: dict, path: str) -> list:
    """Values at a field path: `parents`, `a.b`, `actors[].actorName`; lists are flattened."""
    current = [record]
    for part in path.split("."):
        many = part.endswith("[]")
        name = part[:-2] if many else part
        nxt = []
        for item in current:
            value = item.get(name) if isinstance(item, dict) else None
            if value is None:
                continue
            nxt.extend(value if isinstance(value, list) else [value])
        current = nxt
    return [v for v in current if v is not None and v != ""]


def extract(mapping: Mapping, records: list[dict], source: str) -> Extraction:
    schema, spec = mapping.schema, mapping.data
    entity = spec["entity"]
    overrides = {norm_name(n): t for t, names in (entity.get("types") or {}).items() for n in names}
    value_types = {norm_name(n): t for t, names in (spec.get("values") or {}).items() for n in names}
    out = Extraction()
    subjects: dict[str, str] = {}  # id -> type
    good: list[tuple[dict, str, str | None]] = []
    for index, record in enumerate(records):
        names = values_at(record, entity["name"])
        name = names[0] if names and isinstance(names[0], str) else None
        norm = norm_name(name or "")
        if not norm:
            out.skip("record without a name", f"record {index}")
            continue
        type_name = overrides.get(norm, entity.get("type"))
        entity_id = schema.entity_id(norm)
        aliases = [a for f in entity.get("aliases") or [] for a in values_at(record, f) if isinstance(a, str)]
        props: dict[str, Any] = {
            "name": name,
            "normName": norm,
            "confidence": "High",
            "typedBy": "mapping",
            "source": source,
            "schema": schema.name,
            "reason": f"record mapped by {mapping.where}",
        }
        for prop, field in (entity.get("properties") or {}).items():
            found = values_at(record, field)
            if found and all(isinstance(v, (str, int, float, bool)) for v in found):
                props[prop] = found[0] if len(found) == 1 else [str(v) for v in found]
        out.entity({"id": entity_id, "type": type_name, "aliases": aliases, **props})
        subjects[entity_id] = type_name
        good.append((record, entity_id, name))

    for record, entity_id, name in good:
        subject_type = subjects[entity_id]
        for rel in spec.get("relations") or []:
            for value in values_at(record, rel["field"]):
                if not isinstance(value, str) or not value.strip():
                    out.skip("value is not a name", f"{name}: {rel['field']} = {str(value)[:60]}")
                    continue
                target_name = rel.get("name", "{value}").replace("{value}", value.strip())
                target_norm = norm_name(target_name)
                target_id = schema.entity_id(target_norm)
                if target_id == entity_id:
                    continue
                target_type = subjects.get(target_id) or value_types.get(target_norm) or rel["target"]
                relation = rel["relation"]
                reverse = bool(rel.get("reverse"))
                src, dst = (target_id, entity_id) if reverse else (entity_id, target_id)
                src_type, dst_type = (target_type, subject_type) if reverse else (subject_type, target_type)
                if not schema.allows(src_type, relation, dst_type):
                    out.skip(
                        f"schema: {schema.why_not(src_type, relation, dst_type)}", f"{name}: {rel['field']} = {value}"
                    )
                    continue
                if target_id not in subjects:
                    out.entity(
                        {
                            "id": target_id,
                            "type": target_type,
                            "name": target_name,
                            "normName": target_norm,
                            "aliases": [],
                            "confidence": "Medium",
                            "typedBy": "relation",
                            "source": source,
                            "schema": schema.name,
                            "reason": f"named in '{rel['field']}' of {name}",
                        },
                        implied=True,
                    )
                props = {"source": source, "property": rel["field"], "record": name}
                out.relation(src, relation, dst, props)
    return out


def record_document_id(corpus: str, path: Path) -> str:
    """The id of the document a records file loaded into `corpus` stands for."""
    return f"records:{corpus}:{path.name}"


def in_corpus(extraction: Extraction, document_id: str, source: str) -> None:
    """Tie what a records file gave to its corpus's document: the document DESCRIBES every entity
    the file names (without becoming its own page) and is the `documentId` of every relation, so
    a key scoped to the corpus reads them and `forget` takes them away."""
    for entity_id in extraction.entities:
        extraction.describes.append({"documentId": document_id, "entityId": entity_id, "source": source, "own": False})
    for relation in extraction.relations.values():
        relation["props"] = {**relation["props"], "documentId": document_id}


def run(graph, mapping: Mapping, path: Path, corpus: str | None = None) -> dict:
    """Load the records at `path` with `mapping`. With `corpus`, they belong to it: a document
    `records:CORPUS:FILE` stands for the file (see `in_corpus`); without, they belong to no
    corpus and only keys of every corpus read them."""
    from . import store

    records, errors = read_records(path, mapping.data.get("records"))
    source = f"records:{path.name}"
    extraction = extract(mapping, records, source)
    from graphrag_cypher.audit import audited

    document_id = record_document_id(corpus, path) if corpus and records else None  # none for a file of no records
    with audited(graph, "load", corpus) as audit:
        if document_id:
            graph.write(
                "kg/record_document",
                id=document_id,
                corpus=corpus,
                title=path.name,
                uri=path.resolve().as_uri(),
                records=len(records),
            )
            in_corpus(extraction, document_id, source)
        stats = store.write(graph, extraction, mapping.schema.labels)
        store.record_schema(graph, mapping.schema)
        result = store.summary(extraction, stats)
        audit.add({"loaders": {"records": 1}, "records": {"read": len(records), "failed": len(errors)}})
        audit.add(
            {"nodes": {"created": stats.nodes_created}, "relationships": {"created": stats.relationships_created}}
        )
    result.update(
        records=len(records), schema=mapping.schema.name, mapping=mapping.where, failed=len(errors), errors=errors
    )
    if document_id:
        result.update(corpus=corpus, document=document_id)
    return result
