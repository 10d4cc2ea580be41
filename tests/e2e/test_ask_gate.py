"""The score gate and the relevance judge, with recorded judge replies served by the local
OpenAI-compatible test server."""

import json
import re

import pytest

from ..llm_server import LLMServer

pytestmark = pytest.mark.e2e

DOCS = {
    "lantern.md": "# The Silver Lantern\n\nOld Maren the smith made the silver lantern for the harbour of Carrow. "
    "On a foggy night the ferryman stole the silver lantern and rowed away with it.\n",
    "tides.md": "# Tide Ledger\n\nThe harbour master of Portus kept a ledger of the tides, high water and low water, "
    "every day for forty years.\n",
}
ON_TOPIC = "Who made the silver lantern, and who stole it?"
OFF_TOPIC = "What is the boiling point of tungsten in kelvin?"


@pytest.fixture
def corpus(schema, run_cli, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    assert run_cli("load", "files", str(folder)).exit_code == 0
    return schema


class Recorded:
    """Replies as a judging model and an answering model gave them: the judge calls a passage
    relevant when the question and the passage are both about the lantern; the answer cites
    the first source."""

    def __init__(self):
        self.judged: list[list[str]] = []

    def __call__(self, body):
        system = body["messages"][0]["content"]
        user = body["messages"][-1]["content"]
        if "judge whether passages are relevant" in system:
            assert body["response_format"]["type"] == "json_schema"
            passages = re.findall(r"^\[(P\d+)\] (.*)$", user, flags=re.M)
            self.judged.append([title for _, title in passages])
            about_lantern = "lantern" in user.split("PASSAGES:", 1)[0].lower()
            verdicts = []
            for pid, title in passages:
                relevant = about_lantern and "Lantern" in title
                reason = "about the lantern" if relevant else ("about tides" if "Tide" in title else "off the question")
                verdicts.append({"id": pid, "relevant": relevant, "reason": reason})
            return json.dumps({"verdicts": verdicts})
        cite = user.split("[", 1)[1].split("]", 1)[0]
        return f"Old Maren made it and the ferryman stole it [{cite}]."


def answer_requests(server):
    return [r for r in server.requests if "judge whether" not in r["body"]["messages"][0]["content"]]


def test_strong_evidence_is_not_judged_unless_asked(corpus, run_cli):
    recorded = Recorded()
    server = LLMServer(recorded)
    try:
        env = {"OPENAI_BASE_URL": server.url, "GRAPHRAG_LLM_MODEL": "m"}
        out = json.loads(run_cli("ask", ON_TOPIC, "--mode", "vector", "--json", env=env).stdout)
        assert out["gate"]["weak"] is False and out["gate"]["judged_by"] is None and recorded.judged == []
        assert {e["title"] for e in out["evidence"]} == {"The Silver Lantern", "Tide Ledger"}

        judged = json.loads(run_cli("ask", ON_TOPIC, "--mode", "vector", "--judge", "--json", env=env).stdout)
        assert recorded.judged and sorted(recorded.judged[0]) == ['"The Silver Lantern"', '"Tide Ledger"']
        assert {e["title"] for e in judged["evidence"]} == {"The Silver Lantern"}
        dropped = [v for v in judged["gate"]["verdicts"] if not v["relevant"]]
        assert dropped and all(v["by"] == "judge" and v["reason"] == "about tides" for v in dropped)
        assert "Tide Ledger" not in answer_requests(server)[-1]["body"]["messages"][-1]["content"]

        # verdicts are cached by question and chunk: asking again sends no judge request
        again = json.loads(run_cli("ask", ON_TOPIC, "--mode", "vector", "--judge", "--json", env=env).stdout)
        assert len(recorded.judged) == 1 and again["gate"]["judge_cached"] == len(judged["gate"]["verdicts"])
        shown = run_cli("ask", ON_TOPIC, "--mode", "vector", "--judge", "--explain", env=env).stdout
        assert "dropped" in shown and "(judge): about tides" in shown and "web: not searched" in shown
    finally:
        server.close()


def test_weak_evidence_is_judged_and_nothing_relevant_is_said_plainly(corpus, run_cli):
    recorded = Recorded()
    server = LLMServer(recorded)
    try:
        env = {"OPENAI_BASE_URL": server.url, "GRAPHRAG_LLM_MODEL": "m"}
        out = json.loads(run_cli("ask", OFF_TOPIC, "--mode", "vector", "--json", env=env).stdout)
        assert out["gate"]["weak"] is True and out["gate"]["best_similarity"] < out["gate"]["threshold"]
        assert len(recorded.judged) == 1 and out["evidence"] == [] and out["citations"] == []
        assert out["answer"].startswith("I found nothing relevant to this question")
        assert answer_requests(server) == [], "no answer is written from noise"
        streamed = run_cli("ask", OFF_TOPIC, "--mode", "vector", env=env)
        assert "I found nothing relevant" in streamed.stdout
        # --no-gate answers from whatever came back
        ungated = json.loads(run_cli("ask", OFF_TOPIC, "--mode", "vector", "--no-gate", "--json", env=env).stdout)
        assert ungated["gate"] is None and ungated["evidence"] and answer_requests(server)
    finally:
        server.close()


def test_without_an_llm_the_gate_alone_applies(corpus, run_cli):
    out = json.loads(run_cli("ask", OFF_TOPIC, "--mode", "vector", "--json").stdout)
    assert out["gate"]["weak"] is True and out["gate"]["judged_by"] is None and "gate alone" in out["gate"]["note"]
    assert out["gate"]["best_similarity"] < out["gate"]["drop_threshold"] < out["gate"]["threshold"]
    assert out["evidence"] == [] and out["answer"].startswith("I found nothing relevant")
    assert all(v["by"] == "gate" for v in out["gate"]["verdicts"])
    strong = json.loads(run_cli("ask", ON_TOPIC, "--mode", "vector", "--json").stdout)
    assert strong["gate"]["weak"] is False and strong["citations"]
    pinned = json.loads(
        run_cli("ask", ON_TOPIC, "--mode", "vector", "--json", env={"GRAPHRAG_GATE_DROP_THRESHOLD": "0.99"}).stdout
    )
    assert pinned["gate"]["drop_threshold"] == 0.99 and pinned["evidence"] == []


HOSTILE = {
    "tables.md": "# Tide Tables \x1b[31m<b>red</b>\n\nThe tide tables \x1b]0;pwned\x07list the hours of high and low "
    "water at the quay of Portus.\n",
}


def test_an_abstention_is_its_sentence_then_the_closest_passages_apart(corpus, run_cli, tmp_path):
    """Plain, --explain and streamed: the sentence, no Sources block, then the passages nearest the
    question under their heading, each its title and a snippet, escape sequences removed."""
    folder = tmp_path / "hostile"
    folder.mkdir()
    for name, text in HOSTILE.items():
        (folder / name).write_text(text)
    assert run_cli("load", "files", str(folder)).exit_code == 0
    out = json.loads(run_cli("ask", OFF_TOPIC, "--mode", "vector", "--json").stdout)
    abstained = out["abstained"]
    assert abstained["by"] == "gate" and abstained["heading"] == "Closest, not an answer:"
    assert out["citations"] == [] and out["sources"] == []
    closest = abstained["closest"]
    assert {c["title"].split(" \x1b")[0].split(" <")[0] for c in closest} >= {"The Silver Lantern", "Tide Ledger"}

    plain = run_cli("ask", OFF_TOPIC, "--mode", "vector").stdout
    sentence, _, rest = plain.partition("\n\nClosest, not an answer:\n")
    assert sentence.strip() == out["answer_with_titles"] and "Sources:" not in plain
    shown = rest.splitlines()
    assert len(shown) == len(closest) and all(line.startswith("  - ") for line in shown)
    lantern = next(line for line in shown if "The Silver Lantern" in line)
    assert lantern.startswith("  - The Silver Lantern: Old Maren the smith made the silver lantern")
    hostile = next(line for line in shown if "Tide Tables" in line)
    assert "\x1b" not in plain and "\x07" not in plain and "list the hours of high and low water" in hostile
    assert "abstained:" not in plain

    explained = run_cli("ask", OFF_TOPIC, "--mode", "vector", "--explain").stdout
    line = f"  abstained: by gate, reason: {abstained['reason']}"
    assert line in explained.splitlines() and "Closest, not an answer:" in explained

    # answered: no closest block, no abstained line
    answered = run_cli("ask", ON_TOPIC, "--mode", "vector", "--explain").stdout
    assert "Sources:" in answered and "Closest, not an answer:" not in answered and "abstained:" not in answered

    # with an LLM the sentence streams, then the closest passages follow it
    server = LLMServer(Recorded())
    try:
        env = {"OPENAI_BASE_URL": server.url, "GRAPHRAG_LLM_MODEL": "m"}
        streamed = json.loads(run_cli("ask", OFF_TOPIC, "--mode", "vector", "--json", env=env).stdout)
        assert streamed["abstained"]["by"] == "gate" and streamed["llm"]["used"] is False
        shown = run_cli("ask", OFF_TOPIC, "--mode", "vector", env=env).stdout
        assert shown.startswith(streamed["answer_with_titles"]) and "Sources:" not in shown
        assert shown.index("Closest, not an answer:") > len(streamed["answer_with_titles"])
        assert "  - The Silver Lantern: " in shown and "\x1b" not in shown
    finally:
        server.close()
