"""Test session: a real Neo4j (Community + APOC + GDS) started for the run, stopped after.

Set GRAPHRAG_TEST_NEO4J_URI (+ _USERNAME/_PASSWORD) to use an already running server
instead; otherwise a fresh local instance is started in a temp folder on free ports
with a random password.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphrag_cypher.budget import ENV_NAMES as PARSE_ENV_NAMES

from .suite import pytest_addoption, pytest_collection_modifyitems, pytest_configure  # noqa: F401  (hooks)

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    from graphrag_cypher.admin.neo4j_local import free_port as free

    return free()


def graphrag_exe() -> str:
    exe = Path(sys.executable).parent / "graphrag"
    return str(exe) if exe.exists() else shutil.which("graphrag")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    """No `.env` of the developer's leaks into a test; each test runs in its own folder."""
    monkeypatch.setenv("GRAPHRAG_ENV_FILE", str(tmp_path / "no.env"))
    for name in (
        "NEO4J_URI",
        "NEO4J_USERNAME",
        "NEO4J_PASSWORD",
        "NEO4J_DATABASE",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "GRAPHRAG_LLM_MODEL",
        "GRAPHRAG_EMBEDDER",
        "GRAPHRAG_EMBEDDING_DIMENSIONS",
        "GRAPHRAG_MIGRATIONS_DIR",
        "GRAPHRAG_NEO4J_HOME",
        *PARSE_ENV_NAMES,
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="session", autouse=True)
def _embeddings_once(request):
    """A loaded local model embeds each text once per session: the shipped sample and the fixture
    corpora are loaded by many modules in this process, all through the one model `make_embedder`
    keeps. Kept per model object, so a model loaded from another path (or with another batch
    size or device) computes its own vectors."""
    if request.config.getoption("--lane") == "fast":
        yield
        return
    import weakref

    from graphrag_cypher.embedder import SentenceTransformerEmbedder

    real = SentenceTransformerEmbedder.embed
    memo: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def embed(self, texts):
        known = memo.setdefault(self, {})
        missing = [text for text in dict.fromkeys(texts) if text not in known]
        if missing:
            known.update(zip(missing, real(self, missing), strict=True))
        return [list(known[text]) for text in texts]

    SentenceTransformerEmbedder.embed = embed  # type: ignore[method-assign]
    yield
    SentenceTransformerEmbedder.embed = real  # type: ignore[method-assign]


class Neo4jServer:
    def __init__(self, uri: str, username: str, password: str, instance=None):
        self.uri, self.username, self.password, self.instance = uri, username, password, instance

    def env(self, **extra: str) -> dict[str, str]:
        return {"NEO4J_URI": self.uri, "NEO4J_USERNAME": self.username, "NEO4J_PASSWORD": self.password, **extra}

    def point_env(self, monkeypatch) -> None:
        """Point this test's environment (NEO4J_URI, credentials) at this server."""
        for key, value in self.env().items():
            monkeypatch.setenv(key, value)

    def driver(self):
        from neo4j import GraphDatabase

        return GraphDatabase.driver(self.uri, auth=(self.username, self.password))

    def rows(self, text: str, **params) -> list[dict]:
        """Every row of one statement, as dicts (a fresh driver: for checks, not for loads)."""
        with self.driver() as driver:
            return [r.data() for r in driver.execute_query(text, params).records]


@pytest.fixture(scope="session")
def neo4j_server():
    """A running Neo4j for the whole session."""
    uri = os.environ.get("GRAPHRAG_TEST_NEO4J_URI")
    if uri:
        yield Neo4jServer(
            uri, os.environ.get("GRAPHRAG_TEST_NEO4J_USERNAME", "neo4j"), os.environ["GRAPHRAG_TEST_NEO4J_PASSWORD"]
        )
        return
    from graphrag_cypher.admin import neo4j_local

    # HTTP on (127.0.0.1, a free port): tests/e2e/test_neo4j_browser.py opens the Browser it serves
    with neo4j_local.ephemeral(heap="768m", http=True) as server:
        yield Neo4jServer(server.uri, server.username, server.password, server.instance)


def wipe(driver) -> None:
    """An empty database: no data, no constraints, no indexes (token lookups stay)."""
    with driver.session() as session:
        session.run("MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
        for row in session.run("SHOW CONSTRAINTS YIELD name RETURN name").data():
            session.run(f"DROP CONSTRAINT `{row['name']}`").consume()
        for row in session.run("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name").data():
            session.run(f"DROP INDEX `{row['name']}`").consume()


def last_committed(server) -> tuple | None:
    """When the database last committed a write: the names and modification times of its
    transaction log files (a commit writes them, a read does not; Neo4j Community reports no
    last transaction id). None for a server this session did not start."""
    if server.instance is None:
        return None
    logs = sorted(Path(server.instance.home).glob("data/transactions/neo4j/neostore.transaction.db*"))
    return tuple((log.name, log.stat().st_mtime_ns) for log in logs) or None


# server URI -> (the commands that built its graph, `last_committed` after them)
_LOADED: dict[str, tuple[tuple[tuple[str, ...], ...], tuple | None]] = {}


STRUCTURED = Path(__file__).resolve().parent / "fixtures" / "kg" / "structured"
# The structured route's test graph: GoT-style records, tales, and the Chinese companies and documents.
STRUCTURED_GRAPH = (
    ["load", "records", str(STRUCTURED / "characters.json"), "--mapping", "got-characters"],
    ["load", "stories", str(STRUCTURED / "tales.jsonl"), "--corpus", "fen"],
    [
        "load",
        "records",
        str(STRUCTURED / "zh-companies.json"),
        "--mapping",
        str(STRUCTURED / "zh-mapping.yaml"),
        "--schema",
        str(STRUCTURED / "zh-schema.yaml"),
    ],
    ["load", "files", str(STRUCTURED / "zh-docs"), "--corpus", "zh"],
)


def load_sample_graph(neo4j_server, *commands: list[str]) -> None:
    """The session's Neo4j emptied, then the schema applied and the bundled sample loaded (by default
    `load sample`; `commands` replace it, e.g. ["load", "sample", "--no-embed"], ["link", "phrases"]).

    Paid once, not per module: when the graph was built by the same commands and nothing has been
    written since (`last_committed` has not moved), it is kept as it is."""
    from click.testing import CliRunner

    from graphrag_cypher.cli.main import cli

    recipe = tuple(tuple(command) for command in (["apply-schema"], *(commands or (["load", "sample"],))))
    kept = _LOADED.get(neo4j_server.uri)
    if kept is not None and kept[0] == recipe and kept[1] is not None and kept[1] == last_committed(neo4j_server):
        return
    with neo4j_server.driver() as driver:
        wipe(driver)
    env = dict(neo4j_server.env(), GRAPHRAG_ENV_FILE="/nonexistent.env")
    runner = CliRunner()
    for command in recipe:
        result = runner.invoke(cli, list(command), env=env)
        assert result.exit_code == 0, result.output
    _LOADED[neo4j_server.uri] = (recipe, last_committed(neo4j_server))
    time.sleep(0.02)  # a file's time moves in ticks of a few ms: a later write shows as later


@pytest.fixture
def neo4j(neo4j_server, monkeypatch):
    """The session's Neo4j, emptied, with this test's environment pointing at it."""
    with neo4j_server.driver() as driver:
        wipe(driver)
    neo4j_server.point_env(monkeypatch)
    return neo4j_server


@pytest.fixture
def run_cli():
    """Invoke the CLI in-process: run_cli("doctor", "--json") -> click Result."""
    from graphrag_cypher.cli.main import cli

    def invoke(*args: str, env: dict | None = None):
        return CliRunner().invoke(cli, list(args), env=env, prog_name="graphrag", catch_exceptions=False)

    return invoke


@pytest.fixture
def run_exe():
    """Run the installed `graphrag` executable as a separate process."""

    def run(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
        full_env = dict(os.environ, **(env or {}))
        return subprocess.run([graphrag_exe(), *args], capture_output=True, text=True, env=full_env, timeout=timeout)

    return run


@pytest.fixture
def schema(neo4j, run_cli):
    """The session's Neo4j, emptied, with the shipped schema applied."""
    result = run_cli("apply-schema")
    assert result.exit_code == 0, result.output
    return neo4j


@pytest.fixture(scope="session")
def onnx_export(tmp_path_factory) -> Path:
    """The ONNX export of the default model: the project's when current (make setup made it),
    else a fresh one for this session."""
    from graphrag_cypher import onnx_embedder

    if onnx_embedder.check()[0]:
        return onnx_embedder.export_dir()
    target = tmp_path_factory.mktemp("models") / onnx_embedder.EXPORT_NAME
    onnx_embedder.export(target=target)
    return target
