"""The suite's own promise (tests/conftest.py `load_sample_graph`): a graph built by the same
commands is kept while nothing writes to the database, and any write, a test's own included,
makes the next load build it again from nothing."""

import pytest

from ..conftest import last_committed, load_sample_graph

pytestmark = pytest.mark.e2e

RECIPE = (["load", "sample", "--no-embed"],)


def snapshot(server) -> tuple[tuple | None, list[str]]:
    with server.driver() as driver:
        ids = driver.execute_query("MATCH (d:Document) RETURN elementId(d) AS id ORDER BY id").records
    return last_committed(server), [r["id"] for r in ids]


def test_a_graph_is_kept_until_something_writes(neo4j_server):
    load_sample_graph(neo4j_server, *RECIPE)
    first = snapshot(neo4j_server)
    assert first[0] is not None and first[1], "the sample has documents"
    with neo4j_server.driver() as driver:
        driver.execute_query("MATCH (n) RETURN count(n) AS n")  # reads move nothing

    load_sample_graph(neo4j_server, *RECIPE)
    assert snapshot(neo4j_server) == first, "nothing wrote: the same graph, not a reload"

    with neo4j_server.driver() as driver:
        driver.execute_query("MATCH (d:Document) WITH d LIMIT 1 SET d.touched = true")
    load_sample_graph(neo4j_server, *RECIPE)
    again = snapshot(neo4j_server)
    assert again[0] != first[0] and len(again[1]) == len(first[1])
    with neo4j_server.driver() as driver:
        touched = driver.execute_query("MATCH (d:Document) WHERE d.touched RETURN count(d) AS n").records[0]["n"]
    assert touched == 0, "a write: built again from nothing"

    load_sample_graph(neo4j_server, ["load", "sample", "--no-embed"], ["link", "phrases"])
    assert snapshot(neo4j_server)[0] != again[0], "other commands: another graph"
