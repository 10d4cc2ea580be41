"""`graphrag serve`'s start-up rules and request checks: a CORS wildcard only with a key, keys
that can authenticate, upload folders a killed server left cleaned at the next start, and
out-of-range query values answered 422. A real server on 127.0.0.1 and the session's Neo4j."""

from __future__ import annotations

import signal

import httpx
import pytest

from ..conftest import free_port
from .slow_embedder import KEY, SlowEmbedder, apply_schema, start, text_file, wait

pytestmark = [pytest.mark.e2e, pytest.mark.process]


@pytest.fixture(scope="module")
def embedder(neo4j_server):
    embedder = SlowEmbedder(seconds_per_text=0.01)
    apply_schema(neo4j_server, embedder)
    yield embedder
    embedder.close()


def refused(run_cli, neo4j_server, monkeypatch, *args: str, key: str | None):
    """`graphrag serve` expected to refuse before it starts, run in-process (the start-up itself
    is the subprocess tests' business): its result, with stdout and stderr apart."""
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda *a, **k: pytest.fail("graphrag serve started"))
    env = dict(neo4j_server.env(), GRAPHRAG_ENV_FILE="/nonexistent.env", GRAPHRAG_API_KEY=key)
    return run_cli("serve", "--port", str(free_port()), *args, env=env)


@pytest.fixture(scope="module")
def served(neo4j_server, embedder, tmp_path_factory):
    """One server with a key and `--cors-origin '*'` for the checks of its requests."""
    from ..e2e.serve.conftest import stop_server

    served = start(neo4j_server, tmp_path_factory.mktemp("rules"), embedder, "--cors-origin", "*")
    yield served
    stop_server(served)


def test_a_cors_wildcard_needs_a_key(run_cli, neo4j_server, monkeypatch, served):
    for origin in ("*", "null"):
        result = refused(run_cli, neo4j_server, monkeypatch, "--cors-origin", origin, key=None)
        lines = result.stderr.strip().splitlines()
        assert result.exit_code == 2 and len(lines) == 1, result.stderr
        assert "--cors-origin" in lines[0] and "GRAPHRAG_API_KEY" in lines[0]
    answer = httpx.get(served.url + "/documents", headers={**served.headers, "Origin": "https://elsewhere.example"})
    assert answer.status_code == 200
    log = served.log.read_text()
    assert "warning" in log and "--cors-origin '*'" in log, log


@pytest.mark.parametrize("key", [" " * 24, f" {KEY}", f"{KEY}\n", "short-key-12345"])
def test_keys_that_cannot_authenticate_are_refused(run_cli, neo4j_server, monkeypatch, key):
    result = refused(run_cli, neo4j_server, monkeypatch, key=key)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, result.stderr
    assert "GRAPHRAG_API_KEY" in lines[0] and "Traceback" not in result.stderr
    assert isinstance(result.exception, SystemExit), result.exception


def test_a_killed_servers_upload_folder_is_cleaned_at_the_next_start(neo4j_server, embedder, tmp_path):
    from ..e2e.serve.conftest import stop_server

    served = start(neo4j_server, tmp_path, embedder)
    folders = tmp_path / "tmp"
    try:
        with served.client() as http:
            job = http.post("/documents", files=[("files", ("slow.txt", text_file(600), "text/plain"))]).json()
            wait(http, job["id"], until=lambda j: j["state"] == "running")
        left = list(folders.glob("graphrag-upload-*"))
        assert len(left) == 1
        served.process.send_signal(signal.SIGKILL)
        served.process.wait(timeout=30)
        assert left[0].exists(), "kill -9 leaves the folder of the job it was running"
        other = folders / "graphrag-upload-someone-else"  # not ours to judge: a name with no server's pid
        other.mkdir()
    finally:
        if served.process.poll() is None:
            stop_server(served)
    again = start(neo4j_server, tmp_path, embedder)
    try:
        assert not left[0].exists(), "the next start removes a dead server's upload folder"
        assert other.exists()
    finally:
        stop_server(again)


def test_out_of_range_values_are_422(served):
    with served.client() as http:
        for skip in (10**21, 2**63):
            answer = http.get("/documents", params={"skip": skip})
            assert answer.status_code == 422 and "skip" in answer.json()["error"], answer.text
        assert http.get("/documents", params={"skip": 10}).status_code == 200
        for field, value in (("from", "2024-13-45"), ("to", "2024-02-30"), ("from", "2024-1-5")):
            answer = http.post("/chat", json={"question": "Where is Ostia?", field: value, "llm": False})
            message = answer.json()["error"]
            assert answer.status_code == 422 and field in message and value in message, answer.text
            assert "YYYY-MM-DD" in message and len(message.splitlines()) == 1
        ok = http.post("/chat", json={"question": "Where is Ostia?", "from": "2024-02-29", "llm": False})
        assert ok.status_code == 200, ok.text
