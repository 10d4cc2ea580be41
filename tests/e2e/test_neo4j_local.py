"""`graphrag neo4j …` on real local instances."""

import json
import secrets

import pytest

from ..conftest import free_port

pytestmark = pytest.mark.e2e


def instance_args(server):
    inst = server.instance
    return ["--home", str(inst.home), "--bolt-port", str(inst.bolt_port), "--http-port", "0"]


@pytest.fixture
def local(neo4j_server):
    if neo4j_server.instance is None:
        pytest.skip("the test Neo4j was not started by this session (GRAPHRAG_TEST_NEO4J_URI is set)")
    return neo4j_server


def test_status_shows_versions(local, run_cli):
    result = run_cli("neo4j", "status", "--json", *instance_args(local), env={"NEO4J_PASSWORD": local.password})
    assert result.exit_code == 0, result.output
    status = json.loads(result.stdout)
    assert status["running"] is True and status["pid"]
    assert status["versions"]["neo4j"].startswith("5.26")
    assert status["versions"]["apoc"].startswith("5.26")
    assert status["versions"]["gds"].startswith("2.13")


def test_start_when_running_is_a_no_op(local, run_cli):
    result = run_cli("neo4j", "start", "--json", *instance_args(local), env={"NEO4J_PASSWORD": local.password})
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["already_running"] is True


def test_logs_show_the_server_log(local, run_cli):
    result = run_cli("neo4j", "logs", "-n", "200", *instance_args(local), env={"NEO4J_PASSWORD": local.password})
    assert result.exit_code == 0 and result.stdout.strip()


def test_a_second_instance_runs_side_by_side(local, run_exe, tmp_path):
    """Another home and other ports: both answer, stopping one leaves the other up. Its password
    starts with "-", as one random password in 64 does: the admin tool must not read it as an option."""
    password = "-" + secrets.token_urlsafe(12)
    args = ["--home", str(tmp_path / "second"), "--bolt-port", str(free_port()), "--http-port", str(free_port())]
    env = {"NEO4J_PASSWORD": password}
    started = run_exe("neo4j", "start", "--json", *args, env=env, timeout=300)
    assert started.returncode == 0, started.stderr
    try:
        assert json.loads(started.stdout).get("already_running") is False
        status = run_exe("neo4j", "status", "--json", *args, env=env)
        assert json.loads(status.stdout)["versions"]["gds"].startswith("2.13")
        with local.driver() as driver:  # the session's instance still answers
            assert driver.execute_query("RETURN 1 AS one").records[0]["one"] == 1
    finally:
        stopped = run_exe("neo4j", "stop", "--json", *args, env=env)
    assert json.loads(stopped.stdout)["was_running"] is True
    again = run_exe("neo4j", "stop", "--json", *args, env=env)
    assert again.returncode == 0 and json.loads(again.stdout)["was_running"] is False
    assert run_exe("neo4j", "status", *args, env=env).returncode == 1
