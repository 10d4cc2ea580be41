"""Abstention: when the graph holds no answer the answer says so in one sentence, cites nothing
and lists the nearest passages apart (retrieval/abstain.py), with and without an LLM."""

import json

import pytest

from ..llm_server import LLMServer

pytestmark = pytest.mark.e2e

OUT_OF_DOMAIN = "What is the capital of Peru?"
ANSWERABLE = "Who made the silver lantern?"
NOT_IN_SOURCES = "The sources do not contain the answer."


@pytest.fixture(scope="module")
def sample_graph(neo4j_server):
    from ..conftest import load_sample_graph

    load_sample_graph(neo4j_server)
    return neo4j_server


@pytest.fixture
def sample(sample_graph, monkeypatch):
    sample_graph.point_env(monkeypatch)
    return sample_graph


def ask_json(run_cli, question, *args, env=None):
    result = run_cli("ask", question, "--json", *args, env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_an_out_of_domain_question_abstains_with_no_sources_and_the_closest_apart(sample, run_cli):
    out = ask_json(run_cli, OUT_OF_DOMAIN)
    abstained = out["abstained"]
    assert abstained is not None and abstained["by"] == "coverage", out["answer"]
    assert out["answer"] == "The graph holds no answer to this: no passage mentions Peru."
    assert out["sources"] == [] and out["citations"] == [] and out["evidence"] == []
    assert abstained["heading"] == "Closest, not an answer:"
    assert abstained["closest"] and all(c["document_id"] and c["text"] for c in abstained["closest"])
    assert abstained["coverage"]["missing_names"] == ["Peru"]
    # the sentence is what the terminal shows, with no citation
    shown = run_cli("ask", OUT_OF_DOMAIN)
    assert shown.exit_code == 0 and "The graph holds no answer to this: no passage mentions Peru." in shown.stdout
    # --no-gate answers from whatever came back; GRAPHRAG_ABSTAIN=off does the same for abstention alone
    assert ask_json(run_cli, OUT_OF_DOMAIN, "--no-gate")["abstained"] is None
    off = ask_json(run_cli, OUT_OF_DOMAIN, env={"GRAPHRAG_ABSTAIN": "off"})
    assert off["abstained"] is None and off["citations"]


def test_a_person_the_graph_does_not_hold_abstains(sample, run_cli):
    out = ask_json(run_cli, "Who killed Jaime Lannister?")
    assert out["abstained"] is not None and out["sources"] == [] and out["citations"] == []
    assert "Jaime Lannister" in out["answer"] and out["answer"].startswith("The graph")


@pytest.mark.parametrize(
    "question",
    [
        ANSWERABLE,
        "Why did the wheel of Tansy Mill stop turning?",
        "What linked the Pharos island of Alexandria to the mainland?",
        "Who stole the silver lantern, and who had made it?",
        "Why did the giant Brannock throw the boulder?",  # its subject, verb and object in one tale
    ],
)
def test_an_answerable_question_is_answered(sample, run_cli, question):
    out = ask_json(run_cli, question)
    assert out["abstained"] is None, out["answer"]
    assert out["sources"] and out["citations"]


FALSE_PREMISE = "Why did Reynold marry Old Maren?"  # each word is in the sample, never together


def test_a_false_premise_whose_words_are_all_somewhere_abstains(sample, run_cli):
    out = ask_json(run_cli, FALSE_PREMISE)
    abstained = out["abstained"]
    assert abstained is not None and abstained["by"] == "coverage", out["answer"]
    assert out["sources"] == [] and out["citations"] == [] and abstained["closest"]
    together = abstained["coverage"]["together"]
    assert together["share"] < abstained["coverage"]["thresholds"]["together"]
    assert "marry" in together["missing"]
    assert out["answer"].startswith("The graph holds no answer to this: no passage says ")
    assert "'marry'" in out["answer"] and out["answer"].endswith(" together.")
    # GRAPHRAG_ABSTAIN_TOGETHER=0 turns the rule off (on this small sample the union of the
    # passages lacks "marry" too, so the union's own rule may still abstain, for its own reason)
    off = ask_json(run_cli, FALSE_PREMISE, env={"GRAPHRAG_ABSTAIN_TOGETHER": "0"})
    assert "together" not in off["answer"]
    if off["abstained"] is not None:
        assert off["abstained"]["coverage"]["thresholds"]["together"] == 0


@pytest.mark.parametrize(
    "question, subject",
    [
        ("Why did Hansel marry the witch?", "hansel"),
        ("When did Reynold the fox become mayor of Hollowmere?", "reynold"),  # an apposition
        ("Why did the giant Brannock sell the lantern?", "brannock"),  # a title before the name
        ("What did Hans receive for his service?", "hans"),
        # a hop to someone else, a chained clause, a possessive, no verb after: no subject
        ("What kind of university did the author of Brand attend?", None),
        ("When did the Admiral Twin open in the city where Tulsa is?", None),
        ("Which region is Corey Taylor's city of birth located?", None),
        ("What year did the company Novair is part of dissolve?", None),
        ("Besides Reynold, who crossed the bridge?", None),
    ],
)
def test_the_subject_a_question_presupposes_a_fact_about(question, subject):
    from types import SimpleNamespace

    from graphrag_cypher.retrieval.abstain import _words, question_names
    from graphrag_cypher.retrieval.abstain_cover import subject as subject_of

    names = question_names(question, SimpleNamespace(entities=[], language="en", keywords=[]))
    found = subject_of(_words(question), [_words(n) for n in names])
    assert (None if found is None else " ".join(_words(names[found]))) == subject


def test_the_thresholds_are_read_from_the_environment(sample, run_cli):
    # a share no answer reaches, and a cosine every evidence is under: the answerable one abstains too
    env = {"GRAPHRAG_ABSTAIN_SHARE": "1.01", "GRAPHRAG_ABSTAIN_COSINE": "1.01"}
    out = ask_json(run_cli, ANSWERABLE, env=env)
    assert out["abstained"]["by"] == "coverage" and out["sources"] == []
    assert out["abstained"]["coverage"]["thresholds"]["share"] == 1.01
    bad = run_cli("ask", ANSWERABLE, env={"GRAPHRAG_ABSTAIN_SHARE": "most"})
    assert bad.exit_code == 1 and "GRAPHRAG_ABSTAIN_SHARE='most' is not a number" in bad.output
    assert "Traceback" not in bad.output


def cite_first(body) -> str:
    user = body["messages"][-1]["content"]
    return f"Old Maren the witch made it [{user.split('[', 1)[1].split(']', 1)[0]}]."


@pytest.mark.parametrize(
    "reply",
    [
        NOT_IN_SOURCES,
        "I'm sorry, but the provided context does not mention who made it.",
    ],
)
def test_with_an_llm_not_in_the_sources_is_an_abstention(sample, run_cli, reply):
    server = LLMServer(reply)
    try:
        env = {"OPENAI_BASE_URL": server.url, "GRAPHRAG_LLM_MODEL": "m"}
        out = ask_json(run_cli, ANSWERABLE, env=env)
        assert out["llm"]["used"] is True and out["answer"] == reply
        assert out["abstained"]["by"] == "llm" and "the LLM found no answer" in out["abstained"]["reason"]
        assert out["sources"] == [] and out["citations"] == [] and out["abstained"]["closest"]
        system = server.requests[-1]["body"]["messages"][0]["content"]
        assert f'reply with only this sentence, in English: "{NOT_IN_SOURCES}"' in system
    finally:
        server.close()


def test_with_an_llm_an_answer_is_not_an_abstention(sample, run_cli):
    server = LLMServer(cite_first)
    try:
        env = {"OPENAI_BASE_URL": server.url, "GRAPHRAG_LLM_MODEL": "m"}
        out = ask_json(run_cli, ANSWERABLE, env=env)
        assert out["abstained"] is None and out["citations"] and out["sources"]
        # without an LLM's answer to check, coverage is not judged: the model decides
        assert ask_json(run_cli, OUT_OF_DOMAIN, env=env)["abstained"] is None
    finally:
        server.close()


@pytest.mark.parametrize(
    "question, names",
    [
        ("What is the capital of Peru?", ["Peru"]),
        ("What is Arya Stark's favourite colour?", ["Arya Stark"]),
        ("Why did the Frog-Prince open a bank in London?", ["Frog-Prince", "London"]),
        ("Who won the 2018 World Cup?", ["2018 World Cup"]),
        ("Besides the river, what did Reynold cross?", ["Reynold"]),  # a capital opening the question
    ],
)
def test_the_names_a_question_asks_about(question, names):
    from types import SimpleNamespace

    from graphrag_cypher.retrieval.abstain import question_names

    assert question_names(question, SimpleNamespace(entities=[], language="en", keywords=[])) == names


def test_accents_and_inflections_count_as_mentions():
    from types import SimpleNamespace

    from graphrag_cypher.retrieval.abstain import measure
    from graphrag_cypher.retrieval.base import Evidence

    analysis = SimpleNamespace(entities=[], language="en", keywords=["river", "flows"])
    evidence = [Evidence("c1", "d1", "Tekezé", None, "The Tekezé is a river; it flowed north.", 1.0)]
    measured = measure("Where does the Tekeze River flow?", analysis, evidence, 0.6, None)
    assert measured.missing_names == [] and measured.missing_terms == [] and measured.share == 1.0


@pytest.mark.parametrize(
    "text, abstains",
    [
        (NOT_IN_SOURCES, True),
        ("The provided sources do not mention who made the lantern.", True),
        ("This is not in the context.", True),
        ("Old Maren made it.", False),  # uncited, but an answer
    ],
)
def test_what_counts_as_the_model_saying_the_sources_do_not_say(text, abstains):
    from graphrag_cypher.retrieval.abstain import not_in_sources
    from graphrag_cypher.retrieval.answer import Checked

    assert (not_in_sources(Checked(text, text, [], []), True, []) is not None) is abstains
    assert not_in_sources(Checked(text, text, ["T2"], []), True, []) is None  # it cites: an answer
    assert not_in_sources(Checked(text, text, [], []), False, []) is None  # no LLM wrote it
