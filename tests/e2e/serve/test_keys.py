"""Keys scoped to corpora and rights (`graphrag keys`), at the door of a real `graphrag serve`: a
key for every request once one exists, a read key refused on every write face, a key of one corpus
refused another's (or given its own when it names none), revocation, requests per minute and jobs
per key with Retry-After, log lines that name the key, and `--open-reads`."""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time

import httpx
import pytest

from .conftest import load_sample, start_server, stop_server

pytestmark = pytest.mark.e2e
ADMIN = "admin-key-0123456789abcdef"
OTHER_TEXT = b"The glass harbour of Veyra kept its lamps lit through the winter storms.\n"


def env_of(neo4j_server) -> dict:
    return dict(neo4j_server.env(), GRAPHRAG_ENV_FILE="/nonexistent.env")


def add_key(run_cli, env, name: str, *args: str) -> dict:
    result = run_cli("keys", "add", name, *args, "--json", env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def forget_keys(neo4j_server) -> None:
    with neo4j_server.driver() as driver, driver.session() as session:
        session.run("MATCH (k:__ApiKey) DETACH DELETE k").consume()


@pytest.fixture(scope="module")
def keyed(neo4j_server, tmp_path_factory):
    """The sample (corpus `sample`) served with GRAPHRAG_API_KEY and four stored keys."""
    from click.testing import CliRunner

    from graphrag_cypher.cli.main import cli

    def run_cli(*args, env=None):
        return CliRunner().invoke(cli, list(args), env=env, prog_name="graphrag", catch_exceptions=False)

    load_sample(neo4j_server)
    env = env_of(neo4j_server)
    keys = {
        "reader": add_key(run_cli, env, "reader", "--corpus", "sample", "--read", "--rpm", "0"),
        "writer": add_key(run_cli, env, "writer", "--corpus", "other", "--write", "--rpm", "0", "--jobs", "1"),
        "both": add_key(run_cli, env, "both", "--corpus", "sample", "--corpus", "other", "--read", "--rpm", "0"),
        "slow": add_key(run_cli, env, "slow", "--corpus", "sample", "--read", "--rpm", "3"),
        "gone": add_key(run_cli, env, "gone", "--read", "--rpm", "0"),
    }
    tmp = tmp_path_factory.mktemp("keys")
    served = start_server(neo4j_server, tmp, ADMIN, None, "--mcp-writes", "--crawl-allow-local")
    served.keys = keys
    yield served
    stop_server(served)
    forget_keys(neo4j_server)


def client(served, name: str | None, **kw) -> httpx.Client:
    """A client sending the key named `name` (a stored one, "admin": GRAPHRAG_API_KEY, None: none)."""
    key = ADMIN if name == "admin" else served.keys[name]["key"] if name else None
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=served.url, headers=headers, timeout=120, **kw)


def error(response) -> str:
    body = response.json()
    return body["error"]["message"] if isinstance(body["error"], dict) else body["error"]


def mcp_call(http, tool: str, arguments: dict):
    return http.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}},
        headers={"Accept": "application/json, text/event-stream"},
    )


def test_keys_are_made_listed_and_stored_hashed(keyed, run_cli):
    env = env_of(keyed.neo4j)
    made = keyed.keys["reader"]
    assert made["key"].startswith("grk_") and len(made["key"]) >= 40
    assert made["name"] == "reader" and made["corpora"] == ["sample"] and made["rights"] == ["read"]
    listed = run_cli("keys", "list", "--json", env=env)
    assert listed.exit_code == 0 and made["key"] not in listed.output
    rows = {r["name"]: r for r in json.loads(listed.stdout)["keys"]}
    assert rows["writer"]["rights"] == ["read", "write"] and rows["writer"]["corpora"] == ["other"]
    assert rows["gone"]["corpora"] is None and rows["slow"]["rpm"] == 3 and rows["writer"]["jobs"] == 1
    with keyed.neo4j.driver() as driver, driver.session() as session:
        stored = session.run("MATCH (k:__ApiKey {name: 'reader'}) RETURN properties(k) AS p").single()["p"]
    assert made["key"] not in json.dumps(stored, default=str)
    assert stored["hash"] == hashlib.sha256(made["key"].encode()).hexdigest()
    again = run_cli("keys", "add", "reader", "--read", env=env)
    assert again.exit_code == 1 and "exists already" in again.output and len(again.output.strip().splitlines()) == 1
    none = run_cli("keys", "add", "nothing", env=env)
    assert none.exit_code == 1 and "--read, --write or --admin" in none.output
    plain = run_cli("keys", "add", "plain", "--corpus", "sample", "--read", env=env)
    assert plain.exit_code == 0 and plain.stdout.strip().startswith("grk_")  # the key alone on stdout
    table = run_cli("keys", "list", env=env)
    assert "plain" in table.output and "sample" in table.output and plain.stdout.strip() not in table.output


def test_every_request_needs_a_key_once_keys_exist(keyed):
    with client(keyed, None) as http:
        for method, path in [("GET", "/documents"), ("POST", "/chat"), ("GET", "/communities"), ("POST", "/mcp")]:
            response = http.request(method, path, json={"question": "x"})
            assert response.status_code == 401 and "API key" in error(response), (method, path, response.text)
        assert http.get("/").status_code == 200  # the page, before a key is typed
    with httpx.Client(base_url=keyed.url, headers={"Authorization": "Bearer grk_" + "x" * 43}, timeout=30) as http:
        assert http.get("/documents").status_code == 401
    with client(keyed, "admin") as http:
        assert http.get("/documents").status_code == 200


def test_a_read_key_cannot_write_on_any_face(keyed):
    with client(keyed, "reader") as http:
        writes = [
            http.post("/crawl", json={"url": "http://127.0.0.1:9/x", "corpus": "sample"}),
            http.post("/documents", files=[("files", ("a.txt", b"text", "text/plain"))], data={"corpus": "sample"}),
            http.delete("/documents/story:T1"),
            http.delete("/jobs/0123456789abcdef"),
            http.post("/chat", json={"question": "What is a lantern?", "learn_web": True}),
            http.post(
                "/v1/chat/completions",
                json={"model": "graphrag-fulltext", "messages": [{"role": "user", "content": "x"}], "learn_web": True},
            ),
            mcp_call(http, "learn", {"request": "harbours | url: http://127.0.0.1:9/"}),
            mcp_call(http, "ask", {"question": "What is a lantern?", "learn_web": True}),
        ]
        for response in writes:
            assert response.status_code == 403, response.text
            assert "'reader' may not write" in error(response)
        assert http.get("/documents").status_code == 200


def test_a_key_of_one_corpus_is_refused_another(keyed):
    with client(keyed, "reader") as http:
        refused = [
            http.post("/chat", json={"question": "Who made the lantern?", "corpus": "other"}),
            http.get("/documents", params={"corpus": "other"}),
            http.get("/communities", params={"corpus": "other"}),
            http.post(
                "/v1/chat/completions",
                json={"model": "graphrag-fulltext", "messages": [{"role": "user", "content": "x"}], "corpus": "other"},
            ),
            mcp_call(http, "search", {"query": "lantern", "corpus": "other"}),
            mcp_call(http, "communities", {"corpus": "other"}),
        ]
        for response in refused:
            assert response.status_code == 403, response.text
            assert error(response) == "key 'reader' may not read corpus 'other': it holds sample"
        # naming no corpus: its own is applied
        listed = http.get("/documents", params={"limit": 500}).json()["documents"]
        assert listed and {d["corpus"] for d in listed} == {"sample"}
        sample_doc = listed[0]["id"]
    with client(keyed, "writer") as http:
        assert http.post("/crawl", json={"url": "http://127.0.0.1:9/x", "corpus": "sample"}).status_code == 403
        upload = http.post("/documents", files=[("files", ("a.txt", b"t", "text/plain"))], data={"corpus": "sample"})
        assert upload.status_code == 403 and error(upload) == (
            "key 'writer' may not write to corpus 'sample': it holds other"
        )
        # a document of another corpus is not there for this key
        for response in (
            http.get(f"/documents/{sample_doc}"),
            http.get("/graph", params={"id": sample_doc}),
            mcp_call(http, "get_document", {"document_id": sample_doc}),
            mcp_call(http, "graph_neighbourhood", {"node_id": sample_doc}),
        ):
            assert response.status_code == 404, response.text
        assert http.delete(f"/documents/{sample_doc}").status_code == 404
    with client(keyed, "both") as http:
        # a key of two corpora that names none reads both, and nothing else (the default corpus's
        # articles are outside it): each query filters on the key's corpora
        several = http.post("/chat", json={"question": "Who made the lantern?", "mode": "hybrid"})
        assert several.status_code == 200, several.text
        listed = http.get("/documents", params={"limit": 500}).json()["documents"]
        assert listed and {d["corpus"] for d in listed} <= {"sample", "other"}
        cited = {c["document_id"] for c in several.json()["citations"]}
        assert cited and cited <= {d["id"] for d in listed}
        written = http.post("/crawl", json={"url": "http://127.0.0.1:9/x"})
        assert written.status_code in (403, 422)  # a read key; a write key would be asked to name one


def test_a_write_key_writes_into_its_corpus_and_sees_only_its_jobs(keyed):
    with client(keyed, "writer") as http:
        job = http.post("/documents", files=[("files", ("veyra.txt", OTHER_TEXT, "text/plain"))]).json()
        assert job["key"] == "writer"
        deadline = time.monotonic() + 300
        while job["state"] in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.5)
            job = http.get(f"/jobs/{job['id']}").json()
        assert job["state"] == "done", job
        assert [j["id"] for j in http.get("/jobs").json()["jobs"]] == [job["id"]]
    with client(keyed, "admin") as http:
        stored = http.get("/documents/file:upload:other/veyra.txt")
        assert stored.status_code == 200 and stored.json()["corpus"] == "other"
        assert job["id"] in {j["id"] for j in http.get("/jobs").json()["jobs"]}
        found = http.post("/chat", json={"question": "glass harbour of Veyra", "mode": "fulltext", "llm": False})
        assert "file:upload:other/veyra.txt" in {c["document_id"] for c in found.json()["citations"]}
    with client(keyed, "reader") as http:
        assert http.get(f"/jobs/{job['id']}").status_code == 404  # another key's job
        answer = http.post("/chat", json={"question": "glass harbour of Veyra", "mode": "fulltext", "llm": False})
        assert answer.status_code == 200
        assert all(c["document_id"] != "file:upload:other/veyra.txt" for c in answer.json()["citations"])


def test_a_revoked_key_is_refused_within_seconds(keyed, run_cli):
    with client(keyed, "gone") as http:
        assert http.get("/documents").status_code == 200
        result = run_cli("keys", "revoke", "gone", env=env_of(keyed.neo4j))
        assert result.exit_code == 0 and "revoked" in result.output
        revoked_at = time.monotonic()
        while http.get("/documents").status_code == 200:
            assert time.monotonic() - revoked_at < 10, "a revoked key still let in after 10 s"
            time.sleep(0.5)
        assert http.get("/documents").status_code == 401


def test_requests_per_minute_get_a_429_with_retry_after(keyed):
    with client(keyed, "slow") as http:
        statuses = [http.get("/modes", params={"n": i}).status_code for i in range(3)]
        assert statuses == [200, 200, 200]
        over = http.get("/documents")
        assert over.status_code == 429 and over.headers["retry-after"].isdigit()
        assert 1 <= int(over.headers["retry-after"]) <= 20
        assert error(over).startswith("key 'slow' is over its limit of 3 requests a minute")


def test_log_lines_name_the_key_never_the_key_itself(keyed):
    for name in ("reader", "slow"):  # a refusal is logged with the key's name
        with client(keyed, name) as http:
            assert http.get("/documents", params={"corpus": "other"}).status_code in (403, 429)
    log = keyed.log.read_text()
    assert "(key reader)" in log and "(key slow)" in log
    for made in keyed.keys.values():
        assert made["key"] not in log


@pytest.fixture
def stalled():
    """A local address that accepts connections and never answers (a crawl job that keeps running)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held, stop = [], threading.Event()

    def accept():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


def test_jobs_per_key_get_a_429_with_retry_after(keyed, stalled):  # last: its job holds the line
    with client(keyed, "writer") as http:
        first = http.post("/crawl", json={"url": stalled})
        assert first.status_code == 202, first.text
        second = http.post("/crawl", json={"url": stalled})
        assert second.status_code == 429 and second.headers["retry-after"].isdigit()
        assert error(second).startswith("key 'writer' has 1 jobs queued or running, its limit")
        http.delete(f"/jobs/{first.json()['id']}")


def test_open_reads(neo4j_server, tmp_path, run_cli):
    env = env_of(neo4j_server)
    load_sample(neo4j_server)
    add_key(run_cli, env, "w", "--write")
    served = start_server(neo4j_server, tmp_path, None, None, "--open-reads")
    try:
        with httpx.Client(base_url=served.url, timeout=60) as http:
            assert http.get("/documents").status_code == 200
            crawl = http.post("/crawl", json={"url": "http://127.0.0.1:9/"})
            assert crawl.status_code == 401
            learn = http.post("/chat", json={"question": "What is a lantern?", "learn_web": True})
            assert learn.status_code == 403 and "'anonymous' may not write" in error(learn)
        assert "--open-reads" in served.log.read_text()
    finally:
        stop_server(served)
        forget_keys(neo4j_server)
