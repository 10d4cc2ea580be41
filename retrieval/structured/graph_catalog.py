"""The catalog of the graph's relations: each relationship type the graph holds between
entities, with the labels at its ends, its edge count and the phrases that name it (from the
schema that loaded it, a built-in schema, or its name), and the document scopes; and the far ends
of a relation from some entities."""

from __future__ import annotations

import json
import threading
import time
import weakref
from dataclasses import dataclass, field

from ...schema import RelationType, builtin_schemas, default_phrases, load_schema

# relationship types of the lexical graph and the linkers: not relations a question asks about
STRUCTURAL = [
    "FROM_CHUNK",
    "FROM_DOCUMENT",
    "NEXT_CHUNK",
    "MENTIONS",
    "INSTANCE_OF",
    "DESCRIBES",
    "SAME_AS",
    "CO_OCCURS",
    "HAS_PHRASE",
    "IN_COMMUNITY",
    "PARENT",
    "AUTHORED",
    "LINKS_TO",
]

CATALOG_SECONDS = 30.0  # how long the relation catalog of a graph is reused


@dataclass
class RelationSpec(RelationType):
    """A schema's relation type as the graph holds it: with its edge count, the labels seen at
    its ends, and where its phrases came from."""

    edges: int = 0
    phrases_from: str = "its name"


@dataclass
class Catalog:
    relations: dict[str, RelationSpec]
    scopes: list[dict]  # {labels, corpus, documents}
    templates: dict = field(default_factory=dict)  # (relation, x_is_source) -> [template sentences]
    vectors: dict = field(default_factory=dict)  # sentence -> vector, filled on first use
    types: dict[str, str] = field(default_factory=dict)  # entity type -> its description (the schemas')
    # a catalog is shared by request threads: its templates and vectors are filled under this lock
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def template_vectors(self, embedder) -> tuple[dict, dict]:
        """(templates, vectors): the relations' template sentences and their vectors, made on
        first use (once, whichever request thread comes first; the others wait for them)."""
        with self.lock:
            if not self.templates:
                templates: dict = {}
                for rel, side, phrase in self.phrase_list():
                    if not phrase.isascii():
                        continue
                    for x_subject, sentence in ((True, f"X {phrase} someone"), (False, f"someone {phrase} X")):
                        templates.setdefault((rel.name, (side == "forward") == x_subject), []).append(sentence)
                self.templates = templates
            sentences = [s for group in self.templates.values() for s in group if s not in self.vectors]
            if sentences:
                self.vectors.update(zip(sentences, embedder.embed(sentences), strict=True))
            return self.templates, self.vectors

    def vectors_of(self, embedder, sentences: list[str]) -> dict:
        """Vectors of these sentences, embedded once per catalog (whichever thread comes first)."""
        with self.lock:
            new = [s for s in dict.fromkeys(sentences) if s not in self.vectors]
            if new:
                self.vectors.update(zip(new, embedder.embed(new), strict=True))
            return self.vectors

    def phrase_list(self):
        """(relation, side, phrase) for every phrase, the inverse type's phrases read the other way."""
        for rel in self.relations.values():
            for side in ("forward", "inverse"):
                for phrase in getattr(rel, side):
                    yield rel, side, phrase

    def _visible(self) -> list[dict]:
        """The document scopes the key asking may see: every one, or its corpora's (the catalog is
        shared by every request; what a scoped key is told is cut here)."""
        from graphrag_cypher.principal import current

        seen = current().corpora
        return self.scopes if seen is None else [s for s in self.scopes if s.get("corpus") in seen]

    @property
    def corpora(self) -> list[str]:
        return sorted({s["corpus"] for s in self._visible() if s.get("corpus")})

    @property
    def document_labels(self) -> set[str]:
        return {label for s in self._visible() for label in s["labels"]}


# Kept per graph object, and gone with it: keyed by id(), a new connection that reused a dead
# one's id was given the other graph's relations.
_catalogs: weakref.WeakKeyDictionary[object, tuple[float, Catalog]] = weakref.WeakKeyDictionary()

_catalog_lock = threading.Lock()


def catalog(graph) -> Catalog:
    """The graph's relations with their phrases, reused for CATALOG_SECONDS."""
    now = time.monotonic()
    with _catalog_lock:
        held = _catalogs.get(graph)
        if held is not None and now - held[0] < CATALOG_SECONDS:
            return held[1]
    built = _build_catalog(graph)
    with _catalog_lock:
        _catalogs[graph] = (now, built)
    return built


def _schema_specs(graph) -> list[tuple[str, dict]]:
    """(where, relation dict) of the schemas the graph recorded, then the built-in ones."""

    out: list[tuple[str, dict]] = []
    builtin = set(builtin_schemas())
    for row in graph.read("structured/schemas"):
        if row["path"] in builtin:  # the installed package's copy of a built-in schema is the one in force
            continue
        try:
            relations = json.loads(row["relations"] or "{}")
        except ValueError:
            continue
        out.extend((f"schema {row['name']}", spec) for spec in relations.values() if isinstance(spec, dict))
    for name in builtin_schemas():
        try:
            schema = load_schema(name)
        except Exception:  # noqa: BLE001 - a broken built-in schema must not stop questions
            continue
        out.extend((f"schema {name}", rel.to_dict()) for rel in schema.relation_types.values())
    return out


def _build_catalog(graph) -> Catalog:

    specs: dict[str, tuple[str, dict]] = {}
    for where, spec in _schema_specs(graph):
        specs.setdefault(spec.get("name", ""), (where, spec))
    relations: dict[str, RelationSpec] = {}
    for row in graph.read("structured/relation_types", sample=200, skip=STRUCTURAL):
        if not row["edges"]:
            continue
        name = row["type"]
        where, spec = specs.get(name, ("its name", {}))
        forward, inverse = (tuple(spec.get("forward") or ()), tuple(spec.get("inverse") or ()))
        if not forward and not inverse:  # no schema, or one that names the type and gives no phrases
            forward, inverse = default_phrases(name)
        if spec and (forward, inverse) == tuple(default_phrases(name)):
            where = f"{where} (phrases from its name)"  # a schema that gave none: its loader made these
        relations[name] = RelationSpec(
            name,
            sources=frozenset(row["sources"]) | frozenset(spec.get("source") or ()),
            targets=frozenset(row["targets"]) | frozenset(spec.get("target") or ()),
            forward=forward,
            inverse=inverse,
            description=str(spec.get("description") or ""),
            inverse_of=spec.get("inverseOf"),
            symmetric=bool(spec.get("symmetric")),
            edges=int(row["edges"]),
            phrases_from=where,
        )
    return Catalog(relations, graph.read("structured/document_scopes"), types=_entity_types(graph))


def _entity_types(graph) -> dict[str, str]:
    """Each entity type the schemas name, with its description (the first schema's that has one)."""
    out: dict[str, str] = {}
    for row in graph.read("structured/schemas"):
        try:
            types = json.loads(row.get("types") or "{}")
        except ValueError:
            continue
        for name, description in types.items() if isinstance(types, dict) else ():
            if description and not out.get(name):
                out[str(name)] = str(description)
    for name in builtin_schemas():
        try:
            schema = load_schema(name)
        except Exception:  # noqa: BLE001 - a broken built-in schema must not stop questions
            continue
        for label, description in schema.entity_types.items():
            if description and not out.get(label):
                out[label] = description
    return out


def _edges(graph, ids: list[str], rel: RelationSpec, out: bool, labels=None, limit: int = 1) -> list[dict]:
    """The far ends of `rel` from the entities `ids` (out: they are its source), `limit` of them."""
    return graph.read(
        "structured/lookup",
        ids=ids,
        type=rel.name,
        inverse=rel.inverse_of,
        symmetric=rel.symmetric,
        out=out,
        labels=labels,
        limit=limit,
    )
