"""`graphrag ask` answered by a real `graphrag serve` (a subprocess on a free port, the session's
Neo4j, the bundled sample, the scripted LLM): the same output as a direct ask, and direct when
the server's state file does not fit."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ..conftest import free_port, graphrag_exe
from ..llm_server import LLMServer
from .serve.conftest import llm_reply, load_sample, start_server, stop_server

QUESTION = "Who made the silver lantern, and who stole it?"


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    """A server with the LLM fake, started in its own folder (where it leaves .graphrag/serve.json)."""
    load_sample(neo4j_server)
    tmp = tmp_path_factory.mktemp("served-ask")
    llm = LLMServer(llm_reply)
    server = start_server(neo4j_server, tmp, None, llm)
    server.tmp = tmp
    yield server
    stop_server(server)
    llm.close()


def ask(served, *args, cwd=None, llm=False, **env) -> subprocess.CompletedProcess:
    unset = ("GRAPHRAG_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "GRAPHRAG_LLM_MODEL", "GRAPHRAG_SERVER")
    full = {k: v for k, v in os.environ.items() if k not in unset}
    full.update(served.neo4j.env(), GRAPHRAG_ENV_FILE="/nonexistent.env", **env)
    if llm:
        full.update(OPENAI_BASE_URL=served.llm.url, OPENAI_API_KEY="test", GRAPHRAG_LLM_MODEL="test-model")
    return subprocess.run(
        [graphrag_exe(), "ask", *args], cwd=cwd or served.tmp, env=full, capture_output=True, text=True, timeout=300
    )


def comparable(answer: dict) -> dict:
    return {k: v for k, v in answer.items() if k not in ("timings_ms", "served_by")}


def test_served_json_equals_direct_json(served):
    via = ask(served, QUESTION, "--json", "--no-llm")
    direct = ask(served, QUESTION, "--json", "--no-llm", "--direct")
    assert via.returncode == 0 and direct.returncode == 0, via.stderr + direct.stderr
    assert via.stderr == "" and direct.stderr == ""
    served_answer, direct_answer = json.loads(via.stdout), json.loads(direct.stdout)
    assert served_answer["served_by"] == served.url and "served_by" not in direct_answer
    assert list(served_answer) == list(direct_answer) + ["served_by"]
    assert comparable(served_answer) == comparable(direct_answer)
    assert {"story:sample:T2", "story:sample:T5"} <= {c["document_id"] for c in served_answer["citations"]}
    assert set(served_answer["timings_ms"]) == set(direct_answer["timings_ms"])
    assert served_answer["timings_ms"]["embedder_load_ms"] == 0.0


def test_served_text_explain_and_mermaid_equal_direct(served):
    for args in ((), ("--explain", "--mermaid")):
        via = ask(served, QUESTION, "--no-llm", *args)
        direct = ask(served, QUESTION, "--no-llm", "--direct", *args)
        assert via.returncode == direct.returncode == 0, via.stderr + direct.stderr
        assert (via.stderr, via.stdout.count("\n")) == (direct.stderr, direct.stdout.count("\n"))

        def without_timings(text):
            return [line for line in text.splitlines() if not line.startswith("  timings: ")]

        assert without_timings(via.stdout) == without_timings(direct.stdout)
        assert "Sources:" in via.stdout
    assert "Retrieval trace" in via.stdout and "```mermaid" in via.stdout


def test_streamed_llm_answer_through_sse_equals_direct(served):
    before = len(served.llm.requests)
    via = ask(served, QUESTION, llm=True)
    assert len(served.llm.requests) == before + 1, "the server asked the LLM"
    direct = ask(served, QUESTION, "--direct", llm=True)
    assert via.returncode == direct.returncode == 0, via.stderr + direct.stderr
    assert via.stdout == direct.stdout and via.stderr == direct.stderr
    assert "Old Maren made the lantern" in via.stdout and "removed 1 citation" in via.stderr
    assert "[FAKE9]" not in via.stdout


def test_a_served_ask_loads_no_driver(served):
    script = (
        "import sys\nfrom graphrag_cypher.cli.main import cli\n"
        "NAMES_ONLY = ('graphrag_cypher.retrieval.modes', 'graphrag_cypher.retrieval.options')\n"
        "try:\n    cli(['ask', '--json', '--no-llm', sys.argv[1]], prog_name='graphrag')\n"
        "except SystemExit as exc:\n    assert not exc.code\n"
        "print([m for m in sys.modules if m in ('neo4j', 'numpy', 'onnxruntime')"
        # the mode registry and the ask options are names only
        " or (m.startswith('graphrag_cypher.retrieval.') and m not in NAMES_ONLY)],"
        " file=sys.stderr)\n"
    )
    env = dict(os.environ, **served.neo4j.env(), GRAPHRAG_ENV_FILE="/nonexistent.env")
    out = subprocess.run(
        [sys.executable, "-c", script, QUESTION], cwd=served.tmp, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.stderr.strip().splitlines()[-1] == "[]", out.stderr
    assert json.loads(out.stdout)["served_by"] == served.url


def _copy_state(served, tmp_path, **changes) -> None:
    state = json.loads((served.tmp / ".graphrag" / "serve.json").read_text())
    (tmp_path / ".graphrag").mkdir()
    (tmp_path / ".graphrag" / "serve.json").write_text(json.dumps(dict(state, **changes)))


def test_a_stale_state_file_is_answered_directly(served, tmp_path):
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    _copy_state(served, tmp_path, pid=process.pid)
    out = ask(served, QUESTION, "--json", "--no-llm", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "served_by" not in json.loads(out.stdout)
    assert out.stderr.strip().splitlines() == [
        f"not using the graphrag server in .graphrag/serve.json: its process {process.pid} is not running "
        "(a stale file); answering directly"
    ]


def test_a_server_for_another_database_is_not_used(served, tmp_path):
    _copy_state(served, tmp_path, neo4j_database="other")
    out = ask(served, QUESTION, "--json", "--no-llm", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "served_by" not in json.loads(out.stdout)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "database other, this ask uses" in lines[0] and "answering directly" in lines[0]


def test_a_forced_server_that_does_not_answer_is_one_line(served, tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    for out in (
        ask(served, QUESTION, "--server", url, cwd=tmp_path),
        ask(served, QUESTION, cwd=tmp_path, GRAPHRAG_SERVER=url),
    ):
        assert out.returncode == 1 and out.stdout == ""
        assert out.stderr.strip().splitlines() == [f"Error: no graphrag server answers at {url} (Connection refused)"]


def test_a_forced_server_answers_from_any_folder(served, tmp_path):
    out = ask(served, QUESTION, "--json", "--no-llm", "--server", served.url, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["served_by"] == served.url
    none = ask(served, QUESTION, "--json", "--no-llm", GRAPHRAG_SERVER="none")
    assert none.returncode == 0 and "served_by" not in json.loads(none.stdout)


def test_the_state_file_is_removed_when_the_server_stops(neo4j_server, tmp_path):
    server = start_server(neo4j_server, tmp_path, None)
    state = tmp_path / ".graphrag" / "serve.json"
    assert json.loads(state.read_text())["url"] == server.url
    assert oct(state.stat().st_mode & 0o777) == "0o600"
    stop_server(server)
    assert not state.exists()
