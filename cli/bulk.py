"""`graphrag export <kind> …` and `graphrag import FOLDER`: the bulk path for initial loads.

export writes the Document and Chunk nodes (with vectors) and their relationships that
`graphrag load` would write, and what phrase linking and the authors add, as Parquet files in a
folder; import loads such folders into the local Neo4j with `neo4j-admin database import full`
(all of it: no linking runs online), then applies the schema and waits for its indexes.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from .load import shaping_options
from .output import info, print_json
from .params import json_option, local_instance_options


def export_options(func):
    """Options every `export` kind shares: those of `load` that shape the graph, and --out."""
    decorators = [
        click.option(
            "--out",
            "out",
            required=True,
            type=click.Path(file_okay=False, path_type=Path),
            help="Folder to write (empty, or an earlier export with --overwrite).",
        ),
        click.option("--overwrite", is_flag=True, help="Replace an earlier export in --out."),
        *shaping_options(),
        click.option(
            "--no-embed",
            is_flag=True,
            help="Write chunks without vectors (for vectors computed elsewhere: Spark, Ray, an endpoint).",
        ),
        click.option("--topics", default=None, help="Comma-separated topics recorded on the documents."),
        json_option,
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def run_export(loader: str, source_root: str, items, *, out: Path, overwrite: bool, no_embed: bool, as_json, **kw):
    """Export `items` as `graphrag load <loader>` would load them; print the summary."""
    from graphrag_cypher.store.bulk import export

    from .context import settings
    from .load import EXIT_SOME_FAILED, embedder_unless, options_from

    config = settings()
    embedder = embedder_unless(no_embed, config)
    options = options_from(loader, source_root, prune=False, **kw)
    last = [0.0]

    def progress(stats) -> None:
        if not as_json and time.monotonic() - last[0] > 2:
            last[0] = time.monotonic()
            info(f"export {loader}: {stats.documents} document(s), {stats.chunks} chunk(s), {stats.embedded} embedded")

    stats = export(
        items,
        out,
        options,
        embedder,
        dimensions=config.embedding_dimensions,
        embed_batch=max(config.embed_batch or 0, 4096),
        overwrite=overwrite,
        on_error=(lambda line: None) if as_json else (lambda line: info(f"error: {line}")),
        on_progress=progress,
    )
    if stats.chunks:  # what linking adds, derived from the folder: the import links nothing online
        from graphrag_cypher.linkers.bulk_derived import derive_export

        if not as_json:
            info(f"export {loader}: deriving words, phrases and authors from {stats.chunks:,} chunk(s)")
        derive_export(out, stats)
    result = stats.to_dict()
    result["out"] = str(out)
    result["embeddingModel"] = embedder.name if embedder is not None else None
    if as_json:
        print_json(result)
    else:
        rate = stats.chunks / stats.seconds if stats.seconds else 0
        click.echo(
            f"exported {stats.documents} document(s), {stats.chunks} chunk(s) ({stats.embedded} embedded"
            + (f" with {embedder.name}" if embedder is not None else "")
            + f"), {stats.failed} failed, to {out} in {stats.seconds:.1f} s ({rate:,.0f} chunks/s)"
        )
    if stats.failed:
        raise SystemExit(EXIT_SOME_FAILED)


def _root(paths) -> str:
    from graphrag_cypher.store.ingest import common_root

    return common_root(paths)


@click.group("export")
def export_group() -> None:
    """Write what `load` would load as Parquet files, for `graphrag import`.

    The same documents, chunks, ids, properties and vectors (with the embedder's name) as the
    online loader writes; the vectors come from the configured embedder (a GPU when there is
    one: GRAPHRAG_EMBED_DEVICE, GRAPHRAG_EMBED_BATCH; or an endpoint: GRAPHRAG_EMBED_BASE_URL,
    GRAPHRAG_EMBED_CONCURRENCY), or with --no-embed from any engine that adds them to chunks/.
    What `graphrag link phrases` and the authors add (words, terms, phrases, chunk–phrase links,
    people) is derived from the chunks at the end and written too (derived/), so `graphrag
    import` links nothing online.

    \b
    Example:
      graphrag export qa-corpus musique_train_corpus.json --corpus musique --out bulk/
      graphrag import bulk/ --overwrite
    """


@export_group.command("files")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--max-depth", type=int, default=10, show_default=True, help="How deep to descend into folders.")
@click.option(
    "--ext",
    "extensions",
    default=None,
    help="Comma-separated extensions to export (default: text, Markdown, HTML, PDF, code, JSON, CSV).",
)
@click.option("--follow-symlinks", is_flag=True, help="Follow symbolic links (loops are detected).")
@export_options
def export_files(paths, max_depth, extensions, follow_symlinks, **kw) -> None:
    """Files or folders, as `graphrag load files` reads them (the same document ids).

    \b
    Example:
      graphrag export files docs/ --corpus handbook --out bulk/
      GRAPHRAG_EMBED_DEVICE=cuda GRAPHRAG_EMBED_BATCH=512 graphrag export files docs/ --out bulk/
    """
    from graphrag_cypher.loaders.files import parse_folder

    from .load import parse_extensions

    exts = parse_extensions(extensions)

    def items():
        for path in paths:
            yield from parse_folder(path, max_depth=max_depth, extensions=exts, follow_symlinks=follow_symlinks)

    run_export("files", _root(paths), items(), **kw)


@export_group.command("qa-corpus")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@export_options
def export_qa_corpus(paths, **kw) -> None:
    """Passage corpora (HippoRAG style: [{title, text}] or {title: [sentences]}), as `load qa-corpus`.

    \b
    Example:
      graphrag export qa-corpus musique_train_corpus.json --corpus musique --out bulk/
    """
    from graphrag_cypher.loaders.qa_corpus import parse_qa_corpus

    def items():
        for path in paths:
            yield from parse_qa_corpus(path, corpus=kw["corpus"])

    run_export("qa-corpus", _root(paths), items(), **kw)


@export_group.command("stories")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@export_options
def export_stories(paths, **kw) -> None:
    """Story collections (JSONL {id, title, text}, or a book with upper-case titles), as `load stories`.

    \b
    Example:
      graphrag export stories tales.jsonl --corpus tales --out bulk/
    """
    from graphrag_cypher.loaders.stories import parse_stories_jsonl, parse_story_book

    def items():
        for path in paths:
            parse = parse_stories_jsonl if path.suffix.lower() in {".jsonl", ".ndjson"} else parse_story_book
            yield from parse(path, corpus=kw["corpus"])

    run_export("stories", _root(paths), items(), **kw)


@click.command("import")
@click.argument("folders", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace the database neo4j (Community has one user database, and the import writes it anew).",
)
@click.option(
    "--no-link",
    is_flag=True,
    help="Import no phrases (the chunks stay pending: run `graphrag link phrases` later).",
)
@click.option("--timeout", type=float, default=180.0, show_default=True, help="Seconds to wait for Neo4j to start.")
@local_instance_options
@json_option
def import_cmd(folders, overwrite, no_link, timeout, home, bolt_port, http_port, as_json) -> None:
    """Load export folders into the local Neo4j: documents, chunks, phrases and authors at once.

    What `graphrag load` and `graphrag link phrases` would write (words, terms, phrases, the
    chunk–phrase links, the documents' authors as people) is written by `neo4j-admin database
    import full` with the documents and chunks, so nothing is linked online afterwards. An export
    folder carries those files (derived/, written by `graphrag export`); a folder without them
    (only the Parquet contract, e.g. from a Spark job), or several folders imported together, get
    them derived first. Vectors are checked against the vector index's dimensions and their
    model against GRAPHRAG_EMBEDDER before anything is stopped. The local Neo4j is then stopped,
    its database neo4j replaced, Neo4j started again, the schema applied (`graphrag
    apply-schema`) and the indexes, the vector index last, awaited once. The report gives the
    seconds of each step.

    \b
    Example:
      graphrag export files docs/ --out bulk/
      graphrag import bulk/ --overwrite
      graphrag import bulk-docs/ bulk-passages/ --overwrite --json
    """
    import shutil
    import tempfile

    from graphrag_cypher.admin import migrations, neo4j_local
    from graphrag_cypher.audit import Audit, record
    from graphrag_cypher.db import connect
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.linkers.bulk_derived import derived_for, read_info
    from graphrag_cypher.store import bulk

    from .neo4j import _instance

    if not overwrite:
        raise GraphragError(
            "import replaces the database neo4j (Community has one user database): pass --overwrite to replace it"
        )
    config, instance = _instance(home, bolt_port, http_port)
    if not config.is_local_uri:
        raise GraphragError(f"import writes the local Neo4j's files; NEO4J_URI {config.neo4j_uri} is not local")
    if config.neo4j_database != "neo4j":
        raise GraphragError(f"import writes the database neo4j; NEO4J_DATABASE is {config.neo4j_database}")
    say = (lambda line: None) if as_json else info
    timings: dict[str, float] = {}
    started = time.monotonic()
    instance.home_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="graphrag-import-", dir=instance.home_dir))
    try:
        say(f"import: reading {', '.join(str(f) for f in folders)}")
        for folder in folders:
            bulk.read_manifest(folder)
        mark = time.monotonic()
        derived = derived_for(list(folders), staging, on_progress=_every(2.0, say))
        timings["derive_s"] = round(time.monotonic() - mark, 1)
        mark = time.monotonic()
        plan = bulk.prepare_imports(
            folders,
            staging,
            dimensions=config.embedding_dimensions,
            embedder=config.embedder,
            derived=derived,
            phrases=not no_link,
        )
        timings["convert_s"] = round(time.monotonic() - mark, 1)
        for column in plan.ignored_columns:
            say(f"import: column {column} of chunks/ is not a chunk property: left out")
        mark = time.monotonic()
        if neo4j_local.status(instance)["running"]:
            say(f"import: stopping Neo4j at {instance.home_dir}")
            neo4j_local.stop(instance)
        timings["stop_s"] = round(time.monotonic() - mark, 1)
        say(f"import: neo4j-admin database import full ({plan.counts['chunks']:,} chunks)")
        mark = time.monotonic()  # the importer's own run, and what readies it (its JVM, the server build)
        neo4j_local.admin_import(instance, plan.arguments(), echo=say)
        timings["import_s"] = round(time.monotonic() - mark, 1)
        phrases = None if no_link else (read_info(derived) or {}).get("phrases")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    mark = time.monotonic()
    neo4j_local.start(instance, timeout=timeout, echo=say)
    timings["start_s"] = round(time.monotonic() - mark, 1)
    with connect(config) as graph:
        mark = time.monotonic()
        applied = migrations.apply(graph, config.placeholders(), wait=False)
        timings["schema_s"] = round(time.monotonic() - mark, 1)
        # the imported database starts a new audit: its first record is the import itself
        record(graph, Audit("import", changed={"counts": dict(plan.counts), "folders": [str(f) for f in folders]}))
        # every index populates at once over the imported store; the vector index takes longest
        mark = time.monotonic()
        _await_indexes(graph, vector=False)
        timings["indexes_s"] = round(time.monotonic() - mark, 1)
        mark = time.monotonic()
        _await_indexes(graph, vector=True)
        migrations.await_indexes(graph, 24 * 3600)  # raises on an index that failed
        timings["vector_index_s"] = round(time.monotonic() - mark, 1)
    timings["total_s"] = round(time.monotonic() - started, 1)
    counts = {k: plan.counts[k] for k in plan.counts}
    result = {
        "counts": counts,
        "embeddingModel": plan.embedding_model,
        "schema": {"applied": [m["file"] for m in applied["applied"]]},
        "phrases": phrases,
        "ignored_columns": plan.ignored_columns,
        "timings": timings,
    }
    if as_json:
        print_json(result)
        return
    rate = plan.counts["chunks"] / timings["total_s"] if timings["total_s"] else 0
    steps = ", ".join(
        f"{name[:-2].replace('_', ' ')} {seconds} s" for name, seconds in timings.items() if name != "total_s"
    )
    click.echo(
        f"imported {plan.counts['documents']:,} document(s), {plan.counts['chunks']:,} chunk(s)"
        + (f" with vectors of {plan.embedding_model}" if plan.embedding_model else " (no vectors)")
        + f" in {timings['total_s']} s ({rate:,.0f} chunks/s): {steps}"
    )
    if phrases:
        click.echo(
            f"phrases: {counts.get('terms', 0):,} term(s), {counts.get('has_phrase', 0):,} link(s); "
            f"authors: {counts.get('persons', 0):,} person(s), {counts.get('authored', 0):,} AUTHORED"
        )


def _every(seconds: float, say):
    """`say`, at most once every `seconds`."""
    last = [0.0]

    def told(line: str) -> None:
        if time.monotonic() - last[0] > seconds:
            last[0] = time.monotonic()
            say(line)

    return told


def _await_indexes(graph, *, vector: bool, poll: float = 0.5) -> None:
    """Wait until the indexes (the vector ones, or all others) are ONLINE; an index FAILED is an error."""
    from graphrag_cypher.errors import GraphragError

    while True:
        rows = [row for row in graph.read("admin/indexes") if (row["type"] == "VECTOR") == vector]
        failed = [row["name"] for row in rows if row["state"] == "FAILED"]
        if failed:
            raise GraphragError(f"index {failed[0]} failed to populate; see the Neo4j log")
        if all(row["state"] == "ONLINE" for row in rows):
            return
        time.sleep(poll)
