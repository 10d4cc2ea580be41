"""The Spark job (loaders/spark_job.py) in local mode: it writes the Parquet contract from the
sources `graphrag export` reads, and `graphrag import` of what it wrote makes the graph the online
loader makes from the same documents (counts per label and type, and every property of every
chunk and its document, vectors within float noise).

The import runs into its own Neo4j home (the importer needs the database stopped), never the
session's server; the online load runs on the session's server.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphrag_cypher.loaders.spark_job import INSTALL

pytest.importorskip("pyspark", reason=f"PySpark is not installed: {INSTALL}")

# a JVM (process), the embedding model in Spark's Python workers (model), the session's Neo4j (e2e)
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.process,
    pytest.mark.model,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]

REPO = Path(__file__).resolve().parents[2]
ARTICLES = REPO / "loaders" / "sample" / "articles"
MODEL = "sentence-transformers/all-MiniLM-L6-v2"

PASSAGES = [
    {"title": "Carrow", "text": "Carrow is a harbour town on the Vell estuary. The Salt Road ends at Carrow."},
    {"title": "Vell", "text": "The Vell rises in the Amber Hills and reaches the sea at Carrow."},
    {"title": "Salt Road", "text": "The Salt Road joined the Amber Hills to the harbour of Carrow."},
    {"title": "Vell", "text": "The Vell rises in the Amber Hills and reaches the sea at Carrow."},  # a repeat: once
    # the same text under another title: encoded once, under the first title (as `load` does)
    {"title": "Amber Hills", "text": "The Vell rises in the Amber Hills and reaches the sea at Carrow."},
    {"title": "Lantern Fair", "text": 'The Lantern Fair of Carrow "lights" the Vell;\nit has, so they say, 3 nights.'},
]


@pytest.fixture(scope="module")
def spark():
    """A local Spark session (two cores, a small driver) whose Python workers run this
    interpreter; the job uses it as spark-submit's."""
    from pyspark.sql import SparkSession

    from graphrag_cypher.admin import neo4j_local

    saved = {key: os.environ.get(key) for key in ("PYSPARK_PYTHON", "JAVA_HOME")}
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("JAVA_HOME", str(neo4j_local._java_home(neo4j_local._find_java())))  # Java 17, as Neo4j's
    session = (
        SparkSession.builder.master("local[2]")
        .appName("graphrag-spark-job-test")
        .config("spark.driver.memory", "1g")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    yield session
    session.stop()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def run_job(*args: str):
    from graphrag_cypher.loaders.spark_job import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def summary(env: dict) -> dict:
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.store.bulk import graph_summary

    with connect(load_settings(dict(env))) as graph:
        return graph_summary(graph, sample=500)


def test_the_spark_jobs_graph_is_the_online_loaders(spark, schema, run_cli, import_home, tmp_path):
    articles = tmp_path / "articles"
    shutil.copytree(ARTICLES, articles)
    (articles / "blank.txt").write_text("  \n")  # an item that fails: one line, the rest written
    corpus = tmp_path / "passages.json"
    corpus.write_text(json.dumps(PASSAGES), encoding="utf-8")

    # online: load the folder and the passages, link phrases
    for args in (["files", str(articles), "--corpus", "ancient"], ["qa-corpus", str(corpus), "--corpus", "qa"]):
        result = run_cli("load", *args, "--json")
        assert result.exit_code in (0, 3), result.output
    assert run_cli("link", "phrases", "--json").exit_code == 0
    online = summary(schema.env())

    # Spark: the same sources into two folders, in local mode
    result = run_job("files", str(articles), "--corpus", "ancient", "--out", str(tmp_path / "files"), "--json")
    assert result.exit_code == 3, result.output  # some items failed: the rest is written
    files = json.loads(result.stdout)
    assert files["errors"] == [{"item": "blank.txt", "error": "empty file"}]
    assert files["documents"] == 3 and files["embeddingModel"] == MODEL
    result = run_job("qa-corpus", str(corpus), "--corpus", "qa", "--out", str(tmp_path / "qa"), "--json")
    assert result.exit_code == 0, result.output
    passages = json.loads(result.stdout)
    # the repeated passage is one document; its text under another title is encoded once
    assert passages["documents"] == 5 and passages["chunks"] == passages["embedded"] == 5
    assert passages["encoded"] == 4 and passages["errors"] == []
    manifest = json.loads((tmp_path / "qa" / "manifest.json").read_text())
    assert manifest["format"] == "graphrag-bulk/1" and manifest["counts"] == {"documents": 5, "chunks": 5}
    assert manifest["embeddingModel"] == MODEL and manifest["dimensions"] == 384 and manifest["files"]["chunks"]

    # a folder that holds an export is not written over without --overwrite
    result = run_job("qa-corpus", str(corpus), "--out", str(tmp_path / "qa"))
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == (
        f"Error: {tmp_path / 'qa'} is not empty: choose an empty folder or pass --overwrite"
    )

    result = run_cli("import", str(tmp_path / "files"), str(tmp_path / "qa"), "--overwrite", "--json", env=import_home)
    assert result.exit_code == 0, result.output
    imported = json.loads(result.stdout)
    assert imported["embeddingModel"] == MODEL and imported["counts"]["chunks"] == online["labels"]["Chunk"]
    bulk = summary(import_home)

    from graphrag_cypher.store.bulk import summary_differences

    assert online["labels"]["Chunk"] == len(online["chunks"]) > 20  # every chunk compared
    assert {"Document", "Chunk", "Passage", "Phrase"} <= set(online["labels"])
    assert {"FROM_DOCUMENT", "NEXT_CHUNK", "HAS_PHRASE"} <= set(online["relationships"])
    shared = [c for c in online["chunks"].values() if c["properties"]["title"] == "Amber Hills"]
    assert len(shared) == 1 and shared[0]["properties"]["embedding"]
    # the same model in other batches may differ in the last bits of a vector
    assert summary_differences(online, bulk, vector_tolerance=1e-5) == []


def documents_by_id(folder: Path) -> dict:
    """Every document row of an export folder, its null columns left out (no property)."""
    import pyarrow.parquet as pq

    from graphrag_cypher.store.bulk import parquet_files

    found = {}
    for path in parquet_files(folder, "documents"):
        for row in pq.read_table(path).to_pylist():
            found[row["id"]] = {key: value for key, value in row.items() if value is not None}
    return found


def test_a_property_of_two_types_keeps_each_as_export_writes_it(spark, run_cli, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, front in (("a", "version: 2\nDate: Monday"), ("b", "version: two\nrating: 4.5"), ("c", "draft: true")):
        (notes / f"{name}.md").write_text(f"---\n{front}\n---\n# Note {name}\n\nThe harbour of Carrow, note {name}.\n")
    result = run_cli("export", "files", str(notes), "--no-embed", "--out", str(tmp_path / "export"), "--json")
    assert result.exit_code == 0, result.output
    result = run_job("files", str(notes), "--no-embed", "--out", str(tmp_path / "spark"), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["embeddingModel"] is None

    exported, written = documents_by_id(tmp_path / "export"), documents_by_id(tmp_path / "spark")
    assert len(written) == 3 and written == exported
    versions = {row["title"]: row["version"] for row in written.values() if "version" in row}
    assert versions == {"Note a": 2, "Note b": "two"}  # an int and a string, each as `load` stores it
    assert {row["title"]: row.get("Date") for row in written.values()}["Note a"] == "Monday"
