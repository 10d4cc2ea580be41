"""The audit of a real `graphrag serve`'s writes (embedding through the fake embedder of
tests/reliability/slow_embedder.py, no LLM): an upload, a crawl of an allowed folder, a forget and
MCP's learn are each one record with the server's key name (`admin` for GRAPHRAG_API_KEY), their
corpus and counts; GET /audit reads them with `graphrag audit`'s filters, and is refused to anyone
but an admin key."""

from __future__ import annotations

import json

import pytest

from ...reliability.slow_embedder import SlowEmbedder, apply_schema, start, wait
from .conftest import stop_server

pytestmark = pytest.mark.e2e

# What each served write face records (operation); the test below runs every one of them.
SERVED_FACES = {
    "POST /documents": "upload",
    "POST /crawl": "crawl",
    "DELETE /documents/{id}": "forget",
    "MCP learn": "learn",
}


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    embedder = SlowEmbedder(seconds_per_text=0)
    apply_schema(neo4j_server, embedder)
    tmp = tmp_path_factory.mktemp("audit")
    allowed = tmp / "allowed"
    allowed.mkdir()
    (allowed / "quay.md").write_text("# Quay\n\nThe quay of Ostia was paved with basalt.\n", "utf-8")
    (allowed / "tide.md").write_text("# Tide\n\nThe tide at Portus turned twice a day.\n", "utf-8")
    (tmp / "mcp").mkdir()
    (tmp / "mcp" / "mole.md").write_text("# Mole\n\nThe mole of Ostia broke the winter waves.\n", "utf-8")
    served = start(
        neo4j_server, tmp, embedder, "--allow-path", str(allowed), "--allow-path", str(tmp / "mcp"), "--mcp-writes"
    )
    served.tmp, served.embedder = tmp, embedder
    yield served
    stop_server(served)
    embedder.close()


def newest(http, **params) -> dict:
    response = http.get("/audit", params={"limit": 1, **params})
    assert response.status_code == 200, response.text
    return response.json()["audit"][0]


def test_every_served_write_is_audited_with_the_servers_key(served):
    done: dict[str, dict] = {}
    with served.client() as http:
        files = [("files", ("notes.txt", b"The granary of Ostia held the winter wheat.\n", "text/plain"))]
        job = wait(http, http.post("/documents", files=files, data={"corpus": "gamma"}).json()["id"])
        assert job["state"] == "done", job
        record = newest(http)
        assert (record["operation"], record["key"], record["corpus"], record["ok"]) == (
            "upload",
            "admin",
            ["gamma"],
            True,
        )
        assert record["changed"]["documents"]["created"] == job["summary"]["documents"]["created"] == 1
        assert record["changed"]["chunks"]["created"] == job["summary"]["chunks"]["created"] >= 1
        assert record["changed"]["chunks"]["embedded"] >= 1
        done["POST /documents"] = record

        crawl = http.post("/crawl", json={"path": str(served.tmp / "allowed"), "corpus": "delta"})
        assert crawl.status_code == 202, crawl.text
        job = wait(http, crawl.json()["id"])
        assert job["state"] == "done", job
        record = newest(http)
        assert (record["operation"], record["key"], record["corpus"]) == ("crawl", "admin", ["delta"])
        assert record["changed"]["documents"]["created"] == 2 and record["changed"]["loaders"] == {"learn": 1}
        done["POST /crawl"] = record

        document_id = "file:upload:gamma/notes.txt"
        assert http.delete(f"/documents/{document_id}").status_code == 200
        record = newest(http)
        assert (record["operation"], record["key"], record["corpus"]) == ("forget", "admin", ["gamma"])
        assert record["changed"]["forgotten"] == [document_id]
        done["DELETE /documents/{id}"] = record
        assert http.delete("/documents/no-such-document").status_code == 404
        failed = newest(http)
        assert (failed["operation"], failed["key"], failed["ok"]) == ("forget", "admin", False)
        assert failed["error"].startswith("no document with id 'no-such-document'")

        learned = http.post(
            "/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "learn", "arguments": {"request": f"harbours | path: {served.tmp / 'mcp'}"}},
            },
            headers={"Accept": "application/json, text/event-stream"},
        )
        assert learned.status_code == 200 and not learned.json()["result"].get("isError"), learned.text
        record = newest(http)
        assert (record["operation"], record["key"], record["corpus"]) == ("learn", "admin", [])
        assert record["changed"]["documents"]["created"] == 1
        done["MCP learn"] = record

        assert {face: r["operation"] for face, r in done.items()} == SERVED_FACES
        everything = http.get("/audit").json()["audit"]
        assert [r["operation"] for r in everything] == ["learn", "forget", "forget", "crawl", "upload", "schema"]
        assert [r["key"] for r in everything] == ["admin"] * 5 + ["local"]  # the schema: applied from the CLI
        assert [r["operation"] for r in http.get("/audit", params={"corpus": "gamma"}).json()["audit"]] == [
            "forget",
            "upload",
        ]
        assert [r["operation"] for r in http.get("/audit", params={"key": "local"}).json()["audit"]] == ["schema"]
        assert len(http.get("/audit", params={"since": "1h"}).json()["audit"]) == 6
        assert http.get("/audit", params={"since": "2999-01-01"}).json()["audit"] == []
        bad = http.get("/audit", params={"since": "soon"})
        assert bad.status_code == 422 and "--since 'soon'" in bad.json()["error"]


def test_the_audit_is_for_admin_keys_only(served, neo4j_server, run_cli):
    import httpx

    assert httpx.get(served.url + "/audit", timeout=30).status_code == 401, "no key"
    (served.tmp / "keyless").mkdir()
    keyless = start(neo4j_server, served.tmp / "keyless", served.embedder, key=None)
    try:
        refused = httpx.get(keyless.url + "/audit", timeout=30)
        assert refused.status_code == 403, refused.text
        assert "admin" in refused.json()["error"] and len(refused.json()["error"].splitlines()) == 1
    finally:
        stop_server(keyless)

    # named keys: a reader is refused the audit; a write with a named key is recorded under its name
    env = dict(neo4j_server.env(), GRAPHRAG_ENV_FILE="/nonexistent.env")
    made = {}
    for name, right in (("reader", "--read"), ("writer", "--write"), ("ops", "--admin")):
        result = run_cli("keys", "add", name, right, "--json", env=env)
        assert result.exit_code == 0, result.output
        made[name] = json.loads(result.stdout)["key"]
    for name in ("reader", "writer"):
        refused = httpx.get(served.url + "/audit", headers={"Authorization": f"Bearer {made[name]}"}, timeout=30)
        assert refused.status_code == 403, refused.text
    with httpx.Client(base_url=served.url, headers={"Authorization": f"Bearer {made['writer']}"}, timeout=120) as http:
        files = [("files", ("named.txt", b"The harbour master of Ostia kept the tide tables.\n", "text/plain"))]
        job = wait(http, http.post("/documents", files=files, data={"corpus": "epsilon"}).json()["id"])
        assert job["state"] == "done", job
    with httpx.Client(base_url=served.url, headers={"Authorization": f"Bearer {made['ops']}"}, timeout=30) as http:
        record = newest(http)
    assert (record["operation"], record["key"], record["corpus"]) == ("upload", "writer", ["epsilon"])
