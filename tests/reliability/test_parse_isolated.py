"""Uploads are parsed in a worker process with a time and a memory bound: a Markdown parse bomb
(100,000s of '[', which a backtracking regex took minutes over, holding the GIL) and a file that
runs past the time budget are sent with a benign file to a real `graphrag serve`; /health/live
answers within 1 s throughout, the slow file fails alone with its reason, the others load."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from graphrag_cypher.loaders import files, isolated
from graphrag_cypher.model import ContentError, ItemError, ParsedDocument

from .slow_embedder import SlowEmbedder, apply_schema, start, wait

pytestmark = pytest.mark.e2e

PARSE_SECONDS = 5  # the served graph's GRAPHRAG_PARSE_SECONDS: the slow file runs well past it
BOMB = b"[" * 100_000  # was 64 s of /health/live; under a second now
SLOW = b"![" * 1_500_000  # linear, but ~20 s of Markdown parsing (cut at 2 M characters): over 5 s
BENIGN = b"The harbour of Ostia took grain ships from Alexandria.\n\nThe lighthouse guided them in.\n"


class Liveness:
    """/health/live asked every 0.1 s from a thread; the longest answer."""

    def __init__(self, url: str, key: str):
        self.times: list[float] = []
        self._stop = threading.Event()

        def run() -> None:
            with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=120) as http:
                while not self._stop.is_set():
                    asked = time.monotonic()
                    assert http.get("/health/live").status_code == 200
                    self.times.append(time.monotonic() - asked)
                    self._stop.wait(0.1)

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def close(self) -> float:
        self._stop.set()
        self._thread.join(timeout=130)
        return max(self.times, default=0.0)


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    from ..e2e.serve.conftest import stop_server

    embedder = SlowEmbedder(seconds_per_text=0.001)
    apply_schema(neo4j_server, embedder)
    tmp = tmp_path_factory.mktemp("isolated")
    served = start(neo4j_server, tmp, embedder, env={"GRAPHRAG_PARSE_SECONDS": str(PARSE_SECONDS)})
    yield served
    stop_server(served)
    embedder.close()


def test_a_parse_bomb_and_a_slow_file_do_not_stall_the_server(served):
    uploads = [("bomb.md", BOMB), ("slow.md", SLOW), ("benign.txt", BENIGN)]
    with served.client() as http:
        live = Liveness(served.url, served.key)
        started = time.monotonic()
        response = http.post(
            "/documents", files=[("files", (n, d, "text/markdown")) for n, d in uploads], data={"corpus": "hostile"}
        )
        assert response.status_code == 202, response.text
        job = wait(http, response.json()["id"], timeout=120)
        took = time.monotonic() - started
        worst = live.close()
        assert job["state"] == "done", job
        assert worst < 1.0, f"/health/live took {worst:.2f} s while the files were parsed"
        assert len(live.times) > 10 * took / 2, live.times  # it was asked all along
        assert len(job["errors"]) == 1, job["errors"]
        [line] = job["errors"]
        assert line.startswith("slow.md: not parsed: over the 5-second parse time budget (GRAPHRAG_PARSE_SECONDS)")
        assert "\n" not in line
        listed = http.get("/documents", params={"corpus": "hostile"}).json()["documents"]
        sources = sorted(d.get("source") or d["id"] for d in listed)
        assert len(listed) == 2 and not any("slow.md" in s for s in sources), listed
        assert isolated.hard_limit(isolated.ParseBudget(seconds=PARSE_SECONDS)) < took < 60


def test_the_worker_parses_as_the_loader_does(tmp_path):
    (tmp_path / "a.md").write_text("# Harbour\n\nSee [the lighthouse](http://x/) and ![a ship](s.png).\n")
    (tmp_path / "empty.txt").write_text("")
    inline = files.parse_file(tmp_path / "a.md", root=tmp_path, source="s")
    worker = isolated.parse_file(tmp_path / "a.md", root=tmp_path, source="s")
    assert isinstance(worker, ParsedDocument) and worker == inline
    assert worker.sections[0].text == "See the lighthouse and a ship."
    assert isolated.parse_file(tmp_path / "empty.txt", root=tmp_path) == ItemError("empty.txt", "empty file")
    with pytest.raises(ContentError, match="unsupported content type 'image/png'"):
        isolated.page_document("http://x/a.png", "image/png", b"\x89PNG")
    page, links = isolated.page_document("http://x/", "text/html", b"<p>Ostia <a href='/b'>harbour</a>.</p>")
    assert links == ["http://x/b"] and "Ostia harbour" in page.text
    from ..unit.loaders.test_files import make_pdf

    make_pdf(tmp_path / "tides.pdf", ["High tide at noon.", "Low tide at six."])  # MuPDF in its own worker
    pdf = isolated.parse_file(tmp_path / "tides.pdf", root=tmp_path)
    assert isinstance(pdf, ParsedDocument) and [s.text for s in pdf.sections] == [
        "High tide at noon.",
        "Low tide at six.",
    ]


def test_a_file_over_the_memory_budget_fails_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_PARSE_MEMORY_MB", "300")
    monkeypatch.setenv("GRAPHRAG_PARSE_MAX_CHARS", "50000000")
    (tmp_path / "big.json").write_text("[" + ",".join(["[1]"] * 4_000_000) + "]")  # 16 MB: 4 million lists
    (tmp_path / "ok.txt").write_text("A small harbour.")
    big = isolated.parse_file(tmp_path / "big.json", root=tmp_path)
    assert isinstance(big, ItemError) and big.item == "big.json", big
    assert "parse memory budget (GRAPHRAG_PARSE_MEMORY_MB)" in big.error, big
    assert isinstance(isolated.parse_file(tmp_path / "ok.txt", root=tmp_path), ParsedDocument)


def test_the_servers_folders_uploads_and_crawls_are_parsed_in_the_worker(tmp_path, monkeypatch):
    """With a memory budget no Python process fits in, what the server parses fails with that
    budget's reason: it was parsed in the worker (in the server's process it would load)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from graphrag_cypher.server import engine

    class Page(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802 - http.server's naming
            body = b"<html><body><p>The harbour of Ostia.</p></body></html>"
            self.send_response(200 if self.path == "/" else 404)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    site = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    (tmp_path / "a.txt").write_text("The harbour of Ostia.")
    monkeypatch.setenv("GRAPHRAG_CRAWL_ALLOW_LOCAL", "1")
    try:
        url = f"http://127.0.0.1:{site.server_address[1]}/"
        assert isinstance(next(iter(engine.crawl_items([url], crawl=False, delay=0))), ParsedDocument)
        monkeypatch.setenv("GRAPHRAG_PARSE_MEMORY_MB", "8")
        items = [
            *engine.path_items([str(tmp_path)]),
            *engine.upload_items(tmp_path, ["a.txt"]),
            *engine.crawl_items([url], crawl=False, delay=0),
        ]
    finally:
        site.shutdown()
        site.server_close()
    assert [type(i) for i in items] == [ItemError] * 3, items
    for item in items:
        assert "8.0 MB parse memory budget (GRAPHRAG_PARSE_MEMORY_MB)" in item.error, item
