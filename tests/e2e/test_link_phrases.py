"""`graphrag link phrases`: shared named phrases, idempotence, stale links, and graph mode."""

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "phrases" / "corpus.json"
QUESTION = "Who designed the lighthouse in the town where the Velmora Tide festival is held?"


def _phrase(schema, name):
    with schema.driver() as driver:
        rows = driver.execute_query(
            "MATCH (p:Phrase {id: $id}) OPTIONAL MATCH (c:Chunk)-[:HAS_PHRASE]->(p) "
            "MATCH (c)-[:FROM_DOCUMENT]->(d) RETURN p.chunks AS chunks, collect(d.title) AS titles",
            id=name,
        ).records
    return rows[0] if rows else None


def test_shared_phrases_link_chunks_and_a_second_run_changes_nothing(schema, run_cli, tmp_path):
    corpus = tmp_path / "corpus.json"
    corpus.write_text(CORPUS.read_text())
    assert run_cli("load", "qa-corpus", str(corpus), "--corpus", "coast", "--no-embed").exit_code == 0
    first = json.loads(run_cli("link", "phrases", "--json").stdout)
    assert first["chunks"] == 7 and first["links_created"] == first["links"] > 0
    bay = _phrase(schema, "quillon bay")
    assert bay["chunks"] == 2 and set(bay["titles"]) == {"Velmora Tide", "Saltglass Lighthouse"}
    assert _phrase(schema, "velmora tide") is None  # in one chunk only: joins nothing
    again = json.loads(run_cli("link", "phrases", "--json").stdout)
    assert again["links"] == first["links"]
    assert again["links_created"] == again["links_removed"] == again["phrases_written"] == again["phrases_removed"] == 0

    # Perrow leaves the lighthouse passage: the phrase is now in one chunk and goes away.
    passages = json.loads(CORPUS.read_text())
    passages[1]["text"] = passages[1]["text"].replace("a glassworks in Perrow", "a distant glassworks")
    corpus.write_text(json.dumps(passages))
    assert run_cli("load", "qa-corpus", str(corpus), "--corpus", "coast", "--no-embed", "--prune").exit_code == 0
    third = json.loads(run_cli("link", "phrases", "--json").stdout)
    assert third["phrases_removed"] >= 1 and _phrase(schema, "perrow") is None
    assert _phrase(schema, "quillon bay")["chunks"] == 2


def test_graph_mode_follows_a_shared_phrase_to_the_second_hop(schema, run_cli):
    assert run_cli("load", "qa-corpus", str(CORPUS), "--corpus", "coast").exit_code == 0
    assert run_cli("link", "phrases").exit_code == 0
    graph = json.loads(run_cli("ask", QUESTION, "--mode", "graph", "-k", "2", "--json").stdout)
    titles = [e["title"] for e in graph["evidence"]]
    assert titles == ["Velmora Tide", "Saltglass Lighthouse"]
    assert "Quillon Bay" in graph["evidence"][1]["via"][0]
    hybrid = json.loads(run_cli("ask", QUESTION, "--mode", "hybrid", "-k", "2", "--json").stdout)
    assert "Saltglass Lighthouse" not in [e["title"] for e in hybrid["evidence"]]
