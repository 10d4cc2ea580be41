"""One Neo4j connection per command, with errors a user can act on, and the named Cypher it runs.

Every statement the Python code runs is a file ``cypher/queries/<area>/<name>.cypher``, read
by name (:func:`query`); ``graph.read("retrieval/vector", ...)`` runs one.

Reads that answer questions run in read transactions (:meth:`Graph.read`); writes in
write transactions (:meth:`Graph.write`); schema statements, which Neo4j cannot mix
with data writes, run as auto-commit statements (:meth:`Graph.run_schema`).

Any URI the driver takes works: ``bolt://`` (one server), ``neo4j://`` (routing: a cluster,
or one server, asked for its routing table), and ``+s`` / ``+ssc`` for TLS (Aura is
``neo4j+s://``). Read sessions are opened in read access mode, so a cluster routes them to
its secondaries (or followers); all sessions of a Graph share one bookmark manager, so a
read sees every write the same Graph made before it (causal consistency across members).

Every transaction carries a timeout that Neo4j enforces (the driver's transaction config), so a
slow statement is ended by the database, not only abandoned by the client: reads
``GRAPHRAG_STATEMENT_TIMEOUT`` seconds (default 30), writes ``GRAPHRAG_WRITE_TIMEOUT`` (default:
no bound, a load of a large corpus writes in long transactions). A statement ended so is one
:class:`StatementTimeout` line.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from importlib import resources
from typing import Any

from . import audit, telemetry
from .config import Settings
from .errors import GraphragError, Neo4jUnavailable
from .principal import current as current_principal

# --- named Cypher statements: cypher/queries/<area>/<name>.cypher, loaded as query("area/name") ---

_PARAM_LINE = re.compile(r"^//\s*params:\s*(.*)$", re.IGNORECASE | re.MULTILINE)


@cache
def query(name: str) -> str:
    """The text of `cypher/queries/<name>.cypher`."""
    path = resources.files("graphrag_cypher.cypher").joinpath("queries", *f"{name}.cypher".split("/"))
    if not path.is_file():
        raise GraphragError(f"no Cypher query named {name!r} (expected cypher/queries/{name}.cypher)")
    return path.read_text(encoding="utf-8")


def params_of(name: str) -> set[str]:
    """The `$params` named in the query's `// params:` header line."""
    match = _PARAM_LINE.search(query(name))
    if not match or match.group(1).strip().lower() in {"", "none", "-"}:
        return set()
    return {p.strip().lstrip("$") for p in re.split(r"[,\s]+", match.group(1)) if p.strip().startswith("$")}


def _unavailable(settings: Settings, exc: Exception) -> Neo4jUnavailable:
    from neo4j.exceptions import AuthError, ConfigurationError, ServiceUnavailable

    where = settings.neo4j_uri
    if isinstance(exc, AuthError):
        return Neo4jUnavailable(
            f"Neo4j at {where} refused user {settings.neo4j_username!r}: check NEO4J_USERNAME / NEO4J_PASSWORD"
        )
    if isinstance(exc, ServiceUnavailable):
        hint = "start it with `graphrag neo4j start`" if settings.is_local_uri else "check that it is running"
        if settings.is_routing_uri and "routing" in str(exc).lower():
            hint += " (a server that gives no routing table takes bolt:// instead of neo4j://)"
        return Neo4jUnavailable(f"cannot reach Neo4j at {where}: {hint}, or set NEO4J_URI")
    if isinstance(exc, (ConfigurationError, ValueError)):
        return Neo4jUnavailable(f"invalid NEO4J_URI {where!r}: {exc}")
    return Neo4jUnavailable(f"Neo4j at {where}: {exc}")


class StatementTimeout(GraphragError):
    """Neo4j ended a transaction that ran past its timeout."""


def timed_out(exc: BaseException) -> bool:
    """Whether `exc` is Neo4j ending a transaction at its timeout (the transaction config's, or the
    server's db.transaction.timeout)."""
    from neo4j.exceptions import Neo4jError

    return isinstance(exc, Neo4jError) and "TransactionTimedOut" in (exc.code or "")


def statement_timeout_error(seconds: float | None, setting: str) -> StatementTimeout:
    """The one line for a transaction Neo4j ended at `seconds` (None: the server's own bound), which
    the environment variable `setting` sets."""
    bound = f"the {seconds:g} s" if seconds is not None else "the server's"
    return StatementTimeout(
        f"Neo4j ended a statement that ran past {bound} transaction timeout ({setting}): "
        "ask a narrower question, or raise the timeout"
    )


def connection_lost(settings: Settings, exc: BaseException) -> Neo4jUnavailable | None:
    """The one-line error for a server that went away in the middle of a command (stopped,
    killed, its database shut down), or None when `exc` is something else."""
    from neo4j.exceptions import DatabaseUnavailable, IncompleteCommit, ServiceUnavailable, SessionExpired

    if not isinstance(exc, (ServiceUnavailable, SessionExpired, DatabaseUnavailable, IncompleteCommit)):
        return None
    hint = "start it with `graphrag neo4j start`" if settings.is_local_uri else "check that it is running"
    return Neo4jUnavailable(
        f"Neo4j at {settings.neo4j_uri} stopped answering ({type(exc).__name__}): {hint}, "
        "then run the same command again"
    )


def _quiet_driver_logs() -> None:
    """The driver logs each retry as a multi-line warning, which Python prints on stderr when
    nothing else handles it; the command reports the outcome in one line instead."""
    import logging

    logger = logging.getLogger("neo4j")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())


# A write transaction rides out a short restart or a cluster leader switch; a read (a question,
# a page of documents) is answered or refused within the configured timeout.
WRITE_RETRY_SECONDS = 15.0
READ_RETRY_DELAY = 0.5


def _named(graph, name: str, /, **params: Any) -> dict:
    """A named query's span attributes: the file it runs (never its parameters)."""
    return {"db.system.name": "neo4j", "db.query.name": name}


class Graph:
    """A driver bound to one database, opened lazily and verified once.

    A server that does not answer is a one-line `Neo4jUnavailable` within about
    `settings.neo4j_timeout` seconds (GRAPHRAG_NEO4J_TIMEOUT, default 3) for reads: that many
    seconds to connect and hand-shake, and one more try half a second later when the first
    failed fast and there is time left (a stale pooled connection, a database that is still
    starting). Writes keep the driver's retries (`WRITE_RETRY_SECONDS`). Once a session has
    found the server gone, the next ones (for `neo4j_timeout` seconds) try once and do not
    retry, so a server under load answers every waiting request quickly instead of each one
    waiting out its own retries."""

    def __init__(self, settings: Settings):
        if not settings.neo4j_password:
            raise GraphragError("NEO4J_PASSWORD is not set: put it in .env (see .env.example) or the environment")
        self.settings = settings
        self.database = settings.neo4j_database
        self.timeout = settings.neo4j_timeout
        # seconds Neo4j lets one read / one write transaction run (None: the server's own bound)
        self.read_timeout = settings.statement_timeout
        self.write_timeout = settings.write_timeout
        self._down_until = 0.0  # time.monotonic() until which sessions do not retry
        _quiet_driver_logs()
        from neo4j import GraphDatabase

        # One bookmark manager for every session: reads after writes see them, on any member.
        self.bookmarks = GraphDatabase.bookmark_manager()
        started = time.perf_counter()
        try:
            self.driver = GraphDatabase.driver(
                settings.neo4j_uri,
                auth=(settings.neo4j_username, settings.neo4j_password),
                connection_timeout=self.timeout,
                connection_acquisition_timeout=self.timeout,
                max_transaction_retry_time=WRITE_RETRY_SECONDS,
                # "label does not exist" and similar hints are noise on a fresh graph.
                notifications_min_severity="OFF",
            )
            self.driver.verify_connectivity()
        except Exception as exc:  # the driver raises several unrelated types here
            raise _unavailable(settings, exc) from exc
        self.connect_ms = (time.perf_counter() - started) * 1000  # the driver's import not counted

    def close(self) -> None:
        self.driver.close()

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def session(self, read_only: bool = False, fetch_size: int | None = None) -> Iterator[Any]:
        """A driver session; a server lost on the way becomes one Neo4jUnavailable line.
        `fetch_size`: records asked of the server at a time (the driver's default: 1000)."""
        from neo4j import READ_ACCESS, WRITE_ACCESS

        # reads retry in `_read`, within the timeout; writes through the driver
        retry = 0.0 if read_only or self.is_down() else max(self.timeout, WRITE_RETRY_SECONDS)
        try:
            with self.driver.session(
                database=self.database,
                default_access_mode=READ_ACCESS if read_only else WRITE_ACCESS,
                max_transaction_retry_time=retry,
                bookmark_manager=self.bookmarks,
                fetch_size=fetch_size or 1000,  # the driver's default
            ) as session:
                yield session
        except Exception as exc:
            lost = connection_lost(self.settings, exc)
            if lost is None:
                raise
            self._down_until = time.monotonic() + self.timeout
            raise lost from exc
        self._down_until = 0.0

    def is_down(self) -> bool:
        """Whether a session found the server gone less than `timeout` seconds ago."""
        return time.monotonic() < self._down_until

    def _read(self, work: Callable[[Any], Any]) -> Any:
        """`work(tx)` in a read transaction. A failure that leaves time before the timeout is
        tried once more, half a second later (a stale pooled connection, a database still
        starting); none is when the server was already known to be gone."""
        from neo4j import unit_of_work
        from neo4j.exceptions import TransientError

        bounded = unit_of_work(timeout=self.read_timeout)(work)
        deadline = time.monotonic() + self.timeout
        retried = self.is_down()
        while True:
            try:
                with self.session(read_only=True) as session:
                    return session.execute_read(bounded)
            except Exception as exc:
                if timed_out(exc):  # ended at its bound: trying again would only run it again
                    raise statement_timeout_error(self.read_timeout, "GRAPHRAG_STATEMENT_TIMEOUT") from exc
                if not isinstance(exc, (Neo4jUnavailable, TransientError)):
                    raise
                if retried or time.monotonic() + READ_RETRY_DELAY >= deadline:
                    raise
                retried = True
                time.sleep(READ_RETRY_DELAY)

    @telemetry.traced("neo4j.read", _named)
    def read(self, name: str, /, **params: Any) -> list[dict]:
        """Run the named query in a read transaction; rows as dicts."""
        return self.read_text(query(name), **params)

    def read_text(self, text: str, /, **params: Any) -> list[dict]:
        params = scoped(params)

        def work(tx):
            return [record.data() for record in tx.run(text, params)]

        return self._read(work)

    @telemetry.traced("neo4j.read", _named)
    def read_row(self, name: str, /, **params: Any) -> dict:
        """The one row of the named query, its values as the driver gives them: for queries that
        return large parallel lists, which `read`'s ``Record.data()`` would walk item by item
        looking for nodes to convert (a fifth of a second on the names of 41k places)."""
        text, params = query(name), scoped(params)
        return self._read(lambda tx: dict(tx.run(text, params).single(strict=True).items()))

    @telemetry.traced("neo4j.write", _named)
    def write(self, name: str, /, **params: Any) -> list[dict]:
        """Run the named query in a write transaction; rows as dicts."""
        text = query(name)
        counters: list[Any] = []  # the driver's SummaryCounters, for the audit of a derived write

        def work(tx):
            result = tx.run(text, params)
            rows = [record.data() for record in result]
            counters[:] = [result.consume().counters]  # the last try's
            return rows

        rows = self._write(work)
        audit.counted(counters[0] if counters else None)
        return rows

    def write_steps(self, *steps: tuple[str, dict[str, Any]]) -> list[list[dict]]:
        """Run named queries, in order, in one write transaction; each one's rows as dicts."""
        texts = [(query(name), params) for name, params in steps]
        counters: list[Any] = []

        def work(tx):
            out = []
            counters.clear()  # the last try's
            for text, params in texts:
                result = tx.run(text, params)
                out.append([record.data() for record in result])
                counters.append(result.consume().counters)
            return out

        rows = self._write(work)
        for found in counters:
            audit.counted(found)
        return rows

    def _write(self, work: Callable[[Any], Any]) -> Any:
        """`work(tx)` in a write transaction under the write timeout (the driver retries it)."""
        from neo4j import unit_of_work

        try:
            with self.session() as session:
                return session.execute_write(unit_of_work(timeout=self.write_timeout)(work))
        except Exception as exc:
            if timed_out(exc):
                raise statement_timeout_error(self.write_timeout, "GRAPHRAG_WRITE_TIMEOUT") from exc
            raise

    def run_schema(self, text: str, /, **params: Any) -> list[dict]:
        """An auto-commit statement (schema changes cannot share a transaction with writes)."""
        with self.session() as session:
            return [record.data() for record in session.run(text, params)]


def scoped(params: dict[str, Any]) -> dict[str, Any]:
    """A read's parameters with `$scope`: the corpora of the key it runs for (a list), or null for
    every corpus (the CLI, an admin or unscoped key). Every query that can reach another corpus's
    nodes filters on it in the query itself; the caller never has to remember to pass it."""
    if "scope" in params:
        return params
    corpora = current_principal().corpora
    return {**params, "scope": list(corpora) if corpora is not None else None}


def connect(settings: Settings) -> Graph:
    return Graph(settings)
