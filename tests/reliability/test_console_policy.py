"""Read mode's policy on statements and plans, without a database (plans as Neo4j 5.26 returns them)."""

from __future__ import annotations

import pytest

from graphrag_cypher.admin.readonly import Refused, calls, check, explain_text


def plan(*operators: tuple[str, str]) -> dict:
    """A one-branch plan: [(operatorType, Details), ...] from the root down."""
    node: dict = {}
    for operator, details in reversed(operators):
        node = {"operatorType": f"{operator}@neo4j", "args": {"Details": details}, "children": [node] if node else []}
    return node


@pytest.mark.parametrize(
    "text, procedures, functions",
    [
        ("CALL db.labels", {"db.labels"}, set()),
        ("CALL apoc.load.json('http://x') YIELD value RETURN value", {"apoc.load.json"}, set()),
        ("RETURN `apoc`.`load`.json(1), `apoc.cypher.run`(2)", set(), {"apoc.load.json", "apoc.cypher.run"}),
        (
            "RETURN apoc /* hidden */ . cypher . runFirstColumnSingle('x', {})",
            set(),
            {"apoc.cypher.runFirstColumnSingle"},
        ),
        ("RETURN 'apoc.load.json(1)' AS s, \"CALL x.y\" AS t // apoc.export.csv.all(", set(), set()),
        ("RETURN 'it\\'s' + apoc.text.join(['a'], ',')", set(), {"apoc.text.join"}),
        ("MATCH (n:Doc) WHERE n.x = $p RETURN n {.a}, count(*), toLower(n.t)", set(), set()),
        ("CALL { MATCH (n) RETURN n } CALL (n) { RETURN n AS m } RETURN m", set(), set()),
        ("WITH 1 AS terminate RETURN terminate", set(), set()),
    ],
)
def test_calls_are_read_from_tokens(text, procedures, functions):
    found = calls(text)
    assert (found.procedures, found.functions) == (procedures, functions)


def test_a_statement_that_cannot_be_split_is_refused():
    for text in ("RETURN 'open", "RETURN /* open", "RETURN `open"):
        with pytest.raises(Refused):
            calls(text)


def test_explain_text():
    assert explain_text("MATCH (n) RETURN n") == "EXPLAIN MATCH (n) RETURN n"
    assert (
        explain_text("CYPHER 5 runtime=slotted PROFILE MATCH (n) RETURN n")
        == "CYPHER 5 runtime=slotted EXPLAIN MATCH (n) RETURN n"
    )
    assert explain_text("// why\nexplain MATCH (n) RETURN n") is None


@pytest.mark.parametrize(
    "query_type, operators, text, named",
    [
        ("rw", [("ProduceResults", "n"), ("Create", "(n)")], "CREATE (n) RETURN n", "writes"),
        ("s", [("CreateIndex", "RANGE INDEX i FOR (:X) ON (y)")], "CREATE INDEX i FOR (n:X) ON (n.y)", "schema"),
        ("s", [("AdministrationCommand", "")], "CREATE USER u SET PASSWORD 'p'", "administration"),
        ("r", [("ProduceResults", "r"), ("LoadCSV", "r")], "LOAD CSV FROM $u AS r RETURN r", "LOAD CSV"),
        (
            "r",
            [("ProduceResults", "t"), ("TerminateTransactions", "transactions(x)")],
            "TERMINATE TRANSACTIONS 'x'",
            "TERMINATE TRANSACTIONS",
        ),
        (
            "r",
            [("ProduceResults", "value"), ("ProcedureCall", "apoc.load.json($autostring_0) :: (value :: MAP)")],
            "CALL apoc.load.json('u') YIELD value RETURN value",
            "procedure apoc.load.json",
        ),
        (
            "r",
            [("ProduceResults", "x"), ("Projection", "apoc.cypher.runFirstColumnSingle($autostring_0, {}) AS x")],
            "RETURN apoc.cypher.runFirstColumnSingle('RETURN 1', {}) AS x",
            "function apoc.cypher.runFirstColumnSingle",
        ),
        # Seen only in the plan (the text names nothing): still refused.
        (
            "r",
            [("ProduceResults", "v"), ("ProcedureCall", "gds.graph.export($a, $b) :: (x :: MAP)")],
            "RETURN 1",
            "procedure gds.graph.export",
        ),
        (
            "s",
            [("ProduceResults", "name"), ("ProcedureCall", "db.clearQueryCaches() :: (value :: STRING)")],
            "CALL db.clearQueryCaches()",
            "procedure db.clearQueryCaches",
        ),
    ],
)
def test_refusals_name_what_was_refused(query_type, operators, text, named):
    with pytest.raises(Refused, match=named):
        check(query_type, plan(*operators), text)


@pytest.mark.parametrize(
    "query_type, operators, text",
    [
        (
            "r",
            [("ProduceResults", "t"), ("Projection", "n.title AS t"), ("NodeByLabelScan", "n:Doc")],
            "MATCH (n:Doc) RETURN n.title AS t",
        ),
        (
            "s",
            [("ProduceResults", "name"), ("ProcedureCall", "dbms.components() :: (name :: STRING)")],
            "CALL dbms.components()",
        ),
        (
            "r",
            [("ProduceResults", "s"), ("ProcedureCall", "gds.pageRank.stream($a) :: (nodeId :: INTEGER)")],
            "CALL gds.pageRank.stream('g') YIELD nodeId RETURN gds.util.asNode(nodeId).name AS s",
        ),
        (
            "r",
            [("ProduceResults", "d"), ("Projection", "date.truncate($autostring_0, date()) AS d")],
            "RETURN date.truncate('month', date()) AS d, apoc.text.join(['a'], ',') AS j, graphrag.version() AS v",
        ),
    ],
)
def test_reads_pass(query_type, operators, text):
    check(query_type, plan(*operators), text)


@pytest.mark.parametrize(
    "query_type, operators, text, reason",
    [
        ("rw", [("ProduceResults", "n"), ("Create", "(n)")], "CREATE (n) RETURN n", "it writes to the graph (CREATE)"),
        (
            "w",
            [("EmptyResult", ""), ("DetachDelete", "n"), ("AllNodesScan", "n")],
            "MATCH (n) DETACH DELETE n",
            "it writes to the graph (DETACH DELETE)",
        ),
        (
            "rw",
            [("ProduceResults", "n"), ("SetProperty", "n.set = 1")],
            "MATCH (n:Create {create: 1}) WHERE n.merge = 1 SET n.set = 1 RETURN n",
            "it writes to the graph (SET)",
        ),
        (
            "s",
            [("CreateIndex", "")],
            "CREATE INDEX i FOR (n:X) ON (n.y)",
            "it changes the schema or is an administration",
        ),
        ("r", [("ProduceResults", "r"), ("LoadCSV", "r")], "LOAD CSV FROM $u AS r RETURN r", "it uses LOAD CSV"),
        (
            "r",
            [("ProduceResults", "value"), ("ProcedureCall", "apoc.load.json($autostring_0) :: (value :: MAP)")],
            "CALL apoc.load.json('u') YIELD value RETURN value",
            "it calls apoc.load.json, which is not allowed",
        ),
        (
            "r",
            [("ProduceResults", "x"), ("Projection", "apoc.cypher.runFirstColumnSingle($autostring_0, {}) AS x")],
            "RETURN apoc.cypher.runFirstColumnSingle('RETURN 1', {}) AS x",
            "it calls apoc.cypher.runFirstColumnSingle, which is not allowed",
        ),
    ],
)
def test_refusals_give_a_reason_without_the_consoles_wording(query_type, operators, text, reason):
    """`reason` is for callers that run statements they did not write (text-to-Cypher)."""
    with pytest.raises(Refused) as refused:
        check(query_type, plan(*operators), text)
    assert refused.value.reason.startswith(reason) and "--write" not in refused.value.reason
    assert "read mode refuses" in str(refused.value)  # the console's message is unchanged


def test_the_text_alone_is_checked_before_neo4j_plans_it():
    from graphrag_cypher.admin.readonly import check_text

    for text, reason in [
        ("CALL apoc.load.csv('file:///etc/passwd') YIELD list RETURN list", "it calls apoc.load.csv"),
        ("LOAD CSV FROM 'http://x' AS r RETURN r", "it uses LOAD CSV"),
        ("TERMINATE TRANSACTIONS 'neo4j-transaction-1'", "it uses TERMINATE TRANSACTIONS"),
    ]:
        with pytest.raises(Refused) as refused:
            check_text(text)
        assert refused.value.reason.startswith(reason)
    check_text("MATCH (n:Doc) RETURN n.title, apoc.text.join(['a'], ',') AS j LIMIT 5")
