"""`graphrag doctor`: is everything in place?"""

from __future__ import annotations

import click

from .context import with_settings
from .output import print_json, print_table_or_list, stdout_console, wrap_words
from .params import json_option, migrations_dir_option


@click.command("doctor")
@json_option
@migrations_dir_option
@with_settings
def doctor(config, as_json: bool, migrations_dir) -> None:
    """Check Neo4j, APOC, GDS, the graphrag plugin, the schema, every index, the embedder and the LLM.

    For each capability the graphrag plugin offers (place matching, weighted PPR, the graph
    mode, graph neighbours, the name fold) it says which path is in use: the plugin's
    procedure, or the Cypher files and Python that stand in for it on a server without the jar
    (Aura).

    "Queries" says what embeds questions: the ONNX export of the default model, or
    sentence-transformers and why (no export yet, a changed model, another embedder).
    "Documents" says how documents are embedded (load, embed, export): the device
    (GRAPHRAG_EMBED_DEVICE=auto picks a CUDA GPU when there is one) and GRAPHRAG_EMBED_BATCH, or
    for an openai/ embedder its endpoint, texts a request and requests in parallel.

    "Entities" says what learn, uploads and crawls extract from what they add
    (GRAPHRAG_EXTRACT: off, ner or llm) and which spaCy pipeline `extract --extractor ner`
    loads (GRAPHRAG_NER_MODEL; en_core_web_sm, or its pinned re-upload), or how to install one.

    "Communities" says whether `graphrag communities build` ran: its levels, communities per
    level, when it ran, and whether the graph changed since (stale).

    "LLM" names the endpoint's model, or for GRAPHRAG_LLM_MODEL=local:/path/model.gguf the
    file, its size, llama.cpp's version and the device: GPU offload (how many layers) or the
    CPU and why (no GPU offload in this build, GRAPHRAG_LOCAL_GPU_LAYERS=0). A missing file
    or llama-cpp-python is a warning naming the fix; the model is not loaded.

    Exits with code 1 when Neo4j cannot be reached, a migration is pending or
    changed, or an index is not ONLINE.

    \b
    Example:
      graphrag doctor
      graphrag doctor --json | jq .indexes
    """
    from graphrag_cypher.admin.doctor import report

    result = report(config, migrations_dir=migrations_dir)
    if as_json:
        print_json(result)
        if not result["ok"]:
            raise SystemExit(1)
        return
    if not result["neo4j"]["reachable"]:
        raise click.ClickException(result["neo4j"]["error"])
    from rich.text import Text

    from graphrag_cypher.terminal import rich_text, safe_text

    def line(label: str, value: str, style: str = "bold") -> None:
        # Server answers, names and warnings are data: printed as literal text, wrapped at spaces
        # only (a word longer than the line stands whole on a line of its own)
        text = f"{label} {' '.join(safe_text(str(value), keep_newlines=False).split())}"
        pieces = wrap_words(text, width) or [label]
        for i, piece in enumerate(pieces):
            styled = i == 0 and piece.startswith(label)
            shown = Text.assemble((label, style), rich_text(piece[len(label) :])) if styled else rich_text(piece)
            console.print(shown, highlight=False, soft_wrap=True)

    console = stdout_console()
    width = max(console.width, 20)
    neo4j = result["neo4j"]
    line("Neo4j  ", f"{neo4j['version']} {neo4j['edition']} at {neo4j['uri']} (database {neo4j['database']})")
    line("APOC   ", result["apoc"] or "not installed")
    line("GDS    ", result["gds"] or "not installed")
    found = result["graphrag_plugin"]
    line("graphrag plugin", found["version"] or "not installed (Cypher files and Python stand in)")
    if found.get("stale"):
        line(
            "  built before this package:",
            f"no config key {', '.join(found['stale'])}; questions of keys scoped to corpora take the Cypher path "
            "(rebuild it: `graphrag neo4j build`, then restart Neo4j)",
            style="yellow",
        )
    for capability, path in found["paths"].items():
        line(f"  {capability}:", path, style="")
    if found.get("in_database_embedding"):
        embedding = found["in_database_embedding"]
        line("  in-database embedding:", ("works: " if embedding["works"] else "no: ") + embedding["detail"], style="")
    schema = result["schema"]
    state = (
        "up to date" if schema["up_to_date"] else f"{len(schema['pending'])} pending, {len(schema['changed'])} changed"
    )
    line("Schema ", f"{len(schema['applied'])} migration(s) applied, {state}")
    embedder = result["embedder"]
    line("Embedder", f"{embedder['name']} ({embedder['dimensions']} dimensions)")
    line("Queries ", f"{embedder['queries']}: {embedder['queries_reason']}")
    plan = embedder.get("documents") or {}
    if plan.get("backend") == "openai":
        line(
            "Documents",
            f"endpoint {plan['endpoint']}, {plan['batch']} texts a request, {plan['concurrency']} in parallel",
        )
    elif plan:
        line("Documents", f"{plan['backend']} on {plan['device']} ({plan['device_setting']}), batch {plan['batch']}")
    line("LLM    ", _llm_text(result["llm"]))
    extraction = result["extraction"]
    line("Entities", f"learn extracts {extraction['auto']} (GRAPHRAG_EXTRACT)")
    line("  ner pipeline:", extraction["ner"] or extraction.get("ner_error", "none"), style="")
    line("Communities", _communities_text(result["communities"]))
    rows = []
    for index in result["indexes"]:
        detail = ""
        if index["type"] == "VECTOR":
            detail = f"{index.get('dimensions')} dims, {index.get('similarity')}"
        elif index["type"] == "FULLTEXT":
            detail = f"analyzer {index.get('analyzer')}"
        # ", " between names: a narrow table or list wraps there, never inside a name
        target = ", ".join(index["labels_or_types"] or []) + (
            f" ({', '.join(index['properties'])})" if index["properties"] else ""
        )
        rows.append([index["name"], index["type"], target, index["state"], detail])
    print_table_or_list(["index", "type", "on", "state", "detail"], rows, title="Indexes")
    for warning in result["warnings"]:
        line("warning:", warning, style="yellow")
    if not result["ok"]:
        raise SystemExit(1)


def _communities_text(state: dict | None) -> str:
    """`2 levels (4, 9 communities), leiden by corpus, built 2026-01-02T10:00:00+00:00 in 6379 ms, fresh`."""
    if state is None:
        return "unknown (needs APOC and GDS)"
    if not state["built"]:
        return "not built (run `graphrag communities build`)"
    counts = ", ".join(str(n) for n in state["counts"])
    freshness = "stale: the graph changed since (run `graphrag communities build`)" if state["stale"] else "fresh"
    return (
        f"{state['levels']} level(s) ({counts} communities), {state['algorithm']}"
        f"{' by corpus' if state.get('by_corpus') else ''}, built {state['built_at']} "
        f"in {state['ms']} ms, {freshness}"
    )


def _llm_text(llm: dict) -> str:
    """`local:model.gguf (/models/model.gguf, 4.1 GB): llama.cpp 0.3.36, CPU (no GPU offload in this build)`."""
    local = llm.get("local")
    if local is not None:
        where = local["path"] + (f", {_size(local['size_bytes'])}" if local.get("size_bytes") else "")
        if local.get("error"):
            return f"{llm['model']} ({where}): {local['error']}"
        from graphrag_cypher.local_llm import device_text

        device = device_text(local["device"], local["gpu_layers"], local["device_reason"])
        return f"{llm['model']} ({where}): llama.cpp {local['llama_cpp']}, {device}"
    if llm["configured"]:
        return f"{llm['model']} at {llm['base_url'] or 'api.openai.com'}"
    return "none (answers are extractive)"


def _size(size: int) -> str:
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.1f} MB"
