"""`graphrag link titles` on a small passage corpus: topics, mentions, idempotence, graph mode."""

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "eval" / "corpus.json"


def test_titles_become_topics_and_links_are_idempotent(schema, run_cli):
    assert run_cli("load", "qa-corpus", str(CORPUS), "--corpus", "realm", "--no-embed").exit_code == 0
    first = json.loads(run_cli("link", "titles", "--corpus", "realm", "--json").stdout)
    assert first["topics"] == 8 and first["title_mentions_found"] >= 5 and first["mentions_created"] > 8
    again = json.loads(run_cli("link", "titles", "--corpus", "realm", "--json").stdout)
    assert again["mentions_created"] == 0 and again["mentions_total"] == first["mentions_total"]
    with schema.driver() as driver:
        rows = driver.execute_query(
            "MATCH (c:Chunk)-[m:MENTIONS {rule: 'title-in-text'}]->(t:Topic {name: 'Mount Greyhorn'}) "
            "MATCH (c)-[:FROM_DOCUMENT]->(d) RETURN collect(d.title) AS titles"
        ).records[0]["titles"]
    assert {"Hollowmere", "Brannock", "River Wend"} & set(rows)


def test_graph_mode_follows_a_named_topic(schema, run_cli):
    assert run_cli("load", "qa-corpus", str(CORPUS), "--corpus", "realm").exit_code == 0
    assert run_cli("link", "titles", "--corpus", "realm").exit_code == 0
    out = json.loads(
        run_cli(
            "ask",
            "Which village keeps the silver lantern, and what giant lives on the mountain above it?",
            "--mode",
            "graph",
            "-k",
            "3",
            "--json",
        ).stdout
    )
    titles = [e["title"] for e in out["evidence"]]
    assert "Hollowmere" in titles, out["abstained"]
    assert any("about" in via for e in out["evidence"] for via in e["via"]) or "Mount Greyhorn" in titles
