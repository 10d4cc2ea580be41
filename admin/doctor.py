"""What `graphrag doctor` checks: Neo4j, plugins, schema, indexes, embedder and LLM."""

from __future__ import annotations

from graphrag_cypher.config import Settings
from graphrag_cypher.errors import GraphragError


def plugin_versions(graph) -> dict:
    """APOC and GDS versions, or None for a plugin that is not installed."""
    present = {row["name"] for row in graph.read("admin/procedure_namespaces")}
    return {
        "apoc": graph.read("admin/apoc_version")[0]["version"] if "apoc.version" in present else None,
        "gds": graph.read("admin/gds_version")[0]["version"] if "gds.version" in present else None,
    }


# Relationship types a community build writes, or that join nothing it reads: not in its fingerprint.
_NOT_READ_BY_COMMUNITIES = frozenset({"IN_COMMUNITY", "PARENT", "SAME_AS", "AUTHORED"})
_LABELS_READ_BY_COMMUNITIES = ("Chunk", "__Entity__", "Phrase", "Document")


def community_fingerprint(graph, with_counts: bool = False):
    """A hash of what `communities build` reads, from cheap counts: chunks, entities, phrases,
    documents, the chunks with an embedding, and the relationships of every type it reads
    (HAS_PHRASE, MENTIONS, NEXT_CHUNK, FROM_DOCUMENT, the entities' relations). With
    `with_counts`, (fingerprint, {chunks, embedded}) ."""
    import hashlib

    row = graph.read("communities/fingerprint")[0]
    labels, relationships = row["labels"] or {}, row["relationships"] or {}
    parts = [f"{label}={labels.get(label, 0)}" for label in _LABELS_READ_BY_COMMUNITIES]
    parts.append(f"embedded={row['embedded']}")
    parts += [f"{t}={n}" for t, n in sorted(relationships.items()) if t not in _NOT_READ_BY_COMMUNITIES]
    fingerprint = hashlib.sha1(";".join(parts).encode("utf-8")).hexdigest()[:16]
    if with_counts:
        return fingerprint, {"chunks": labels.get("Chunk", 0), "embedded": row["embedded"]}
    return fingerprint


def community_state(graph) -> dict:
    """The communities' state: not built, or levels, counts per level, when built, and whether
    the graph changed since (stale: what the build read has other counts now)."""
    rows = graph.read("communities/state")
    if not rows:
        return {"built": False, "levels": 0, "counts": [], "built_at": None, "stale": None}
    state = rows[0]
    return {
        "built": True,
        "levels": state["levels"],
        "counts": list(state["counts"] or []),
        "built_at": state["builtAt"],
        "algorithm": state["algorithm"],
        "ms": state["ms"],
        "by_corpus": bool(state.get("byCorpus")),
        "stale": state["fingerprint"] != community_fingerprint(graph),
    }


def server_info(graph) -> dict:
    row = graph.read("admin/components")[0]
    return {"version": row["version"], "edition": row["edition"]}


def embedding_plan(settings: Settings) -> dict:
    """How documents are embedded: the device and batch, or the endpoint and its concurrency."""
    from graphrag_cypher.embedder import embedding_plan as plan

    return plan(settings)


def _query_embedder(settings: Settings) -> dict:
    """Which library embeds questions (onnx or sentence-transformers) and why."""
    from graphrag_cypher.onnx_embedder import query_backend

    backend, why = query_backend(settings)
    return {"queries": backend, "queries_reason": why}


def _llm(settings: Settings) -> dict:
    """The LLM in use: an endpoint's model and URL, or a local model's file, llama.cpp and device."""
    found: dict = {
        "configured": settings.llm_configured,
        "model": settings.llm_label,
        "base_url": settings.llm_base_url,
        "backend": None,
    }
    if settings.local_model_path is not None:
        from graphrag_cypher import local_llm

        found.update(base_url=None, backend="llama.cpp", local=local_llm.inspect(settings))
    elif settings.llm_configured:
        found["backend"] = "openai-compatible"
    return found


def _extraction(settings: Settings) -> dict:
    """What learn extracts (GRAPHRAG_EXTRACT) and which spaCy pipeline `extract --extractor ner`
    would load, found without loading it: the named one, or the pinned re-upload of the default."""
    import importlib.metadata
    import importlib.util

    from graphrag_cypher.config import NER_DEFAULT_MODEL, NER_PINNED_FALLBACK

    found: dict = {"auto": settings.extract, "schema": settings.extract_schema, "ner_model": settings.ner_model}
    candidates = [settings.ner_model] + ([NER_PINNED_FALLBACK] if settings.ner_model == NER_DEFAULT_MODEL else [])
    if importlib.util.find_spec("spacy") is None:
        found["ner"] = None
        found["ner_error"] = "spaCy is not installed: pip install 'spacy>=3.8,<3.9'"
        return found
    for name in candidates:
        if importlib.util.find_spec(name) is not None:
            try:
                version = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                version = "?"
            found["ner"] = f"{name} {version}" + (
                " (the pinned re-upload of en_core_web_sm)" if name == NER_PINNED_FALLBACK else ""
            )
            return found
    found["ner"] = None
    found["ner_error"] = f"no spaCy pipeline {settings.ner_model!r}: python -m spacy download {settings.ner_model}"
    return found


def report(settings: Settings, migrations_dir=None) -> dict:
    """A JSON-ready report; `neo4j.reachable` is False (with `error`) when Neo4j is down."""
    from graphrag_cypher.admin import migrations, plugin
    from graphrag_cypher.db import connect

    result: dict = {
        "neo4j": {"uri": settings.neo4j_uri, "database": settings.neo4j_database, "reachable": False},
        "apoc": None,
        "gds": None,
        "graphrag_plugin": None,
        "schema": None,
        "indexes": [],
        "embedder": {
            "name": settings.embedder,
            "dimensions": settings.embedding_dimensions,
            **_query_embedder(settings),
            "documents": embedding_plan(settings),
        },
        "llm": _llm(settings),
        "extraction": _extraction(settings),
        "communities": None,
        "warnings": [],
    }
    if settings.extract == "ner" and result["extraction"].get("ner_error"):
        result["warnings"].append(f"GRAPHRAG_EXTRACT=ner, but {result['extraction']['ner_error']}")
    if (result["llm"].get("local") or {}).get("error"):
        result["warnings"].append(result["llm"]["local"]["error"])
    try:
        graph = connect(settings)
    except GraphragError as exc:
        result["neo4j"]["error"] = str(exc)
        result["ok"] = False
        return result
    with graph:
        result["neo4j"].update(server_info(graph), reachable=True)
        result.update(plugin_versions(graph))
        found = plugin.installed(graph)
        result["graphrag_plugin"] = {"version": found["version"], "names": found["names"], "paths": plugin.paths(graph)}
        if found["version"]:
            result["graphrag_plugin"]["in_database_embedding"] = plugin.embedding(graph)
            result["graphrag_plugin"]["stale"] = plugin.stale(graph)
        plan = migrations.status(graph, settings.placeholders(), directory=migrations_dir)
        result["schema"] = {
            "up_to_date": not plan.pending and not plan.changed,
            "applied": [m.file for m in plan.applied],
            "pending": [m.file for m in plan.pending],
            "changed": [m.file for m, _ in plan.changed],
        }
        for row in graph.read("admin/indexes"):
            config = row.get("config") or {}
            index = {
                "name": row["name"],
                "type": row["type"],
                "state": row["state"],
                "entity": row["entityType"],
                "labels_or_types": row["labelsOrTypes"],
                "properties": row["properties"],
                "population_percent": row["populationPercent"],
            }
            if row["type"] == "VECTOR":
                index["dimensions"] = config.get("vector.dimensions")
                index["similarity"] = config.get("vector.similarity_function")
                if index["dimensions"] not in (None, settings.embedding_dimensions):
                    result["warnings"].append(
                        f"vector index {row['name']} has {index['dimensions']} dimensions but the embedder "
                        f"{settings.embedder} makes {settings.embedding_dimensions}: run `graphrag apply-schema`"
                    )
            if row["type"] == "FULLTEXT":
                index["analyzer"] = config.get("fulltext.analyzer")
            result["indexes"].append(index)
        if result["gds"] is not None and result["apoc"] is not None:
            result["communities"] = community_state(graph)
    if plan.pending:
        result["warnings"].append(f"{len(plan.pending)} migration(s) pending: run `graphrag apply-schema`")
    if plan.changed:
        result["warnings"].append(f"applied migration(s) changed on disk: {', '.join(m.file for m, _ in plan.changed)}")
    for name in ("apoc", "gds"):
        if result[name] is None:
            result["warnings"].append(f"{name.upper()} is not installed in this Neo4j")
    if (result["communities"] or {}).get("stale"):
        result["warnings"].append(
            "communities are stale (the graph changed since they were built): run `graphrag communities build`"
        )
    offline = [i["name"] for i in result["indexes"] if i["state"] != "ONLINE"]
    if offline:
        result["warnings"].append(f"indexes not ONLINE: {', '.join(offline)}")
    result["ok"] = result["schema"]["up_to_date"] and not offline
    return result


def local_versions(config, bolt_port: int) -> dict:
    """Neo4j, APOC and GDS versions as the local server on `bolt_port` reports them."""
    from dataclasses import replace

    from graphrag_cypher.db import connect

    with connect(replace(config, neo4j_uri=f"bolt://127.0.0.1:{bolt_port}")) as graph:
        server = server_info(graph)
        return {"neo4j": server["version"], "edition": server["edition"], **plugin_versions(graph)}
