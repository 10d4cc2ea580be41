"""A Traditional Chinese question over a Simplified Chinese source: the answer comes back in
Traditional characters (OpenCC), its citations exactly as given, the titles as stored."""

import json

import pytest

from ..llm_server import LLMServer

pytestmark = pytest.mark.e2e

SOURCE = "# 银灯笼的故事\n\n老玛伦用银子做了一盏灯笼。后来，渡船夫在一个雾夜把银灯笼偷走了。\n"
QUESTION = "誰做了銀燈籠？後來怎麼了？"  # Traditional


@pytest.fixture
def simplified(schema, run_cli, tmp_path):
    (tmp_path / "lantern.md").write_text(SOURCE, encoding="utf-8")
    result = run_cli("load", "files", str(tmp_path / "lantern.md"), "--json")
    assert result.exit_code == 0, result.output
    return schema


def ask(run_cli, *args, env=None):
    result = run_cli("ask", QUESTION, "--mode", "vector", *args, "--json", env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_traditional_question_gets_a_traditional_answer(simplified, run_cli):
    def reply(body):
        cite = body["messages"][-1]["content"].split("[", 1)[1].split("]", 1)[0]  # the source's id
        return f"老玛伦用银子做了灯笼[{cite}]。后来渡船夫把它偷走了[{cite}, Z9]。"

    server = LLMServer(reply)
    try:
        env = {"OPENAI_BASE_URL": server.url, "GRAPHRAG_LLM_MODEL": "m"}
        out = ask(run_cli, env=env)
        assert out["convert"] == {
            "requested": "auto",
            "applied": "s2t",
            "reason": "the question is in Traditional Chinese",
        }
        cite = out["sources"][0]["id"]
        assert out["answer"] == f"老瑪倫用銀子做了燈籠[{cite}]。後來渡船伕把它偷走了[{cite}]。"  # OpenCC's phrases
        assert out["dropped_citations"] == ["Z9"]  # citations are checked after converting, as ever
        assert out["answer_with_titles"] == "老瑪倫用銀子做了燈籠[银灯笼的故事]。後來渡船伕把它偷走了[银灯笼的故事]。"
        kept = ask(run_cli, "--convert", "none", env=env)
        assert (
            kept["answer"] == f"老玛伦用银子做了灯笼[{cite}]。后来渡船夫把它偷走了[{cite}]。"
            and kept["convert"]["applied"] is None
        )
        shown = run_cli("ask", QUESTION, "--mode", "vector", "--explain", env=env)
        assert "老瑪倫用銀子做了燈籠[银灯笼的故事]" in shown.stdout  # streamed, converted clause by clause
        assert "convert: s2t (the question is in Traditional Chinese)" in shown.stdout
    finally:
        server.close()


def test_extractive_answer_is_converted_too_and_english_is_left_alone(simplified, run_cli):
    # (an English question is no match for Chinese text to MiniLM, so the gate is off for those)
    out = ask(run_cli, "--no-llm")
    assert "銀燈籠偷走了" in out["answer"] and "银" not in out["answer"].split("[")[0]
    english = json.loads(
        run_cli("ask", "Who made the lantern?", "--mode", "vector", "--no-llm", "--no-gate", "--json").stdout
    )
    assert english["convert"]["applied"] is None and "银灯笼" in english["answer"]
    forced = json.loads(
        run_cli(
            "ask",
            "Who made the lantern?",
            "--mode",
            "vector",
            "--no-llm",
            "--no-gate",
            "--json",
            env={"GRAPHRAG_CONVERT": "s2twp"},
        ).stdout
    )
    assert forced["convert"]["applied"] == "s2twp" and "銀燈籠" in forced["answer"]
