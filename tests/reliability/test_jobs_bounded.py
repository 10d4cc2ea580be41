"""Learning jobs a user can watch and stop: progress while one large file is embedded, the queue
shown (who waits behind whom), DELETE /jobs/{id} cancelling a queued or a running job with what
was written kept whole, and a bounded queue. A real `graphrag serve` on the session's Neo4j,
embedding through a slow OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import time

import pytest

from .slow_embedder import SlowEmbedder, apply_schema, start, text_file, wait

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    from ..e2e.serve.conftest import stop_server

    embedder = SlowEmbedder(seconds_per_text=0.01)
    apply_schema(neo4j_server, embedder)
    tmp = tmp_path_factory.mktemp("jobs")
    served = start(neo4j_server, tmp, embedder)
    served.tmp, served.embedder = tmp, embedder
    yield served
    stop_server(served)
    embedder.close()


@pytest.fixture(autouse=True)
def nothing_left_running(served):
    """Each test starts with an empty line of jobs, whatever the one before left."""
    yield
    with served.client() as http:
        for job in http.get("/jobs").json()["jobs"]:
            if job["state"] in {"queued", "running"}:
                http.delete(f"/jobs/{job['id']}")
                wait(http, job["id"])


def embedded(job: dict) -> int:
    """Chunks of the batch being embedded that have their vector (0 when none is)."""
    return ((job["progress"] or {}).get("embedding") or {}).get("done") or 0


def upload(http, name: str, data: bytes, **form) -> dict:
    response = http.post("/documents", files=[("files", (name, data, "text/plain"))], data=form)
    assert response.status_code == 202, response.text
    return response.json()


def chunks_of(served, doc_id: str) -> tuple[int, int]:
    with served.neo4j.driver() as driver:
        row = driver.execute_query(
            "MATCH (d:Document {id: $id}) OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d) "
            "OPTIONAL MATCH (c)-[n:NEXT_CHUNK]->(:Chunk) RETURN count(DISTINCT c) AS chunks, count(n) AS links",
            id=doc_id,
        ).records
    return (row[0]["chunks"], row[0]["links"]) if row else (0, 0)


def test_progress_shows_while_one_large_file_is_embedded(served):
    big = text_file(900)  # ~900 KB of text: ~1000 chunks, ~10 s through the slow embedder
    assert 850_000 < len(big) < 1_000_000
    with served.client() as http:
        started = time.monotonic()
        job = upload(http, "big.txt", big, corpus="progress")
        seen = wait(
            http,
            job["id"],
            until=lambda j: j["state"] != "queued" and embedded(j),
            timeout=8,
        )
        first_progress = time.monotonic() - started
        assert seen["state"] == "running", seen
        progress = seen["progress"]
        assert progress["items"]["total"] == 1 and progress["current"] == "upload:big.txt", progress
        assert 0 < progress["embedding"]["done"] < progress["embedding"]["total"], progress
        later = wait(http, job["id"], until=lambda j: embedded(j) > progress["embedding"]["done"])
        assert later["state"] == "running", "progress moves on while the file is still being embedded"
        done = wait(http, job["id"])
        total = time.monotonic() - started
    assert done["state"] == "done" and done["summary"]["documents"]["created"] == 1, done
    assert done["progress"]["items"] == {"read": 1, "done": 1, "total": 1}
    print(f"\nfirst progress after {first_progress:.1f} s of a {total:.1f} s upload")


def test_the_queue_is_shown_and_jobs_can_be_cancelled(served):
    with served.client() as http:
        slow = upload(http, "slow.txt", text_file(900, "lighthouse"), corpus="cancel")
        small = upload(http, "small.txt", b"The harbour of Portus replaced Ostia.\n", corpus="cancel")
        never = upload(http, "never.txt", b"This file is cancelled before it runs.\n", corpus="cancel")
        assert small["state"] == "queued" and small["waiting_behind"] == slow["id"], small
        listed = {j["id"]: j for j in http.get("/jobs").json()["jobs"]}
        assert listed[small["id"]]["position"] == 1 and listed[never["id"]]["position"] == 2
        assert listed[never["id"]]["waiting_behind"] == slow["id"]
        assert listed[slow["id"]]["state"] in {"queued", "running"} and listed[slow["id"]]["position"] == 0

        assert http.delete(f"/jobs/{never['id']}", headers={"Authorization": "Bearer wrong"}).status_code == 401
        dropped = http.delete(f"/jobs/{never['id']}")
        assert dropped.status_code == 200 and dropped.json()["state"] == "cancelled", dropped.text

        wait(http, slow["id"], until=lambda j: embedded(j), timeout=8)
        asked = time.monotonic()
        stopping = http.delete(f"/jobs/{slow['id']}")
        assert stopping.status_code == 202 and stopping.json()["cancel_requested"] is True, stopping.text
        stopped = wait(http, slow["id"], until=lambda j: j["state"] == "cancelled", timeout=10)
        to_cancelled = time.monotonic() - asked
        assert stopped["state"] == "cancelled", stopped
        assert stopped["summary"]["cancelled"] is True and stopped["summary"]["documents"]["created"] == 0
        after = wait(http, small["id"], timeout=30)
        small_done = time.monotonic() - asked
        assert after["state"] == "done" and after["summary"]["documents"]["created"] == 1, after
        assert wait(http, never["id"])["state"] == "cancelled"

        again = http.delete(f"/jobs/{slow['id']}")
        assert again.status_code == 409 and "cancelled" in again.json()["error"], again.text
        assert http.delete("/jobs/nosuchjob").status_code == 404
    assert chunks_of(served, "file:upload:cancel/slow.txt") == (0, 0), "nothing of a document cut short is written"
    assert chunks_of(served, "file:upload:cancel/never.txt") == (0, 0)
    assert not list((served.tmp / "tmp").glob("graphrag-upload-*")), "every job's upload folder is gone"
    print(f"\nDELETE -> cancelled in {to_cancelled:.2f} s; the queued small upload done {small_done:.2f} s after")


def test_a_cancelled_job_keeps_whole_documents(served):
    files = [(f"part{i}.txt", text_file(150, f"quay{i}")) for i in range(6)]  # ~170 chunks each, one batch
    with served.client() as http:
        response = http.post(
            "/documents", files=[("files", (n, d, "text/plain")) for n, d in files], data={"corpus": "whole"}
        )
        job = response.json()
        wait(http, job["id"], until=lambda j: embedded(j) >= 400)
        assert http.delete(f"/jobs/{job['id']}").status_code == 202
        cancelled = wait(http, job["id"])
        assert cancelled["state"] == "cancelled", cancelled
        kept = cancelled["summary"]["documents"]["created"]
        assert 1 <= kept < 6, cancelled["summary"]
        # the phrase links are brought up to date: the run read every chunk the kept documents
        # wrote, and no chunk waits for a phrase run
        kept_chunks = sum(chunks_of(served, f"file:upload:whole/{n}")[0] for n, _ in files)
        assert kept_chunks > 0 and cancelled["summary"]["phrases"]["chunks"] >= kept_chunks, cancelled["summary"]
        assert pending_phrases(served) == 0
        whole = wait(http, upload_all(http, files)["id"])
    assert whole["summary"]["documents"] == {
        "created": 6 - kept,
        "updated": 0,
        "unchanged": kept,
        "failed": 0,
        "pruned": 0,
    }
    counts = {chunks_of(served, f"file:upload:whole/{n}") for n, _ in files}
    assert len(counts) == 1 and next(iter(counts))[0] == next(iter(counts))[1] + 1, counts


def pending_phrases(served) -> int:
    with served.neo4j.driver() as driver:
        return driver.execute_query("MATCH (c:PendingPhrases) RETURN count(c) AS n").records[0]["n"]


def upload_all(http, files) -> dict:
    response = http.post(
        "/documents", files=[("files", (n, d, "text/plain")) for n, d in files], data={"corpus": "whole"}
    )
    assert response.status_code == 202, response.text
    return response.json()


def test_the_queue_is_bounded(served):
    from graphrag_cypher.server.jobs import MAX_QUEUED

    with served.client() as http:
        slow = upload(http, "slow2.txt", text_file(600, "mole"), corpus="bounded")
        queued = [
            upload(http, f"q{i}.txt", f"Queued note {i}.\n".encode(), corpus="bounded") for i in range(MAX_QUEUED)
        ]
        refused = http.post("/documents", files=[("files", ("extra.txt", b"One too many.\n", "text/plain"))])
        assert refused.status_code == 429 and len(refused.json()["error"].splitlines()) == 1, refused.text
        folders = list((served.tmp / "tmp").glob("graphrag-upload-*"))
        assert len(folders) == MAX_QUEUED + 1, "the refused upload left no folder"
        for job in reversed(queued):
            assert http.delete(f"/jobs/{job['id']}").status_code == 200
        assert len(list((served.tmp / "tmp").glob("graphrag-upload-*"))) == 1, "a cancelled job's folder goes at once"
        http.delete(f"/jobs/{slow['id']}")
        assert wait(http, slow["id"])["state"] in {"cancelled", "done"}
