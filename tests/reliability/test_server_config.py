"""The local Neo4j keeps its secrets and closes what it need not open.

One instance of its own (HTTP on, a password full of characters that need quoting), started
by `graphrag neo4j start` with a `java` that records every command line it is given.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from ..conftest import REPO, free_port

pytestmark = pytest.mark.e2e

# Quotes, backslashes, a comment sign, a tab, non-ASCII, and a leading "@" (an @-file to picocli).
PASSWORD = "@pass \"word\" \\ #1\t'ünï€'"


@pytest.fixture(scope="module")
def instance(tmp_path_factory):
    from graphrag_cypher.admin import neo4j_local

    try:
        real_java = neo4j_local._find_java()
    except Exception as exc:  # noqa: BLE001 - no Java here: nothing to start
        pytest.skip(str(exc))
    root = tmp_path_factory.mktemp("server-config")
    argv_log = root / "java-argv.log"
    wrapper = root / "jdk" / "bin" / "java"
    wrapper.parent.mkdir(parents=True)
    # Records each command line (NUL-separated arguments, one line per run), then runs Java.
    wrapper.write_text(
        f'#!/bin/sh\nprintf "%s\\0" "$@" >> "{argv_log}"\necho >> "{argv_log}"\nexec "{real_java}" "$@"\n'
    )
    wrapper.chmod(0o755)
    home = root / "home"
    args = ["--home", str(home), "--bolt-port", str(free_port()), "--http-port", str(free_port())]
    env = dict(os.environ, NEO4J_PASSWORD=PASSWORD, GRAPHRAG_JAVA_HOME=str(wrapper.parent.parent))
    exe = str(Path(sys.executable).parent / "graphrag")
    started = subprocess.run(
        [exe, "neo4j", "start", "--json", *args], capture_output=True, text=True, env=env, timeout=300
    )
    assert started.returncode == 0, started.stderr
    info = json.loads(started.stdout)
    try:
        yield {"home": home, "info": info, "argv_log": argv_log}
    finally:
        subprocess.run([exe, "neo4j", "stop", *args], capture_output=True, env=env, timeout=120)
        shutil.rmtree(root, ignore_errors=True)


def test_password_never_in_a_command_line(instance):
    runs = instance["argv_log"].read_bytes().split(b"\n")
    assert any(b"set-initial-password" in run for run in runs)  # the first start set it
    assert all(PASSWORD.encode() not in run for run in runs)
    assert not list((instance["home"] / "run").glob("initial-password-*"))  # the @-file is gone


def test_the_password_set_is_the_one_given(instance):
    from neo4j import GraphDatabase

    with GraphDatabase.driver(instance["info"]["uri"], auth=("neo4j", PASSWORD)) as driver:
        assert driver.execute_query("RETURN 1 AS one").records[0]["one"] == 1


def test_instance_home_and_files_are_private(instance):
    home = instance["home"]
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    for path in [home / "data" / "dbms" / "auth.ini", *(home / "logs").glob("*.log")]:
        if path.exists():
            assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path


def test_http_api_answers_only_its_own_origin(instance):
    base = instance["info"]["browser"].removesuffix("browser/")
    request = urllib.request.Request(base, headers={"Origin": "http://evil.example"})
    with urllib.request.urlopen(request, timeout=10) as response:
        allowed = response.headers.get("Access-Control-Allow-Origin")
    assert allowed == base.rstrip("/")
    with urllib.request.urlopen(base + "browser/", timeout=10) as response:  # the Browser is still served
        assert response.status == 200


def test_only_the_procedures_the_code_needs_leave_the_sandbox(instance):
    from neo4j import GraphDatabase
    from neo4j.exceptions import ClientError

    with GraphDatabase.driver(instance["info"]["uri"], auth=("neo4j", PASSWORD)) as driver:
        assert driver.execute_query("CALL apoc.meta.stats() YIELD nodeCount RETURN nodeCount").records
        assert driver.execute_query("RETURN gds.util.asNode(0) AS n").records
        # Others that would reach outside the sandbox are listed but cannot run.
        for call in ("CALL apoc.trigger.add('t', 'RETURN 1', {})", "CALL apoc.warmup.run()", "CALL apoc.meta.schema()"):
            with pytest.raises(ClientError, match="sandboxed"):
                driver.execute_query(call)


def test_make_writes_env_owner_only(tmp_path):
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    for name in ("Makefile", ".env.example"):
        shutil.copy(REPO / name, tmp_path / name)
    done = subprocess.run(
        ["make", ".env", f"PYTHON={sys.executable}"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE((tmp_path / ".env").stat().st_mode) == 0o600
    assert "NEO4J_PASSWORD=" in (tmp_path / ".env").read_text()
