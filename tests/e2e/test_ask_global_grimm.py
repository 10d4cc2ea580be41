"""The global route on the 62 Grimm tales (shared data): a module of its own, since it loads
its own graph (the other global tests share the small fixture corpus's)."""

import json
import re
from pathlib import Path

import pytest

from .test_ask_global import assert_theme_lines

pytestmark = [pytest.mark.e2e, pytest.mark.real_data]

GRIMM = Path(__file__).resolve().parents[3] / "shared" / "data" / "tales" / "grimm-pg2591.txt"


@pytest.mark.skipif(not GRIMM.exists(), reason=f"the Grimm tales are not at {GRIMM}")
def test_grimm_tales(neo4j_server, run_cli, monkeypatch):
    """The 62 Grimm tales: a topic question's evidence is every tale that mentions the term
    (gold counted here from the stored chunk text), and the theme question answers from the
    communities `communities build` found: >= 8 tales cited from >= 5 communities, each line's
    sentence from its own community."""
    from ..conftest import load_sample_graph

    load_sample_graph(
        neo4j_server,
        ["load", "stories", str(GRIMM), "--corpus", "grimm"],
        ["link", "phrases"],
        ["communities", "build"],
    )
    neo4j_server.point_env(monkeypatch)
    with neo4j_server.driver() as driver, driver.session() as session:
        rows = session.run(
            "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document {corpus: 'grimm'}) RETURN d.id AS d, c.text AS text"
        ).data()
    mentions: dict[str, int] = {}
    witch = re.compile(r"(?<!\w)(?:witch|witches)(?!\w)", re.I)
    for row in rows:
        mentions[row["d"]] = mentions.get(row["d"], 0) + len(witch.findall(row["text"] or ""))
    gold_two = {d for d, n in mentions.items() if n >= 2}
    gold_one = {d for d, n in mentions.items() if n >= 1}
    result = run_cli("ask", "What do the Grimm tales say about witches?", "--json", "--no-llm")
    out = json.loads(result.stdout)
    evidence = {e["document_id"] for e in out["evidence"]}
    assert out["route"] == "global" and out["global"]["documents_total"] == len(gold_one)
    assert gold_two <= evidence <= gold_one
    themes = run_cli("ask", "What are the main themes of the Grimm tales?", "--corpus", "grimm", "--json", "--no-llm")
    out = json.loads(themes.stdout)
    assert out["route"] == "global" and out["global"]["family"] == "themes"
    used = [c for c in out["communities"] if c["used"]]
    assert len(used) >= 5 and len({c["document_id"] for c in out["citations"]}) >= 8
    assert_theme_lines(neo4j_server, out)
