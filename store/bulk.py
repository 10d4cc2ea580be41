"""The bulk path for initial loads: parsed documents into Parquet files, and those into Neo4j
with `neo4j-admin database import full`.

`export` writes what the online loader (ingest.py) would write, node for node: Document and
Chunk nodes with the same ids and properties (contentHash, title, corpus, positions, the vector
and `embeddingModel`), FROM_DOCUMENT and NEXT_CHUNK relationships. It chunks with the loader's
own chunker and computes document properties with its `document_props`, so a later online
`load` of the same source finds every document unchanged. The folder it writes::

    manifest.json                    format, embedder, dimensions, counts
    documents/part-NNNNN.parquet     id, __labels (extra labels), then one column a property
    chunks/part-NNNNN.parquet        id, text, index, title, contentHash, section, page, corpus,
                                     seq, embeddingModel, embedding (list<float32>)
    from_document/part-NNNNN.parquet start (chunk id), end (document id)
    next_chunk/part-NNNNN.parquet    start, end (chunk ids)

That is the Parquet contract: any engine (Spark, Ray) may rewrite chunks/ with the vectors it
computed (`embedding`, `embeddingModel`), in any row order, column order and file names; the
import reads columns by name.

Neo4j 5.26's importer cannot read Parquet lists (a vector), so `prepare_import` turns every
Parquet file into CSV with a header file (vectors as `float[]`), one record batch at a time
(bounded memory), and `neo4j_local.admin_import` runs the importer on them.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphrag_cypher.errors import GraphragError

from .ingest import Loader, LoadOptions, document_props, embedding_input, refused_id, text_hash, within_text_budget

FORMAT = "graphrag-bulk/1"
MANIFEST = "manifest.json"
LABELS_COLUMN = "__labels"
ARRAY_DELIMITER = "\x1f"  # the unit separator: in no label and, in practice, in no list item
KINDS = ("documents", "chunks", "from_document", "next_chunk")
DERIVED = "derived"  # the folder of what linking adds (linkers/bulk_derived.py)
DERIVED_NODES = {  # kind → the importer's id group
    "words": "Word",
    "terms": "Term",
    "persons": "Person",
    "phrase_state": "PhraseState",
}
DERIVED_RELATIONSHIPS = {  # kind → (type, start group, end group)
    "leads": ("LEADS", "Chunk", "Word"),
    "has_phrase": ("HAS_PHRASE", "Chunk", "Term"),
    "has_term": ("HAS_TERM", "Chunk", "Term"),
    "authored": ("AUTHORED", "Person", "Document"),
}
DATETIMES = {"at"}  # derived columns the importer reads as datetime (written as ISO strings)
ROWS_PER_PART = 200_000  # rows a Parquet file holds before the next one is started
ROWS_PER_GROUP = 8_192  # rows a Parquet row group holds


def _pa():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow comes with the project's dependencies
        raise GraphragError("pyarrow is not installed: run `make setup`") from exc
    return pa, pq


def chunk_schema():
    """The columns of chunks/*.parquet, in the order export writes them."""
    pa, _ = _pa()
    return pa.schema(
        [
            ("id", pa.string()),
            ("text", pa.string()),
            ("index", pa.int64()),
            ("title", pa.string()),
            ("contentHash", pa.string()),
            ("section", pa.string()),
            ("page", pa.int64()),
            ("corpus", pa.string()),
            ("seq", pa.int64()),
            ("embeddingModel", pa.string()),
            ("embedding", pa.list_(pa.float32())),
        ]
    )


def relationship_schema():
    pa, _ = _pa()
    return pa.schema([("start", pa.string()), ("end", pa.string())])


def chunk_labels() -> tuple[str, ...]:
    """The labels the online loader gives a new chunk, read from its create_chunks query
    (`CREATE (c:Chunk:... {id: ch.id})`), so both paths label chunks alike."""
    from graphrag_cypher.db import query

    found = re.search(r"CREATE \(c:([\w:]+) \{id: ch\.id\}\)", query("ingest/create_chunks"))
    if not found:
        raise GraphragError("cannot tell the chunk labels from cypher/queries/ingest/create_chunks.cypher")
    return tuple(found.group(1).split(":"))


def words_schema():
    """The columns of derived/chunk_words/*.parquet."""
    pa, _ = _pa()
    return pa.schema([("id", pa.string()), ("lowerWords", pa.string())])


# --------------------------------------------------------------------------- export


@dataclass
class ExportStats:
    documents: int = 0
    chunks: int = 0
    embedded: int = 0
    failed: int = 0
    duplicates: int = 0
    errors: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    export_seconds: float = 0.0  # documents and chunks written
    derive_seconds: float = 0.0  # words, phrases and authors derived from them

    def to_dict(self) -> dict:
        return {
            "timings": {"export_s": round(self.export_seconds, 2), "derive_s": round(self.derive_seconds, 2)},
            "documents": self.documents,
            "chunks": self.chunks,
            "embedded": self.embedded,
            "failed": self.failed,
            "duplicates": self.duplicates,
            "errors": self.errors,
            "warnings": self.warnings,
            "seconds": round(self.seconds, 2),
        }


class _Parts:
    """Parquet files of one kind (documents/, chunks/ ...): part-00000.parquet, part-00001...,
    each up to ROWS_PER_PART rows, written a row group at a time."""

    def __init__(self, folder: Path, kind: str):
        self.folder = folder / kind
        self.folder.mkdir(parents=True, exist_ok=True)
        self.kind = kind
        self.number = 0
        self.rows_in_part = 0
        self.writer: Any = None
        self.schema: Any = None
        self.files: list[str] = []

    def write(self, table) -> None:
        _, pq = _pa()
        if self.writer is not None and (self.rows_in_part >= ROWS_PER_PART or not table.schema.equals(self.schema)):
            self.close()
        if self.writer is None:
            name = f"part-{self.number:05d}.parquet"
            self.number += 1
            self.schema = table.schema
            self.writer = pq.ParquetWriter(self.folder / name, table.schema, compression="zstd")
            self.files.append(f"{self.kind}/{name}")
            self.rows_in_part = 0
        self.writer.write_table(table, row_group_size=ROWS_PER_GROUP)
        self.rows_in_part += table.num_rows

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def _arrow_type(value):
    """The Parquet type of a stored document property (ingest._storable's kinds)."""
    pa, _ = _pa()
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64()
    if isinstance(value, float):
        return pa.float64()
    if isinstance(value, list):
        return pa.list_(pa.string())
    return pa.string()


_PLAIN_NAME = re.compile(r"^[^,:\"\n\r\x1f]+$")  # what a CSV header of the importer can name


class _Documents:
    """Document rows buffered until a row group is full; a property whose type differs from the
    buffered rows' (an int where a string was) starts a new row group, and so a new part file,
    so every property keeps its type as the online loader stores it."""

    def __init__(self, parts: _Parts):
        self.parts = parts
        self.rows: list[dict] = []
        self.types: dict[str, Any] = {}

    def add(self, row: dict) -> None:
        types = {key: _arrow_type(value) for key, value in row.items() if key not in ("id", LABELS_COLUMN)}
        if any(key in self.types and not self.types[key].equals(kind) for key, kind in types.items()):
            self.flush()
        for key, kind in types.items():
            self.types.setdefault(key, kind)
        self.rows.append(row)
        if len(self.rows) >= ROWS_PER_GROUP:
            self.flush()

    def flush(self) -> None:
        if not self.rows:
            return
        pa, _ = _pa()
        fields = [("id", pa.string()), (LABELS_COLUMN, pa.list_(pa.string()))]
        fields += sorted(self.types.items())
        schema = pa.schema(fields)
        columns = {name: [row.get(name) for row in self.rows] for name in schema.names}
        self.parts.write(pa.table(columns, schema=schema))
        self.rows, self.types = [], {}


class _Chunks:
    def __init__(self, parts: _Parts, from_document: _Parts, next_chunk: _Parts):
        self.parts, self.from_document, self.next_chunk = parts, from_document, next_chunk
        self.rows: list[dict] = []
        self.links: list[tuple[str, str]] = []
        self.nexts: list[tuple[str, str]] = []

    def add(self, document_id: str, chunks: list[dict]) -> None:
        for i, chunk in enumerate(chunks):
            row = dict(chunk["props"], id=chunk["id"], embedding=chunk["embedding"])
            self.rows.append(row)
            self.links.append((chunk["id"], document_id))
            if i:
                self.nexts.append((chunks[i - 1]["id"], chunk["id"]))
        if len(self.rows) >= ROWS_PER_GROUP:
            self.flush()

    def flush(self) -> None:
        pa, _ = _pa()
        if self.rows:
            schema = chunk_schema()
            columns = {name: [row.get(name) for row in self.rows] for name in schema.names}
            self.parts.write(pa.table(columns, schema=schema))
        for parts, pairs in ((self.from_document, self.links), (self.next_chunk, self.nexts)):
            if pairs:
                starts, ends = zip(*pairs, strict=True)
                parts.write(pa.table({"start": list(starts), "end": list(ends)}, schema=relationship_schema()))
        self.rows, self.links, self.nexts = [], [], []


@dataclass
class Prepared:
    """One parsed document as the bulk files hold it: its importable properties and chunks, the
    warnings met on the way, or the one-line reason it cannot be written (`error`)."""

    props: dict = field(default_factory=dict)
    chunks: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None


def prepare(item, chunker: Loader) -> Prepared:
    """What `export` (and the Spark job, per executor) makes of one parsed document, with the
    refusals `load` makes: an unusable id, nothing to chunk, a chunker that fails."""
    refusal = refused_id(item)
    if refusal is not None:
        return Prepared(error=refusal)
    cut = within_text_budget(item, chunker.max_chars)
    warnings = [*getattr(item, "notes", ()), *([cut] if cut else [])]
    try:
        chunks = chunker._chunks(item)
    except Exception as exc:  # one bad document never stops the export, as in `load`
        return Prepared(warnings=warnings, error=f"cannot chunk: {exc}")
    if not chunks:
        return Prepared(warnings=warnings, error="no text to chunk")
    notes: list[str] = []
    props = _importable(document_props(item, chunker.options, notes), item.source, notes)
    return Prepared(props=props, chunks=chunks, warnings=[*warnings, *notes])


def export(
    items: Iterable,
    folder: Path,
    options: LoadOptions,
    embedder=None,
    *,
    dimensions: int | None = None,
    embed_batch: int = 4096,
    overwrite: bool = False,
    on_error: Callable[[str], None] = lambda line: None,
    on_progress: Callable[[ExportStats], None] = lambda stats: None,
) -> ExportStats:
    """Write `items` (ParsedDocument | ItemError, as `ingest.load` takes them) to `folder` as the
    online loader would write them to the graph; with an `embedder`, chunks carry its vectors
    (`embed_batch` chunks per call). A document id seen twice is written once, as `load` does.
    What linking adds is derived from the folder afterwards (linkers.bulk_derived.derive_export)."""
    from graphrag_cypher.model import ItemError

    folder = Path(folder)
    if folder.exists() and any(folder.iterdir()):
        if not overwrite:
            raise GraphragError(f"{folder} is not empty: choose an empty folder or pass --overwrite")
        _clear(folder)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    stats = ExportStats()
    chunker = Loader(None, embedder, options)  # type: ignore[arg-type]  # its chunker only: no graph is touched
    parts = {kind: _Parts(folder, kind) for kind in KINDS}
    documents = _Documents(parts["documents"])
    chunks = _Chunks(parts["chunks"], parts["from_document"], parts["next_chunk"])
    seen: set[str] = set()
    pending: list[tuple[Any, dict, list[dict]]] = []
    pending_chunks = 0

    def fail(item: str, error: str) -> None:
        stats.failed += 1
        stats.errors.append({"item": item, "error": error})
        on_error(f"{item}: {error}")

    def write_pending() -> None:
        nonlocal pending, pending_chunks
        if embedder is not None:
            # a text repeated in the batch is encoded once, under the first title, as `load` does
            todo: dict[str, list[dict]] = {}
            for _, _, cs in pending:
                for c in cs:
                    todo.setdefault(text_hash(c["props"]["text"]), []).append(c)
            order = list(todo)
            for start in range(0, len(order), embed_batch):
                part = order[start : start + embed_batch]
                first = [todo[d][0]["props"] for d in part]
                vectors = embedder.embed([embedding_input(p["title"], p["text"]) for p in first])
                for digest, vector in zip(part, vectors, strict=True):
                    for chunk in todo[digest]:
                        chunk["embedding"] = vector
                    stats.embedded += len(todo[digest])
                on_progress(stats)
        for doc, props, doc_chunks in pending:
            documents.add({"id": doc.id, LABELS_COLUMN: list(doc.labels), **props})
            chunks.add(doc.id, doc_chunks)
            stats.documents += 1
            stats.chunks += len(doc_chunks)
        pending, pending_chunks = [], 0
        on_progress(stats)

    try:
        for item in items:
            if isinstance(item, ItemError):
                fail(item.item, item.error)
                continue
            if item.id in seen:
                stats.duplicates += 1
                continue
            seen.add(item.id)
            prepared = prepare(item, chunker)
            for note in prepared.warnings:
                stats.warnings.append({"item": item.source, "warning": note})
                on_error(f"{item.source}: {note}")
            if prepared.error is not None:
                fail(item.source, prepared.error)
                continue
            props, doc_chunks = prepared.props, prepared.chunks
            if embedder is not None:
                for chunk in doc_chunks:
                    chunk["props"]["embeddingModel"] = embedder.name
            pending.append((item, props, doc_chunks))
            pending_chunks += len(doc_chunks)
            if pending_chunks >= embed_batch:
                write_pending()
        write_pending()
        documents.flush()
        chunks.flush()
    finally:
        for part in parts.values():
            part.close()
    stats.export_seconds = time.perf_counter() - started
    manifest = {
        "format": FORMAT,
        "createdAt": datetime.now(UTC).isoformat(timespec="seconds"),
        "loader": options.loader,
        "corpus": options.corpus,
        "embeddingModel": embedder.name if embedder is not None else None,
        "dimensions": (embedder.dimensions if embedder is not None else dimensions),
        "counts": {"documents": stats.documents, "chunks": stats.chunks},
        "files": {kind: part.files for kind, part in parts.items()},
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    stats.seconds = time.perf_counter() - started
    return stats


def _importable(props: dict, source: str, notes: list[str]) -> dict:
    """`props` without None values and without names the importer's header cannot hold."""
    kept = {}
    for key, value in props.items():
        if value is None:
            continue
        if not _PLAIN_NAME.match(key):
            notes.append(f"property {key!r} not exported: its name holds a comma, colon, quote or line break")
            continue
        kept[key] = value
    return kept


def _clear(folder: Path) -> None:
    """Empty an export folder: only what an export writes (so a wrong --out is not wiped)."""
    import shutil

    unknown = [p.name for p in folder.iterdir() if p.name not in (*KINDS, MANIFEST, DERIVED)]
    if unknown:
        raise GraphragError(
            f"{folder} holds files an export does not write ({', '.join(sorted(unknown)[:3])}): not cleared"
        )
    for path in folder.iterdir():
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


# --------------------------------------------------------------------------- import


@dataclass
class ImportPlan:
    """CSV files (with their header files) for the importer, and what they hold."""

    nodes: list[tuple[str, list[Path]]] = field(default_factory=list)  # ("Document", [header, data...])
    relationships: list[tuple[str, list[Path]]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    embedding_model: str | None = None
    dimensions: int | None = None
    ignored_columns: list[str] = field(default_factory=list)

    def arguments(self) -> list[str]:
        """The importer's input options: CSV, quoted fields that may span lines, lists joined
        with ARRAY_DELIMITER, string ids, and no bad entry tolerated."""
        args = [
            "--input-type=csv",
            "--multiline-fields=true",
            f"--array-delimiter=U+{ord(ARRAY_DELIMITER):04X}",
            "--id-type=string",
            "--bad-tolerance=0",
        ]
        # no labels: the files' :LABEL column names them all
        args += [
            f"--nodes={labels + '=' if labels else ''}{','.join(str(p) for p in files)}" for labels, files in self.nodes
        ]
        args += [f"--relationships={kind}={','.join(str(p) for p in files)}" for kind, files in self.relationships]
        return args


def read_manifest(folder: Path) -> dict:
    path = Path(folder) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except OSError:
        raise GraphragError(
            f"{folder} is not a graphrag export: no {MANIFEST} (make one with `graphrag export`)"
        ) from None
    except ValueError as exc:
        raise GraphragError(f"{path} is not valid JSON: {exc}") from None
    if manifest.get("format") != FORMAT:
        raise GraphragError(f"{path} has format {manifest.get('format')!r}; this graphrag reads {FORMAT!r}")
    return manifest


def parquet_files(folder: Path, kind: str) -> list[Path]:
    """Every Parquet file under folder/kind (Spark's part-*.snappy.parquet too), in name order;
    files Spark and Hadoop write beside them (_SUCCESS, .crc) are not data."""
    root = Path(folder) / kind
    return sorted(p for p in root.rglob("*.parquet") if not p.name.startswith((".", "_")))


_HEADER_TYPES = {
    "null": "",  # a column of nulls only: no property
    "string": "",
    "large_string": "",
    "int64": ":long",
    "int32": ":long",
    "int16": ":long",
    "int8": ":long",
    "double": ":double",
    "float": ":double",
    "bool": ":boolean",
}
_LIST_TYPES = {"string": ":string[]", "large_string": ":string[]", "int64": ":long[]", "double": ":double[]"}


def _header_type(name: str, kind) -> str:
    pa, _ = _pa()
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        item = str(kind.value_type)
        if item in _LIST_TYPES:
            return _LIST_TYPES[item]
        raise GraphragError(f"column {name!r}: lists of {item} cannot be imported")
    if str(kind) in _HEADER_TYPES:
        return _HEADER_TYPES[str(kind)]
    raise GraphragError(f"column {name!r} of type {kind} cannot be imported")


def _csv_column(array, name: str):
    """One Arrow column as the importer reads it: lists joined with ARRAY_DELIMITER."""
    import pyarrow.compute as pc

    pa, _ = _pa()
    kind = array.type
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        if name == "embedding":
            array = array.cast(pa.list_(pa.float32()))  # the stored vector is float32: exact both ways
        return pc.binary_join(array.cast(pa.list_(pa.string())), ARRAY_DELIMITER)
    return array


class _CsvWriter:
    """CSV files for one --nodes or --relationships group of the importer: a header file and data
    files, a new data file every ROWS_PER_PART rows."""

    def __init__(self, staging: Path, name: str):
        self.staging, self.name = staging, name
        self.files: list[Path] = []
        self.rows = 0

    def header(self, names: list[str]) -> Path:
        path = self.staging / f"{self.name}.header.csv"
        path.write_text(",".join(names) + "\n", encoding="utf-8")
        return path

    def write(self, columns: list, names: list[str]) -> None:
        import pyarrow.csv as pcsv

        pa, _ = _pa()
        table = pa.table(columns, names=names)
        path = self.staging / f"{self.name}.{len(self.files):05d}.csv"
        self.files.append(path)
        pcsv.write_csv(table, path, write_options=pcsv.WriteOptions(include_header=False, quoting_style="needed"))
        self.rows += table.num_rows


def _batches(path: Path, columns: list[str] | None = None) -> Iterator:
    _, pq = _pa()
    handle = pq.ParquetFile(path)
    yield from handle.iter_batches(batch_size=ROWS_PER_GROUP * 8, columns=columns)


CHUNK_TYPES = {
    "id": "string",
    "text": "string",
    "index": "long",
    "title": "string",
    "contentHash": "string",
    "section": "string",
    "page": "long",
    "corpus": "string",
    "seq": "long",
    "embeddingModel": "string",
    "embedding": "float[]",
}


def prepare_import(
    folder: Path,
    staging: Path,
    *,
    dimensions: int,
    embedder: str | None = None,
    words: list[Path] | None = None,
) -> ImportPlan:
    """CSV files and header files in `staging` for the export in `folder`; vectors are checked
    against `dimensions` (the vector index) and their model against `embedder` (what embeds
    questions). With `words` (derived chunk_words files, one per chunks/ file) the chunks carry
    their `lowerWords` and are no longer pending a phrase run. Streams one record batch at a time."""
    import pyarrow.compute as pc

    pa, pq = _pa()
    folder, staging = Path(folder), Path(staging).resolve()  # the importer runs in the Neo4j home
    read_manifest(folder)
    staging.mkdir(parents=True, exist_ok=True)
    plan = ImportPlan()
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    # documents: a header per part file (its own properties), createdAt/updatedAt as now
    documents = parquet_files(folder, "documents")
    if not documents:
        raise GraphragError(f"{folder / 'documents'} holds no Parquet files")
    count = 0
    for number, path in enumerate(documents):
        schema = pq.read_schema(path)
        if "id" not in schema.names:
            raise GraphragError(f"{path}: no id column")
        names = [n for n in schema.names if n not in ("id", LABELS_COLUMN, "createdAt", "updatedAt")]
        header = ["id:ID(Document)"] + ([":LABEL"] if LABELS_COLUMN in schema.names else [])
        header += [n + _header_type(n, schema.field(n).type) for n in names]
        header += ["createdAt:datetime", "updatedAt:datetime"]
        writer = _CsvWriter(staging, f"documents-{number:05d}")
        head = writer.header(header)
        for batch in _batches(path):
            columns = [batch.column("id")]
            if LABELS_COLUMN in schema.names:
                columns.append(_csv_column(batch.column(LABELS_COLUMN), LABELS_COLUMN))
            columns += [_csv_column(batch.column(n), n) for n in names]
            columns += [pa.repeat(stamp, batch.num_rows)] * 2
            writer.write(columns, [f"c{i}" for i in range(len(columns))])
        plan.nodes.append(("Document", [head, *writer.files]))
        count += writer.rows
    plan.counts["documents"] = count

    # chunks: one fixed set of columns, read by name; unknown ones are left out (and said)
    files = parquet_files(folder, "chunks")
    if not files:
        raise GraphragError(f"{folder / 'chunks'} holds no Parquet files")
    writer = _CsvWriter(staging, "chunks")
    types = dict(CHUNK_TYPES, **({"lowerWords": "string"} if words is not None else {}))
    head = writer.header([("id:ID(Chunk)" if n == "id" else f"{n}:{t}") for n, t in types.items()])
    if words is not None and len(words) != len(files):
        raise GraphragError(f"{folder}: the derived chunk_words are not those of chunks/: derive again")
    models: set[str] = set()
    ignored: set[str] = set()
    for number, path in enumerate(files):
        aligned = AlignedWords(words[number]) if words is not None else None
        schema = pq.read_schema(path)
        for required in ("id", "text"):
            if required not in schema.names:
                raise GraphragError(f"{path}: no {required} column (see the Parquet contract)")
        ignored.update(n for n in schema.names if n not in CHUNK_TYPES)
        present = [n for n in CHUNK_TYPES if n in schema.names]
        for batch in _batches(path, present):
            columns = []
            for name, kind in CHUNK_TYPES.items():
                column = batch.column(name) if name in present else None
                if column is None or pa.types.is_null(column.type):  # absent, or nulls only (no type)
                    columns.append(pa.nulls(batch.num_rows, pa.string()))
                    continue
                if name == "embedding":
                    _check_vectors(path, column, dimensions)
                    has_vector = pc.invert(pc.is_null(column))
                    if "embeddingModel" not in present and pc.any(has_vector).as_py():
                        raise GraphragError(f"{path}: vectors but no embeddingModel column (the model's name)")
                elif kind == "long" and not pa.types.is_integer(column.type):
                    raise GraphragError(f"{path}: column {name} is {column.type}, not an integer")
                if name == "embeddingModel":
                    models.update(m for m in pc.unique(column).to_pylist() if m is not None)
                columns.append(_csv_column(column, name))
            if aligned is not None:
                columns.append(aligned.take(batch.column("id")))
            writer.write(columns, list(types))
    labels = [label for label in chunk_labels() if words is None or label != "PendingPhrases"]
    plan.nodes.append((":".join(labels), [head, *writer.files]))
    plan.counts["chunks"] = writer.rows
    if len(models) > 1:
        raise GraphragError(f"the chunks were embedded by {len(models)} models ({', '.join(sorted(models))}): use one")
    plan.embedding_model = next(iter(models), None)
    if plan.embedding_model and embedder and plan.embedding_model != embedder:
        raise GraphragError(
            f"the chunks were embedded with {plan.embedding_model} but GRAPHRAG_EMBEDDER is {embedder}: "
            "questions would be embedded by another model; set GRAPHRAG_EMBEDDER to match"
        )
    plan.dimensions = dimensions if plan.embedding_model else None
    plan.ignored_columns = sorted(ignored)

    for kind, start, end, relationship in (
        ("from_document", "Chunk", "Document", "FROM_DOCUMENT"),
        ("next_chunk", "Chunk", "Chunk", "NEXT_CHUNK"),
    ):
        writer = _CsvWriter(staging, kind)
        head = writer.header([f":START_ID({start})", f":END_ID({end})"])
        for path in parquet_files(folder, kind):
            for batch in _batches(path, ["start", "end"]):
                writer.write([batch.column("start"), batch.column("end")], ["start", "end"])
        if writer.files:
            plan.relationships.append((relationship, [head, *writer.files]))
        plan.counts[relationship] = writer.rows
    return plan


def prepare_imports(
    folders: Iterable[Path],
    staging: Path,
    *,
    dimensions: int,
    embedder: str | None = None,
    derived: Path | None = None,
    phrases: bool = True,
) -> ImportPlan:
    """One ImportPlan for several export folders (each staged in its own subfolder); with
    `derived` (bulk_derived.derive of these folders) the words, phrases and authors too
    (without `phrases`: the authors only, and the chunks stay pending a phrase run)."""
    merged = ImportPlan()
    for number, folder in enumerate(folders):
        words = chunk_word_files(derived, number) if derived is not None and phrases else None
        plan = prepare_import(
            folder, Path(staging) / f"{number:03d}", dimensions=dimensions, embedder=embedder, words=words
        )
        merged.nodes += plan.nodes
        merged.relationships += plan.relationships
        for key, value in plan.counts.items():
            merged.counts[key] = merged.counts.get(key, 0) + value
        merged.ignored_columns = sorted({*merged.ignored_columns, *plan.ignored_columns})
        if plan.embedding_model:
            if merged.embedding_model and merged.embedding_model != plan.embedding_model:
                raise GraphragError(
                    f"{folder} was embedded with {plan.embedding_model}, another folder with {merged.embedding_model}"
                )
            merged.embedding_model, merged.dimensions = plan.embedding_model, plan.dimensions
    if derived is not None:
        stage_derived(derived, Path(staging) / "derived", merged, phrases=phrases)
    return merged


def _check_vectors(path: Path, column, dimensions: int) -> None:
    import pyarrow.compute as pc

    pa, _ = _pa()
    if not (pa.types.is_list(column.type) or pa.types.is_large_list(column.type)) or not pa.types.is_floating(
        column.type.value_type
    ):
        raise GraphragError(f"{path}: column embedding is {column.type}, not a list of floats")
    lengths = pc.list_value_length(column)
    low, high = pc.min(lengths).as_py(), pc.max(lengths).as_py()
    if low is None:
        return
    if low != dimensions or high != dimensions:
        wrong = low if low != dimensions else high
        raise GraphragError(
            f"{path}: a vector has {wrong} dimensions but the vector index holds {dimensions} "
            "(GRAPHRAG_EMBEDDING_DIMENSIONS)"
        )


# --------------------------------------------------------------------------- derived files (linkers/bulk_derived.py writes them)


def chunk_word_files(derived: Path, number: int) -> list[Path]:
    """The chunk_words files of folder `number`, one per chunks/ file, in its order."""
    return sorted((Path(derived) / "chunk_words" / f"{number:03d}").glob("*.parquet"))


class AlignedWords:
    """The lowerWords of one chunks/ file's rows, handed out in the file's row order."""

    def __init__(self, path: Path):
        self.batches = _batches(path)
        self.ids: list = []
        self.words: list = []

    def take(self, ids) -> object:
        pa, _ = _pa()
        while sum(len(a) for a in self.ids) < len(ids):
            batch = next(self.batches, None)
            if batch is None:
                raise GraphragError("derived chunk_words hold fewer rows than chunks/: derive again")
            self.ids.append(batch.column("id"))
            self.words.append(batch.column("lowerWords"))
        have_ids = pa.concat_arrays(self.ids)
        have_words = pa.concat_arrays(self.words)
        n = len(ids)
        if not have_ids.slice(0, n).equals(ids):
            raise GraphragError("derived chunk_words are not row for row the chunks/ files: derive again")
        self.ids, self.words = [have_ids.slice(n)], [have_words.slice(n)]
        return have_words.slice(0, n)


def stage_derived(derived: Path, staging: Path, plan, *, phrases: bool = True) -> None:
    """CSV files of the derived nodes and relationships in `staging`, added to `plan`
    (bulk.ImportPlan); without `phrases`, only the authors."""
    _, pq = _pa()
    derived, staging = Path(derived), Path(staging)
    staging.mkdir(parents=True, exist_ok=True)
    wanted = ("persons", "authored") if not phrases else (*DERIVED_NODES, *DERIVED_RELATIONSHIPS)
    for kind in wanted:
        files = parquet_files(derived, kind)
        writer = _CsvWriter(staging, f"derived-{kind}")
        if not files:
            plan.counts[kind] = 0
            continue
        names = pq.read_schema(files[0]).names
        if kind in DERIVED_NODES:
            header = [f"id:ID({DERIVED_NODES[kind]})"]
        else:
            _, start, end = DERIVED_RELATIONSHIPS[kind]
            header = [f":START_ID({start})", f":END_ID({end})"]
        rest = [n for n in names if n not in ("id", "start", "end")]
        for name in rest:
            if name == LABELS_COLUMN:
                header.append(":LABEL")
            elif name in DATETIMES:
                header.append(f"{name}:datetime")
            else:
                header.append(name + _header_type(name, pq.read_schema(files[0]).field(name).type))
        head = writer.header(header)
        for path in files:
            for batch in _batches(path, names):
                columns = [_csv_column(batch.column(n), n) for n in names]
                writer.write(columns, [f"c{i}" for i in range(len(names))])
        if kind in DERIVED_NODES:
            # a labels column names every label; else the group's name is the label
            plan.nodes.append(("" if LABELS_COLUMN in names else DERIVED_NODES[kind], [head, *writer.files]))
        else:
            plan.relationships.append((DERIVED_RELATIONSHIPS[kind][0], [head, *writer.files]))
        plan.counts[kind] = writer.rows


# --------------------------------------------------------------------------- comparing graphs

TIMES = ("createdAt", "updatedAt")  # when a node was written: the one thing two loads differ in


def graph_summary(graph, sample: int = 200) -> dict:
    """What two loads of one source must agree on: nodes per label, relationships per type, and
    for an even sample of `sample` chunks (and their documents) every stored property (but the
    write times), the labels, the document and the next chunk; what linking wrote for them (their
    phrase and term pairs with spellings, their clause leads) and every property of those terms
    and words; every author with the documents it wrote."""
    ids = [row["id"] for row in graph.read("bulk/chunk_ids")]
    step = max(1, len(ids) // max(1, sample))
    picked = ids[::step][:sample]
    chunks = {}
    documents: set[str] = set()
    for row in graph.read("bulk/chunk_properties", ids=picked):
        props = {k: v for k, v in row["properties"].items() if k not in TIMES}
        chunks[row["id"]] = {
            "labels": sorted(row["labels"]),
            "properties": props,
            "document": row["document"],
            "next": row["next"],
        }
        if row["document"]:
            documents.add(row["document"])
    docs = {
        row["id"]: {
            "labels": sorted(row["labels"]),
            "properties": {k: v for k, v in row["properties"].items() if k not in TIMES},
        }
        for row in graph.read("bulk/document_properties", ids=sorted(documents))
    }
    links: dict[str, dict] = {}
    terms: set[str] = set()
    words: set[str] = set()
    for row in graph.read("bulk/chunk_links", ids=picked):
        links[row["id"]] = {key: sorted(row[key]) for key in ("phrases", "terms", "leads")}
        terms.update(pair[0] for key in ("phrases", "terms") for pair in row[key])
        words.update(row["leads"])
    vocabulary = {
        row["id"]: {"labels": sorted(row["labels"]), "properties": row["properties"]}
        for row in graph.read("bulk/term_properties", terms=sorted(terms), words=sorted(words))
    }
    authors = {
        row["id"]: {"labels": sorted(row["labels"]), "properties": row["properties"], "documents": row["documents"]}
        for row in graph.read("bulk/authored")
    }
    return {
        "labels": {row["label"]: row["count"] for row in graph.read("bulk/label_counts")},
        "relationships": {row["type"]: row["count"] for row in graph.read("bulk/relationship_counts")},
        "chunks": chunks,
        "documents": docs,
        "links": links,
        "terms": vocabulary,
        "authors": authors,
    }


NOT_COMPARED = ("__Audit",)  # labels two paths to the same graph write differently


def summary_differences(a: dict, b: dict, vector_tolerance: float = 0.0) -> list[str]:
    """Where two graph summaries differ, one line each (none: the graphs agree). Vectors are
    equal when no component differs by more than `vector_tolerance` (a model run in other
    batches may differ in the last bits)."""
    found: list[str] = []
    for key in ("labels", "relationships"):
        # the audit records how each graph was written (a load's records, an import's one): by design
        # not the same on two paths to one graph
        one, other = ({k: v for k, v in g[key].items() if k not in NOT_COMPARED} for g in (a, b))
        if one != other:
            found.append(f"{key}: {one} != {other}")
    for kind in ("chunks", "documents", "links", "terms", "authors"):
        if kind not in a or kind not in b:
            continue
        if set(a[kind]) != set(b[kind]):
            found.append(f"{kind}: sampled ids differ ({len(set(a[kind]) ^ set(b[kind]))} of {len(a[kind])})")
        for node_id in sorted(set(a[kind]) & set(b[kind])):
            one, other = a[kind][node_id], b[kind][node_id]
            if "properties" not in one:  # links: lists to compare whole
                found += [f"{node_id} {key}: {one[key]!r} != {other[key]!r}" for key in one if one[key] != other[key]]
                continue
            for field_name in sorted(set(one) | set(other)):
                if field_name != "properties" and one.get(field_name) != other.get(field_name):
                    found.append(f"{node_id} {field_name}: {one.get(field_name)!r} != {other.get(field_name)!r}")
            p, q = one["properties"], other["properties"]
            for name in sorted(set(p) | set(q)):
                x, y = p.get(name), q.get(name)
                if name == "embedding" and x is not None and y is not None and len(x) == len(y):
                    if max(abs(u - v) for u, v in zip(x, y, strict=True)) <= vector_tolerance:
                        continue
                if x != y or type(x) is not type(y):
                    found.append(f"{node_id} {name}: {str(x)[:60]!r} != {str(y)[:60]!r}")
    return found
