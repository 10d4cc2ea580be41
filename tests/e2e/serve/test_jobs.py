"""Learning jobs (crawl, upload, allowed folders) and forgetting, against a real local site."""

import json
import time

import httpx
import pytest

from ..test_load_web import site  # noqa: F401  (the local HTTP server fixture)

pytestmark = pytest.mark.e2e


def wait(http, job: dict, timeout: float = 180) -> dict:
    deadline = time.monotonic() + timeout
    while job["state"] in {"queued", "running"} and time.monotonic() < deadline:
        time.sleep(0.3)
        job = http.get(f"/jobs/{job['id']}").json()
    assert job["state"] in {"done", "failed"}, job
    return job


def sanity_orphans(neo4j) -> dict:
    with neo4j.driver() as driver:
        from graphrag_cypher.db import query

        return driver.execute_query(query("sanity/orphans")).records[0].data()


def test_crawl_job_learns_a_local_site(served, site):  # noqa: F811
    with served.client() as http:
        accepted = http.post("/crawl", json={"url": f"{site}/index.html", "delay": 0, "topics": ["harbours"]})
        assert accepted.status_code == 202 and accepted.json()["state"] in {"queued", "running"}
        job = wait(http, accepted.json())
        assert job["state"] == "done", job
        assert job["summary"]["documents"]["created"] == 2  # index and ostia; robots.txt kept /private/ out
        assert any("robots" in e["error"] for e in job["summary"]["errors"])
        assert job["progress"]["documents"]["created"] == 2 and job["summary"]["phrases"]["links"] >= 1
        again = wait(
            http, http.post("/crawl", json={"request": f"learn: harbours | url: {site}/index.html", "delay": 0}).json()
        )
        assert again["summary"]["documents"]["unchanged"] == 2 and "phrases" not in again["summary"]
        out = http.post("/chat", json={"question": "Where did Ostia lie?", "mode": "fulltext", "llm": False}).json()
        assert any(c["title"] == "Ostia" for c in out["citations"])


def test_upload_and_allowed_paths(served):
    with served.client() as http:
        files = [
            ("files", ("roads.md", b"# Roads\n\nThe Via Appia ran from Rome to Brundisium.\n", "text/markdown")),
            ("files", ("tool.exe", b"MZ\x00\x01", "application/octet-stream")),
            ("files", ("empty.txt", b"", "text/plain")),
        ]
        job = wait(http, http.post("/documents", files=files, data={"corpus": "uploads"}).json())
        assert job["state"] == "done" and job["summary"]["documents"]["created"] == 1
        errors = {e["item"]: e["error"] for e in job["summary"]["errors"]}
        assert "unsupported file type" in errors["tool.exe"] and "empty.txt" in errors
        docs = http.get("/documents", params={"corpus": "uploads"}).json()["documents"]
        assert [d["id"] for d in docs] == ["file:upload:uploads/roads.md"]
        again = wait(http, http.post("/documents", files=files[:1], data={"corpus": "uploads"}).json())
        assert again["summary"]["documents"]["unchanged"] == 1, json.dumps(again)
        bad_name = http.post("/documents", files={"files": ("../../etc/passwd", b"x", "text/plain")})
        assert bad_name.status_code in (202, 422)  # the folder part is dropped, never written outside
        (served.tmp / "allowed" / "notes.txt").write_text("The lighthouse of Pharos guided ships to Alexandria.\n")
        ok = wait(http, http.post("/crawl", json={"path": str(served.tmp / "allowed")}).json())
        assert ok["summary"]["documents"]["created"] == 1
        refused = http.post("/crawl", json={"path": str(served.tmp)})
        assert refused.status_code == 403 and "--allow-path" in refused.json()["error"]
        outside = http.post("/crawl", json={"path": str(served.tmp / "allowed" / ".." / "..")})
        assert outside.status_code == 403


ENTITIES = """
MATCH (a:Document)<-[:FROM_DOCUMENT]-(ca:Chunk) WHERE a.id = $a
MATCH (b:Document)<-[:FROM_DOCUMENT]-(cb:Chunk) WHERE b.id = $b
WITH a, b, collect(DISTINCT ca) AS cas, collect(DISTINCT cb) AS cbs
MERGE (only:__Entity__:Person {id: 'test:only-a'}) SET only.name = 'Only A'
MERGE (shared:__Entity__:Person {id: 'test:shared'}) SET shared.name = 'Shared'
MERGE (wiki:__Entity__:Person {id: 'test:described'}) SET wiki.name = 'Described by A'
MERGE (place:__Entity__:Place {id: 'pleiades:test'}) SET place.name = 'Gazetteer place', place.contentHash = 'h'
FOREACH (c IN cas | MERGE (c)-[:MENTIONS]->(only) MERGE (c)-[:MENTIONS]->(shared) MERGE (c)-[:MENTIONS]->(place))
FOREACH (c IN cbs | MERGE (c)-[:MENTIONS]->(shared))
MERGE (a)-[:DESCRIBES]->(wiki)
MERGE (only)-[:KNOWS]->(shared)
"""


def test_forget_leaves_no_orphans(served, run_cli, monkeypatch):
    served.neo4j.point_env(monkeypatch)
    with served.neo4j.driver() as driver:
        docs = [
            r["id"]
            for r in driver.execute_query(
                "MATCH (d:Document)<-[:FROM_DOCUMENT]-(:Chunk)-[:HAS_PHRASE]->(:Phrase) "
                "RETURN d.id AS id, count(*) AS n ORDER BY n DESC, id LIMIT 2"
            ).records
        ]
        driver.execute_query(ENTITIES, a=docs[0], b=docs[1])
        before = driver.execute_query("MATCH (p:Phrase) RETURN count(p) AS n").records[0]["n"]
    with served.client() as http:
        forgotten = http.delete(f"/documents/{docs[0]}")
        assert forgotten.status_code == 200, forgotten.text
        counts = forgotten.json()
        assert counts["documents"] == 1 and counts["chunks"] >= 1 and counts["entities"] == 2
        assert counts["phrases"] >= 1, "phrases only the forgotten document shared with one other go"
        assert http.get(f"/documents/{docs[0]}").status_code == 404
        assert http.delete(f"/documents/{docs[0]}").status_code == 404
    with served.neo4j.driver() as driver:
        ids = {
            r["id"]
            for r in driver.execute_query(
                "MATCH (e:__Entity__) WHERE e.id STARTS WITH 'test:' OR e.id = 'pleiades:test' RETURN e.id AS id"
            ).records
        }
        lonely = driver.execute_query(
            "MATCH (p:Phrase) WHERE COUNT { (p)<-[:HAS_PHRASE]-(:Chunk) } < 2 RETURN count(p) AS n"
        ).records[0]["n"]
        after = driver.execute_query("MATCH (p:Phrase) RETURN count(p) AS n").records[0]["n"]
        chunks = driver.execute_query(
            "MATCH (c:Chunk) WHERE c.id STARTS WITH $id RETURN count(c) AS n", id=docs[0] + "::"
        ).records[0]["n"]
    assert ids == {"test:shared", "pleiades:test"}, "the shared entity and the gazetteer place stay"
    assert lonely == 0 and after == before - counts["phrases"] and chunks == 0
    assert all(v == 0 for v in sanity_orphans(served.neo4j).values())
    report = run_cli("sanity", "--json")
    assert report.exit_code == 0, report.output
    # a second `link phrases` finds the graph already right: forgetting kept the phrase links exact
    relinked = run_cli("link", "phrases", "--json")
    assert (
        relinked.exit_code == 0 and '"links_created": 0' in relinked.stdout and '"links_removed": 0' in relinked.stdout
    )
    # the command does the same
    cli = run_cli("forget", docs[1], "--json")
    assert cli.exit_code == 0 and '"entities": 1' in cli.stdout, cli.output
    missing = run_cli("forget", docs[1])
    assert missing.exit_code == 1 and "no document" in missing.output


def test_writes_are_off_without_a_key(neo4j_server, tmp_path):
    from .conftest import start_server, stop_server

    served = start_server(neo4j_server, tmp_path, None)
    try:
        with httpx.Client(base_url=served.url, timeout=60) as http:
            assert http.get("/health").status_code == 200  # reads are open on loopback
            for method, path in [("POST", "/crawl"), ("POST", "/documents"), ("DELETE", "/documents/x")]:
                response = http.request(method, path, json={"url": "http://127.0.0.1:9/"})
                assert response.status_code == 403 and "GRAPHRAG_API_KEY" in response.json()["error"]
            assert http.get("/documents").status_code == 200
            models = http.get("/v1/models").json()
            assert "graphrag-graph" in {m["id"] for m in models["data"]}
    finally:
        stop_server(served)
