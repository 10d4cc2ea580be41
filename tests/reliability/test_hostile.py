"""Hostile input, end to end: every finding of the hostile-input review (and more) sent through
one real `graphrag serve` on the session's Neo4j, embedding through a fast fake OpenAI-compatible
embedder and answering with a scripted LLM, both on 127.0.0.1.

Benign documents are loaded first and recorded (count and content hashes). Throughout, a thread
asks /health/live every 0.2 s. Each test checks what its input must not do: a 5xx, a stall
(/health/live slower than 1 s), a later job failed by an earlier input; the last one checks that
no benign document was lost or changed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from . import hostile_inputs as h
from .slow_embedder import DIMENSIONS, KEY, SlowEmbedder, apply_schema, wait

pytestmark = [pytest.mark.e2e, pytest.mark.process]

JOB_S = 120  # a hostile job ends (done, or failed with its reason) within this


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    """`graphrag serve` with a key, a fast fake embedder, the scripted LLM, local crawls allowed,
    the benign documents loaded and recorded, and /health/live watched."""
    from ..e2e.serve.conftest import start_server, stop_server
    from ..llm_server import LLMServer

    embedder = SlowEmbedder(seconds_per_text=0)
    apply_schema(neo4j_server, embedder)
    llm = LLMServer(h.llm_reply)
    site = h.PathologicalSite()
    tmp = tmp_path_factory.mktemp("hostile")
    (tmp / "tmp").mkdir()
    env = {
        "GRAPHRAG_EMBED_BASE_URL": embedder.url,  # the LLM keeps OPENAI_BASE_URL
        "GRAPHRAG_EMBEDDER": "openai/slow-test",
        "GRAPHRAG_EMBEDDING_DIMENSIONS": str(DIMENSIONS),
        "TMPDIR": str(tmp / "tmp"),
    }
    served = start_server(neo4j_server, tmp, KEY, llm, "--crawl-allow-local", env_extra=env)
    served.tmp, served.embedder, served.llm, served.site, served.env = tmp, embedder, llm, site, env
    served.statuses = h.Statuses()
    served.live = h.Liveness(served.url, served.headers)
    try:
        with http_client(served) as http:
            job = upload(http, list(h.BENIGN.items()), corpus=h.BENIGN_CORPUS)
            done = wait(http, job["id"], timeout=JOB_S)
        assert done["state"] == "done" and done["summary"]["documents"]["created"] == len(h.BENIGN), done
        with neo4j_server.driver() as driver:
            served.benign = h.snapshot(driver)
        assert len(served.benign) == len(h.BENIGN), served.benign
        with http_client(served) as http:  # warm-up: the first question loads what every later one uses
            assert chat(http, "Who made the silver lantern?").status_code == 200
            assert v1(http, "Who made the silver lantern?").status_code == 200
        yield served
    finally:
        served.live.close()
        stop_server(served)
        site.close()
        llm.close()
        embedder.close()


def http_client(served, timeout: float = 180) -> httpx.Client:
    """A client of the server whose every answer is logged for the 5xx count."""
    return httpx.Client(
        base_url=served.url,
        headers=served.headers,
        timeout=timeout,
        event_hooks={"response": [served.statuses.hook]},
    )


@pytest.fixture
def http(served):
    """A logged client; the window this test's steadiness is judged on starts now. Afterwards
    every job still in the line is cancelled, so one test's slow job does not hold the next."""
    served.since = time.monotonic()
    with http_client(served) as client:
        yield client
        for job in client.get("/jobs").json()["jobs"]:
            if job["state"] in {"queued", "running"}:
                client.delete(f"/jobs/{job['id']}")
                wait(client, job["id"], timeout=60)


def upload(http, files: list[tuple[str, bytes]], **form) -> dict:
    response = http.post(
        "/documents", files=[("files", (n, d, "application/octet-stream")) for n, d in files], data=form
    )
    assert response.status_code == 202, response.text
    return response.json()


def finished(http, job: dict, timeout: float = JOB_S) -> dict:
    """The job once it ended; it must end within `timeout` and not be left running."""
    done = wait(http, job["id"], timeout=timeout)
    assert done["state"] in {"done", "failed", "cancelled"}, f"still {done['state']} after {timeout} s: {done}"
    return done


def one_line_reasons(job: dict) -> None:
    """A job that failed says why in one line; each failed document is named with its reason."""
    if job["state"] == "failed":
        assert job["error"] and "\n" not in job["error"], job
    for line in job.get("errors") or []:
        assert "\n" not in line and ":" in line, line


def benign_loads_after(http, label: str) -> dict:
    """A benign upload after a hostile one: it must load, whole, with nothing failed."""
    name, data = h.benign_after(label)
    done = finished(http, upload(http, [(name, data)], corpus="after"))
    assert done["state"] == "done", f"a benign upload after {label} did not load: {done}"
    docs = done["summary"]["documents"]
    assert docs["failed"] == 0 and docs["created"] + docs["unchanged"] == 1, done
    assert not done.get("errors"), done
    return done


def steady(served, label: str = "") -> None:
    """Since this test began: no answer of 500 or more, and /health/live always within 1 s."""
    errors = served.statuses.server_errors(served.since)
    assert not errors, f"{label}: server errors {errors[:5]}"
    slow = served.live.slow(served.since)
    assert not slow, f"{label}: /health/live slower than {h.LIVE_BOUND_S} s: {slow[:5]}"


def chat(http, question: str, **body) -> httpx.Response:
    return http.post("/chat", json={"question": question, **body})


def v1(http, question: str, model: str = "graphrag-graph") -> httpx.Response:
    return http.post("/v1/chat/completions", json={"model": model, "messages": [{"role": "user", "content": question}]})


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


# --- row 1: one long token must not poison every later job ------------------------------------------


@pytest.mark.parametrize("kind", ["csv", "json", "code", "title"])
def test_a_nine_kb_token_does_not_fail_later_jobs(served, http, kind):
    name, data = h.long_token_files()[kind]
    hostile = finished(http, upload(http, [(name, data)], corpus="hostile"))
    one_line_reasons(hostile)
    if hostile["state"] == "failed" or (hostile["summary"] or {}).get("documents", {}).get("failed"):
        assert any(name in line for line in hostile.get("errors") or [hostile.get("error") or ""]), hostile
    benign_loads_after(http, f"token-{kind}")
    with served.neo4j.driver() as driver:
        long_words = driver.execute_query(
            "MATCH (n) WHERE (n:Word OR n:Phrase) AND size(toString(n.id)) > $bound RETURN count(n) AS n",
            bound=h.TOKEN_BOUND,
        ).records[0]["n"]
    assert long_words == 0, f"{long_words} words or phrases longer than {h.TOKEN_BOUND} characters were indexed"
    steady(served, f"9 KB token in {kind}")


# --- row 2 and its kin: parsing is linear and off the server's thread --------------------------------


@pytest.mark.parametrize("shape", list(h.markdown_bombs()))
def test_pathological_markdown_does_not_stall_the_server(served, http, shape):
    data = h.markdown_bombs()[shape]
    started = time.monotonic()
    hostile = finished(http, upload(http, [(f"{shape}.md", data)], corpus="hostile"), timeout=60)
    took = time.monotonic() - started
    one_line_reasons(hostile)
    benign_loads_after(http, f"markdown-{shape}")
    steady(served, f"Markdown {shape}")
    print(f"\n{shape}: {len(data):,} bytes, job {hostile['state']} in {took:.1f} s")


def test_large_and_deep_json_and_a_pdf_bomb_load_or_fail_alone(served, http):
    files = {
        "one-line.json": h.single_line_json(10),
        "nested.json": h.nested_json(100_000),
        "bomb.pdf": h.pdf_bomb(),
        "nul.txt": b"harbour\x00\x00\x00" * 50_000,
        "invalid.txt": b"\xff\xfe\xfd" * 100_000,
    }
    for name, data in files.items():
        started = time.monotonic()
        hostile = finished(http, upload(http, [(name, data)], corpus="hostile"))
        one_line_reasons(hostile)
        docs = (hostile["summary"] or {}).get("documents")
        print(f"\n{name}: {len(data):,} bytes, {hostile['state']} in {time.monotonic() - started:.1f} s, {docs}")
        benign_loads_after(http, f"file-{name}")
    steady(served, "large, deep and bomb files")


def test_a_crawl_of_pathological_pages_does_not_stall_the_server(served, http):
    urls = [served.site.url + path for path in h.PAGES]
    response = http.post("/crawl", json={"urls": urls, "crawl": False, "delay": 0, "corpus": "hostile-web"})
    assert response.status_code == 202, response.text
    crawled = finished(http, response.json())
    one_line_reasons(crawled)
    print(f"\ncrawl: {crawled['state']}, {(crawled['summary'] or {}).get('documents')}, {crawled.get('errors')}")
    benign_loads_after(http, "crawl")
    steady(served, "pathological pages")


# --- row 3: bounded in the database, not only in the client ------------------------------------------


def running(driver, fragment: str) -> list[str]:
    rows = driver.execute_query("SHOW TRANSACTIONS YIELD currentQuery RETURN currentQuery").records
    return [r["currentQuery"] for r in rows if fragment in (r["currentQuery"] or "")]


@pytest.mark.parametrize(("key", "fragment"), [("pattern", "((a+)+)+b"), ("endless", "range(1, 2000000000)")])
def test_a_slow_statement_is_ended_by_the_database(served, http, key, fragment):
    """A catastrophic `=~` regex (refused, or ended) and a statement that would count for
    minutes: the answer comes, and the statement lives in Neo4j no longer than the bound + 1 s
    (SHOW TRANSACTIONS, asked every 0.1 s while the question is answered and after)."""
    import threading

    seen: list[tuple[float, float]] = []  # (asked, answered) of each look that found it running
    stop = threading.Event()

    def watch() -> None:
        with served.neo4j.driver() as driver:
            while not stop.is_set():
                before = time.monotonic()
                if running(driver, fragment):
                    seen.append((before, time.monotonic()))
                stop.wait(0.1)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    asked = time.monotonic()
    try:
        response = chat(http, h.QUESTIONS[key])
        answered = time.monotonic() - asked
        time.sleep(h.STATEMENT_BOUND_S + 2 - min(answered, h.STATEMENT_BOUND_S + 2))
    finally:
        stop.set()
        watcher.join(timeout=10)
    assert response.status_code == 200, response.text
    # the least it can have run: from the end of the first look that saw it to the start of the last
    lived = seen[-1][0] - seen[0][1] if seen else 0.0
    assert lived <= h.STATEMENT_BOUND_S + 1, f"the statement ran {lived:.1f} s in Neo4j (bound + 1 s)"
    with served.neo4j.driver() as driver:
        assert not running(driver, fragment), f"the statement still runs in Neo4j {answered:.0f} s after the question"
    assert answered <= 30, f"the answer took {answered:.1f} s: {response.json().get('timings_ms')}"
    structured = response.json()["structured"] or {}
    assert structured.get("method") == "text2cypher", f"the question did not reach text-to-Cypher: {structured}"
    assert structured.get("refused") or structured.get("error"), structured
    print(f"\n{key}: answered in {answered:.1f} s, the statement seen in Neo4j for {lived:.1f} s")
    steady(served, f"slow statement ({key})")


def _first_chunk(driver) -> str:
    rows = (
        driver.execute_query(
            "MATCH (c:Chunk)-[:HAS_PHRASE|MENTIONS]-() RETURN c.id AS id ORDER BY c.id LIMIT 1"
        ).records
        or driver.execute_query("MATCH (c:Chunk) RETURN c.id AS id ORDER BY c.id LIMIT 1").records
    )
    return rows[0]["id"]


PROCEDURE_CALLS = {
    "ppr-iterations": (
        "CALL graphrag.ppr({`$chunk`: 1.0}, {iterations: 1000000000, tolerance: 0.0}) YIELD id RETURN id",
        "iterations",
    ),
    "ppr-k": ("CALL graphrag.ppr({`$chunk`: 1.0}, {k: -5}) YIELD id RETURN id", "k"),
    "search-null-config": (
        "CALL graphrag.search('who made the lantern?', null) YIELD chunkId RETURN chunkId",
        "config",
    ),
    "retrieve-graph-1mb-query": (
        "MATCH (c:Chunk) WITH c LIMIT 1 CALL graphrag.retrieve.graph(c.embedding, $big, {k: 5}) "
        "YIELD chunkId RETURN chunkId",
        "query",
    ),
    "places-match-unknown-key": (
        "CALL graphrag.link.places.match({minLenght: 2}) YIELD key RETURN key",
        "minLenght",
    ),
}


def _call(driver, statement: str, wait_s: float) -> dict:
    """What one procedure call gave through the driver ({"rows"} or {"error"}), waited for at
    most `wait_s` seconds ({"running": seconds} when it had not ended by then)."""
    import threading

    from neo4j import Query
    from neo4j.exceptions import Neo4jError

    outcome: dict = {}

    def run() -> None:
        try:
            with driver.session() as session:
                outcome["rows"] = session.run(Query(statement, timeout=30), big="harbour " * 131_072).data()
        except Neo4jError as exc:
            outcome["error"] = exc.message or ""
        except Exception as exc:  # noqa: BLE001 - reported by the test
            outcome["other"] = repr(exc)

    started = time.monotonic()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=wait_s)
    if worker.is_alive():
        outcome["running"] = round(time.monotonic() - started, 1)
    return outcome


@pytest.mark.parametrize("call", list(PROCEDURE_CALLS))
def test_a_procedure_refuses_a_bad_call_in_one_clear_line(served, http, call):
    """Procedures run in Neo4j: called through the driver, each bad call is refused at once
    with one line naming what was wrong, never an NPE or a run without end. A null config may
    also mean the defaults: then the call does what it does with {}."""
    statement, names = PROCEDURE_CALLS[call]
    with served.neo4j.driver() as driver:
        statement = statement.replace("$chunk", _first_chunk(driver))
        outcome = _call(driver, statement, h.STATEMENT_BOUND_S + 5)
        assert "running" not in outcome, f"{call}: still running in Neo4j after {outcome['running']} s"
        defaults = _call(driver, statement.replace(", null)", ", {})"), 30) if "null)" in statement else None
    message = outcome.get("error") or ""
    assert "NullPointerException" not in message and "\n" not in message.strip(), message
    if defaults is not None and outcome == defaults:
        steady(served, call)
        return
    assert "error" in outcome, f"{call}: accepted ({outcome})"
    assert names in message, f"{call}: the message does not name {names!r}: {message}"
    steady(served, call)


# --- row 4: text-to-Cypher results cut at a row and byte budget ---------------------------------------


def test_text_to_cypher_rows_of_a_megabyte_are_cut(served, http):
    """60 rows of 1 MB each: the answer is cut at the budget and says so, and the server does
    not keep what it read (its memory stays flat from the second such answer to the fourth)."""
    sizes, took = [], []
    for i in range(4):
        started = time.monotonic()
        # each time another question (the same statement): no answer comes from a cache
        response = chat(http, f"{h.QUESTIONS['megabyte']} (take {i})")
        took.append(round(time.monotonic() - started, 1))
        assert response.status_code == 200, response.text[:300]
        sizes.append(len(response.content))
        said = json.dumps(response.json()["structured"]) + response.json()["answer"]
        assert re.search(r"\b(cut|truncated|left off|budget)\b", said, re.I), said[:500]
        if i == 1:
            before = rss_mb(served.process.pid)
    grown = rss_mb(served.process.pid) - before
    print(f"\nanswers of {sizes} bytes in {took} s; the server grew {grown:.0f} MB over the last two")
    steady(served, "megabyte rows")
    assert max(sizes) < 2_000_000, f"answers of {sizes} bytes"
    assert grown < 100, f"the server holds {grown:.0f} MB more after two more 60 MB answers"


# --- row 5: eight clients get the single-threaded answers -------------------------------------------

CONCURRENT_QUESTIONS = [
    ("chat", "Which documents mention the lantern?"),
    ("chat", "Who made the silver lantern?"),
    ("chat", "What did the harbour master keep?"),
    ("v1", "Why did the wheel of Tansy Mill stop turning?"),
    ("v1", "Which documents mention Portus?"),
]


def _answer(http, face: str, question: str) -> tuple:
    if face == "chat":
        response = chat(http, question, llm=False)
        assert response.status_code == 200, response.text
        out = response.json()
        return out["answer"], [s["document_id"] for s in out["sources"]], [r.get("name") for r in out["rows"]]
    response = v1(http, question)
    assert response.status_code == 200, response.text
    out = response.json()
    return out["choices"][0]["message"]["content"], [c["document_id"] for c in out["citations"]], []


def test_eight_clients_get_the_answers_one_client_gets(served, http):
    from concurrent.futures import ThreadPoolExecutor

    alone = {q: _answer(http, face, q) for face, q in CONCURRENT_QUESTIONS}

    def client(seed: int) -> list[tuple[str, tuple]]:
        with http_client(served) as own:
            order = CONCURRENT_QUESTIONS[seed % len(CONCURRENT_QUESTIONS) :] + CONCURRENT_QUESTIONS
            return [(q, _answer(own, face, q)) for face, q in order[: 2 * len(CONCURRENT_QUESTIONS)]]

    with ThreadPoolExecutor(8) as pool:
        got = [pair for answers in pool.map(client, range(8)) for pair in answers]
    different = [(q, a) for q, a in got if a != alone[q]]
    assert not different, f"{len(different)} of {len(got)} answers differ from one client's: {different[:2]}"
    steady(served, "8 clients")


# --- row 6: a row's literal text is never quoted under a citation -----------------------------------


def test_a_literal_beside_a_real_id_is_no_citation(served, http):
    response = chat(http, h.QUESTIONS["forged"])
    assert response.status_code == 200, response.text
    out = response.json()
    for ev in out["evidence"]:
        assert h.FORGED_TEXT not in (ev.get("text") or ""), f"the literal is quoted as evidence of {ev['source']}"
    for row in out["rows"]:
        if h.FORGED_TEXT in json.dumps(row):
            assert not row.get("cite"), f"the literal row is cited as {row['cite']}: {row}"
    for line in out["answer"].splitlines():
        if h.FORGED_TEXT in line:
            assert not re.search(r"\[[A-Za-z]*\d+\]", line), f"the literal stands under a citation: {line!r}"
    steady(served, "forged citation")


def test_a_comment_ended_by_a_carriage_return_hides_no_write(served, http):
    response = chat(http, h.QUESTIONS["carriage"])
    assert response.status_code == 200, response.text
    structured = response.json()["structured"] or {}
    assert structured.get("refused") and "\n" not in structured["refused"], structured
    with served.neo4j.driver() as driver:
        assert driver.execute_query("MATCH (n:Intruder) RETURN count(n) AS n").records[0]["n"] == 0
    steady(served, "comment ended by \\r")


# --- row 7: upload ids include the corpus ------------------------------------------------------------


def _documents_named(driver, corpus: str, title: str) -> list[dict]:
    return [
        r.data()
        for r in driver.execute_query(
            "MATCH (d:Document {corpus: $corpus, title: $title}) OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d) "
            "RETURN d.id AS id, collect(c.text) AS texts",
            corpus=corpus,
            title=title,
        ).records
    ]


def test_the_same_upload_name_in_two_corpora_keeps_both(served, http):
    a = b"# Shared Name\n\nCorpus A says the lantern was silver.\n"
    b = b"# Shared Name\n\nCorpus B says the lantern was bronze.\n"
    for corpus, data in (("corpus-a", a), ("corpus-b", b)):
        done = finished(http, upload(http, [("shared-name.md", data)], corpus=corpus))
        assert done["state"] == "done" and done["summary"]["documents"]["failed"] == 0, done
    with served.neo4j.driver() as driver:
        in_a = _documents_named(driver, "corpus-a", "Shared Name")
        in_b = _documents_named(driver, "corpus-b", "Shared Name")
    assert len(in_a) == 1 and "silver" in " ".join(in_a[0]["texts"]), f"corpus B's upload replaced A's: {in_a}"
    assert len(in_b) == 1 and "bronze" in " ".join(in_b[0]["texts"]), in_b
    assert in_a[0]["id"] != in_b[0]["id"]

    # the same name again in corpus A: replaced only when asked, and the result says so
    c = b"# Shared Name\n\nCorpus A now says the lantern was golden.\n"
    kept = finished(http, upload(http, [("shared-name.md", c)], corpus="corpus-a"))
    with served.neo4j.driver() as driver:
        texts = " ".join(_documents_named(driver, "corpus-a", "Shared Name")[0]["texts"])
    assert "silver" in texts and "golden" not in texts, "an upload replaced a document without replace=true"
    assert "replace" in json.dumps(kept), f"the job does not say the name exists (replace=true): {kept}"
    replaced = finished(http, upload(http, [("shared-name.md", c)], corpus="corpus-a", replace="true"))
    assert replaced["state"] == "done", replaced
    with served.neo4j.driver() as driver:
        texts = " ".join(_documents_named(driver, "corpus-a", "Shared Name")[0]["texts"])
    assert "golden" in texts, "replace=true did not replace the document"
    assert "replace" in json.dumps(replaced["summary"]), replaced
    steady(served, "same name in two corpora")


# --- row 8: query syntax in a question never reaches the full-text index raw -------------------------

LUCENE = [
    "Which tales mention *?",
    "Which documents mention ?",
    "What about AND OR NOT?",
    'What did "the ferryman carry?',
    "title:(lantern OR",
    "lantern~ harbour^3 /regex/ [a TO z} {x",
    "\\ && || ! ( ) { } [ ] ^ ~ : /",
    "*lantern* ?arbour",
]


@pytest.mark.parametrize("mode", ["fulltext", "hybrid", "graph"])
def test_query_syntax_in_a_question_is_plain_text(served, http, mode):
    for question in LUCENE:
        response = chat(http, question, mode=mode)
        assert response.status_code == 200, f"{question!r} in {mode}: {response.status_code} {response.text[:300]}"
    for question in LUCENE[:3]:
        response = v1(http, question, model=f"graphrag-{mode}")
        assert response.status_code == 200, f"{question!r} on /v1: {response.status_code} {response.text[:300]}"
    steady(served, f"query syntax, {mode}")


# --- row 9: a page of 21 MB of the same sentence -----------------------------------------------------


PEAK_LAUNCHER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "print('peak-kb', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def test_a_mediawiki_page_of_21_mb_of_one_sentence_loads_in_a_minute(served, http, tmp_path):
    """Row 9 runs through `graphrag load mediawiki` (a process: the time bound is the point)."""
    from ..conftest import graphrag_exe

    path = tmp_path / "ledger.xml"
    path.write_bytes(h.mediawiki_export(21))
    env = dict(served.neo4j.env(), GRAPHRAG_ENV_FILE=str(tmp_path / "no.env"), OPENAI_API_KEY="test", **served.env)
    env.pop("TMPDIR")

    texts_before = served.embedder.texts
    started = time.monotonic()
    try:
        # through a fresh launcher: its children are this load alone, so their peak is the load's
        # (this worker's own RUSAGE_CHILDREN holds every process it ever waited for, a Neo4j too)
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                PEAK_LAUNCHER,
                graphrag_exe(),
                "load",
                "mediawiki",
                str(path),
                "--corpus",
                "ledger",
                "--json",
            ],
            env=dict(os.environ, **env),
            capture_output=True,
            text=True,
            timeout=120,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("`load mediawiki` of a 21 MB page was not done in 120 s (goal: 60 s)")
    took = time.monotonic() - started
    assert result.returncode == 0, result.stderr[-1000:]
    peak_mb = int(result.stderr.strip().splitlines()[-1].removeprefix("peak-kb ")) / 1024
    encoded = served.embedder.texts - texts_before
    print(f"\n21 MB page: {took:.1f} s, peak {peak_mb:.0f} MB, {encoded} texts encoded")
    assert took <= 120, f"{took:.0f} s"
    assert peak_mb < 2048, f"peak {peak_mb:.0f} MB"
    assert encoded <= 50, f"{encoded} texts encoded for a page of one repeated sentence"
    steady(served, "21 MB MediaWiki page")


# --- the smaller gaps -------------------------------------------------------------------------------


def test_a_gazetteer_with_a_duplicate_and_a_missing_id_says_so(served, http, run_cli, tmp_path):
    path = tmp_path / "places.geojsonl"
    path.write_bytes(h.gazetteer_lines())
    env = dict(served.neo4j.env(), GRAPHRAG_ENV_FILE=str(tmp_path / "no.env"))
    result = run_cli("load", "pleiades", str(path), "--json", env=env)
    said = result.output
    out = result.stdout
    stats = json.loads(out[out.index("{") :]) if "{" in out else {}
    assert stats.get("updated", 0) == 0, f"a duplicate id was counted as an update: {stats}"
    dup = [line for line in said.splitlines() if "990001" in line]
    assert dup and any(re.search(r"duplicate|twice|more than once|again", line, re.I) for line in dup), said
    assert "bad place record: 'id'" not in said, said
    assert re.search(r"(no|missing|without an?) id\b", said, re.I), said


def test_html_in_titles_is_escaped_where_the_server_writes_it(served, http):
    files = [
        ("html-title.md", h.titled_markdown(h.HTML_TITLE, "The keeper of the copper beacon lit it every dusk.")),
        (
            "html-title.html",
            b"<html><head><title>&lt;img src=x onerror=alert(3)&gt;Beacon</title></head>"
            b"<body><p>The copper beacon of the quay was lit at dusk by its keeper.</p></body></html>",
        ),
    ]
    done = finished(http, upload(http, files, corpus="titles"))
    assert done["state"] == "done", done
    question = "Who lit the copper beacon?"
    # full-text: the fake embedder's vectors are hashes, so only the words find the beacon
    content = v1(http, question, model="graphrag-fulltext").json()["choices"][0]["message"]["content"]
    out = chat(http, question, corpus="titles", mode="fulltext").json()
    titles = [source["title"] or "" for source in out["sources"]]
    assert any("Beacon" in t or "Lantern" in t for t in titles), f"the beacon documents are not cited: {titles}"
    assert "Beacon" in content or "Lantern" in content, f"/v1 cites no titled document: {content[-300:]}"
    for where, text in (("/v1 content", content), ("mermaid", out.get("mermaid") or "")):
        assert not re.search(r"<\s*(img|script)", text, re.I), f"raw HTML in {where}: {text[:500]}"
    steady(served, "HTML titles")


def test_control_characters_and_rtl_overrides_in_titles_break_nothing(served, http):
    data = h.titled_markdown(h.RTL_TITLE, "The harbour ledger of the control room was kept in red ink.")
    done = finished(http, upload(http, [("rtl-title.md", data)], corpus="titles"))
    assert done["state"] == "done", done
    assert http.get("/documents", params={"corpus": "titles"}).status_code == 200
    assert chat(http, "What was kept in red ink?").status_code == 200
    assert v1(http, "What was kept in red ink?").status_code == 200
    benign_loads_after(http, "rtl-title")
    steady(served, "control characters in titles")


# --- after the attack ------------------------------------------------------------------------------


def test_after_the_attack_every_benign_document_is_there_unchanged(served, http):
    with served.neo4j.driver() as driver:
        after = h.snapshot(driver)
    assert len(after) == len(served.benign), f"{len(served.benign)} benign documents before, {len(after)} after"
    changed = {
        doc: (served.benign[doc], after.get(doc)) for doc in served.benign if after.get(doc) != served.benign[doc]
    }
    assert not changed, f"benign documents changed or lost: {changed}"
    assert not served.statuses.server_errors(), served.statuses.server_errors()[:10]
    slow = served.live.slow()
    worst = served.live.worst()
    print(f"\n/health/live: {served.live.count()} answers, the slowest {worst:.2f} s")
    assert not slow, f"/health/live slower than {h.LIVE_BOUND_S} s during the attack: {slow[:10]}"
