"""With Neo4j stopped, every command says so in one actionable line and exits non-zero."""

import json

import pytest

from ..conftest import free_port

COMMANDS = [
    ("apply-schema",),
    ("apply-schema", "--dry-run"),
    ("schema", "status"),
    ("schema", "unlock"),
    ("doctor",),
    ("cypher", "RETURN 1"),
    ("neo4j", "status"),
    ("neo4j", "logs"),
]


@pytest.mark.parametrize(
    "args",
    # doctor also reports the question embedder, which loads ONNX Runtime
    [pytest.param(a, marks=pytest.mark.model) if a[0] == "doctor" else a for a in COMMANDS],
    ids=[" ".join(a) for a in COMMANDS],
)
def test_one_line_and_non_zero_exit(run_cli, tmp_path, args):
    """In-process (an exception the CLI does not turn into its one line fails the test); the
    executable's own exit codes are the two tests below."""
    env = {
        "NEO4J_URI": f"bolt://127.0.0.1:{free_port()}",
        "NEO4J_PASSWORD": "irrelevant-here",
        "GRAPHRAG_NEO4J_HOME": str(tmp_path / "never-started"),
    }
    result = run_cli(*args, env=env)
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert any(word in lines[0] for word in ("graphrag neo4j start", "NEO4J_URI", "not been started", "not running"))


@pytest.mark.process
def test_doctor_json_says_unreachable(run_exe):
    env = {"NEO4J_URI": f"bolt://127.0.0.1:{free_port()}", "NEO4J_PASSWORD": "irrelevant-here"}
    result = run_exe("doctor", "--json", env=env, timeout=60)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["neo4j"]["reachable"] is False and "graphrag neo4j start" in report["neo4j"]["error"]


@pytest.mark.process
def test_missing_password_is_one_line(run_exe):
    result = run_exe("doctor", env={"NEO4J_URI": "bolt://127.0.0.1:1"}, timeout=60)
    assert result.returncode == 1 and "NEO4J_PASSWORD is not set" in result.stderr
