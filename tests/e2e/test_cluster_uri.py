"""A `neo4j://` (routing) URI, as a cluster or Aura (`neo4j+s://`) is reached, works end to end:
the session's local Neo4j answers `graphrag ask` through the routing driver, whose read
transactions a cluster would send to its secondaries."""

import json

import pytest

from graphrag_cypher.config import Settings

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def sample_graph(neo4j_server):
    from ..conftest import load_sample_graph

    load_sample_graph(neo4j_server)
    return neo4j_server


def routing_env(server) -> dict[str, str]:
    assert server.uri.startswith("bolt://"), server.uri
    return server.env(NEO4J_URI="neo4j://" + server.uri.removeprefix("bolt://"))


def test_uri_schemes_give_host_port_and_routing():
    for uri, port, local, routing in [
        ("neo4j+s://abc123.databases.neo4j.io", 7687, False, True),
        ("neo4j://127.0.0.1:7999", 7999, True, True),
        ("neo4j+ssc://localhost:7688", 7688, True, True),
        ("bolt://127.0.0.1:7687", 7687, True, False),
        ("bolt+s://db.example.org", 7687, False, False),
    ]:
        settings = Settings(neo4j_uri=uri)
        assert (settings.bolt_port, settings.is_local_uri, settings.is_routing_uri) == (port, local, routing), uri


def test_ask_through_a_routing_uri(sample_graph, run_cli, monkeypatch):
    for key, value in routing_env(sample_graph).items():
        monkeypatch.setenv(key, value)
    for mode in ("hybrid", "graph"):
        result = run_cli("ask", "Who made the silver lantern?", "--mode", mode, "--json")
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        assert out["mode"] == mode and out["evidence"] and out["citations"]


def test_reads_are_read_transactions_and_writes_follow_them(sample_graph):
    from neo4j.exceptions import ClientError

    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import Graph

    settings = load_settings(dict(routing_env(sample_graph), GRAPHRAG_ENV_FILE="/nonexistent.env"))
    assert settings.is_routing_uri
    with Graph(settings) as graph:
        with pytest.raises(ClientError, match="(?i)read"):  # a read transaction refuses to write
            graph.read_text("CREATE (:NotWritten)")
        before = graph.read("titles/count_mentions")[0]["total"]
        graph.write("linkers/unmark_pending", chunkIds=[])
        assert graph.read("titles/count_mentions")[0]["total"] == before
        assert graph.bookmarks is not None
