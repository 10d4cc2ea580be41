"""`graphrag link wikidata` against a real local SPARQL endpoint (Oxigraph) holding a small
Wikidata-shaped Turtle fixture; retries are checked through a flaky local proxy."""

import json
import shutil
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from ..conftest import free_port

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "linkers"


def oxigraph_exe() -> str:
    exe = Path(sys.executable).parent / "oxigraph"
    found = str(exe) if exe.exists() else shutil.which("oxigraph")
    if not found:
        pytest.skip("the `oxigraph` package (SPARQL server) is not installed")
    return found


@pytest.fixture(scope="module")
def sparql(tmp_path_factory):
    """Oxigraph serving wikidata-sample.ttl; yields its query URL."""
    store = tmp_path_factory.mktemp("oxigraph")
    exe = oxigraph_exe()
    subprocess.run(
        [exe, "load", "--location", str(store), "--file", str(FIXTURES / "wikidata-sample.ttl")],
        check=True,
        capture_output=True,
    )
    port = free_port()
    server = subprocess.Popen(
        [exe, "serve-read-only", "--location", str(store), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/query"
    try:
        for _ in range(100):
            try:
                httpx.post(url, data={"query": "ASK {}"}, timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(10)


class FlakyProxy(BaseHTTPRequestHandler):
    """Answers 429 (with Retry-After) and 503 before passing queries on to the real endpoint."""

    failures: list = []
    target = ""
    seen_agents: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.seen_agents.append(self.headers.get("User-Agent"))
        if self.failures:
            status = self.failures.pop(0)
            self.send_response(status)
            if status == 429:
                self.send_header("Retry-After", "0")
            self.end_headers()
            return
        answer = httpx.post(
            self.target,
            content=body,
            headers={"Content-Type": self.headers["Content-Type"], "Accept": self.headers["Accept"]},
        )
        self.send_response(answer.status_code)
        self.send_header("Content-Type", answer.headers.get("content-type", "application/json"))
        self.end_headers()
        self.wfile.write(answer.content)

    def log_message(self, *args):
        pass


@pytest.fixture
def places(schema, run_cli):
    result = run_cli("load", "pleiades", str(FIXTURES / "pleiades-sample.geojsonl"), "--json")
    assert result.exit_code == 3, result.output  # one bad line in the fixture
    return schema


def query(neo4j, text):
    with neo4j.driver() as driver:
        return [dict(r) for r in driver.execute_query(text).records]


def test_links_places_to_wikidata_idempotently(places, run_cli, sparql):
    result = run_cli("link", "wikidata", "--endpoint", sparql, "--batch", "5", "--delay", "0", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["places_queried"] == 12 and out["queries"] == 3
    assert out["matched"] == 3 and out["entities_created"] == 3 and out["links_created"] == 3
    [babylon] = query(
        places, "MATCH (p:Place {pleiadesId: '893951'})-[s:SAME_AS]->(w:WikidataEntity) RETURN w {.*} AS w, s {.*} AS s"
    )
    w, s = babylon["w"], babylon["s"]
    assert w["qid"] == "Q5684" and w["uri"] == "http://www.wikidata.org/entity/Q5684" and w["label"] == "Babylon"
    assert w["instanceOf"] == ["Q15661340", "Q839954"] and (w["lat"], w["lon"]) == (32.536389, 44.420833)
    assert {k: s[k] for k in ("property", "source", "matchedBy")} == {
        "property": "P1584",
        "source": "wikidata",
        "matchedBy": "pleiadesId",
    }
    assert query(places, "MATCH (w:WikidataEntity {qid: 'Q87'}) RETURN w.lat AS lat")[0]["lat"] is None

    again = json.loads(run_cli("link", "wikidata", "--endpoint", sparql, "--delay", "0", "--json").stdout)
    assert again["places_queried"] == 0, "places looked up before are not asked again"
    recheck = json.loads(run_cli("link", "wikidata", "--endpoint", sparql, "--delay", "0", "--all", "--json").stdout)
    assert recheck["places_queried"] == 12 and recheck["entities_created"] == recheck["links_created"] == 0
    assert query(places, "MATCH ()-[s:SAME_AS]->() RETURN count(s) AS n")[0]["n"] == 3


def test_resumes_after_an_interrupted_run(places, run_cli, sparql):
    first = json.loads(
        run_cli(
            "link", "wikidata", "--endpoint", sparql, "--batch", "4", "--limit", "4", "--delay", "0", "--json"
        ).stdout
    )
    assert first["places_queried"] == 4
    rest = json.loads(run_cli("link", "wikidata", "--endpoint", sparql, "--delay", "0", "--json").stdout)
    assert rest["places_queried"] == 8 and rest["aligned_total"] == 3


def test_retries_429_and_503_then_succeeds(places, sparql):
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.linkers.wikidata import USER_AGENT, WikidataOptions, link_wikidata

    FlakyProxy.failures, FlakyProxy.target, FlakyProxy.seen_agents = [429, 503, 502], sparql, []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FlakyProxy)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    waits = []
    try:
        with connect(load_settings()) as graph:
            out = link_wikidata(
                graph,
                WikidataOptions(endpoint=f"http://127.0.0.1:{server.server_port}/sparql", delay=0.5, retries=5),
                sleep=waits.append,
            )
    finally:
        server.shutdown()
    assert out["matched"] == 3 and out["queries"] == 1
    assert len(waits) == 3 and all(w > 0 for w in waits), "three backoffs before the answer"
    assert set(FlakyProxy.seen_agents) == {USER_AGENT} and "graphrag" in USER_AGENT


def test_gives_up_with_one_line_after_the_retries(places, run_cli):
    port = free_port()  # nothing listens there
    result = run_cli(
        "link", "wikidata", "--endpoint", f"http://127.0.0.1:{port}/sparql", "--retries", "1", "--delay", "0"
    )
    assert result.exit_code == 1 and "failed 2 time(s)" in result.output and "Traceback" not in result.output
