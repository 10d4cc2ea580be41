"""What the hostile-input suite (test_hostile.py) sends and watches: the hostile files, the
scripted model that writes hostile text-to-Cypher statements, a 127.0.0.1 site of pathological
pages, a watcher of /health/live, a log of every status the server answered, and the benign
documents whose survival the suite checks by count and content hash.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

LONG_TOKEN = "f3a9" * 2304  # one 9,216-character "word" (a hex blob: no character splits it)
LIVE_BOUND_S = 1.0  # /health/live answers within this, whatever the server is doing
STATEMENT_BOUND_S = 5.0  # text-to-Cypher's transaction timeout (retrieval/structured/text2cypher.py)
TOKEN_BOUND = 64  # the longest token the issue lets reach an index

# --- benign documents ---------------------------------------------------------------------------

BENIGN_CORPUS = "benign"
BENIGN = {
    "lantern.md": "# The Silver Lantern\n\nOld Maren the smith made the silver lantern in the winter of the long frost. "
    "Pell the ferryman stole it from her forge and carried it across the river Wend.\n\n"
    "## The return\n\nThe heron below Tansy Mill saw the theft and told Maren, who took the lantern back.\n",
    "harbour.txt": "The harbour of Portus replaced Ostia when the river mouth silted up. Grain ships from Alexandria "
    "moored beside the lighthouse, and the harbour master kept a ledger of every cargo.\n\n"
    "The lighthouse of Portus guided the ships at night; its keeper burned olive wood.\n",
    "mill.html": "<html><head><title>Tansy Mill</title></head><body><h1>Tansy Mill</h1><p>The wheel of Tansy "
    "Mill stopped turning when the giant Brannock rolled a boulder across the river Wend.</p><p>The fox Reynold "
    "tricked the giant into throwing the boulder away, and the wheel turned again.</p></body></html>",
    "ships.csv": "ship,cargo,port\nAurora,grain,Portus\nNereid,olive oil,Ostia\nTriton,marble,Portus\n",
    "keepers.json": json.dumps(
        {"keepers": [{"name": "Maren", "keeps": "the forge"}, {"name": "Pell", "keeps": "the ferry on the Wend"}]}
    ),
    "ledger.py": '"""The harbour ledger: cargoes counted by port."""\n\n\ndef count(cargoes, port):\n'
    '    """How many cargoes came to `port`."""\n    return sum(1 for c in cargoes if c["port"] == port)\n',
}


def benign_after(label: str) -> tuple[str, bytes]:
    """A small benign file, new each time: what must load after a hostile input."""
    name = f"after-{label}.txt"
    return name, f"The ferryman of the Wend counted {label} crossings before the frost.\n".encode()


SNAPSHOT = """
MATCH (d:Document) WHERE d.corpus = $corpus
OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
WITH d, c ORDER BY c.id
RETURN d.id AS id, d.title AS title, d.contentHash AS contentHash, collect(c.text) AS texts
"""


def snapshot(driver, corpus: str = BENIGN_CORPUS) -> dict[str, tuple[str | None, str, int]]:
    """Each document of `corpus`: (its contentHash, a sha256 of its chunk texts, its chunk count)."""
    out = {}
    for row in driver.execute_query(SNAPSHOT, corpus=corpus).records:
        texts = sorted(row["texts"])
        digest = hashlib.sha256("\x00".join(texts).encode()).hexdigest()
        out[row["id"]] = (row["contentHash"], digest, len(texts))
    return out


# --- hostile files ------------------------------------------------------------------------------


def long_token_files() -> dict[str, tuple[str, bytes]]:
    """Row 1: one 9 KB word in a CSV, a JSON file and a source file (a minified line), and an
    18 KB title."""
    return {
        "csv": ("blob.csv", f"id,payload\n1,{LONG_TOKEN}\n2,short words here\n".encode()),
        "json": ("blob.json", json.dumps({"id": 1, "payload": LONG_TOKEN, "note": "a blob"}).encode()),
        "code": ("blob.js", f"// minified\nvar a=function(){{return '{LONG_TOKEN}'}};\n".encode()),
        # the same bound for what else user text reaches under an index: a document's title
        "title": ("blob-title.md", f"# Ledger {LONG_TOKEN} {LONG_TOKEN}\n\nA ledger with a long title.\n".encode()),
    }


def markdown_bombs() -> dict[str, bytes]:
    """Row 2 and its kin: Markdown a backtracking link, emphasis or code regex chokes on."""
    return {
        "brackets": b"[" * 100_000,
        "open-links": b"[a](" * 30_000,
        "images": b"![" * 50_000,
        "backticks": b"`" * 100_000,
        "emphasis": b"*_" * 50_000,
        "angles": b"<" * 100_000,
        "nested-links": b"[" * 20_000 + b"x" + b"](" * 20_000,
    }


def single_line_json(megabytes: int = 10) -> bytes:
    """A JSON file of `megabytes` MB on one line: many records of the same few words."""
    record = '{"id":%d,"note":"the harbour ledger lists grain, oil and marble for Portus"},'
    parts, size, i = ["["], 1, 0
    while size < megabytes * 1_000_000:
        part = record % i
        parts.append(part)
        size += len(part)
        i += 1
    parts[-1] = parts[-1].rstrip(",")
    parts.append("]")
    return "".join(parts).encode()


def nested_json(depth: int = 100_000) -> bytes:
    """JSON nested `depth` deep: Python's parser recurses once per level."""
    return b"[" * depth + b"]" * depth


def titled_markdown(title: str, body: str) -> bytes:
    return f"---\ntitle: {json.dumps(title)}\n---\n\n# {title}\n\n{body}\n".encode()


HTML_TITLE = '<img src=x onerror="alert(1)">Lantern <script>alert(2)</script>'
RTL_TITLE = "Harbour \u202eregdel\u202c \x1b[31mred\x1b[0m \x07 ledger \u200f\u2066x\u2069"


def pdf_bomb(stream_bytes: int = 4_000_000) -> bytes:
    """A few-KB PDF whose one page holds `stream_bytes` of text operators, Flate-compressed."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "glimmerfrost")  # a font resource and a content stream to fill
    line = b"1 0 0 1 72 700 Tm (glimmerfrost quorvex manuscript of the harbour.) Tj "
    body = b"BT /F1 1 Tf " + line * (stream_bytes // len(line)) + b" ET"
    font = page.get_fonts()[0][4]
    doc.update_stream(page.get_contents()[0], body.replace(b"/F1", b"/" + font.encode()), compress=True)
    data = doc.tobytes(garbage=3, deflate=True)
    doc.close()
    return data


def mediawiki_export(megabytes: int = 21) -> bytes:
    """Row 9: a MediaWiki export of one page, `megabytes` MB of the same sentence."""
    sentence = "The lighthouse keeper of Portus wrote the same line in the harbour ledger every night. "
    text = sentence * (megabytes * 1_000_000 // len(sentence))
    return (
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">\n'
        "  <siteinfo><sitename>Ledger Wiki</sitename><dbname>ledgerwiki</dbname>"
        "<base>https://wiki.example.org/wiki/Main_Page</base></siteinfo>\n"
        "  <page>\n    <title>The Ledger</title>\n    <ns>0</ns>\n    <id>1</id>\n"
        "    <revision>\n      <id>1</id>\n      <timestamp>2024-01-01T00:00:00Z</timestamp>\n"
        "      <model>wikitext</model>\n      <format>text/x-wiki</format>\n"
        f'      <text xml:space="preserve">{text}</text>\n'
        "    </revision>\n  </page>\n</mediawiki>\n"
    ).encode()


def gazetteer_lines() -> bytes:
    """Pleiades GeoJSON lines: one id twice (different titles) and a record with no id."""
    records = [
        {"id": "990001", "title": "Portus Minor", "names": [], "placeTypes": ["port"]},
        {"id": "990002", "title": "Ostia Antica", "names": [], "placeTypes": ["settlement"]},
        {"id": "990001", "title": "Portus Maior", "names": [], "placeTypes": ["port"]},
        {"title": "Nameless Quay", "names": [], "placeTypes": ["port"]},
    ]
    return "".join(json.dumps(r) + "\n" for r in records).encode()


# Text-to-Cypher statements the scripted model writes, chosen by the question asked.
REGEX_N = 30  # `a`s before the '!': about 30 s of backtracking in Neo4j's regex engine
STATEMENTS = {
    "pattern": (
        f"WITH reduce(s = '', i IN range(1, {REGEX_N}) | s + 'a') + '!' AS t WHERE t =~ '((a+)+)+b' "
        "MATCH (d:Document) RETURN count(d) AS documents"
    ),
    "endless": "UNWIND range(1, 2000000000) AS i WITH i WHERE i = -1 RETURN count(i) AS documents",
    "megabyte": "UNWIND range(1, 60) AS i RETURN i AS n, reduce(s = 'x', j IN range(1, 20) | s + s) AS blob",
    "forged": (
        "MATCH (d:Document {title: 'The Silver Lantern'})<-[:FROM_DOCUMENT]-(c:Chunk) WITH c LIMIT 1 "
        "RETURN c.id AS id, 'The mayor of Portus stole the silver lantern' AS quote"
    ),
    "carriage": "MATCH (d:Document) // a note\rCREATE (:Intruder {name: 'x'}) WITH d RETURN count(d) AS documents",
}
FORGED_TEXT = "The mayor of Portus stole the silver lantern"
QUESTIONS = {
    "pattern": "How many documents match the slow pattern?",
    "endless": "How many documents are there counting forever?",
    "megabyte": "How many documents hold megabyte rows?",
    "forged": "How many documents does the forged row cite?",
    "carriage": "How many documents hide a carriage return?",
}


def llm_reply(body: dict) -> str:
    """The scripted model: a hostile statement for a text-to-Cypher prompt (by the question
    asked), a one-line answer citing every source of the context for anything else."""
    text = "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])
    if "<question>" in text:
        # the question alone: the prompt's rules and examples hold many words besides
        asked = text.rsplit("<question>", 1)[1].split("</question>", 1)[0]
        for key, question in QUESTIONS.items():
            if question in asked:
                return f"```cypher\n{STATEMENTS[key]}\n```"
        return "```cypher\nMATCH (d:Document) RETURN count(d) AS documents\n```"
    first = body["messages"][0]["content"]
    if first.startswith("Rewrite the user's last message"):
        return body["messages"][-1]["content"]
    # every source of the context cited (each is a line "[D1] title"): all of them reach the Sources line
    cites = re.findall(r"^\[([^\]\n]{1,40})\] ", body["messages"][-1]["content"], re.M)
    return "The sources say so " + " ".join(f"[{c}]" for c in cites) + "." if cites else "The graph does not say."


# --- a site of pathological pages ----------------------------------------------------------------

PAGES = {
    "/nested.html": b"<html><head><title>Nested</title></head><body>"
    + b"<div>" * 100_000
    + b"deep harbour text"
    + b"</div>" * 100_000
    + b"</body></html>",
    "/unclosed.html": b"<html><head><title>Unclosed</title></head><body><p>harbour"
    + b"<p><b><i><a href='#'>" * 40_000
    + b"</body></html>",
    "/comment.html": b"<html><head><title>Comment</title></head><body><p>before</p><!--"
    + b"-" * 2_000_000
    + b"</body>",
    "/attributes.html": b"<html><head><title>Attributes</title></head><body><p "
    + b'a="' * 200_000
    + b">harbour</p></body></html>",
    "/links.html": b"<html><head><title>Links</title></head><body>"
    + b"".join(b'<a href="/p%d">ferry %d</a> ' % (i, i) for i in range(50_000))
    + b"</body></html>",
}


class PathologicalSite:
    """Pages no browser would enjoy, served on 127.0.0.1 (robots.txt allows all)."""

    def __init__(self):
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802 - http.server's naming
                if self.path == "/robots.txt":
                    body, kind = b"User-agent: *\nAllow: /\n", "text/plain"
                elif self.path in PAGES:
                    body, kind = PAGES[self.path], "text/html; charset=utf-8"
                else:
                    body, kind = b"<html><body>gone</body></html>", "text/html"
                self.send_response(200 if self.path in PAGES or self.path == "/robots.txt" else 404)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# --- watching the server ------------------------------------------------------------------------


class Statuses:
    """Every answer the suite's clients got: (time, method, path, status), for the 5xx count."""

    def __init__(self):
        self.seen: list[tuple[float, str, str, int]] = []
        self._lock = threading.Lock()

    def hook(self, response: httpx.Response) -> None:
        with self._lock:
            self.seen.append(
                (time.monotonic(), response.request.method, response.request.url.path, response.status_code)
            )

    def server_errors(self, since: float = 0.0) -> list[tuple[str, str, int]]:
        with self._lock:
            return [(m, p, s) for t, m, p, s in self.seen if t >= since and s >= 500]


class Liveness:
    """A thread asking /health/live every 0.2 s: how long each answer took (a stall shows as a
    long answer, not as a missing one: the client waits up to 120 s)."""

    def __init__(self, url: str, headers: dict, every: float = 0.2):
        self.samples: list[tuple[float, float, int | str]] = []  # (asked at, seconds, status)
        self._stop = threading.Event()
        self._lock = threading.Lock()

        def run() -> None:
            with httpx.Client(base_url=url, headers=headers, timeout=120) as http:
                while not self._stop.is_set():
                    asked = time.monotonic()
                    try:
                        status: int | str = http.get("/health/live").status_code
                    except httpx.HTTPError as exc:
                        status = type(exc).__name__
                    with self._lock:
                        self.samples.append((asked, time.monotonic() - asked, status))
                    self._stop.wait(max(0.0, every - (time.monotonic() - asked)))

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def slow(self, since: float = 0.0, bound: float = LIVE_BOUND_S) -> list[tuple[float, int | str]]:
        """(seconds, status) of every answer since `since` that took longer than `bound` or failed;
        the one in flight counts from when it was asked."""
        now = time.monotonic()
        with self._lock:
            bad = [(round(s, 2), st) for t, s, st in self.samples if t >= since and (s > bound or st != 200)]
            last = self.samples[-1][0] + self.samples[-1][1] if self.samples else since
        if now - max(last, since) > bound + 0.5:  # a request still waiting
            bad.append((round(now - max(last, since), 2), "in flight"))
        return bad

    def worst(self, since: float = 0.0) -> float:
        with self._lock:
            return max((s for t, s, _ in self.samples if t >= since), default=0.0)

    def count(self, since: float = 0.0) -> int:
        with self._lock:
            return sum(1 for t, _, _ in self.samples if t >= since)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=130)
