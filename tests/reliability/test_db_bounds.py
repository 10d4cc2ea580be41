"""Bounded in the database, not only in the client: every read carries a transaction timeout Neo4j
enforces (GRAPHRAG_STATEMENT_TIMEOUT), so a slow statement or a long procedure call is ended by
Neo4j itself; the stored procedures check their parameters against documented bounds and answer a
bad call with one line, never a NullPointerException; read mode refuses a regular expression one
match of which the timeout could not stop, and reads `//` comments as Cypher's lexer does. Real
Neo4j with the graphrag plugin."""

from __future__ import annotations

import time

import pytest
from neo4j.exceptions import ClientError

from graphrag_cypher.admin import readonly
from graphrag_cypher.config import load_settings
from graphrag_cypher.db import StatementTimeout, connect
from graphrag_cypher.errors import GraphragError

pytestmark = pytest.mark.e2e

# A read that would run for minutes: ten billion rows, none kept.
SLOW_READ = "UNWIND range(1, 10000000000) AS i WITH i WHERE i < 0 RETURN count(i) AS n"
BOUND = 1.0  # seconds: the timeout the tests set
# Neo4j ends a timed-out transaction when its monitor next looks (db.transaction.monitor.check.interval)
# and the statement next checks; the goal is bound + 1 s.
MARGIN = 1.0


@pytest.fixture
def graph(neo4j, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_STATEMENT_TIMEOUT", str(BOUND))
    monkeypatch.setenv("GRAPHRAG_WRITE_TIMEOUT", str(BOUND))
    with connect(load_settings()) as g:
        yield g


@pytest.fixture(scope="module")
def walk_graph(neo4j_server):
    """200 chunks sharing 200 phrases: 40,000 relationships in one seed's two hops, so a walk of
    100,000 iterations (within the bound) would run for minutes."""
    from ..conftest import wipe

    with neo4j_server.driver() as driver:
        wipe(driver)
        driver.execute_query("UNWIND range(0, 199) AS i CREATE (:Chunk {id: 'c' + i, text: 'chunk ' + i})")
        driver.execute_query("UNWIND range(0, 199) AS i CREATE (:Phrase {id: 'p' + i, name: 'p' + i, chunks: 200})")
        driver.execute_query("MATCH (c:Chunk), (p:Phrase) CREATE (c)-[:HAS_PHRASE]->(p)")
    return neo4j_server


def one_line_refusal(session, cypher: str, **params) -> str:
    started = time.monotonic()
    with pytest.raises(ClientError) as refused:
        session.run(cypher, **params).consume()
    message = refused.value.message
    assert "\n" not in message, message
    assert "NullPointerException" not in message and "ClassCastException" not in message, message
    assert time.monotonic() - started < 5, "a refusal is answered before any work"
    return message


# --- the statement timeout ---------------------------------------------------------------------


def test_settings_read_and_check_the_timeouts():
    assert load_settings({}).statement_timeout == 30.0
    assert load_settings({}).write_timeout is None
    assert load_settings({"GRAPHRAG_STATEMENT_TIMEOUT": "2.5"}).statement_timeout == 2.5
    assert load_settings({"GRAPHRAG_STATEMENT_TIMEOUT": "off"}).statement_timeout is None
    assert load_settings({"GRAPHRAG_WRITE_TIMEOUT": "600"}).write_timeout == 600.0
    for bad in ("0", "-1", "soon", "nan", "1e9"):
        with pytest.raises(GraphragError, match=r"GRAPHRAG_STATEMENT_TIMEOUT=.*give seconds between 0.1 and 86400"):
            load_settings({"GRAPHRAG_STATEMENT_TIMEOUT": bad})


def test_a_slow_read_is_ended_by_neo4j_within_the_bound(graph):
    started = time.monotonic()
    with pytest.raises(StatementTimeout) as ended:
        graph.read_text(SLOW_READ)
    took = time.monotonic() - started
    message = str(ended.value)
    assert "\n" not in message
    assert "1 s transaction timeout (GRAPHRAG_STATEMENT_TIMEOUT)" in message, message
    assert took < BOUND + MARGIN, f"ended after {took:.2f} s"
    # the Graph is fine afterwards, and nothing is left running in the database
    assert graph.read_text("RETURN 1 AS one") == [{"one": 1}]
    running = graph.read_text(
        "SHOW TRANSACTIONS YIELD currentQuery WHERE currentQuery CONTAINS 'range(1, 10000000000)' "
        "AND NOT currentQuery CONTAINS 'SHOW' RETURN count(*) AS n"
    )
    assert running == [{"n": 0}]


def test_a_users_statement_carries_the_timeout_in_read_and_write_mode(graph):
    for write in (False, True):
        started = time.monotonic()
        with pytest.raises(StatementTimeout) as ended:
            readonly.run_statement(graph, SLOW_READ, {}, write=write)
        took = time.monotonic() - started
        setting = "GRAPHRAG_WRITE_TIMEOUT" if write else "GRAPHRAG_STATEMENT_TIMEOUT"
        assert setting in str(ended.value)
        assert took < BOUND + MARGIN, f"write={write}: ended after {took:.2f} s"


# --- graphrag.ppr ------------------------------------------------------------------------------


def test_a_long_walk_is_ended_by_the_timeout_and_iterations_are_bounded(walk_graph, monkeypatch):
    walk_graph.point_env(monkeypatch)
    with connect(load_settings()) as graph:  # the default timeout: a walk within the bounds answers
        rows = graph.read_text("CALL graphrag.ppr({c0: 1.0}, {maxDegree: 1000, iterations: 50}) YIELD id RETURN id")
        assert len(rows) == 20
    monkeypatch.setenv("GRAPHRAG_STATEMENT_TIMEOUT", str(BOUND))
    with connect(load_settings()) as graph:
        # 100,000 iterations that never converge: the database ends it at the bound
        started = time.monotonic()
        with pytest.raises(StatementTimeout):
            graph.read_text(
                "CALL graphrag.ppr({c0: 1.0}, {maxDegree: 1000, iterations: 100000, tolerance: 0.0}) "
                "YIELD id RETURN count(id) AS n"
            )
        took = time.monotonic() - started
        assert took < BOUND + MARGIN, f"ended after {took:.2f} s"
    with walk_graph.driver() as driver, driver.session() as session:
        message = one_line_refusal(session, "CALL graphrag.ppr({c0: 1.0}, {iterations: 1000000000}) YIELD id RETURN id")
        assert "graphrag.ppr: config iterations must be a whole number from 1 to 100000, not 1000000000" in message
        message = one_line_refusal(session, "CALL graphrag.ppr({c0: 1.0}, {iteratons: 5}) YIELD id RETURN id")
        assert "graphrag.ppr: unknown config key 'iteratons': use damping, iterations, k, labels" in message
        message = one_line_refusal(session, "CALL graphrag.ppr(null) YIELD id RETURN id")
        assert "graphrag.ppr: seeds is required (a map of id to weight), not null" in message
        message = one_line_refusal(session, "CALL graphrag.ppr({c0: 'much'}) YIELD id RETURN id")
        assert "graphrag.ppr: the weight of seed 'c0' must be a finite number of at least 0, not 'much'" in message


# --- the other procedures' parameters ------------------------------------------------------------


@pytest.fixture
def session(schema):
    with schema.driver() as driver, driver.session() as session:
        yield session


def test_a_megabyte_query_is_refused_at_once(session):
    message = one_line_refusal(
        session,
        "CALL graphrag.retrieve.graph([0.1, 0.2, 0.3], $q) YIELD chunkId RETURN chunkId",
        q="lantern " * 131072,
    )
    assert "graphrag.retrieve.graph: the query is 1048576 characters long; at most 10000 are taken" in message


@pytest.mark.parametrize(
    "cypher, said",
    [
        (
            "CALL graphrag.retrieve.graph(null, 'lantern') YIELD chunkId RETURN chunkId",
            "graphrag.retrieve.graph: embedding is required (a list of numbers), not null",
        ),
        (
            "CALL graphrag.retrieve.graph([0.1, null], 'lantern') YIELD chunkId RETURN chunkId",
            "graphrag.retrieve.graph: embedding must be a list of at most 4096 numbers, not a list holding null",
        ),
        (
            "CALL graphrag.retrieve.neighbours(null, [0.1]) YIELD chunkId RETURN chunkId",
            "graphrag.retrieve.neighbours: seedIds is required (a list of ids), not null",
        ),
        (
            "CALL graphrag.search(null) YIELD chunkId RETURN chunkId",
            "graphrag.search: question is required (text), not null",
        ),
        (
            "CALL graphrag.link.places.match({corpsu: 'tales'}) YIELD key RETURN key",
            "graphrag.link.places.match: unknown config key 'corpsu': use corpus, keys, minLength",
        ),
        (
            "CALL graphrag.link.places.match({window: 1000000000}) YIELD key RETURN key",
            "graphrag.link.places.match: config window must be a whole number from 0 to 10000, not 1000000000",
        ),
        (
            "CALL graphrag.link.places.match({requireCapital: 'no'}) YIELD key RETURN key",
            "graphrag.link.places.match: config requireCapital must be true or false, not 'no'",
        ),
    ],
    ids=[
        "graph-null-embedding",
        "graph-null-in-embedding",
        "neighbours-null",
        "search-null",
        "match-key",
        "match-window",
        "match-flag",
    ],
)
def test_a_bad_argument_is_one_line_naming_it(session, cypher, said):
    assert said in one_line_refusal(session, cypher)


def test_search_with_a_null_config_takes_every_default(session):
    """graphrag.search(q, null) was a NullPointerException; now it is the call with no config."""
    try:
        rows = session.run("CALL graphrag.search('who stole the lantern?', null) YIELD chunkId RETURN chunkId").data()
    except ClientError as exc:  # a server without the ONNX export says so, in one line
        assert "NullPointerException" not in exc.message and "\n" not in exc.message, exc.message
    else:
        assert rows == []  # an empty graph: no chunk, no error


# --- read mode: regular expressions and comments -------------------------------------------------

CATASTROPHIC = "(a+)+$"  # on 'aaaa…!' Java's engine tries 2^n ways


def test_a_catastrophic_regex_is_refused_and_a_safe_one_runs(graph):
    with pytest.raises(readonly.Refused) as refused:
        readonly.run_statement(graph, f"RETURN $t =~ '{CATASTROPHIC}' AS m", {"t": "a" * 40 + "!"})
    assert refused.value.reason == f"its regular expression '{CATASTROPHIC}' repeats a repeat (nested quantifiers)"
    for pattern, why in [
        ("(a|aa)*b", "repeats an alternation"),
        ("(\\\\w)\\\\1", "uses a backreference"),
        ("x" * 201, "is 201 characters long (at most 200)"),
        (".*a.*b.*c.*d", "has 4 unbounded repeats (at most 3)"),
        ("\\\\p{L}+", "does not parse"),
    ]:
        with pytest.raises(readonly.Refused) as refused:
            readonly.check_text(f"MATCH (c:Chunk) WHERE c.text =~ '{pattern}' RETURN c")
        assert why in refused.value.reason, (pattern, refused.value.reason)
    for statement in (
        "MATCH (c:Chunk) WHERE c.text =~ $pattern RETURN c",
        "MATCH (c:Chunk) WHERE c.text =~ '.*' + $word + '.*' RETURN c",
        "MATCH (c:Chunk) WHERE c.text =~ c.title RETURN c",
    ):
        with pytest.raises(readonly.Refused, match="not one literal string"):
            readonly.check_text(statement)
    with pytest.raises(readonly.Refused, match="apoc.text.replace"):
        readonly.check_text("RETURN apoc.text.replace('aaaa!', '(a+)+$', '') AS x")
    # the safe ones run, in the real database
    _, rows, _ = readonly.run_statement(
        graph,
        "RETURN 'Snow White' =~ '(?i).*snow.*' AS m, 'the golden lantern' =~ '.*(silver|golden) lantern' AS g",
        {},
    )
    assert rows == [[True, True]]


@pytest.mark.parametrize("terminator", ["\n", "\r", "\r\n", "\u2028", "\u2029", "\u0085", "\x0b", "\x0c"], ids=repr)
def test_comments_end_where_neo4j_ends_them(graph, terminator):
    """Read mode's tokenizer and Neo4j agree on where a `//` comment ends, for every line terminator
    (a comment ended by \\r hid the rest of the line from the checks)."""
    text = f"RETURN 1 AS a //x{terminator}, 2 AS b"
    neo4j_ends_it = list(graph.read_text(text)[0]) == ["a", "b"]
    names = [t.text for t in readonly.tokens(text) if t.kind == "name"]
    assert ("b" in names) == neo4j_ends_it, f"Neo4j ends the comment: {neo4j_ends_it}; tokens {names}"
    if neo4j_ends_it:  # what follows the comment is checked: a function off the allowlist is refused
        with pytest.raises(readonly.Refused, match="apoc.cypher.runFirstColumnSingle"):
            readonly.check_text(
                f"RETURN 1 AS a //x{terminator}, apoc.cypher.runFirstColumnSingle('MATCH (n) DETACH DELETE n', {{}}) AS b"
            )
