"""`graphrag ask` through a running server: discovery from .graphrag/serve.json, and a served ask
that imports no driver, numpy or ONNX Runtime. The server here is a small real HTTP server on
127.0.0.1 speaking graphrag serve's /health and /chat (no database in unit tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from graphrag_cypher import __version__
from graphrag_cypher.cli import served
from graphrag_cypher.config import load_settings

URI = "bolt://127.0.0.1:7999"
ANSWER = {
    "question": "Who made the silver lantern?",
    "answer": "Old Maren made it [D1].",
    "answer_with_titles": "Old Maren made it [The Silver Lantern].",
    "citations": [{"id": "D1", "document_id": "story:T2", "title": "The Silver Lantern", "uri": None}],
    "dropped_citations": [],
    "sources": [{"id": "D1", "document_id": "story:T2", "title": "The Silver Lantern", "uri": None}],
    "evidence": [],
    "mode": "graph",
    "route": "search",
    "paths": [],
    "filters": {},
    "entities": [],
    "keywords": ["silver", "lantern"],
    "language": "en",
    "llm": {"used": False, "model": None, "note": "extractive"},
    "mermaid": "graph LR",
    "timings_ms": {"total_ms": 12.5},
    "said": "Who made the silver lantern?",
    "standalone": False,
    "answer_id": "abc",
}


class StandIn:
    """/health and /chat as graphrag serve answers them."""

    def __init__(self, instance="i1", version=__version__, key=None):
        self.instance, self.version, self.key = instance, version, key
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _authorised(self):
                return not stand_in.key or self.headers.get("Authorization") == f"Bearer {stand_in.key}"

            def do_GET(self):
                if not self._authorised():
                    return self._send(401, {"error": "missing or wrong API key"})
                self._send(
                    200,
                    {
                        "status": "ok",
                        "version": stand_in.version,
                        "llm": False,
                        "query_embedder": "onnx",
                        "instance": stand_in.instance,
                    },
                )

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self._send(200, ANSWER)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def stand_in():
    server = StandIn()
    yield server
    server.close()


def write_state(url, pid=None, database="neo4j", instance="i1"):
    path = served.state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "url": url,
                "pid": pid or os.getpid(),
                "instance": instance,
                "neo4j_uri": URI,
                "neo4j_database": database,
                "version": __version__,
            }
        )
    )


def settings():
    return load_settings({"NEO4J_URI": URI})


def choose(**kw):
    notes: list[str] = []
    found = served.choose(settings(), kw.get("server"), kw.get("direct", False), __version__, notes.append)
    return found, notes


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_no_state_file_is_direct_and_silent():
    assert choose() == (None, [])


def test_the_state_file_is_used_when_it_serves_this_graph(stand_in):
    write_state(stand_in.url)
    found, notes = choose()
    assert found is not None and found.url == stand_in.url and notes == []
    assert found.health["query_embedder"] == "onnx"


@pytest.mark.parametrize(
    "state, why",
    [
        (dict(pid="dead"), "is not running (a stale file)"),
        (dict(database="other"), "it serves bolt://127.0.0.1:7999 database other, this ask uses"),
        (dict(instance="someone-else"), "is another server than the one that wrote the file"),
    ],
)
@pytest.mark.process
def test_an_unusable_state_file_is_one_note_and_direct(stand_in, state, why):
    if state.get("pid") == "dead":
        state["pid"] = dead_pid()
    write_state(stand_in.url, **state)
    found, notes = choose()
    assert found is None and len(notes) == 1
    assert why in notes[0] and notes[0].endswith("answering directly")


def test_a_server_that_is_gone_is_one_note(stand_in):
    write_state(stand_in.url)
    stand_in.close()
    found, notes = choose()
    assert found is None and len(notes) == 1 and "no graphrag server answers at" in notes[0]


def test_another_version_is_not_used():
    other = StandIn(version="0.0.1")
    try:
        write_state(other.url)
        found, notes = choose()
        assert found is None and f"runs graphrag 0.0.1, this is {__version__}" in notes[0]
    finally:
        other.close()


def test_the_api_key_is_sent_from_the_environment(monkeypatch):
    keyed = StandIn(key="k" * 20)
    try:
        write_state(keyed.url)
        found, notes = choose()
        assert found is None and "needs an API key: set GRAPHRAG_API_KEY" in notes[0]
        monkeypatch.setenv("GRAPHRAG_API_KEY", "k" * 20)
        found, notes = choose()
        assert found is not None and notes == []
    finally:
        keyed.close()


def test_direct_and_none_skip_the_server(stand_in):
    write_state(stand_in.url)
    assert choose(direct=True) == (None, [])
    assert choose(server="none") == (None, [])


def test_a_forced_server_that_does_not_answer_is_an_error(stand_in):
    url = stand_in.url
    stand_in.close()
    with pytest.raises(served.ServerProblem, match="no graphrag server answers at"):
        choose(server=url)
    with pytest.raises(served.ServerProblem, match="is not an http"):
        choose(server="localhost:8000")


def test_the_state_file_is_the_owners_alone_and_removed_only_by_its_server(tmp_path):
    path = served.write_state("http://127.0.0.1:1", settings(), __version__, "mine")
    assert path == tmp_path / ".graphrag" / "serve.json"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert json.loads(path.read_text())["pid"] == os.getpid()
    served.remove_state(path, "theirs")
    assert path.exists()
    served.remove_state(path, "mine")
    assert not path.exists()


def test_local_url_reaches_wildcard_addresses_on_loopback():
    assert served.local_url("0.0.0.0", 8000) == "http://127.0.0.1:8000"
    assert served.local_url("::", 8000) == "http://[::1]:8000"
    assert served.local_url("::1", 80) == "http://[::1]:80"


SCRIPT = """
import json, sys
from graphrag_cypher.cli.main import cli
try:
    cli(["ask", "--json", "Who made the silver lantern?"], prog_name="graphrag")
except SystemExit as exc:
    code = exc.code
heavy = [m for m in ("neo4j", "numpy", "onnxruntime") if m in sys.modules]
# the mode registry and the ask options are names only; any other retrieval module means the
# retriever was loaded
names_only = ("graphrag_cypher.retrieval.modes", "graphrag_cypher.retrieval.options")
heavy += sorted(m for m in sys.modules if m.startswith("graphrag_cypher.retrieval.") and m not in names_only)
print(json.dumps({"heavy": heavy, "code": code}), file=sys.stderr)
"""


@pytest.mark.process
def test_a_served_ask_imports_no_driver_numpy_or_onnxruntime(stand_in, tmp_path):
    write_state(stand_in.url)
    env = dict(os.environ, NEO4J_URI=URI, GRAPHRAG_ENV_FILE=str(tmp_path / "no.env"))
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    report = json.loads(out.stderr.strip().splitlines()[-1])
    assert report == {"heavy": [], "code": 0}, out.stderr
    answer = json.loads(out.stdout)
    assert answer["served_by"] == stand_in.url and answer["query_embedder"] == "onnx"
    assert not {"said", "standalone", "answer_id"} & set(answer)
    assert answer["timings_ms"]["total_ms"] == 12.5 and answer["timings_ms"]["embedder_load_ms"] == 0.0
