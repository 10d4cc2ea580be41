"""A Spark job that writes the bulk path's Parquet contract: documents parsed, chunked and embedded
by a cluster's executors (or a machine's cores), for `graphrag import`.

    spark-submit loaders/spark_job.py files docs/ --corpus handbook --out bulk/
    python -m graphrag_cypher.loaders.spark_job qa-corpus musique.json --corpus musique --out bulk/

It writes what `graphrag export` writes (store/bulk.py: the same document and chunk ids,
properties, chunks and vectors), with the work spread over Spark's tasks:

- the driver walks the folders (`files`, the loader's own walker) or reads the passage files
  (`qa-corpus`, the loader's own parser) and hands out the work: a file to parse, or a passage;
- each task parses its files with the loader's parser, holds them to the text budget, chunks them
  with the loader's chunker and computes the document properties (store/ingest.py, unchanged);
- a text that repeats is embedded once, under the title of its first chunk in reading order (as
  `load` does), by the configured embedder made once per task: the local sentence-transformers
  model (`--device cuda` on GPU executors) or an OpenAI-compatible endpoint (`--embed-base-url`),
  which is how executors without a GPU use a GPU server;
- Spark writes documents/, chunks/, from_document/ and next_chunk/ to any path it can write (a
  folder, a shared mount, hdfs://, s3a://); the driver writes manifest.json beside them.

A document id met twice is written once (its first); an item that cannot be parsed, chunked or
embedded is one line of the report and left out, and the job exits 3 (as `graphrag export`).
"""

from __future__ import annotations

import json
import os
import posixpath
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import click

from graphrag_cypher.errors import GraphragError
from graphrag_cypher.model import ItemError
from graphrag_cypher.store import bulk
from graphrag_cypher.store.ingest import (
    Loader,
    LoadOptions,
    common_root,
    embedding_input,
    item_name,
    text_hash,
)

EXIT_SOME_FAILED = 3  # as `graphrag export`: the job finished, but some items were left out
INSTALL = "pip install 'graphrag-cypher[spark]'"
# the settings an executor needs to make the embedder the driver names (a key stays in the
# executors' own environment: spark.executorEnv.GRAPHRAG_EMBED_API_KEY)
EMBED_SETTINGS = (
    "GRAPHRAG_EMBEDDER",
    "GRAPHRAG_EMBEDDING_DIMENSIONS",
    "GRAPHRAG_EMBED_DEVICE",
    "GRAPHRAG_EMBED_BATCH",
    "GRAPHRAG_EMBED_BASE_URL",
    "GRAPHRAG_EMBED_CONCURRENCY",
    "GRAPHRAG_EMBED_RETRIES",
)
# what a job's first step makes of an item, one record a row: besides the chunk's own columns
RECORD_COLUMNS = (
    ("kind", "string"),  # document, chunk, error or warning
    ("ord", "int64"),  # the item's place in reading order
    ("document", "string"),  # the document's id (none for an item that did not parse)
    ("item", "string"),  # how the report names it
    ("message", "string"),  # an error's or a warning's line
    ("labels", "list<string>"),
    ("props", "string"),  # a document's properties as JSON
    ("types", "list<string>"),  # "name<TAB>Parquet type" of each of them
    ("position", "int64"),  # a chunk's place in its document
    ("next", "string"),  # the chunk after it
    ("textHash", "string"),  # what a repeated text is embedded once by
)


@dataclass
class FileTask:
    """A file the driver found and an executor parses (`parse_file`'s arguments)."""

    path: Path
    root: Path
    options: dict

    def parse(self):
        from graphrag_cypher.loaders.files import parse_file

        return parse_file(self.path, self.root, **self.options)


@dataclass
class JobStats:
    documents: int = 0
    chunks: int = 0
    embedded: int = 0  # chunks given a vector
    encoded: int = 0  # distinct texts the embedder encoded
    failed: int = 0
    duplicates: int = 0
    errors: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {**vars(self), "seconds": round(self.seconds, 2)}


# --------------------------------------------------------------------------- the work handed out


def file_tasks(paths: Iterable[Path], **walk_options) -> Iterator:
    """The files `graphrag export files` reads, in its order, each to be parsed on an executor:
    the loader's walker, document ids and parse budget (fixed on the driver)."""
    from graphrag_cypher.loaders.files import parse_folder

    for path in paths:
        yield from parse_folder(path, parse=lambda file, root, **kw: FileTask(file, root, kw), **walk_options)


def passage_items(paths: Iterable[Path], corpus: str | None) -> Iterator:
    """The passages `graphrag export qa-corpus` reads, parsed on the driver (a JSON file is read
    whole by its parser); executors chunk and embed them."""
    from graphrag_cypher.loaders.qa_corpus import parse_qa_corpus

    for path in paths:
        yield from parse_qa_corpus(path, corpus=corpus)


def item_records(order: int, item, chunker: Loader) -> Iterator[dict]:
    """What `bulk.export` makes of one item (a ParsedDocument, an ItemError or a FileTask), as
    records: the document, its chunks, and its errors and warnings."""
    if isinstance(item, FileTask):
        item = item.parse()
    if isinstance(item, ItemError):
        yield {"kind": "error", "ord": order, "item": item.item, "message": item.error}
        return
    base = {"ord": order, "document": item.id, "item": item.source}
    prepared = bulk.prepare(item, chunker)
    for note in prepared.warnings:
        yield {**base, "kind": "warning", "message": note}
    if prepared.error is not None:
        yield {**base, "kind": "error", "message": prepared.error}
        return
    props, chunks = prepared.props, prepared.chunks
    yield {
        **base,
        "kind": "document",
        "item": item_name(props),
        "labels": list(item.labels),
        "props": json.dumps(props, ensure_ascii=False),
        "types": [f"{name}\t{bulk._arrow_type(value)}" for name, value in props.items()],
    }
    for position, chunk in enumerate(chunks):
        following = chunks[position + 1]["id"] if position + 1 < len(chunks) else None
        text = chunk["props"]["text"]
        yield {
            **chunk["props"],
            **base,
            "kind": "chunk",
            "id": chunk["id"],
            "position": position,
            "next": following,
            "textHash": text_hash(text),
        }


def _chunk_partition(rows: Iterable, options: LoadOptions, settings: dict, names: list[str]) -> Iterator[tuple]:
    """One task's items as record rows (`names` in order); the embedder is made only for
    --semantic, whose chunker needs it."""
    embedder = _embedder(settings) if options.semantic else None
    chunker = Loader(None, embedder, options)  # type: ignore[arg-type]  # its chunker only: no graph is touched
    for order, item in rows:
        for record in item_records(order, item, chunker):
            yield tuple(record.get(name) for name in names)


def _embedder(settings: dict):
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.embedder import make_embedder

    return make_embedder(load_settings({**os.environ, **settings}))


def _embed_partition(batches: Iterable, settings: dict, options: LoadOptions) -> Iterator:
    """Arrow batches of (textHash, title, text) as (textHash, embedding, error): the model made
    once per task, a batch encoded in one call (the loader's `_vectors`: a text the embedder
    refuses is tried alone, and only it is marked)."""
    import pyarrow as pa

    loader = None
    for batch in batches:
        if loader is None:
            loader = Loader(None, _embedder(settings), options)  # type: ignore[arg-type]
        digests = batch.column("textHash").to_pylist()
        titles, texts = batch.column("title").to_pylist(), batch.column("text").to_pylist()
        inputs = {d: embedding_input(t, x) for d, t, x in zip(digests, titles, texts, strict=True)}
        failed: dict[str, str] = {}
        vectors = dict(loader._vectors(digests, inputs, {d: [{"id": d}] for d in digests}, failed))
        yield pa.RecordBatch.from_pydict(
            {
                "textHash": digests,
                "embedding": [vectors.get(d) for d in digests],
                "error": [failed.get(d) for d in digests],
            },
            schema=pa.schema(
                [("textHash", pa.string()), ("embedding", pa.list_(pa.float32())), ("error", pa.string())]
            ),
        )


# --------------------------------------------------------------------------- the job


def spark_type(kind: str):
    """A Parquet type's name (as pyarrow prints it) as Spark's type."""
    from pyspark.sql import types as T

    plain = {
        "string": T.StringType(),
        "int64": T.LongType(),
        "double": T.DoubleType(),
        "bool": T.BooleanType(),
        "float": T.FloatType(),
    }
    if kind in plain:
        return plain[kind]
    if kind.startswith("list<"):
        return T.ArrayType(spark_type(kind[5:-1].split(": ")[-1]))
    raise GraphragError(f"no Spark type for {kind}")


def record_schema():
    """The records' Spark schema: RECORD_COLUMNS, then a chunk's columns (but its vector)."""
    from pyspark.sql import types as T

    chunk = [(f.name, str(f.type)) for f in bulk.chunk_schema() if f.name not in ("embedding", "embeddingModel")]
    return T.StructType([T.StructField(name, spark_type(kind)) for name, kind in [*RECORD_COLUMNS, *chunk]])


def run_job(
    spark,
    items: Iterable,
    out: str,
    options: LoadOptions,
    *,
    settings: dict | None,
    partitions: int | None = None,
    overwrite: bool = False,
    on_error=lambda line: None,
) -> JobStats:
    """Write `items` (FileTask | ParsedDocument | ItemError) to `out` as `bulk.export` would, the
    work done by Spark's tasks; with `settings` (the embedder's, EMBED_SETTINGS) chunks carry
    vectors, without them none (--no-embed)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    started = time.perf_counter()
    stats = JobStats()
    out = out.rstrip("/")
    storage = _Storage(spark, out)
    storage.prepare(overwrite)
    options = replace(options, max_chars=Loader(None, None, options).max_chars)  # type: ignore[arg-type]  # the driver's budget
    numbered = list(enumerate(items))
    slices = partitions or spark.sparkContext.defaultParallelism
    spark.conf.set("spark.sql.shuffle.partitions", str(slices))
    spark.conf.set("spark.sql.caseSensitive", "true")  # front matter may name `Date` and `date`
    schema = record_schema()
    records = spark.createDataFrame(
        spark.sparkContext.parallelize(numbered, max(1, min(slices, len(numbered)))).mapPartitions(
            partial(_chunk_partition, options=options, settings=settings or {}, names=schema.names)
        ),
        schema,
    ).persist(StorageLevel.MEMORY_AND_DISK)

    # a document id met again is written once: its first (what it became, even an error, counts)
    firsts = records.where(F.col("document").isNotNull()).groupBy("document").agg(F.min("ord").alias("first"))
    kept = records.join(firsts, "document", "left").where(F.col("first").isNull() | (F.col("ord") == F.col("first")))
    stats.duplicates = records.where(F.col("document").isNotNull()).select("document", "ord").distinct().count()
    stats.duplicates -= firsts.count()
    chunks = kept.where(F.col("kind") == "chunk")
    names = [f.name for f in bulk.chunk_schema()]

    if settings is not None:
        kept, chunks = _with_vectors(kept, chunks, settings, options, stats, on_error)
    else:
        chunks = chunks.withColumn("embedding", F.lit(None).cast("array<float>"))
        chunks = chunks.withColumn("embeddingModel", F.lit(None).cast("string"))

    chunks = chunks.persist(StorageLevel.MEMORY_AND_DISK)
    storage.write(chunks.select(*names), "chunks")
    storage.write(chunks.select(F.col("id").alias("start"), F.col("document").alias("end")), "from_document")
    nexts = chunks.where(F.col("next").isNotNull()).select(F.col("id").alias("start"), F.col("next").alias("end"))
    storage.write(nexts, "next_chunk")
    stats.chunks = chunks.count()
    stats.embedded = chunks.where(F.col("embedding").isNotNull()).count() if settings is not None else 0
    documents = kept.where(F.col("kind") == "document").select("document", "labels", "props", "types")
    stats.documents = _write_documents(spark, storage, documents)

    for row in kept.where(F.col("kind").isin("error", "warning")).orderBy("ord").collect():
        if row["kind"] == "error":
            _report(stats.errors, row["item"], error=row["message"], on_error=on_error)
        else:
            _report(stats.warnings, row["item"], warning=row["message"], on_error=on_error)
    stats.failed = len(stats.errors)
    records.unpersist()
    stats.seconds = time.perf_counter() - started
    storage.manifest(
        {
            "format": bulk.FORMAT,
            "createdAt": datetime.now(UTC).isoformat(timespec="seconds"),
            "loader": options.loader,
            "corpus": options.corpus,
            "embeddingModel": settings["GRAPHRAG_EMBEDDER"] if settings is not None else None,
            "dimensions": int(settings["GRAPHRAG_EMBEDDING_DIMENSIONS"]) if settings is not None else None,
            "counts": {"documents": stats.documents, "chunks": stats.chunks},
        }
    )
    return stats


def _with_vectors(kept, chunks, settings: dict, options: LoadOptions, stats: JobStats, on_error):
    """`kept` without the documents the embedder refused (each reported), and `chunks` with their
    vectors: a text encoded once, under the title of its first chunk in reading order."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    firsts = chunks.groupBy("textHash").agg(F.min(F.struct("ord", "position", "title", "text")).alias("f"))
    vectors = (
        firsts.select("textHash", "f.title", "f.text")
        .mapInArrow(
            partial(_embed_partition, settings=settings, options=options),
            "textHash string, embedding array<float>, error string",
        )
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    refused = chunks.join(vectors.where(F.col("error").isNotNull()), "textHash").groupBy("document")
    failed = refused.agg(F.first("error").alias("reason")).persist()
    documents = kept.where(F.col("kind") == "document").join(failed, "document")
    for row in documents.select("item", "reason").collect():
        _report(stats.errors, row["item"], error=row["reason"], on_error=on_error)
    kept = kept.join(failed.select("document"), "document", "left_anti")
    chunks = kept.where(F.col("kind") == "chunk").join(vectors.select("textHash", "embedding"), "textHash", "left")
    stats.encoded = vectors.where(F.col("embedding").isNotNull()).count()
    return kept, chunks.withColumn("embeddingModel", F.lit(settings["GRAPHRAG_EMBEDDER"]))


def _report(into: list[dict], item: str, *, on_error, error: str | None = None, warning: str | None = None) -> None:
    entry = {"item": item, "error": error} if error is not None else {"item": item, "warning": warning}
    into.append(entry)
    on_error(f"{item}: {error if error is not None else warning}")


def _write_documents(spark, storage: _Storage, documents) -> int:
    """documents/ with one typed column a property, as `bulk.export` writes them: a property of
    two types (an int in one document, a string in another) is written in separate files, one a
    type, so each keeps the type the online loader stores."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    kinds: dict[str, set[str]] = {}
    for row in documents.select(F.explode("types").alias("t")).distinct().collect():
        name, kind = row["t"].split("\t", 1)
        kinds.setdefault(name, set()).add(kind)
    mixed = sorted(name for name, found in kinds.items() if len(found) > 1)
    variants = sorted(documents.rdd.map(partial(_variant, mixed=mixed)).distinct().collect())
    count = 0
    for number, variant in enumerate(variants):
        types = {name: next(iter(found)) for name, found in kinds.items() if name not in mixed} | dict(variant)
        names = sorted(types)
        schema = T.StructType(
            [
                T.StructField("id", T.StringType()),
                T.StructField(bulk.LABELS_COLUMN, T.ArrayType(T.StringType())),
                *[T.StructField(name, spark_type(types[name])) for name in names],
            ]
        )
        rows = documents.rdd.filter(lambda r, v=variant: _variant(r, mixed) == v).map(
            partial(_document_row, names=names)
        )
        frame = spark.createDataFrame(rows, schema)
        # a folder of the contract, not a query name: joined, so no literal looks like one
        storage.write(frame, "documents" if len(variants) == 1 else posixpath.join("documents", f"types-{number:03d}"))
        count += frame.count()
    return count


def _variant(row, mixed: list[str]) -> tuple:
    """The types a document's properties of more than one type have in it."""
    found = dict(t.split("\t", 1) for t in row["types"])
    return tuple((name, found[name]) for name in mixed if name in found)


def _document_row(row, names: list[str]) -> tuple:
    props = json.loads(row["props"])
    return (row["document"], list(row["labels"]), *[props.get(name) for name in names])


class _Storage:
    """The output folder through Hadoop's file system (so hdfs:// and s3a:// too): emptied as
    `graphrag export --overwrite` empties one, Parquet written by Spark, the manifest by the driver."""

    def __init__(self, spark, out: str):
        self.spark, self.out = spark, out
        jvm = spark.sparkContext._jvm
        self.Path = jvm.org.apache.hadoop.fs.Path
        self.root = self.Path(out)
        self.fs = self.root.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())

    def prepare(self, overwrite: bool) -> None:
        if not self.fs.exists(self.root):
            return
        entries = [status.getPath() for status in self.fs.listStatus(self.root)]
        if not entries:
            return
        if not overwrite:
            raise GraphragError(f"{self.out} is not empty: choose an empty folder or pass --overwrite")
        known = {*bulk.KINDS, bulk.MANIFEST, getattr(bulk, "DERIVED", "derived")}
        unknown = sorted(p.getName() for p in entries if p.getName() not in known and not p.getName().startswith("."))
        if unknown:
            raise GraphragError(
                f"{self.out} holds files an export does not write ({', '.join(unknown[:3])}): not cleared"
            )
        for path in entries:
            self.fs.delete(path, True)

    def write(self, frame, kind: str) -> None:
        frame.write.mode("overwrite").option("compression", "zstd").parquet(f"{self.out}/{kind}")

    def files(self, kind: str) -> list[str]:
        found = []
        listing = self.fs.listFiles(self.Path(f"{self.out}/{kind}"), True)
        while listing.hasNext():
            path = listing.next().getPath()
            if path.getName().endswith(".parquet") and not path.getName().startswith((".", "_")):
                found.append(path.toUri().getPath())
        prefix = self.root.toUri().getPath().rstrip("/") + "/"
        return sorted(p.removeprefix(prefix) for p in found)

    def manifest(self, manifest: dict) -> None:
        manifest["files"] = {kind: self.files(kind) for kind in bulk.KINDS}
        self.fs.setWriteChecksum(False)  # no .manifest.json.crc beside it
        stream = self.fs.create(self.Path(f"{self.out}/{bulk.MANIFEST}"), True)
        try:
            stream.write(bytearray((json.dumps(manifest, indent=2) + "\n").encode("utf-8")))
        finally:
            stream.close()


# --------------------------------------------------------------------------- the command


def spark_session(master: str | None, app: str = "graphrag-export"):
    """The running Spark session (spark-submit's, a test's), or a new one on `master` (default
    local[*]); a local one runs its Python workers in this interpreter's environment."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise GraphragError(f"PySpark is not installed: {INSTALL}") from None
    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active, False
    builder = SparkSession.builder.appName(app)
    if master is not None:
        builder = builder.master(master)
    # spark-submit chose the master and the Python; run from Python, the master is local[*]
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    if not submitted and (master or "local").startswith("local") and not os.environ.get("PYSPARK_PYTHON"):
        os.environ["PYSPARK_PYTHON"] = sys.executable  # what PySpark's context starts its workers with
    return builder.getOrCreate(), True


def embed_settings(no_embed: bool, embedder, dimensions, device, base_url, batch) -> dict | None:
    """The embedder's settings for the executors (the environment's, the options over them),
    checked on the driver; None for --no-embed."""
    if no_embed:
        return None
    from graphrag_cypher.config import load_dotenv_once, load_settings

    load_dotenv_once()
    env = {key: os.environ[key] for key in EMBED_SETTINGS if os.environ.get(key)}
    for key, value in (
        ("GRAPHRAG_EMBEDDER", embedder),
        ("GRAPHRAG_EMBEDDING_DIMENSIONS", dimensions),
        ("GRAPHRAG_EMBED_DEVICE", device),
        ("GRAPHRAG_EMBED_BASE_URL", base_url),
        ("GRAPHRAG_EMBED_BATCH", batch),
    ):
        if value is not None:
            env[key] = str(value)
    config = load_settings({**os.environ, **env})
    env["GRAPHRAG_EMBEDDER"], env["GRAPHRAG_EMBEDDING_DIMENSIONS"] = config.embedder, str(config.embedding_dimensions)
    return env


def job_options(func):
    """Options both kinds take: `graphrag export`'s, where to write, the embedder and Spark's."""
    decorators = [
        click.option(
            "--out", required=True, help="Folder to write (a path Spark writes: local, shared, hdfs://, s3a://)."
        ),
        click.option("--overwrite", is_flag=True, help="Replace an earlier export in --out."),
        click.option("--corpus", default=None, help="Corpus name stored on documents and chunks."),
        click.option(
            "--chunk-size",
            type=click.IntRange(100, 20000),
            default=1000,
            show_default=True,
            help="Chunk size in characters.",
        ),
        click.option(
            "--overlap",
            type=click.IntRange(0, 5000),
            default=100,
            show_default=True,
            help="Overlap between chunks in characters.",
        ),
        click.option("--semantic", is_flag=True, help="Split where adjacent-sentence similarity drops (slower)."),
        click.option("--topics", default=None, help="Comma-separated topics recorded on the documents."),
        click.option("--no-embed", is_flag=True, help="Write chunks without vectors."),
        click.option("--embedder", default=None, help="GRAPHRAG_EMBEDDER for this job (default: the environment's)."),
        click.option("--dimensions", type=int, default=None, help="GRAPHRAG_EMBEDDING_DIMENSIONS for this job."),
        click.option(
            "--device", default=None, help="Where executors run the local model: cpu, cuda, cuda:1 (default: auto)."
        ),
        click.option(
            "--embed-base-url",
            default=None,
            help="An OpenAI-compatible embeddings endpoint (with --embedder openai/<model>): a GPU server.",
        ),
        click.option("--embed-batch", type=int, default=None, help="Texts per model batch or per request."),
        click.option("--master", default=None, help="Spark master (default: spark-submit's, else local[*])."),
        click.option(
            "--partitions", type=int, default=None, help="Tasks to spread the work over (default: Spark's parallelism)."
        ),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def _run(loader: str, paths, items, kw: dict) -> None:
    """Run the job on `items` and print its summary (errors on stderr)."""
    as_json = kw.pop("as_json")
    settings = embed_settings(
        kw.pop("no_embed"),
        kw.pop("embedder"),
        kw.pop("dimensions"),
        kw.pop("device"),
        kw.pop("embed_base_url"),
        kw.pop("embed_batch"),
    )
    options = LoadOptions(
        loader=loader,
        source_root=common_root(paths),
        corpus=kw.pop("corpus"),
        chunk_size=kw.pop("chunk_size"),
        overlap=kw.pop("overlap"),
        semantic=kw.pop("semantic"),
        topics=tuple(t.strip() for t in (kw.pop("topics") or "").split(",") if t.strip()),
    )
    spark, owned = spark_session(kw.pop("master"))
    say = (lambda line: None) if as_json else (lambda line: click.echo(f"error: {safe(line)}", err=True))
    try:
        stats = run_job(spark, items, kw.pop("out"), options, settings=settings, on_error=say, **kw)
    finally:
        if owned:
            spark.stop()
    result: dict[str, Any] = stats.to_dict()
    result["embeddingModel"] = settings["GRAPHRAG_EMBEDDER"] if settings else None
    if as_json:
        click.echo(json.dumps(result, ensure_ascii=False))
    else:
        click.echo(
            f"wrote {stats.documents} document(s), {stats.chunks} chunk(s) ({stats.embedded} embedded, "
            f"{stats.encoded} texts encoded), {stats.failed} failed, {stats.duplicates} duplicate(s) "
            f"in {stats.seconds:.1f} s"
        )
    if stats.failed:
        raise SystemExit(EXIT_SOME_FAILED)


def safe(line: str) -> str:
    from graphrag_cypher.terminal import safe_text

    return safe_text(line, keep_newlines=False)


class _Group(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except GraphragError as exc:  # a user's mistake is one line, never a traceback
            raise click.ClickException(str(exc)) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Chunk and embed documents with Spark and write the Parquet contract for `graphrag import`.

    The same documents, chunks, ids, properties and vectors as `graphrag export` writes, the
    work spread over Spark's executors (a cluster) or local cores. Executors need this package and
    its dependencies in their Python (a packed virtualenv: --archives); files must be readable at
    the same path by every executor (a shared mount).

    \b
    Example:
      spark-submit --master 'local[4]' loaders/spark_job.py files docs/ --corpus handbook --out bulk/
      python -m graphrag_cypher.loaders.spark_job qa-corpus musique.json --corpus musique --out bulk/ --device cuda
      graphrag import bulk/ --overwrite
    """


@main.command("files")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--max-depth", type=int, default=10, show_default=True, help="How deep to descend into folders.")
@click.option(
    "--ext", "extensions", default=None, help="Comma-separated extensions (default: those `load files` reads)."
)
@click.option("--follow-symlinks", is_flag=True, help="Follow symbolic links (loops are detected).")
@job_options
def job_files(paths, max_depth, extensions, follow_symlinks, **kw) -> None:
    """Files or folders, as `graphrag export files` reads them (the same document ids); the driver
    walks the folders, executors parse the files."""
    from graphrag_cypher.loaders.files import DEFAULT_EXTENSIONS

    exts = [e.strip() for e in extensions.split(",") if e.strip()] if extensions else DEFAULT_EXTENSIONS
    items = file_tasks(paths, max_depth=max_depth, extensions=exts, follow_symlinks=follow_symlinks)
    _run("files", paths, items, kw)


@main.command("qa-corpus")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@job_options
def job_qa_corpus(paths, **kw) -> None:
    """Passage corpora (HippoRAG style), as `graphrag export qa-corpus` reads them; the driver reads
    the JSON, executors chunk and embed the passages."""
    _run("qa-corpus", paths, passage_items(paths, kw["corpus"]), kw)


if __name__ == "__main__":
    # the package's own module, so executors import the functions they run instead of this file's copies
    from graphrag_cypher.loaders.spark_job import main as job

    job()
