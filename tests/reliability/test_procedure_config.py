"""The config maps of `graphrag.search` and `graphrag.retrieve.graph` checked before any work, in the
real Neo4j with the plugin: a value of the wrong kind, out of range, not finite, a date that is no
date or an unknown key is refused with one line that names the procedure and the key."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ClientError

pytestmark = pytest.mark.e2e

# (config, what the refusal says after "<procedure>: ")
BAD = [
    ({"k": "abc"}, "config k must be a whole number from 1 to 1000, not 'abc'"),
    ({"k": 2.7}, "config k must be a whole number from 1 to 1000, not 2.7"),
    ({"k": 1000000000}, "config k must be a whole number from 1 to 1000, not 1000000000"),
    ({"k": 2**62}, "config k must be a whole number from 1 to 1000"),
    ({"k": 0}, "config k must be a whole number from 1 to 1000, not 0"),
    ({"k": True}, "config k must be a whole number from 1 to 1000, not true"),
    ({"rrfK": float("nan")}, "config rrfK must be a finite number from 0 to 100000, not NaN"),
    ({"rrfK": float("inf")}, "config rrfK must be a finite number from 0 to 100000, not Infinity"),
    ({"vectorWeight": 1e308}, "config vectorWeight must be a finite number from 0 to 1000, not 1.0E308"),
    ({"fulltextWeight": -1e308}, "config fulltextWeight must be a finite number from 0 to 1000, not -1.0E308"),
    ({"coverWeight": "high"}, "config coverWeight must be a finite number from 0 to 1000, not 'high'"),
    ({"graphCandidates": 10**9}, "config graphCandidates must be a whole number from 1 to 1000"),
    ({"fetch": -5}, "config fetch must be a whole number from 1 to 100000, not -5"),
    ({"from": "2024-13-45"}, "config from must be a real calendar date written YYYY-MM-DD, not '2024-13-45'"),
    ({"to": "2023-02-29"}, "config to must be a real calendar date written YYYY-MM-DD, not '2023-02-29'"),
    ({"from": "13/01/2024"}, "config from must be a date written YYYY-MM-DD, e.g. 2024-05-01, not '13/01/2024'"),
    ({"corpus": 42}, "config corpus must be text of at most 200 characters, not 42"),
    ({"terms": "silver lantern"}, "config terms must be a list of at most 1000 texts, not 'silver lantern'"),
    ({"entityIds": [1, 2]}, "config entityIds must be a list of at most 1000 texts, not a list of 2"),
    ({"kk": 3}, "unknown config key 'kk': use about, aboutRules, aboutWeight, corpora, corpus, coverWeight"),
]


@pytest.fixture
def session(schema):
    with schema.driver() as driver, driver.session() as session:
        yield session


def refusal(session, cypher: str, **params) -> str:
    with pytest.raises(ClientError) as refused:
        session.run(cypher, **params).consume()
    message = refused.value.message
    assert "\n" not in message, message
    return message


@pytest.mark.parametrize("config,said", BAD, ids=[next(iter(c)) + "=" + repr(next(iter(c.values()))) for c, _ in BAD])
def test_a_bad_config_value_is_refused_naming_the_key(session, config, said):
    search = refusal(
        session, "CALL graphrag.search('the lantern', $config) YIELD chunkId RETURN chunkId", config=config
    )
    assert f"graphrag.search: {said}" in search
    graph = refusal(
        session,
        "CALL graphrag.retrieve.graph([0.1, 0.2, 0.3], 'lantern', $config) YIELD chunkId RETURN chunkId",
        config=config,
    )
    assert f"graphrag.retrieve.graph: {said}" in graph


def test_the_neighbours_procedure_checks_its_config_too(session):
    message = refusal(
        session,
        "CALL graphrag.retrieve.neighbours(['x'], [0.1, 0.2, 0.3], $config) YIELD chunkId RETURN chunkId",
        config={"perSeed": 2.5},
    )
    assert "graphrag.retrieve.neighbours: config perSeed must be a whole number from 0 to 1000, not 2.5" in message


def test_the_configs_python_sends_pass(schema, monkeypatch):
    """The graph mode's own config (every weight, filters, nulls) is taken as it always was."""
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.retrieval.base import WEIGHTS
    from graphrag_cypher.retrieval.procedures import graph_via_procedure, neighbours_via_procedure

    schema.point_env(monkeypatch)
    with connect(load_settings()) as g:
        embedding = [0.01] * 384
        filters = {"corpus": None, "from": "2024-02-29", "to": None}
        rows = graph_via_procedure(
            g, embedding, "lantern", k=5, weights=WEIGHTS, entity_ids=[], terms=["lantern"], filters=filters, fetch=50
        )
        assert rows == []
        assert neighbours_via_procedure(g, ["x"], embedding, corpus="tales", date_to="2024-12-31") == []
