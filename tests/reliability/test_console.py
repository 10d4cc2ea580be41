"""`graphrag cypher` without --write acts on nothing: attacks that a read transaction let through.

Against the test session's real Neo4j, with a real HTTP server on 127.0.0.1 (for the URL
attacks) and a real TCP relay in front of Bolt (to count how often a statement is sent).
"""

from __future__ import annotations

import json
import secrets
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytestmark = pytest.mark.e2e


def one_line(result) -> str:
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def refused(run_cli, query: str, *args: str) -> str:
    result = run_cli("cypher", query, *args)
    assert result.exit_code == 1, result.output
    line = one_line(result)
    assert "read mode refuses" in line, line
    return line


class Recorder(BaseHTTPRequestHandler):
    requests: list[str]

    def do_GET(self):  # noqa: N802 - http.server's naming
        self.requests.append(self.path)
        body = b'{"secret": "internal"}' if self.path.endswith(".json") else b"a,b\n1,2\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def local_http():
    """An HTTP server on 127.0.0.1 that records every request it gets."""
    handler = type("Handler", (Recorder,), {"requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler.requests
    server.shutdown()
    server.server_close()


class BoltRelay:
    """A TCP relay in front of Neo4j's Bolt port that keeps what the client sent."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.sent = bytearray()
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, source, sink, record):
        try:
            while data := source.recv(65536):
                if record:
                    with self.lock:
                        self.sent += data
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def runs_of(self, text: str) -> int:
        """How many times `text` was sent to run (its EXPLAIN plans do not count)."""
        with self.lock:
            sent = bytes(self.sent)
        statement = text.encode()
        return sent.count(statement) - sent.count(b"EXPLAIN " + statement)

    def close(self):
        self.listener.close()


def test_terminate_transactions_is_refused_and_the_other_transaction_lives(neo4j, run_cli):
    tag = secrets.token_hex(4)
    with neo4j.driver() as driver, driver.session() as session:
        victim = session.begin_transaction(metadata={"victim": tag})
        victim.run("CREATE (:Victim {tag: $tag})", tag=tag).consume()
        ids = [
            r["transactionId"]
            for r in driver.execute_query(
                "SHOW TRANSACTIONS YIELD transactionId, metaData WHERE metaData.victim = $tag RETURN transactionId",
                tag=tag,
            ).records
        ]
        assert len(ids) == 1
        line = refused(run_cli, f"TERMINATE TRANSACTIONS '{ids[0]}'")
        assert "TERMINATE TRANSACTIONS" in line
        # The victim's transaction was not ended: it still runs and commits.
        assert victim.run("RETURN 1 AS one").single()["one"] == 1
        victim.commit()
        assert driver.execute_query("MATCH (v:Victim {tag: $tag}) RETURN count(v) AS n", tag=tag).records[0]["n"] == 1


def test_url_loading_is_refused_before_any_request(neo4j, run_cli, local_http):
    url, requests = local_http
    line = refused(run_cli, f"CALL apoc.load.json('{url}/a.json') YIELD value RETURN value")
    assert "apoc.load.json" in line
    assert "LOAD CSV" in refused(run_cli, f"LOAD CSV FROM '{url}/b.csv' AS row RETURN row")
    assert "LOAD CSV" in refused(run_cli, f"CALL {{ LOAD CSV FROM '{url}/c.csv' AS row RETURN row }} RETURN row")
    # Nested Cypher run by a function would hide the call from the plan: the function is refused.
    line = refused(
        run_cli,
        "RETURN apoc.cypher.runFirstColumnSingle('CALL apoc.load.json($u) YIELD value RETURN value', {u: $u}) AS v",
        "-p",
        f"u={url}/d.json",
    )
    assert "apoc.cypher.runFirstColumnSingle" in line
    assert "apoc.load.json" in refused(
        run_cli, f"RETURN COLLECT {{ CALL apoc.load.json('{url}/e.json') YIELD value RETURN value }} AS v"
    )
    assert requests == []


def test_url_loading_from_this_machine_is_blocked_even_with_write(neo4j, run_cli, local_http):
    """The server's Cypher IP blocklist: with --write the statement runs, and Neo4j refuses the address."""
    if neo4j.instance is None:
        pytest.skip("the test Neo4j was not started by this session (GRAPHRAG_TEST_NEO4J_URI is set)")
    url, requests = local_http
    for query in (
        f"CALL apoc.load.json('{url}/a.json') YIELD value RETURN value",
        f"LOAD CSV FROM '{url}/b.csv' AS row RETURN row",
        f"LOAD CSV FROM '{url.replace('127.0.0.1', 'localhost')}/c.csv' AS row RETURN row",
    ):
        result = run_cli("cypher", query, "--write")
        assert result.exit_code == 1 and "blocklist" in one_line(result), result.output
    assert requests == []
    # No file URLs either, and APOC neither reads nor writes server files.
    for query, why in (
        ("LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row LIMIT 1", "allow_csv_import_from_file_urls"),
        ("CALL apoc.load.json('file:///etc/passwd') YIELD value RETURN value", "apoc.import.file.enabled"),
        ("CALL apoc.export.json.all('graph.json', {})", "apoc.export.file.enabled"),
    ):
        result = run_cli("cypher", query, "--write")
        assert result.exit_code == 1 and why in result.output, result.output


def test_gds_projection_export_and_mutate_need_write(neo4j, run_cli):
    run_cli("cypher", "CREATE (:P {n: 1})-[:L]->(:P {n: 2})-[:L]->(:P {n: 3})", "--write")
    name = f"g{secrets.token_hex(3)}"

    def graphs() -> list[dict]:
        out = run_cli("cypher", "CALL gds.graph.list() YIELD graphName, schema RETURN graphName, schema", "--json")
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)["rows"]

    assert "gds.graph.project" in refused(run_cli, f"CALL gds.graph.project('{name}', 'P', 'L')")
    assert "gds.graph.project" in refused(
        run_cli, f"MATCH (s:P)-[:L]->(t:P) RETURN gds.graph.project('{name}', s, t).graphName AS g"
    )
    assert all(g["graphName"] != name for g in graphs())

    made = run_cli("cypher", f"CALL gds.graph.project('{name}', 'P', 'L')", "--write")
    assert made.exit_code == 0, made.output
    try:
        assert "gds.graph.export" in refused(run_cli, f"CALL gds.graph.export('{name}', {{dbName: 'stolen'}})")
        assert "gds.pageRank.mutate" in refused(
            run_cli, f"CALL gds.pageRank.mutate('{name}', {{mutateProperty: 'pr'}}) YIELD nodePropertiesWritten"
        )
        assert "gds.graph.drop" in refused(run_cli, f"CALL gds.graph.drop('{name}')")
        (graph,) = [g for g in graphs() if g["graphName"] == name]
        assert "pr" not in json.dumps(graph["schema"])
        # Reading a projection is allowed: streamed results change nothing.
        streamed = run_cli(
            "cypher",
            f"CALL gds.pageRank.stream('{name}') YIELD nodeId, score "
            "RETURN gds.util.asNode(nodeId).n AS n, score ORDER BY n",
            "--json",
        )
        assert streamed.exit_code == 0, streamed.output
        assert [r["n"] for r in json.loads(streamed.stdout)["rows"]] == [1, 2, 3]
    finally:
        run_cli("cypher", f"CALL gds.graph.drop('{name}')", "--write")
    if neo4j.instance is not None:
        assert not (neo4j.instance.home_dir / "data" / "databases" / "stolen").exists()


def test_a_failing_read_runs_once_not_retried(neo4j, run_cli):
    """A heap-exhausting query ends in a TransientError; the driver's managed read would run it
    again and again for 15 s. An ad hoc query runs once."""
    host_port = int(neo4j.uri.rsplit(":", 1)[1])
    relay = BoltRelay(host_port)
    try:
        query = (
            f"UNWIND range(1, 400000000) AS x WITH x, '{secrets.token_hex(6)}' AS tag RETURN tag, size(collect(x)) AS n"
        )
        result = run_cli("cypher", query, env={"NEO4J_URI": f"bolt://127.0.0.1:{relay.port}"})
        assert result.exit_code == 1
        assert "MemoryPoolOutOfMemoryError" in one_line(result)
        assert relay.runs_of(query) == 1
    finally:
        relay.close()


def test_schema_writes_and_admin_commands_are_refused(neo4j, run_cli):
    assert "writes" in refused(run_cli, "MERGE (n:Scratch {x: 1}) RETURN n")
    assert "schema" in refused(run_cli, "CREATE INDEX scratch FOR (n:Scratch) ON (n.x)")
    assert "administration" in refused(run_cli, "CREATE USER mallory SET PASSWORD 'secret-secret'")
    assert "IN TRANSACTIONS" in refused(
        run_cli, "UNWIND [1, 2] AS x CALL (x) { RETURN x AS y } IN TRANSACTIONS RETURN y"
    )
    assert "db.clearQueryCaches" in refused(run_cli, "CALL db.clearQueryCaches()")
    assert "dbms.killConnections" in refused(run_cli, "CALL dbms.killConnections(['bolt-1'])")
    components = run_cli("cypher", "CALL dbms.components() YIELD name RETURN name", "--json")
    assert components.exit_code == 0 and json.loads(components.stdout)["rows"], components.output


def _onnx_export_current() -> bool:
    from graphrag_cypher import onnx_embedder

    return onnx_embedder.check()[0]


def test_reads_still_run(neo4j, run_cli):
    run_cli("cypher", "CREATE (:Doc {title: 'Ostia'})", "--write")
    for query in (
        "MATCH (d:Doc) RETURN d.title AS t",
        "PROFILE MATCH (d:Doc) RETURN d.title AS t",
        "CYPHER runtime=slotted MATCH (d:Doc) RETURN d.title AS t",
        "CALL db.labels() YIELD label WHERE label = 'Doc' RETURN label AS t",
        "SHOW INDEXES YIELD name RETURN count(name) > 0 AS t",
        "CALL apoc.meta.stats() YIELD labels RETURN labels.Doc AS t",
        "RETURN apoc.text.join(['a', 'b'], '-') AS t, date.truncate('month', date('2024-03-05')) AS d",
        "RETURN gds.version() AS t, graphrag.version() AS v, graphrag.normName('Tell el-Amarna') AS k",
        # graphrag's own procedures read only
        "CALL graphrag.ppr({Ostia: 1.0}, {}) YIELD id RETURN count(id) AS t",
        "CALL graphrag.retrieve.neighbours(['Ostia'], [1.0, 0.0], {}) YIELD chunkId RETURN count(chunkId) AS t",
        "CALL graphrag.link.places.match({keys: ['ostia']}) YIELD chunkId RETURN count(chunkId) AS t",
        "// a comment naming apoc.load.json('x')\nRETURN 'CALL apoc.load.json(1)' AS t",
        *(["RETURN size(graphrag.embed('Ostia')) AS t"] if _onnx_export_current() else []),
    ):
        result = run_cli("cypher", query, "--json")
        assert result.exit_code == 0, (query, result.output)
        assert json.loads(result.stdout)["rows"], query
    plan = run_cli("cypher", "EXPLAIN TERMINATE TRANSACTIONS 'neo4j-transaction-1'")  # EXPLAIN runs nothing
    assert plan.exit_code == 0, plan.output


def test_values_are_printed_as_text_not_markup(neo4j, run_cli):
    escape = "\x1b]8;;http://evil.example\x07click\x1b]8;;\x07 \x1b[31mred\x1b[0m \x1b]0;title\x07"
    result = run_cli(
        "cypher",
        "RETURN '[/bold] x' AS a, ':x: :smile:' AS b, '[link=http://evil.example]here[/link]' AS c, $e AS `[red]d`",
        "-p",
        f"e={escape}",
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    for literal in ("[/bold] x", ":x: :smile:", "[link=http://evil.example]here[/link]", "[red]d", "click red"):
        assert literal in out, (literal, out)
    assert "\x1b" not in out and "\x07" not in out


def test_doctor_prints_names_from_the_graph_as_text(neo4j, run_cli):
    made = run_cli("cypher", "CREATE INDEX `[/bold]:x:` FOR (n:Scratch) ON (n.x)", "--write")
    assert made.exit_code == 0, made.output
    result = run_cli("doctor")
    assert "[/bold]:x:" in result.stdout, result.output
