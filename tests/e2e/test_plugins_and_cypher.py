"""APOC, GDS and ad hoc Cypher through `graphrag cypher`."""

import json

import pytest

pytestmark = pytest.mark.e2e


def cypher_json(run_cli, *args):
    result = run_cli("cypher", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_apoc_and_gds_versions_answer(neo4j, run_cli):
    assert cypher_json(run_cli, "RETURN apoc.version() AS v")["rows"][0]["v"].startswith("5.26")
    assert cypher_json(run_cli, "RETURN gds.version() AS v")["rows"][0]["v"].startswith("2.13")


def test_gds_page_rank_on_three_nodes(neo4j, run_cli):
    cypher_json(run_cli, "CREATE (a:P {name:'a'})-[:L]->(b:P {name:'b'})-[:L]->(c:P {name:'c'})-[:L]->(b)", "--write")
    # A projection stays in the server's heap: it takes --write; streaming from it is a read.
    cypher_json(run_cli, "CALL gds.graph.project('three', 'P', 'L') YIELD graphName RETURN graphName", "--write")
    try:
        out = cypher_json(
            run_cli,
            "CALL gds.pageRank.stream('three') YIELD nodeId, score "
            "RETURN gds.util.asNode(nodeId).name AS name, score ORDER BY name",
        )
    finally:
        cypher_json(run_cli, "CALL gds.graph.drop('three') YIELD graphName RETURN graphName", "--write")
    scores = {r["name"]: r["score"] for r in out["rows"]}
    assert set(scores) == {"a", "b", "c"}
    assert scores["b"] > scores["a"] and scores["c"] > scores["a"]


def test_read_only_unless_write(neo4j, run_cli):
    refused = run_cli("cypher", "CREATE (:Scratch {x: 1})")
    assert refused.exit_code == 1
    assert len(refused.output.strip().splitlines()) == 1 and "Traceback" not in refused.output
    written = cypher_json(run_cli, "CREATE (s:Scratch {x: $x}) RETURN s.x AS x", "-p", "x=41", "--write")
    assert written["rows"] == [{"x": 41}] and written["counters"]["nodes_created"] == 1


def test_params_nodes_and_files(neo4j, run_cli, tmp_path):
    cypher_json(run_cli, "CREATE (:Doc {id: 'd1', tags: ['a', 'b'], at: date('2024-03-01')})", "--write")
    query = tmp_path / "q.cypher"
    query.write_text("MATCH (d:Doc) WHERE d.id IN $ids RETURN d, d.at AS at")
    out = cypher_json(run_cli, "-f", str(query), "-p", 'ids=["d1"]')
    node = out["rows"][0]["d"]
    assert node["labels"] == ["Doc"] and node["properties"]["tags"] == ["a", "b"]
    assert out["rows"][0]["at"] == "2024-03-01"
    table = run_cli("cypher", "MATCH (d:Doc) RETURN d.id AS id")
    assert table.exit_code == 0 and "d1" in table.stdout


def test_bad_query_is_one_line(neo4j, run_cli):
    result = run_cli("cypher", "MATCH (n RETURN n")
    assert result.exit_code == 1 and "Neo4j error" in result.output
    assert len(result.output.strip().splitlines()) == 1
