"""`communities build --by-corpus`: two corpora that share both topics (bees and a volcano, their
passages dealt alternately to `a` and `b`). Over the whole graph a theme joins chunks of both
corpora, and a key scoped to one corpus is shown none of those; built by corpus, every community
holds one corpus's chunks, each corpus keeps both of its topics apart, the key sees all of its
corpus's themes, and later builds keep the mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag_cypher.principal import Principal, acting_as

pytestmark = pytest.mark.e2e
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "communities"
BEES = {"Hollowmere Apiary", "Queen Rearing at Hollowmere", "The Tarrin Honey Fair", "Varroa Mites", "Swarming"}
BEES |= {"Winter Hives"}


def build(run_cli, *args: str) -> dict:
    result = run_cli("communities", "build", "--json", "--no-embed", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def stored(server) -> list[dict]:
    """Each community with the corpora and titles of its member chunks, read from the chunks."""
    return server.rows(
        "MATCH (c:Community) RETURN c.id AS id, c.level AS level, c.corpora AS corpora, "
        "COLLECT { MATCH (m:Chunk)-[:IN_COMMUNITY]->(c) MATCH (m)-[:FROM_DOCUMENT]->(d) "
        "RETURN DISTINCT d.corpus } AS chunkCorpora, "
        "COLLECT { MATCH (m:Chunk)-[:IN_COMMUNITY]->(c) MATCH (m)-[:FROM_DOCUMENT]->(d) RETURN d.title } AS titles",
    )


def seen_by(corpus: str) -> set[str]:
    """The communities `communities show`, GET /communities and MCP list for a key of `corpus`."""
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect

    with connect(load_settings()) as graph, acting_as(Principal(f"team-{corpus}", (corpus,))):
        return {r["id"] for r in graph.read("communities/list", level=None, corpus=None, limit=1000)}


@pytest.fixture
def dealt(schema, run_cli, tmp_path, monkeypatch):
    """The twelve topic passages dealt alternately to corpora a and b, phrases linked."""
    passages = json.loads((FIXTURES / "corpus.json").read_text())
    for n, corpus in enumerate(("a", "b")):
        path = tmp_path / f"{corpus}.json"
        path.write_text(json.dumps(passages[n::2]))
        assert run_cli("load", "qa-corpus", str(path), "--corpus", corpus).exit_code == 0
    assert run_cli("link", "phrases").exit_code == 0
    schema.point_env(monkeypatch)
    return schema


def test_built_by_corpus_no_theme_joins_two_corpora_and_a_scoped_key_sees_all_of_its_own(dealt, run_cli):
    whole = build(run_cli)
    assert whole["by_corpus"] is False
    mixed = [c for c in stored(dealt) if len(c["chunkCorpora"]) > 1]
    assert mixed, "over the whole graph a topic joins both corpora's chunks"
    assert not {c["id"] for c in mixed} & seen_by("a"), "a key of a is shown no community that holds b"

    first = build(run_cli, "--by-corpus")
    assert first["by_corpus"] is True and first["created"] > 0
    found = stored(dealt)
    assert found and all(len(c["chunkCorpora"]) == 1 and c["corpora"] == c["chunkCorpora"] for c in found)
    for corpus in ("a", "b"):
        own = {c["id"] for c in found if c["corpora"] == [corpus]}
        assert own and seen_by(corpus) == own, corpus
    # each corpus's finest communities keep its two topics apart
    finest = max(c["level"] for c in found)
    for community in (c for c in found if c["level"] == finest):
        titles = set(community["titles"])
        assert titles <= BEES or not titles & BEES, community["titles"]

    doctor = run_cli("doctor")
    assert "leiden by corpus, built" in " ".join(doctor.output.split()), doctor.output

    again = build(run_cli)  # no flag: the mode of the last build
    assert again["by_corpus"] is True and again["created"] == again["updated"] == again["deleted"] == 0
    assert again["written"] is False and {c["id"] for c in stored(dealt)} == {c["id"] for c in found}

    back = build(run_cli, "--whole")
    assert back["by_corpus"] is False and back["written"] is True
    assert any(len(c["chunkCorpora"]) > 1 for c in stored(dealt))
