"""Hostile input to loads and learning jobs: one document never poisons the rest, and the work
is in proportion to what is new.

A 9 KB "word" (a base64 blob, a hex line) is no `:Word` and no phrase, so no later job fails on
it; a document Neo4j or the embedder refuses is reported by name and the rest is written; a
chunk an earlier version could not link is skipped and reported by the phrase linker; ids and
indexed values too long for an index are refused or cut; a chunk text (with its title) is
encoded once per load and never again once the graph holds its vector; a document's text past
the budget is cut with a warning. Real Neo4j, real loads through the CLI and the server, and an
OpenAI-compatible embeddings server on 127.0.0.1 that counts what it encodes.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest

from ..reliability.slow_embedder import SlowEmbedder

pytestmark = pytest.mark.e2e
REFUSE = "REFUSE-THIS-TEXT"  # a text holding it is answered 400, as an endpoint refuses bad input


def blob(n: int = 9_000, seed: int = 1) -> str:
    """One `n`-character "word": URL-safe base64 (letters, digits, - and _), lower-case first."""
    raw = random.Random(seed).randbytes(n)
    return "z" + base64.urlsafe_b64encode(raw).decode().rstrip("=")[: n - 1]


@pytest.fixture(scope="module")
def embedder():
    """Counts every text it encodes; refuses (400) a request holding REFUSE."""
    server = SlowEmbedder(seconds_per_text=0, refuse=REFUSE)
    yield server
    server.close()


@pytest.fixture
def graph(neo4j, run_cli, embedder):
    """The session's Neo4j, emptied, its schema applied for the counting embedder's vectors."""
    embedder.encoded.clear()
    result = run_cli("apply-schema", env=embedder.env())
    assert result.exit_code == 0, result.output
    return neo4j


def cli_json(run_cli, embedder, *args: str, env: dict | None = None, code: int = 0) -> dict:
    """The command's --json answer; `code` 3: some items failed (each one line on stderr)."""
    result = run_cli(*args, "--json", env={**embedder.env(), **(env or {})})
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def rows(server, cypher: str, **params) -> list[dict]:
    with server.driver() as driver:
        return [r.data() for r in driver.execute_query(cypher, **params).records]


def hostile_folder(folder: Path) -> Path:
    """A CSV, a JSON file and a source file each holding one 9 KB word, beside a benign note."""
    folder.mkdir()
    (folder / "keys.csv").write_text(f"name,key\nQuillon Bay harbour,{blob(seed=1)}\nPerrow,short\n")
    (folder / "dump.json").write_text(json.dumps({"note": "Quillon Bay archive", "payload": blob(seed=2)}))
    (folder / "bundle.py").write_text(f'"""Minified assets of Quillon Bay."""\nASSET = "{blob(seed=3)}"\n')
    (folder / "note.md").write_text("# Quillon Bay\n\nThe harbour of Quillon Bay traded glass with Perrow.\n")
    return folder


def test_a_9kb_word_poisons_no_later_job(graph, run_cli, embedder, tmp_path):
    first = cli_json(run_cli, embedder, "learn", f"path: {hostile_folder(tmp_path / 'hostile')}")
    assert first["errors"] == [] and first["documents"]["created"] == 4, first
    assert "errors" not in first["phrases"], first["phrases"]
    longest = rows(graph, "MATCH (w:Word) RETURN max(size(w.id)) AS words")[0]["words"]
    assert longest <= 64
    assert rows(graph, "MATCH (t:Term) RETURN max(size(t.id)) AS terms")[0]["terms"] <= 256
    chunks = rows(graph, "MATCH (c:Chunk) WHERE c.text CONTAINS $b RETURN c.id AS id", b=blob(seed=1)[:500])
    assert chunks, "the blob stays in its chunk's text"
    # benign jobs after it, and the phrase linker, all succeed
    (tmp_path / "later").mkdir()
    (tmp_path / "later" / "log.md").write_text("# Perrow\n\nGlass from Perrow reached Quillon Bay by cart.\n")
    later = cli_json(run_cli, embedder, "learn", f"path: {tmp_path / 'later'}")
    assert later["errors"] == [] and later["documents"]["created"] == 1, later
    linked = cli_json(run_cli, embedder, "link", "phrases")
    assert linked["errors"] == []
    shared = rows(graph, "MATCH (c:Chunk)-[:HAS_PHRASE]->(p:Phrase {id: 'quillon bay'}) RETURN count(c) AS n")
    assert shared[0]["n"] >= 2


def test_a_chunk_an_earlier_version_could_not_link_is_skipped_and_reported(
    graph, run_cli, embedder, tmp_path, monkeypatch
):
    """A graph where a pending chunk holds words Neo4j cannot index (what an earlier version
    left): the phrase linker skips that chunk, reports it, and links the others."""
    from graphrag_cypher.linkers import phrases

    (tmp_path / "before").mkdir()
    (tmp_path / "before" / "log.md").write_text("# Perrow\n\nGlass from Perrow reached Quillon Bay by cart.\n")
    cli_json(run_cli, embedder, "load", "files", str(tmp_path / "before"), "--no-embed")
    assert cli_json(run_cli, embedder, "link", "phrases")["errors"] == []  # the graph's phrase state
    folder = hostile_folder(tmp_path / "hostile")
    loaded = cli_json(run_cli, embedder, "load", "files", str(folder), "--no-embed")
    assert loaded["documents"]["created"] == 4
    # as before the bound: the 9 KB words reach Neo4j, which refuses them as index keys
    with monkeypatch.context() as patch:
        patch.setattr(phrases, "MAX_TOKEN_CHARS", 100_000)
        linked = cli_json(run_cli, embedder, "link", "phrases")
        again = cli_json(run_cli, embedder, "link", "phrases")
    assert linked["full"] is False
    refused = {e["item"] for e in linked["errors"]}
    assert len(refused) == 3, linked["errors"]
    assert all("keys.csv" in i or "dump.json" in i or "bundle.py" in i for i in refused)
    assert all(e["error"] for e in linked["errors"])
    assert rows(graph, "MATCH (c:PendingPhrases) RETURN count(c) AS n")[0]["n"] == 0
    assert rows(graph, "MATCH (c:Chunk) WHERE c.phraseError IS NOT NULL RETURN count(c) AS n")[0]["n"] == 3
    note = rows(graph, "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d {title: 'Quillon Bay'}) RETURN c.lowerWords AS w")
    assert "harbour" in note[0]["w"], "the benign chunk was linked"
    assert again["errors"] == [], "skipped chunks do not come back to fail the next run"
    full = cli_json(run_cli, embedder, "link", "phrases", "--full")
    assert full["errors"] == [] and full["phrases"] >= 1


def test_a_document_neo4j_refuses_is_reported_and_the_rest_written(graph, run_cli, embedder, tmp_path, monkeypatch):
    from graphrag_cypher.store import ingest

    folder = tmp_path / "dated"
    folder.mkdir()
    long_date = "2024-" + blob(seed=4)
    (folder / "bad.md").write_text(f"---\ndate: {long_date}\n---\n# Bad\n\nA note with a date too long to index.\n")
    for i in range(3):
        (folder / f"good{i}.md").write_text(f"# Good {i}\n\nThe harbour log of day {i}.\n")
    # bounded: the date is cut to the index's bound, with a note, and every document loads
    cut = cli_json(run_cli, embedder, "load", "files", str(folder))
    assert cut["documents"]["created"] == 4 and cut["errors"] == []
    assert any("property 'date' cut" in w["warning"] for w in cut["warnings"]), cut["warnings"]
    # unbounded (as an earlier version): Neo4j refuses that document's write, the batch's others are written
    monkeypatch.setattr(ingest, "INDEXED_METADATA", frozenset())  # the run_cli env is set per call
    (folder / "bad.md").write_text(f"---\ndate: {long_date}\n---\n# Bad\n\nThe same note, changed.\n")
    for i in range(3):
        (folder / f"good{i}.md").write_text(f"# Good {i}\n\nThe harbour log of day {i}, revised.\n")
    refused = cli_json(run_cli, embedder, "load", "files", str(folder), code=3)
    assert refused["documents"]["updated"] == 3 and refused["documents"]["failed"] == 1, refused
    assert [e["item"].endswith("bad.md") for e in refused["errors"]] == [True]
    assert refused["errors"][0]["error"].startswith("not written: ")
    texts = rows(graph, "MATCH (c:Chunk) WHERE c.text CONTAINS 'revised' RETURN count(c) AS n")
    assert texts[0]["n"] == 3
    kept = rows(graph, "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(:Document {title: 'Bad'}) RETURN c.text AS t")
    assert "too long to index" in kept[0]["t"], "the refused document keeps its earlier version"


def test_a_document_the_embedder_refuses_is_reported_and_the_rest_loaded(graph, run_cli, embedder, tmp_path):
    folder = tmp_path / "refused"
    folder.mkdir()
    (folder / "a.md").write_text("# Alpha\n\nThe harbour of Ostia.\n")
    (folder / "b.md").write_text(f"# Beta\n\nA text the endpoint refuses: {REFUSE}.\n")
    (folder / "c.md").write_text("# Gamma\n\nThe lighthouse of Portus.\n")
    learned = cli_json(run_cli, embedder, "learn", f"path: {folder}", code=3)
    assert learned["documents"]["created"] == 2 and learned["documents"]["failed"] == 1, learned
    assert len(learned["errors"]) == 1 and learned["errors"][0]["item"].endswith("b.md")
    assert learned["errors"][0]["error"].startswith("not embedded: ")
    titles = rows(graph, "MATCH (d:Document) RETURN d.title AS t ORDER BY t")
    assert [r["t"] for r in titles] == ["Alpha", "Gamma"]
    (folder / "b.md").write_text("# Beta\n\nNow a text the endpoint takes.\n")
    again = cli_json(run_cli, embedder, "learn", f"path: {folder}")
    assert again["errors"] == [] and again["documents"]["created"] == 1


BOILERPLATE = (
    "This page belongs to the harbour archive of Quillon Bay. Its pages are kept by volunteers and may be copied "
    "with credit. Corrections go to the archive's desk at the old customs house, open on weekdays. "
) * 4


def site_page(path: Path, n: int, title: str = "Quillon Bay archive") -> None:
    """A page of the archive's site: its heading (the title), its own text, the site's boilerplate."""
    path.write_text(
        f"# {title}\n\n## Entry {n}\n\nEntry {n} records ship {n} and its cargo of glass.\n\n"
        f"## About\n\n{BOILERPLATE}\n"
    )


def test_a_chunk_text_is_encoded_once_per_load_and_never_again(graph, run_cli, embedder, tmp_path):
    first = tmp_path / "first"
    first.mkdir()
    for n in range(6):
        site_page(first / f"page{n}.md", n)
    loaded = cli_json(run_cli, embedder, "load", "files", str(first))
    assert loaded["documents"]["created"] == 6
    assert max(embedder.encoded.values()) == 1, "each distinct text encoded once"
    assert len(embedder.encoded) == 7  # six entries and the boilerplate
    assert loaded["chunks"]["embedded"] == 7 and loaded["chunks"]["vectors_reused"] == 5
    boiler = [t for t in embedder.encoded if BOILERPLATE.strip()[:60] in t]
    assert len(boiler) == 1
    # new pages of the same site: only their own entries are encoded
    embedder.encoded.clear()
    second = tmp_path / "second"
    second.mkdir()
    for n in range(6, 10):
        site_page(second / f"page{n}.md", n)
    again = cli_json(run_cli, embedder, "load", "files", str(second))
    assert again["documents"]["created"] == 4
    assert sorted(embedder.encoded.values()) == [1, 1, 1, 1]
    assert not any(BOILERPLATE.strip()[:60] in t for t in embedder.encoded)
    same = rows(
        graph,
        "MATCH (c:Chunk) WHERE c.text STARTS WITH 'This page belongs' "
        "RETURN count(c) AS n, count(DISTINCT c.contentHash) AS hashes, count(c.embedding) AS vectors",
    )
    assert same[0] == {"n": 10, "hashes": 1, "vectors": 10}


def test_boilerplate_under_other_titles_is_encoded_once_per_load(graph, run_cli, embedder, tmp_path):
    """Pages with titles of their own that share the site's boilerplate: the boilerplate is one
    encode (the first title's vector serves the others), each page's own text one each."""
    embedder.encoded.clear()
    folder = tmp_path / "titled"
    folder.mkdir()
    for n in range(20, 25):
        site_page(folder / f"page{n}.md", n, title=f"Ship {n} of Quillon Bay")
    loaded = cli_json(run_cli, embedder, "load", "files", str(folder))
    assert loaded["documents"]["created"] == 5
    assert max(embedder.encoded.values()) == 1
    assert len([t for t in embedder.encoded if BOILERPLATE.strip()[:60] in t]) == 1
    assert len(embedder.encoded) == 6 and loaded["chunks"]["embedded"] == 6  # five entries, one boilerplate
    vectors = rows(
        graph,
        "MATCH (c:Chunk) WHERE c.title STARTS WITH 'Ship ' AND c.text STARTS WITH 'This page belongs' "
        "RETURN count(c) AS n, count(DISTINCT c.contentHash) AS hashes, count(DISTINCT c.embedding) AS vectors",
    )
    assert vectors[0] == {"n": 5, "hashes": 5, "vectors": 1}


def mediawiki_export(path: Path, pages: list[tuple[str, str]]) -> Path:
    body = "".join(
        f"<page><title>{title}</title><ns>0</ns><id>{i + 1}</id><revision><id>{i + 1}</id>"
        f'<timestamp>2024-01-01T00:00:00Z</timestamp><text xml:space="preserve">{text}</text></revision></page>\n'
        for i, (title, text) in enumerate(pages)
    )
    path.write_text(
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">\n'
        "<siteinfo><sitename>Hostile</sitename><dbname>hostile</dbname>"
        '<namespaces><namespace key="0" case="first-letter" /></namespaces></siteinfo>\n'
        f"{body}</mediawiki>\n"
    )
    return path


SENTENCE = "The harbour master of Ostia counted the grain ships that came in with the morning tide. "


def test_a_repeated_page_is_cut_at_the_budget_and_each_text_encoded_once(graph, run_cli, embedder, tmp_path):
    export = mediawiki_export(tmp_path / "export.xml", [("Grain Ships", SENTENCE * 3000), ("Quay", "A short page.")])
    loaded = cli_json(run_cli, embedder, "load", "mediawiki", str(export), env={"GRAPHRAG_PARSE_MAX_CHARS": "50000"})
    assert loaded["documents"]["created"] == 2 and loaded["errors"] == []
    assert [w["item"].endswith("export.xml [Grain Ships]") for w in loaded["warnings"]] == [True]
    cut = [w["warning"] for w in loaded["warnings"]]
    assert len(cut) == 1 and cut[0].startswith("text cut at character ") and "50,000-character budget" in cut[0]
    total = rows(graph, "MATCH (c:Chunk {title: 'Grain Ships'}) RETURN count(c) AS n, max(c.index) AS last")[0]
    assert 45 <= total["n"] <= 60, total
    # packed sentence by sentence, the chunks of one repeated sentence are one or two texts
    assert sum(embedder.encoded.values()) <= 4 and max(embedder.encoded.values()) == 1
    # the semantic chunker embeds a repeated sentence once too
    embedder.encoded.clear()
    semantic = cli_json(run_cli, embedder, "load", "mediawiki", str(export), "--semantic")
    assert semantic["documents"]["updated"] == 2
    assert max(embedder.encoded.values()) == 1 and sum(embedder.encoded.values()) <= 6


def test_an_id_or_corpus_too_long_to_index_is_one_line(graph, run_cli, embedder, tmp_path):
    export = mediawiki_export(
        tmp_path / "export.xml", [("T" * 2000, "A page whose title is a blob."), ("Quay", "Fine.")]
    )
    loaded = cli_json(run_cli, embedder, "load", "mediawiki", str(export), code=3)
    assert loaded["documents"]["created"] == 1 and loaded["documents"]["failed"] == 1
    assert "id too long" in loaded["errors"][0]["error"]
    assert loaded["errors"][0]["item"].endswith(".xml [" + "T" * 79 + "…]"), "the page is named by its title"
    result = run_cli("load", "mediawiki", str(export), "--corpus", "c" * 5000, env=embedder.env())
    assert result.exit_code == 1 and "corpus name too long" in result.output
    assert len(result.output.strip().splitlines()) == 1
