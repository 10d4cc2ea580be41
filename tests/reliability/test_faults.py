"""Faults around a load: Neo4j stopped in the middle (a throw-away instance of this module's own),
two `apply-schema` at once, two loads of one folder at once. Real processes, real servers."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from ..conftest import free_port, graphrag_exe

pytestmark = pytest.mark.e2e


def env_for(uri: str, password: str, tmp_path) -> dict:
    return dict(
        os.environ,
        NEO4J_URI=uri,
        NEO4J_USERNAME="neo4j",
        NEO4J_PASSWORD=password,
        GRAPHRAG_ENV_FILE=str(tmp_path / "no.env"),
    )


def graphrag(*args, env, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([graphrag_exe(), *args], capture_output=True, text=True, env=env, timeout=timeout)


def write_docs(folder, n: int):
    folder.mkdir(exist_ok=True)
    for i in range(n):
        (folder / f"d{i:05}.txt").write_text(f"Document {i} is about the harbour of Ostia and its grain ships. " * 25)
    return folder


def fingerprint(driver) -> dict:
    """Everything a load writes, as sorted lists: equal fingerprints, equal graphs."""

    def rows(text):
        return sorted(tuple(r.values()) for r in driver.execute_query(text).records)

    return {
        "documents": rows("MATCH (d:Document) RETURN d.id, d.contentHash, d.corpus, d.title"),
        "chunks": rows("MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document) RETURN c.id, d.id, c.index, c.text"),
        "next": rows("MATCH (a:Chunk)-[:NEXT_CHUNK]->(b:Chunk) RETURN a.id, b.id"),
        # the audit records who loaded, not what: an interrupted load leaves one more
        "counts": rows("MATCH (n) WHERE NOT n:__Audit RETURN labels(n)[0] AS label, count(*) AS n"),
    }


def clear_data(driver) -> None:
    """Every node but the schema's migration records (CALL IN TRANSACTIONS needs an auto-commit run)."""
    with driver.session() as session:
        session.run(
            "MATCH (n) WHERE NOT n:__Migration CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS"
        ).consume()


@pytest.fixture(scope="module")
def own_neo4j(tmp_path_factory):
    """A Neo4j of this module's own, which a test may stop and start (~30-60 s to start)."""
    from graphrag_cypher.admin import neo4j_local

    instance = neo4j_local.LocalInstance(
        home=tmp_path_factory.mktemp("faults-neo4j"),
        bolt_port=free_port(),
        http_port=None,
        password=secrets.token_urlsafe(16),
        heap="512m",
    )
    neo4j_local.start(instance, timeout=240, echo=lambda *_: None)
    try:
        yield instance
    finally:
        neo4j_local.stop(instance)


@pytest.mark.scale
@pytest.mark.process
def test_neo4j_stopped_mid_load_then_rerun_ends_as_a_clean_load(own_neo4j, tmp_path):
    from neo4j import GraphDatabase

    from graphrag_cypher.admin import neo4j_local

    uri = f"bolt://127.0.0.1:{own_neo4j.bolt_port}"
    env = env_for(uri, own_neo4j.password, tmp_path)
    assert graphrag("apply-schema", env=env).returncode == 0
    docs = write_docs(tmp_path / "docs", 2000)
    load = subprocess.Popen(
        [graphrag_exe(), "load", "files", str(docs), "--no-embed"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with GraphDatabase.driver(uri, auth=("neo4j", own_neo4j.password)) as driver:
        seen = 0
        while seen < 150 and load.poll() is None:
            seen = driver.execute_query("MATCH (d:Document) RETURN count(d) AS n").records[0]["n"]
            time.sleep(0.1)
    assert load.poll() is None, "the load finished before Neo4j could be stopped: give it more files"
    neo4j_local.stop(own_neo4j)
    out, err = load.communicate(timeout=180)
    # one line, with the hint and what was written; no driver warnings, no traceback
    assert load.returncode == 1 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "stopped answering" in err and "graphrag neo4j start" in err
    assert "written before it stopped:" in err and "document(s) created" in err
    assert "retried" not in err and "Traceback" not in err
    written = int(err.split("written before it stopped: ")[1].split(" ")[0])
    assert written >= seen

    neo4j_local.start(own_neo4j, timeout=240, echo=lambda *_: None)
    again = graphrag("load", "files", str(docs), "--no-embed", "--json", env=env)
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)["documents"]
    assert summary["unchanged"] >= written and summary["unchanged"] + summary["created"] == 2000
    with GraphDatabase.driver(uri, auth=("neo4j", own_neo4j.password)) as driver:
        resumed = fingerprint(driver)
        clear_data(driver)
        assert graphrag("load", "files", str(docs), "--no-embed", env=env).returncode == 0
        assert fingerprint(driver) == resumed


@pytest.mark.process
def test_two_apply_schema_at_once(neo4j, tmp_path):
    env = env_for(neo4j.uri, neo4j.password, tmp_path)
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: graphrag("apply-schema", "--json", env=env), range(2)))
    assert [r.returncode for r in results] == [0, 0], [r.stderr for r in results]
    status = json.loads(graphrag("schema", "status", "--json", env=env).stdout)
    with neo4j.driver() as driver:
        versions = [
            r["v"] for r in driver.execute_query("MATCH (m:__Migration) RETURN m.version AS v ORDER BY v").records
        ]
    assert len(versions) == len(set(versions)) >= 6
    assert not status.get("pending"), status


@pytest.mark.process
def test_two_loads_of_one_folder_at_once(schema, tmp_path):
    env = env_for(schema.uri, schema.password, tmp_path)
    docs = write_docs(tmp_path / "docs", 300)
    with ThreadPoolExecutor(2) as pool:
        results = list(
            pool.map(lambda _: graphrag("load", "files", str(docs), "--no-embed", "--json", env=env), range(2))
        )
    assert [r.returncode for r in results] == [0, 0], [r.stderr for r in results]
    with schema.driver() as driver:
        together = fingerprint(driver)
        assert len(together["documents"]) == 300
        clear_data(driver)
        assert graphrag("load", "files", str(docs), "--no-embed", env=env).returncode == 0
        assert fingerprint(driver) == together
