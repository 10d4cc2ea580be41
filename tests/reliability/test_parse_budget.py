"""Files that are small on disk and huge once parsed: a PDF whose page inflates to megabytes of
text operators, pages that take MuPDF seconds each, text and HTML of millions of characters,
YAML front matter that expands a few hundred bytes into megabytes. Each is parsed within a
budget, the part within it loads, and what was cut is one line; the parsing process itself
stays small. Bombs are generated here; real files, a real HTTP server and the real Neo4j."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from graphrag_cypher.loaders.files import parse_file
from graphrag_cypher.model import ItemError, ParsedDocument

from ..unit.loaders.conftest import real_data

TEXT_OPERATOR = b"BT /F1 1 Tf 10 10 Td (xxxxxxxx xxxxxxxx) Tj ET\n"  # 47 bytes, 17 characters out


def text_page(text: str) -> bytes:
    """A page content stream that shows `text`, one line per 60 characters."""
    lines = [text[i : i + 60] for i in range(0, len(text), 60)]
    ops = [b"BT /F1 11 Tf 72 720 Td 14 TL"]
    ops += [b"(" + line.encode("latin-1").replace(b"(", b"").replace(b")", b"") + b") '" for line in lines]
    return b"\n".join(ops + [b"ET"])


def pdf(pages: list[bytes | int]) -> bytes:
    """A PDF built by hand. Each page is its content stream, or the index of an earlier page
    whose stream it shares (one stored object, inflated again for every page that uses it).
    Streams are FlateDecode-compressed, so megabytes of operators are kilobytes on disk."""
    streams: list[bytes] = []
    refs: list[int] = []
    for page in pages:
        if isinstance(page, int):
            refs.append(refs[page])
        else:
            streams.append(zlib.compress(page, 9))
            refs.append(len(streams) - 1)
    n_pages = len(pages)
    first_page, first_stream = 4, 4 + n_pages
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{' '.join(f'{first_page + i} 0 R' for i in range(n_pages))}] /Count {n_pages} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for ref in refs:
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            + f"/Contents {first_stream + ref} 0 R >>".encode()
        )
    for stream in streams:
        objects.append(f"<< /Length {len(stream)} /Filter /FlateDecode >>\nstream\n".encode() + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def operators(megabytes: float) -> bytes:
    return TEXT_OPERATOR * int(megabytes * 1024 * 1024 / len(TEXT_OPERATOR))


FIRST = text_page("Ostia was the harbour city of ancient Rome at the mouth of the Tiber. " * 4)
LAST = text_page("Portus was built by Claudius and enlarged by Trajan north of Ostia. " * 4)


def parse_measured(path, env: dict | None = None) -> tuple[dict, float, int]:
    """parse_file in a fresh Python: (what came out, seconds, the peak RSS in MB of that process
    itself: a worker process it starts is not counted, the point of one). VmHWM, not ru_maxrss:
    Linux carries ru_maxrss over an exec, so a child of a 2 GB test session would report 2 GB."""
    code = f"""
import json, time
from graphrag_cypher.loaders.files import parse_file
start = time.perf_counter()
doc = parse_file({str(path)!r})
seconds = time.perf_counter() - start
out = {{"error": getattr(doc, "error", None), "pages": [s.page for s in getattr(doc, "sections", [])],
       "chars": sum(len(s.text) for s in getattr(doc, "sections", [])), "notes": getattr(doc, "notes", [])}}
peak = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps([out, seconds, peak // 1024]))
"""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=dict(os.environ, **(env or {}))
    )
    assert result.returncode == 0, result.stderr
    return tuple(json.loads(result.stdout.strip().splitlines()[-1]))  # type: ignore[return-value]


# --- PDF -------------------------------------------------------------------------------------


@pytest.mark.process
def test_a_pdf_page_that_inflates_to_20_mb_is_skipped_unread_and_the_other_pages_load(tmp_path):
    # 58 KB on disk; its middle page is 20 MB of text operators (before: 31 s, 870 MB, 6.8 M characters).
    path = tmp_path / "bomb.pdf"
    path.write_bytes(pdf([FIRST, operators(20), LAST]))
    assert path.stat().st_size < 100_000
    out, seconds, peak_mb = parse_measured(path)
    assert out["error"] is None and out["pages"] == [1, 3], out
    assert out["notes"] == ["PDF page 2 of 3 skipped: 20 MB of page content, over the 4.0 MB per-page budget"], out[
        "notes"
    ]
    assert seconds < 10 and peak_mb < 200, (seconds, peak_mb)


@pytest.mark.process
def test_a_pdf_page_that_inflates_hundreds_of_times_is_skipped_as_a_bomb(tmp_path):
    # The example: a few KB on disk, a page of 2 MB of text operators (under the 4 MB
    # per-page budget; before: seconds of MuPDF and 1.35 M characters, 1,500 chunks as an upload).
    path = tmp_path / "bomb2.pdf"
    path.write_bytes(pdf([FIRST, operators(2), LAST]))
    assert path.stat().st_size < 10_000
    out, seconds, _ = parse_measured(path)
    assert out["error"] is None and out["pages"] == [1, 3], out
    assert len(out["notes"]) == 1 and out["notes"][0].startswith("PDF page 2 of 3 skipped: its content inflates ")
    assert "compression bomb" in out["notes"][0] and seconds < 10


@pytest.mark.process
def test_pdf_pages_that_pass_the_size_checks_are_cut_at_the_wall_time_budget(tmp_path):
    # Ten pages share one 3.5 MB stream (under the per-page budget): seconds of MuPDF each.
    path = tmp_path / "slow.pdf"
    path.write_bytes(pdf([FIRST, operators(3.5), *[1] * 9]))
    # (their ratio would skip them unread: allowed here, so that the clock has to stop them)
    out, seconds, peak_mb = parse_measured(path, {"GRAPHRAG_PARSE_SECONDS": "1", "GRAPHRAG_PARSE_PAGE_RATIO": "1e6"})
    assert out["error"] is None and out["pages"][0] == 1, out
    assert len(out["notes"]) == 1 and "1-second budget reached" in out["notes"][0], out["notes"]
    assert out["notes"][0].startswith("PDF cut at page ") and " of 11: " in out["notes"][0]
    assert seconds < 5 and peak_mb < 200, (seconds, peak_mb)


@pytest.mark.process
def test_pdf_character_and_page_budgets_keep_the_first_part(tmp_path, monkeypatch):
    path = tmp_path / "book.pdf"
    path.write_bytes(pdf([FIRST, LAST, 0, 1, 0, 1]))
    monkeypatch.setenv("GRAPHRAG_PARSE_MAX_PAGES", "3")
    doc = parse_file(path)
    assert isinstance(doc, ParsedDocument) and [s.page for s in doc.sections] == [1, 2, 3]
    assert doc.notes == ["PDF cut at page 4 of 6: 3-page budget reached"]
    monkeypatch.delenv("GRAPHRAG_PARSE_MAX_PAGES")
    monkeypatch.setenv("GRAPHRAG_PARSE_MAX_CHARS", "400")
    doc = parse_file(path)
    assert sum(len(s.text) for s in doc.sections) <= 400 and doc.sections[0].page == 1
    assert doc.notes == [f"PDF cut in page {doc.sections[-1].page} of 6: 400-character budget reached"]


@pytest.mark.process
def test_a_pdf_of_nothing_but_oversized_pages_is_one_line(tmp_path):
    path = tmp_path / "only-bomb.pdf"
    path.write_bytes(pdf([operators(5)]))
    error = parse_file(path)
    assert isinstance(error, ItemError) and error.error.startswith("PDF page 1 of 1 skipped: "), error


@pytest.mark.process
@pytest.mark.real_data
def test_the_debian_reference_loads_whole_within_the_default_budget():
    doc = parse_file(real_data("pdf/debian-reference.pdf"))
    assert isinstance(doc, ParsedDocument) and doc.notes == []
    assert doc.sections[-1].page == 261


# --- text, code, HTML ------------------------------------------------------------------------


def test_text_code_and_html_past_the_character_budget_keep_their_first_part(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_PARSE_MAX_CHARS", "10000")
    paragraph = "Ostia was the harbour of Rome and its people traded grain.\n\n"
    (tmp_path / "long.txt").write_text(paragraph * 2000)
    (tmp_path / "long.py").write_text("".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(3000)))
    (tmp_path / "long.html").write_text(
        "<html><body>" + "<p>Ostia was the harbour of Rome.</p>" * 5000 + "</body></html>"
    )
    (tmp_path / "long.md").write_text("# Ostia\n\n" + paragraph * 2000)
    for name in ("long.txt", "long.py", "long.html", "long.md"):
        doc = parse_file(tmp_path / name)
        assert isinstance(doc, ParsedDocument), (name, doc)
        assert 5000 < sum(len(s.text) for s in doc.sections) <= 10000, name
        assert len(doc.notes) == 1 and "10,000-character budget reached" in doc.notes[0], (name, doc.notes)


# --- the web fallback ------------------------------------------------------------------------


class PdfSite:
    """127.0.0.1 serving one PDF bomb, counting its requests."""

    def __init__(self, body: bytes):
        self.requests = 0
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path == "/robots.txt":
                    self.send_response(404)
                    self.end_headers()
                    return
                site.requests += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/pdf")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/bomb.pdf"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()


@pytest.mark.process
def test_the_web_fallback_parses_a_pdf_bomb_within_the_budget_and_only_once():
    from graphrag_cypher.loaders.web import PoliteClient
    from graphrag_cypher.retrieval.web import WebConfig, WebFallback, WebResult

    site = PdfSite(pdf([FIRST, operators(20), LAST]))

    class OneResult:  # the search engine's side: one hit, the bomb
        name = "test"

        def search(self, query, n):
            return [WebResult("Ostia harbour", site.url, "Ostia was the harbour of Rome.")]

    fallback = WebFallback(WebConfig(provider="searxng", allow_local=True, delay=0), PoliteClient, OneResult())
    try:
        timings = []
        for _ in range(2):
            start = time.perf_counter()
            found = fallback.find("Ostia harbour", [1.0, 0.0], lambda texts: [[1.0, 0.0] for _ in texts])
            timings.append(time.perf_counter() - start)
        result = found.trace.results[0]
        assert result.fetched and result.error is None, result
        assert result.note and "skipped: 20 MB of page content" in result.note, result
        assert found.pages and all("xxxxxxxx" not in chunk.text for chunk in found.pages[0].chunks)
        assert site.requests == 1  # asked twice, fetched and parsed once
        assert timings[0] < 10, timings
    finally:
        site.httpd.shutdown()


# --- YAML front matter and stored properties -------------------------------------------------


def laughs(levels: int) -> str:
    """Front matter whose aliases expand 9-fold per level: 6 levels are 400 bytes and 3.5 MB of
    JSON once expanded (8 levels: 312 MB, and Neo4j out of memory)."""
    lines = ["---", "title: Laughs", 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ",".join(f"*a{i - 1}" for _ in range(9)) + "]")
    return "\n".join(lines) + "\n---\n# Laughs\n\nOstia was the harbour of Rome.\n"


def longest_property(neo4j) -> int:
    with neo4j.driver() as driver:
        rows = driver.execute_query("MATCH (d:Document) RETURN properties(d) AS p").records
    return max(len(json.dumps(value, default=str)) for row in rows for value in row["p"].values())


@pytest.mark.e2e
def test_front_matter_aliases_are_refused_in_one_line_and_the_document_loads(neo4j, run_cli, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "laughs.md").write_text(laughs(6))
    assert len(laughs(8).encode()) < 600
    (folder / "fine.md").write_text("---\ntitle: Portus\ntags: [harbour, Rome]\n---\nPortus was Rome's harbour.\n")
    result = run_cli("load", "files", str(folder), "--no-embed", "--json")
    out = json.loads(result.stdout)
    assert result.exit_code == 0 and out["documents"]["created"] == 2, out
    assert [w["warning"] for w in out["warnings"]] == [
        "YAML front matter not read: it uses aliases (*name), which can expand without bound"
    ], out
    assert "laughs.md" in out["warnings"][0]["item"]
    assert longest_property(neo4j) < 64 * 1024
    with neo4j.driver() as driver:
        tags = driver.execute_query("MATCH (d:Document {title: 'Portus'}) RETURN d.tags AS t").records[0]["t"]
    assert tags == ["harbour", "Rome"]


@pytest.mark.e2e
def test_every_stored_document_property_is_capped_with_one_line(neo4j, run_cli, tmp_path):
    folder = tmp_path / "pages"
    folder.mkdir()
    description = "Ostia harbour " * 20_000  # 280 KB in one meta tag
    (folder / "big-meta.html").write_text(
        f'<html><head><title>Ostia</title><meta name="description" content="{description}"></head>'
        "<body><p>Ostia was the harbour of Rome.</p></body></html>"
    )
    result = run_cli("load", "files", str(folder), "--no-embed", "--json")
    out = json.loads(result.stdout)
    assert result.exit_code == 0 and out["documents"]["created"] == 1, out
    assert [w["warning"] for w in out["warnings"]] == ["property 'description' cut from 279,999 to 65,536 characters"]
    assert longest_property(neo4j) <= 64 * 1024 + 2
