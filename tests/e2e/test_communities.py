"""`graphrag communities build | show | report`: GDS Leiden communities, their reports, idempotence,
incremental rebuilds, the empty GDS catalog, doctor's state, and LLM reports (cached, retried)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ..llm_server import LLMServer

pytestmark = pytest.mark.e2e
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "communities"
BEES = {"Hollowmere Apiary", "Queen Rearing at Hollowmere", "The Tarrin Honey Fair", "Varroa Mites", "Swarming"}
BEES |= {"Winter Hives"}
VOLCANO = {"Mount Caldrun", "The Caldrun Observatory", "Lava of Essery", "The Orn Eruption", "Volcanic Ash"}
VOLCANO |= {"Hot Springs of Essery"}


def rows(server, text: str, **params) -> list[dict]:
    with server.driver() as driver:
        return [r.data() for r in driver.execute_query(text, params).records]


def catalog(server) -> list:
    return rows(server, "CALL gds.graph.list() YIELD graphName RETURN graphName")


def build(run_cli, *args: str, env: dict | None = None) -> dict:
    result = run_cli("communities", "build", "--json", *args, env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def communities(server) -> dict[str, dict]:
    found = rows(
        server,
        "MATCH (c:Community) RETURN c {.*, embedding: null, hasEmbedding: c.embedding IS NOT NULL} AS c, "
        "COLLECT { MATCH (m:Chunk)-[:IN_COMMUNITY]->(c) MATCH (m)-[:FROM_DOCUMENT]->(d) RETURN d.title } AS titles, "
        "COLLECT { MATCH (m:Chunk)-[:IN_COMMUNITY]->(c) RETURN m.id } AS chunkIds",
    )
    return {r["c"]["id"]: {**r["c"], "titles": set(r["titles"]), "chunkIds": set(r["chunkIds"])} for r in found}


@pytest.fixture
def sample(neo4j_server, monkeypatch):
    from ..conftest import load_sample_graph

    load_sample_graph(neo4j_server, ["load", "sample"], ["link", "phrases"])
    neo4j_server.point_env(monkeypatch)
    return neo4j_server


@pytest.fixture
def topics(schema, run_cli, tmp_path):
    """Twelve passages on two topics (bees, a volcano), phrases linked."""
    assert run_cli("load", "qa-corpus", str(FIXTURES / "corpus.json"), "--corpus", "topics").exit_code == 0
    assert run_cli("link", "phrases").exit_code == 0
    return schema


def test_build_on_the_sample_writes_communities_with_reports_and_a_second_build_writes_nothing(sample, run_cli):
    first = build(run_cli)
    assert first["levels"] >= 1 and len(first["counts"]) == first["levels"] and all(first["counts"])
    assert first["created"] == sum(first["counts"]) and first["kept"] == first["deleted"] == 0
    assert first["algorithm"] == "leiden" and first["written"] and first["knn_relationships"] > 0
    assert catalog(sample) == [], "the projection is dropped"

    found = communities(sample)
    assert len(found) == sum(first["counts"])
    texts = {
        r["id"]: " ".join(r["text"].split()) for r in rows(sample, "MATCH (c:Chunk) RETURN c.id AS id, c.text AS text")
    }
    for community in found.values():
        assert re.fullmatch(r"L\d+-[0-9a-f]{12}", community["id"]) and community["id"].startswith(
            f"L{community['level']}-"
        )
        assert community["size"] >= 2 and community["chunks"] == len(community["chunkIds"])
        assert community["title"] and community["title"] == " · ".join(community["phrases"][:3])
        assert community["hasEmbedding"] and community["builtAt"]
        assert 1 <= len(community["sentences"]) <= 3 and len(community["sentences"]) == len(community["sentenceChunks"])
        for sentence, chunk in zip(community["sentences"], community["sentenceChunks"], strict=True):
            assert chunk in community["chunkIds"], "a sentence comes from a member chunk"
            assert sentence.rstrip("…") in texts[chunk]
        assert (
            community["title"].split(" · ")[0].split()[0] in " ".join(texts[c] for c in community["chunkIds"]).lower()
        )
        assert set(community["documentIds"]) and community["documents"] == len(set(community["documentIds"]))
        assert community["summary"].startswith(community["title"])
    level0 = [c for c in found.values() if c["level"] == 0]
    assert sum(c["chunks"] for c in level0) == first["members"], "level 0 covers every placed chunk once"
    parents = rows(sample, "MATCH (a:Community)-[:PARENT]->(b:Community) RETURN a.level AS a, b.level AS b")
    assert all(p["a"] == p["b"] + 1 for p in parents)
    if first["levels"] > 1:
        assert len(parents) == sum(first["counts"][1:])
    edges = rows(sample, "MATCH (:Chunk)-[r:IN_COMMUNITY]->(c:Community) RETURN r.level = c.level AS same")
    assert edges and all(e["same"] for e in edges)

    again = build(run_cli)
    assert again["created"] == again["updated"] == again["deleted"] == 0 and not again["written"]
    assert again["kept"] == sum(first["counts"]) and again["built_at"] == first["built_at"]
    assert {k: v["builtAt"] for k, v in communities(sample).items()} == {k: v["builtAt"] for k, v in found.items()}
    assert catalog(sample) == []

    shown = run_cli("communities", "show", "--level", "0")
    assert shown.exit_code == 0 and all(c["id"] in shown.stdout for c in level0)
    listed = json.loads(run_cli("communities", "show", "--json", "--limit", "2").stdout)["communities"]
    assert len(listed) == 2 and listed[0]["level"] == 0
    biggest = listed[0]["id"]
    report = run_cli("communities", "report", biggest)
    assert report.exit_code == 0 and found[biggest]["sentences"][0][:40] in " ".join(report.stdout.split())
    as_json = json.loads(run_cli("communities", "report", biggest, "--json").stdout)
    assert as_json["id"] == biggest and "embedding" not in as_json and as_json["children"] is not None
    missing = run_cli("communities", "report", "L0-000000000000")
    assert (
        missing.exit_code == 1
        and "communities show" in missing.output
        and len(missing.output.strip().splitlines()) == 1
    )


def test_two_topics_fall_apart_and_a_new_document_rewrites_only_what_changed(topics, run_cli):
    first = build(run_cli)
    found = communities(topics)
    assert any(c["titles"] <= BEES for c in found.values()) and any(c["titles"] <= VOLCANO for c in found.values())
    finest = max(c["level"] for c in found.values())
    for community in (c for c in found.values() if c["level"] == finest):
        assert community["titles"] <= BEES or community["titles"] <= VOLCANO, community["titles"]
    bees = next(c for c in found.values() if c["titles"] == BEES)
    assert "honey" in bees["phrases"] or "bees" in bees["phrases"]

    doctor = json.loads(run_cli("doctor", "--json").stdout)["communities"]
    assert doctor["built"] and doctor["stale"] is False and doctor["counts"] == first["counts"]
    assert run_cli("load", "qa-corpus", str(FIXTURES / "later.json"), "--corpus", "topics").exit_code == 0
    assert run_cli("link", "phrases").exit_code == 0
    doctor = json.loads(run_cli("doctor", "--json").stdout)
    assert doctor["communities"]["stale"] is True
    assert any("communities build" in w for w in doctor["warnings"])
    text = run_cli("doctor").stdout
    assert "Communities" in text and "stale" in text

    second = build(run_cli)
    assert second["created"] >= 1 and second["kept"] >= 1
    after = communities(topics)
    kept = set(found) & set(after)
    assert second["kept"] == len(kept) and second["deleted"] == len(set(found) - set(after))
    assert any(after[k]["titles"] == BEES for k in kept) or any(after[k]["titles"] == VOLCANO for k in kept)
    assert all(after[k]["builtAt"] == found[k]["builtAt"] for k in kept), "kept communities are not rewritten"
    assert any("Kestle Sailing Club" in c["titles"] for c in after.values())
    assert json.loads(run_cli("doctor", "--json").stdout)["communities"]["stale"] is False


def test_a_failing_build_leaves_the_catalog_empty_and_says_so_in_one_line(topics, run_cli, monkeypatch):
    from graphrag_cypher.linkers import communities as module

    monkeypatch.setattr(module, "KNN_TOP_K", 0)  # GDS refuses topK 0 after the projection was made
    result = run_cli("communities", "build")
    lines = result.output.strip().splitlines()  # progress lines on stderr, then the error
    assert result.exit_code == 1 and lines[-1].startswith("Error: ") and "topK" in lines[-1], result.output
    assert "Traceback" not in result.output
    assert catalog(topics) == []
    assert rows(topics, "MATCH (c:Community) RETURN count(c) AS n")[0]["n"] == 0


def test_an_empty_graph_is_one_actionable_line(schema, run_cli):
    result = run_cli("communities", "build")
    assert result.exit_code == 1 and "load documents first" in result.output
    assert "not built" in run_cli("doctor").stdout
    assert json.loads(run_cli("doctor", "--json").stdout)["communities"]["built"] is False
    assert "none built yet" in run_cli("communities", "show").stdout
    no_llm = run_cli("communities", "build", "--llm-reports")
    assert no_llm.exit_code == 1 and "GRAPHRAG_LLM_MODEL" in no_llm.output


def test_louvain_stands_in_when_leiden_cannot_run(topics, run_cli, monkeypatch):
    from graphdatascience.procedure_surface.cypher.community.leiden_cypher_endpoints import LeidenCypherEndpoints
    from neo4j.exceptions import ClientError

    def refuse(*args, **kwargs):
        raise ClientError("Leiden refused this graph")

    monkeypatch.setattr(LeidenCypherEndpoints, "stream", refuse)
    out = build(run_cli)
    assert out["algorithm"] == "louvain" and out["levels"] >= 1 and sum(out["counts"]) >= 2
    assert catalog(topics) == []
    assert rows(topics, "MATCH (s:__CommunityState) RETURN s.algorithm AS a")[0]["a"] == "louvain"


def test_llm_reports_are_cached_by_members_and_model_and_429_is_retried(topics, run_cli):
    def reply(body):
        ids = re.findall(r"^\[([^\]]+)\]", body["messages"][1]["content"], re.MULTILINE)
        return f"A report.\nThe passages tell one story [{ids[0]}] and cite a made-up one [nope::0]."

    server = LLMServer(reply, fail_first=2)
    env = {"OPENAI_BASE_URL": server.url, "GRAPHRAG_LLM_MODEL": "recorded-reports", "OPENAI_API_KEY": "test"}
    try:
        first = build(run_cli, "--llm-reports", "--parallel", "2", env=env)
        total = sum(first["counts"])
        assert first["llm"]["written"] == first["llm"]["requested"] == total and first["llm"]["failed"] == 0
        assert len(server.requests) == total + 2, "the two 429s were retried"
        found = communities(topics)
        for community in found.values():
            assert community["llmModel"] == "recorded-reports"
            cited = re.findall(r"\[([^\]]+)\]", community["llmReport"])
            assert cited and set(cited) <= community["chunkIds"], "unknown ids are dropped"
        again = build(run_cli, "--llm-reports", env=env)
        assert again["llm"]["requested"] == 0 and again["llm"]["cached"] == total
        assert len(server.requests) == total + 2, "no request for a community that has its report"
        some = next(iter(found))
        shown = run_cli("communities", "report", some, env=env)
        assert "LLM report (recorded-reports)" in shown.stdout
    finally:
        server.close()


def test_chunks_without_an_embedding_take_part_without_knn(topics, run_cli):
    later = FIXTURES / "later.json"
    assert run_cli("load", "qa-corpus", str(later), "--corpus", "boats", "--no-embed").exit_code == 0
    assert run_cli("link", "phrases").exit_code == 0
    out = build(run_cli, "--no-embed")
    assert out["embedded"] == 12 and out["chunks"] == 15 and out["knn_relationships"] > 0
    found = communities(topics)
    sailing = [c for c in found.values() if c["titles"] & {"Kestle Sailing Club", "The Brisk Regatta"}]
    assert sailing and all(c["corpora"] == ["boats"] for c in sailing), "joined by their shared names"
    assert all(not c["hasEmbedding"] for c in sailing), "no member chunk has a vector, and --no-embed"
    shown = json.loads(run_cli("communities", "show", "--corpus", "boats", "--json").stdout)["communities"]
    assert {c["id"] for c in shown} == {c["id"] for c in sailing}


def test_entities_join_the_communities_of_the_chunks_that_mention_them(sample, run_cli):
    assert run_cli("extract", "--schema", "got", "--extractor", "infobox").exit_code == 0
    assert run_cli("link", "entities").exit_code == 0
    out = build(run_cli, "--no-embed")
    assert out["members"] > out["chunks"], "entities are members too"
    found = communities(sample)
    mixed = [c for c in found.values() if c["chunks"] and c["entities"]]
    assert mixed and any(c["topEntities"] and len(c["topEntities"]) == len(c["topEntityIds"]) for c in mixed)
    assert all(c["title"] for c in found.values()), "a community of entities alone is named by them"
    levels = rows(sample, "MATCH (:__Entity__)-[r:IN_COMMUNITY]->(c) RETURN DISTINCT r.level = c.level AS same")
    assert levels == [{"same": True}]
    per_level = rows(
        sample,
        "MATCH (e:__Entity__)-[r:IN_COMMUNITY]->() WITH e, r.level AS level, count(*) AS n RETURN max(n) AS most",
    )
    assert per_level[0]["most"] == 1, "one community per level"
