"""The global route on a small corpus of our own: every document that mentions a topic (gold
counted by hand, tests/fixtures/global/README.md), themes from `graphrag communities build` and
from communities of a known shape written as the graph model says (to check the level choice
and the ranking exactly), the fallback when none are built, local questions that keep their
route, --mode global, --explain, and the LLM's map-reduce with checked citations."""

import json
import re
from pathlib import Path

import pytest

from ..llm_server import LLMServer

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "global"
TWO_OR_MORE = {"w1", "w2", "w3"}
ONCE = {"w4", "w5"}
# the fixture's level-1 communities: title -> their stories
THEMES = {
    "wolf · forest · hunter": {"w1", "w2", "w3"},
    "witch · oven · cage": {"k1", "k2"},
    "frog · well · ball": {"r1", "r2", "n2"},
    "princess · king · marriage": {"p1", "p2", "w4"},
    "straw · gold · miller": {"g1", "g2", "n1"},
    "fish · sea · fisherman": {"f1", "w5"},
}
WOLF = re.compile(r"(?<!\w)(?:wolf|wolves)(?!\w)", re.I)


@pytest.fixture(scope="module")
def graph(neo4j_server):
    from ..conftest import load_sample_graph

    load_sample_graph(
        neo4j_server,
        ["load", "stories", str(FIXTURES / "tales.jsonl"), "--corpus", "moor"],
        ["load", "stories", str(FIXTURES / "other.jsonl"), "--corpus", "other"],
        ["load", "stories", str(FIXTURES / "zh.jsonl"), "--corpus", "zhmoor"],
        ["link", "phrases"],
    )
    _STATE["communities"] = "none"
    return neo4j_server


_STATE = {"communities": None}


def set_communities(server, kind: str) -> None:
    """The graph's communities: "none", "fixture" (tests/fixtures/global/communities.cypher, six at
    level 1 under two at level 0) or "build" (`graphrag communities build`)."""
    from click.testing import CliRunner

    from graphrag_cypher.admin.migrations import split_statements
    from graphrag_cypher.cli.main import cli

    if _STATE["communities"] == kind:
        return
    with server.driver() as driver, driver.session() as session:
        session.run("MATCH (m:Community) DETACH DELETE m").consume()
        session.run("MATCH (s:__CommunityState) DELETE s").consume()
        if kind == "fixture":
            for statement in split_statements((FIXTURES / "communities.cypher").read_text("utf-8")):
                session.run(statement).consume()
    if kind == "build":
        result = CliRunner().invoke(cli, ["communities", "build"], env=server.env())
        assert result.exit_code == 0, result.output
    _STATE["communities"] = kind


@pytest.fixture
def ask(graph, run_cli, monkeypatch):
    graph.point_env(monkeypatch)

    def run(question: str, *extra: str, env=None) -> dict:
        result = run_cli("ask", question, "--json", "--no-llm", *extra, env=env)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    return run


def story(document_id: str) -> str:
    return document_id.rsplit(":", 1)[-1]


def cited_stories(out: dict, text: str) -> set[str]:
    by_id = {s["id"]: s["document_id"] for s in out["sources"]}
    return {story(by_id[c]) for c in re.findall(r"\[([^\]]+)\]", text) if c in by_id}


@pytest.mark.parametrize("communities", ["none", "fixture", "build"])
def test_topic_quotes_every_document_that_mentions_the_term(graph, ask, communities):
    from graphrag_cypher.retrieval.answer import neutral

    set_communities(graph, communities)
    out = ask("What do the tales say about wolves?", "--corpus", "moor")
    assert out["route"] == "global" and out["mode"] == "global"
    found = out["global"]
    assert found["family"] == "topic" and found["method"] == "extractive" and found["term"] == "wolves"
    assert (found["documents_total"], found["shown"], found["rest"], found["budget"]) == (5, 5, 0, 30)
    evidence = [story(e["document_id"]) for e in out["evidence"]]
    assert set(evidence) == TWO_OR_MORE | ONCE and len(evidence) == 5, "one evidence per document, no other"
    if communities == "none":  # ranked: two or more mentions first
        assert set(evidence[:3]) == TWO_OR_MORE
    assert out["answer"].startswith("5 of the 16 tales mention “wolves” or “wolf”")
    assert "(extractive; no LLM)" in out["answer"].splitlines()[0]
    lines = [line for line in out["answer"].splitlines() if line.lstrip().startswith("- ")]
    assert len(lines) == 5
    for line in lines:  # one quoted sentence with the term, cited to the document it is from
        quoted = re.search(r"“(.+)” \[([^\]]+)\]$", line)
        assert quoted and WOLF.search(quoted.group(1)), line
        source = next(s for s in out["sources"] if s["id"] == quoted.group(2))
        text = next(e["text"] for e in out["evidence"] if e["document_id"] == source["document_id"])
        assert quoted.group(1) in neutral(text), "the sentence is stored text (brackets made parentheses)"
    assert {c["id"] for c in out["citations"]} == {s["id"] for s in out["sources"]}
    assert out["dropped_citations"] == [] and "Z9" not in {c["id"] for c in out["citations"]}
    assert "[Z9]" not in out["answer"], "a bracket in a document is no citation"
    if communities == "fixture":
        # 5 documents: groups of about three, so the finest level with at most 2 groups (level 1 has 3)
        assert found["level"] == 0 and "level 0: 2, level 1: 3" in found["reason"]
        titles = {c["title"] for c in out["communities"] if c["used"]}
        assert titles == {"forest · witch · frog", "king · princess · gold"}
        assert "forest · witch · frog:" in out["answer"].splitlines()
    elif communities == "build":
        assert found["level"] is not None and "; grouped " in found["reason"]
        for c in out["communities"]:  # each group heads its documents, and they are its members
            assert c["used"] and c["level"] == found["level"] and f"{c['title']}:" in out["answer"].splitlines()
    else:
        assert found["level"] is None and out["communities"] == []


def test_topic_budget_then_a_count_of_the_rest(graph, ask, monkeypatch):
    from graphrag_cypher.retrieval.global_search import topic

    set_communities(graph, "none")
    monkeypatch.setattr(topic, "TOPIC_BUDGET", 3)  # read where the topic answer is made
    out = ask("What is said about wolves in the tales?", "--corpus", "moor")
    assert (out["global"]["documents_total"], out["global"]["shown"], out["global"]["rest"]) == (5, 3, 2)
    assert {story(e["document_id"]) for e in out["evidence"]} == TWO_OR_MORE
    assert out["answer"].splitlines()[-1] == "… and 2 more tales mention it."


def test_a_possessive_plural_is_read_as_the_term(graph, ask):
    """ "millers' daughters" and "the hunters' children": the tales write "the miller's daughter",
    "the hunter's children" (n1, w2, counted by hand); the answer says both forms."""
    set_communities(graph, "none")
    out = ask("What do the tales say about millers' daughters?", "--corpus", "moor")
    assert out["route"] == "global" and out["global"]["term"] == "millers' daughters"
    assert [story(e["document_id"]) for e in out["evidence"]] == ["n1"]
    assert out["answer"].startswith("1 of the 16 tales mention “millers' daughters” or “miller's daughter”")
    assert "miller's daughter" in out["answer"].splitlines()[1]
    out = ask("How are the hunters’ children described in the tales?", "--corpus", "moor")
    assert [story(e["document_id"]) for e in out["evidence"]] == ["w2"]


def test_a_chinese_topic_question(graph, ask):
    set_communities(graph, "none")
    out = ask("这些故事关于狼说了什么？", "--corpus", "zhmoor")
    assert out["route"] == "global" and out["global"]["term"] == "狼"
    assert [story(e["document_id"]) for e in out["evidence"]] == ["z1", "z2"], "z1 names it 3 times, z2 once"
    head, *lines = out["answer"].splitlines()
    assert head.startswith("3 篇故事中有 2 篇提到“狼”") and len(lines) == 2
    assert all("狼" in line for line in lines)


def test_the_scope_holds(graph, ask):
    set_communities(graph, "none")
    everywhere = ask("What do the stories say about wolves?")
    assert "story:other:o1" in {e["document_id"] for e in everywhere["evidence"]}
    assert everywhere["global"]["documents_total"] == 6
    moor = ask("How do the stories portray wolves?", "--corpus", "moor")
    assert "story:other:o1" not in {e["document_id"] for e in moor["evidence"]}


def test_themes_on_communities_of_a_known_shape(graph, ask):
    set_communities(graph, "fixture")
    out = ask("What are the main themes of the tales?", "--corpus", "moor")
    assert out["route"] == "global" and out["global"]["family"] == "themes" and out["global"]["level"] == 1
    head, *lines = out["answer"].splitlines()
    assert head == "Themes of the 16 tales, from 6 communities of the graph (extractive; no LLM):"
    assert len(lines) == 6
    assert_theme_lines(graph, out)
    for number, line in enumerate(lines, 1):
        title = next(t for t in THEMES if line.startswith(f"{number}. {t} (key phrases: "))
        stories = cited_stories(out, line)
        assert stories and stories <= THEMES[title], f"{line!r} quotes {stories}"
    cited = cited_stories(out, out["answer"])
    assert len(cited) >= 8, "fewer than 8 themes: a second sentence each, from another document"
    assert {c["id"] for c in out["citations"]} <= {s["id"] for s in out["sources"]}
    used = [c for c in out["communities"] if c["used"]]
    assert len(used) == 6 and all(c["level"] == 1 and c["id"].startswith("L1-") for c in used)
    assert used[0]["title"] in {
        "wolf · forest · hunter",
        "frog · well · ball",
        "princess · king · marriage",
        "straw · gold · miller",
    }  # ranked by in-scope chunks (3 each)
    assert "level 1: 6 communities" in out["global"]["reason"]


def members(server, community_id: str) -> set[str]:
    with server.driver() as driver, driver.session() as session:
        return {
            story(r["d"])
            for r in session.run(
                "MATCH (:Community {id: $id})<-[:IN_COMMUNITY]-(:Chunk)-[:FROM_DOCUMENT]->(d:Document) "
                "RETURN DISTINCT d.id AS d",
                id=community_id,
            )
        }


def assert_theme_lines(server, out: dict) -> None:
    """A line per community used, in rank order, each quoting only documents of that community."""
    head, *lines = [line for line in out["answer"].splitlines() if not line.startswith("… and ")]
    used = [c for c in out["communities"] if c["used"]]
    assert head.endswith("communities of the graph (extractive; no LLM):") and len(lines) == len(used)
    for line, community in zip(lines, used, strict=True):
        stories = cited_stories(out, line)
        assert stories and stories <= members(server, community["id"]), f"{line!r} is not from {community['id']}"


def test_themes_from_communities_build(graph, ask):
    set_communities(graph, "build")
    out = ask("What are the main themes of the tales?", "--corpus", "moor")
    assert out["route"] == "global" and out["global"]["family"] == "themes" and out["global"]["level"] is not None
    assert out["answer"].startswith("Themes of the 16 tales, from ")
    assert_theme_lines(graph, out)
    used = [c for c in out["communities"] if c["used"]]
    cited = cited_stories(out, out["answer"])
    assert len(cited) >= min(8, sum(c["documents"] for c in used)), "8 documents where the themes have them"


def test_themes_without_communities_fall_back_to_the_local_route(graph, ask, run_cli):
    set_communities(graph, "none")
    out = ask("What are the main themes of the tales?", "--corpus", "moor")
    assert out["route"] == "search" and out["communities"] == []
    assert out["global"]["family"] is None
    assert "no communities are built: run graphrag communities build" in out["global"]["reason"]
    shown = run_cli("ask", "What are the main themes of the tales?", "--corpus", "moor", "--no-llm")
    assert "(not answered from the whole corpus: themes: " in shown.stderr
    assert "run graphrag communities build)" in shown.stderr


def test_local_questions_keep_their_route(graph, ask):
    set_communities(graph, "build")
    local = ask("Who fed the lame wolf bread?", "--corpus", "moor")
    assert local["route"] == "search" and local["global"] is None and local["communities"] == []
    listed = ask("Which tales mention a wolf?", "--corpus", "moor")
    assert listed["route"] == "structured" and listed["global"] is None


def test_mode_global_forces_the_route(graph, ask):
    set_communities(graph, "build")
    topic = ask("wolves", "--mode", "global", "--corpus", "moor")
    assert topic["global"]["family"] == "topic" and topic["global"]["term"] == "wolves"
    themes = ask("Tell me about this collection", "--mode", "global", "--corpus", "moor")
    assert themes["route"] == "global" and themes["global"]["family"] == "themes"


def test_terminal_output_and_explain(graph, run_cli, monkeypatch):
    graph.point_env(monkeypatch)
    set_communities(graph, "fixture")
    result = run_cli("ask", "What are the main themes of the tales?", "--corpus", "moor", "--no-llm", "--explain")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Themes of the 16 tales") and lines[1].startswith("1. ")
    assert "\x1b" not in result.stdout
    assert "  global: themes (extractive, level 1; scope tales, corpus moor, 16 documents)" in result.stdout
    assert sum(1 for line in lines if line.startswith("    community L1-") and ": used, rank" in line) == 6
    assert "why: themes: the question asks" in result.stdout and "level 1: 6 communities" in result.stdout
    topic = run_cli("ask", "What do the tales say about wolves?", "--corpus", "moor", "--no-llm", "--explain")
    assert "global: topic (extractive, term 'wolves', level 0" in topic.stdout
    assert "holds the quoted chunk of 3 matching document(s)" in topic.stdout
    set_communities(graph, "build")
    built = run_cli("ask", "Summarize the tales", "--corpus", "moor", "--no-llm", "--explain")
    assert built.stdout.startswith("Themes of the 16 tales") and "  global: themes (extractive, level " in built.stdout
    assert any(
        line.startswith("    community L") and ": used, rank 1 of " in line for line in built.stdout.splitlines()
    )


def test_llm_map_reduce_checks_citations(graph, run_cli, monkeypatch):
    graph.point_env(monkeypatch)
    set_communities(graph, "build")

    def reply(body):
        system = body["messages"][0]["content"]
        prompt = body["messages"][-1]["content"]
        if "importance score" in system:  # a map request: one point citing its first source, one invented id
            cite = re.search(r"^\[([^\]]+)\]", prompt.split("SOURCES", 1)[1].strip(), re.M).group(1)
            return json.dumps(
                {
                    "points": [
                        {"description": f"A point [{cite}] and [Q77].", "score": 70},
                        {"description": "x", "score": 0},
                    ]
                }
            )
        cites = re.findall(r"\[([A-Za-z0-9]+)\]", prompt.split("POINTS:", 1)[1])
        return f"The tales turn on wolves and witches [{cites[0]}], and more [{cites[-1]}]. See [ZZ1]."

    server = LLMServer(reply)
    try:
        env = {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "test", "GRAPHRAG_LLM_MODEL": "test-model"}
        result = run_cli("ask", "What are the main themes of the tales?", "--corpus", "moor", "--json", env=env)
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        assert out["route"] == "global" and out["llm"]["used"] is True and out["llm"]["model"] == "test-model"
        found = out["global"]
        themes = len([c for c in out["communities"] if c["used"]])
        assert found["method"] == "map-reduce" and found["map_requests"] == themes == found["map_points"]
        assert set(found["map_dropped"]) == {"Q77"}
        assert out["dropped_citations"] == ["ZZ1"] and "ZZ1" not in out["answer"]
        assert out["citations"] and {c["id"] for c in out["citations"]} <= {s["id"] for s in out["sources"]}
        maps = [r["body"] for r in server.requests if not r["body"].get("stream")]
        assert len(maps) == themes and all(m.get("response_format") == {"type": "json_object"} for m in maps)
        assert all(
            "COMMUNITY: " in m["messages"][-1]["content"] and "SOURCES" in m["messages"][-1]["content"] for m in maps
        )
        reduce = [r["body"] for r in server.requests if r["body"].get("stream")]
        assert len(reduce) == 1 and "[score 70]" in reduce[0]["messages"][-1]["content"]
        assert "Q77" not in reduce[0]["messages"][-1]["content"], "a map's invented citation never reaches the reduce"

        streamed = run_cli("ask", "What do the tales say about wolves?", "--corpus", "moor", env=env)
        assert streamed.exit_code == 0, streamed.output
        assert "The tales turn on wolves" in streamed.stdout and "removed 1 citation" in streamed.stderr
    finally:
        server.close()
