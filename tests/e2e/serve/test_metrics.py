"""A served sample with an OTLP endpoint configured: `/metrics` counts requests by route and
status, an ask's latency by route and retrieval mode, the LLM's tokens and the jobs, for the
admin key only; the spans of a chat and of an upload job reach the OTLP receiver as one trace
each, with nothing of a document's text."""

from __future__ import annotations

import time

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from ...llm_server import LLMServer
from ...otlp_receiver import OTLPReceiver
from .conftest import KEY, llm_reply, load_sample, start_server, stop_server

pytestmark = pytest.mark.e2e
UPLOADED = b"# Harbours\n\nThe quay of Lindholm was rebuilt in granite after the storm.\n"


@pytest.fixture(scope="module")
def observed(neo4j_server, tmp_path_factory):
    """`graphrag serve` with the admin key, the LLM fake and OTLP export to a local receiver."""
    load_sample(neo4j_server)
    tmp = tmp_path_factory.mktemp("metrics")
    receiver, llm = OTLPReceiver(), LLMServer(llm_reply)
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_BSP_SCHEDULE_DELAY": "100"}
    served = start_server(neo4j_server, tmp, KEY, llm, env_extra=env)
    served.receiver = receiver
    yield served
    stop_server(served)
    llm.close()
    receiver.close()


def samples(text: str) -> dict[tuple, float]:
    """(sample name, sorted labels) -> value, from the Prometheus text format."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(found: dict, name: str, **labels) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def upload(http) -> dict:
    files = [("files", ("harbours.md", UPLOADED, "text/markdown"))]
    job = http.post("/documents", files=files, data={"corpus": "uploads"}).json()
    deadline = time.monotonic() + 180
    while job["state"] in {"queued", "running"} and time.monotonic() < deadline:
        time.sleep(0.3)
        job = http.get(f"/jobs/{job['id']}").json()
    return job


def test_metrics_count_requests_modes_tokens_and_jobs(observed):
    refused = httpx.get(observed.url + "/metrics")
    wrong = httpx.get(observed.url + "/metrics", headers={"Authorization": "Bearer wrong"})
    assert refused.status_code == wrong.status_code == 401
    with observed.client() as http:
        before = samples(http.get("/metrics").text)
        asked = http.post("/chat", json={"question": "Who made the silver lantern?", "mode": "hybrid", "llm": False})
        history = [{"question": "Who made the silver lantern?", "answer": "Old Maren."}]
        followed = http.post("/chat", json={"question": "And who stole it?", "history": history, "stream": False})
        job = upload(http)
        response = http.get("/metrics")
    assert asked.status_code == followed.status_code == 200 and job["state"] == "done", job
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    after = samples(response.text)

    def grew(name: str, by: float = 1, **labels) -> bool:
        return value(after, name, **labels) - value(before, name, **labels) >= by

    assert grew("graphrag_http_requests_total", 2, method="POST", route="/chat", status="200")
    assert grew("graphrag_http_request_duration_seconds_count", 2, method="POST", route="/chat")
    assert value(after, "graphrag_http_requests_total", method="GET", route="/metrics", status="401") >= 2
    assert grew("graphrag_http_requests_total", method="GET", route="/jobs/{job_id}", status="200")
    assert grew("graphrag_ask_duration_seconds_count", route="search", mode="hybrid")
    assert grew("graphrag_llm_tokens_total", model="test-model", kind="prompt")  # the follow-up's rewrite
    assert grew("graphrag_jobs_started_total", kind="upload")
    assert grew("graphrag_jobs_finished_total", kind="upload", state="done")
    assert not any(name.startswith("graphrag_") and "/documents/file:" in str(labels) for name, labels in after)


def test_spans_of_a_chat_and_a_job_reach_the_otlp_endpoint(observed):
    with observed.client() as http:
        assert http.post("/chat", json={"question": "Who stole the silver lantern?", "llm": False}).status_code == 200
        streamed = http.post("/chat", json={"question": "Who made the silver lantern?", "llm": False, "stream": True})
        assert streamed.status_code == 200 and "event: done" in streamed.text
        assert upload(http)["state"] == "done"
    spans = observed.receiver.wait_for("POST /chat", "graphrag.ask", "graphrag.job", "graphrag.load.write")
    by_id = {s["id"]: s for s in spans}

    def ancestors(span: dict) -> list[dict]:
        out = []
        while span["parent"] in by_id:
            span = by_id[span["parent"]]
            out.append(span)
        return out

    assert {s["service"] for s in spans} == {"graphrag"}
    asks = [s for s in spans if s["name"] == "graphrag.ask"]
    assert len(asks) >= 2  # answered at once, and streamed from a worker thread
    for ask in asks:
        request = ancestors(ask)[-1]  # FastAPI's own spans may stand between
        assert request["name"] == "POST /chat" and request["attributes"]["http.response.status_code"] == 200
        assert request["attributes"]["http.route"] == "/chat"
    ask = asks[0]
    steps = {s["name"] for s in spans if s["trace"] == ask["trace"]}
    assert {"graphrag.analysis", "graphrag.route", "graphrag.retrieve", "graphrag.answer", "neo4j.read"} <= steps

    written = {s["trace"] for s in spans if s["name"] == "graphrag.load.write"}  # an upload that wrote
    job = next(s for s in spans if s["name"] == "graphrag.job" and s["trace"] in written)
    assert job["attributes"]["graphrag.kind"] == "upload" and job["attributes"]["graphrag.state"] == "done"
    assert ancestors(job)[-1]["name"] == "POST /documents"
    in_job = {s["name"] for s in spans if s["trace"] == job["trace"]}
    assert {"graphrag.load", "graphrag.load.batch", "graphrag.load.embed", "graphrag.load.write"} <= in_job
    values = [str(v) for s in spans for v in s["attributes"].values()]
    assert not any("Lindholm" in v or "silver lantern" in v or KEY in v for v in values)


def test_a_key_that_is_not_admin_is_refused(observed, run_cli, monkeypatch):
    import json

    observed.neo4j.point_env(monkeypatch)
    made = run_cli("keys", "add", "metrics-reader", "--read", "--json")
    assert made.exit_code == 0, made.output
    reader = json.loads(made.stdout)["key"]
    try:
        refused = httpx.get(observed.url + "/metrics", headers={"Authorization": f"Bearer {reader}"})
        assert refused.status_code == 403 and "admin" in refused.json()["error"], refused.text
        assert httpx.get(observed.url + "/metrics", headers=observed.headers).status_code == 200
    finally:
        assert run_cli("keys", "revoke", "metrics-reader").exit_code == 0
