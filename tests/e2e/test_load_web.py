"""`graphrag load url --crawl` and `graphrag learn` against a real HTTP server on 127.0.0.1."""

import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytestmark = pytest.mark.e2e

PAGES = {
    "robots.txt": "User-agent: *\nDisallow: /private/\n",
    "index.html": "<html><head><title>Harbours</title></head><body><nav>Home | About</nav><main><h1>Harbours</h1>"
    "<p>Ostia served Rome.</p><a href='ostia.html'>Ostia</a> <a href='private/x.html'>x</a></main></body></html>",
    "ostia.html": "<html><head><title>Ostia</title><meta name='author' content='A. Writer'></head><body><main>"
    "<h1>Ostia</h1><p>Ostia lay at the mouth of the Tiber.</p></main></body></html>",
    "private/x.html": "<html><body><p>Hidden from robots.</p></body></html>",
}


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    for name, text in PAGES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def titles(neo4j):
    with neo4j.driver() as driver:
        return {
            r["t"]: r["topics"]
            for r in driver.execute_query("MATCH (d:Document) RETURN d.title AS t, d.topics AS topics").records
        }


def test_crawl_respects_robots_and_stays_incremental(schema, run_cli, site):
    result = run_cli("load", "url", f"{site}/index.html", "--crawl", "--delay", "0", "--allow-local", "--json")
    out = json.loads(result.stdout)
    assert out["documents"]["created"] == 2
    assert any("robots" in e["error"] for e in out["errors"])
    assert set(titles(schema)) == {"Harbours", "Ostia"}
    again = json.loads(
        run_cli("load", "url", f"{site}/index.html", "--crawl", "--delay", "0", "--allow-local", "--json").stdout
    )
    assert again["documents"]["unchanged"] == 2 and again["chunks"]["created"] == 0


def test_learn_records_topics(schema, run_cli, site, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "roads.md").write_text(
        "# Roads\n\nThe Via Appia ran from Rome to Brundisium; grain from Ostia went inland.\n"
    )
    result = run_cli(
        "learn",
        f"learn: roman roads, harbours | path: {notes} | url: {site}/ostia.html",
        "--no-crawl",
        "--allow-local",
        "--json",
    )
    assert result.exit_code == 0, result.output
    docs = titles(schema)
    assert set(docs) == {"Roads", "Ostia"}
    assert all(topics == ["roman roads", "harbours"] for topics in docs.values())
    # what was learned is phrase-linked at once, for the graph retrieval mode
    phrases = json.loads(result.stdout)["phrases"]
    with schema.driver() as driver:
        links = driver.execute_query("MATCH (:Chunk)-[r:HAS_PHRASE]->(:Phrase) RETURN count(r) AS n").records[0]["n"]
    assert links == phrases["links"] == phrases["links_created"] >= 2  # "Ostia" in both
    again = run_cli(
        "learn",
        f"learn: roman roads, harbours | path: {notes} | url: {site}/ostia.html",
        "--no-crawl",
        "--allow-local",
        "--json",
    )
    assert "phrases" not in json.loads(again.stdout), "nothing changed, nothing re-linked"


def test_chat_learns_then_answers_from_what_it_learned(schema, run_cli, tmp_path):
    """`learn:` inside chat runs the learning function on the chat's own connection; a bad
    request is one error line and the chat goes on."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "tides.md").write_text("# Tides\n\nThe harbour master of Portus kept a ledger of the tides.\n")
    lines = [
        f"learn: harbours | path: {notes / 'missing'}",
        f"learn: harbours | path: {notes}",
        "Who kept a ledger of the tides?",
        "/sources",
        "/quit",
    ]
    from click.testing import CliRunner

    from graphrag_cypher.cli.main import cli

    result = CliRunner().invoke(cli, ["chat", "--no-llm", "--mode", "fulltext"], input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    assert "error: path not found" in result.output
    assert titles(schema) == {"Tides": ["harbours"]}
    assert "Tides" in result.output.split("Sources:")[-1]


def test_chat_learns_into_its_corpus_and_answers_from_it(schema, run_cli, tmp_path):
    """`chat --corpus X`: what `learn:` loads is in corpus X, so the next question (which searches
    only X) finds it."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "tides.md").write_text("# Tides\n\nThe harbour master of Portus kept a ledger of the tides.\n")
    lines = [f"learn: harbours | path: {notes}", "Who kept a ledger of the tides?", "/quit"]
    from click.testing import CliRunner

    from graphrag_cypher.cli.main import cli

    result = CliRunner().invoke(
        cli, ["chat", "--corpus", "harbourlog", "--no-llm", "--mode", "hybrid"], input="\n".join(lines) + "\n"
    )
    assert result.exit_code == 0, result.output
    with schema.driver() as driver:
        corpora = driver.execute_query("MATCH (d:Document) RETURN d.title AS t, d.corpus AS c").records
    assert {(r["t"], r["c"]) for r in corpora} == {("Tides", "harbourlog")}
    assert "ledger of the tides" in result.stdout
    assert "[D1] Tides" in result.stdout.split("Sources:")[-1]
