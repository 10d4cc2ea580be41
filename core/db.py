"""One Neo4j connection per command, with errors a user can act on, and the named Cypher it runs.

Every statement the Python code runs is a file ``cypher/queries/<area>/<name>.cypher``, read
by name (:func:`query`); ``graph.read("retrieval/vector", ...)`` runs one.

Reads that answer questions run in read transactions (:meth:`Graph.read`); writes in
write transactions (:meth:`Graph.write`); schema statements, which Neo4j cannot mix
with data writes, run as auto-commit statements (:meth:`Graph.run_schema`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from importlib import resources
from typing import Any

from .config import Settings
from .errors import GraphragError, Neo4jUnavailable

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
        return Neo4jUnavailable(f"cannot reach Neo4j at {where}: {hint}, or set NEO4J_URI")
    if isinstance(exc, (ConfigurationError, ValueError)):
        return Neo4jUnavailable(f"invalid NEO4J_URI {where!r}: {exc}")
    return Neo4jUnavailable(f"Neo4j at {where}: {exc}")


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


class Graph:
    """A driver bound to one database, opened lazily and verified once."""

    def __init__(self, settings: Settings):
        if not settings.neo4j_password:
            raise GraphragError("NEO4J_PASSWORD is not set: put it in .env (see .env.example) or the environment")
        self.settings = settings
        self.database = settings.neo4j_database
        _quiet_driver_logs()
        from neo4j import GraphDatabase

        started = time.perf_counter()
        try:
            self.driver = GraphDatabase.driver(
                settings.neo4j_uri,
                auth=(settings.neo4j_username, settings.neo4j_password),
                connection_timeout=5,
                max_transaction_retry_time=15,
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
    def session(self, read_only: bool = False) -> Iterator[Any]:
        """A driver session; a server lost on the way becomes one Neo4jUnavailable line."""
        from neo4j import READ_ACCESS, WRITE_ACCESS

        try:
            with self.driver.session(
                database=self.database, default_access_mode=READ_ACCESS if read_only else WRITE_ACCESS
            ) as session:
                yield session
        except Exception as exc:
            lost = connection_lost(self.settings, exc)
            if lost is None:
                raise
            raise lost from exc

    def read(self, name: str, /, **params: Any) -> list[dict]:
        """Run the named query in a read transaction; rows as dicts."""
        return self.read_text(query(name), **params)

    def read_text(self, text: str, /, **params: Any) -> list[dict]:
        def work(tx):
            return [record.data() for record in tx.run(text, params)]

        with self.session(read_only=True) as session:
            return session.execute_read(work)

    def read_row(self, name: str, /, **params: Any) -> dict:
        """The one row of the named query, its values as the driver gives them: for queries that
        return large parallel lists, which `read`'s ``Record.data()`` would walk item by item
        looking for nodes to convert (a fifth of a second on the names of 41k places)."""
        text = query(name)
        with self.session(read_only=True) as session:
            return session.execute_read(lambda tx: dict(tx.run(text, params).single(strict=True).items()))

    def write(self, name: str, /, **params: Any) -> list[dict]:
        """Run the named query in a write transaction; rows as dicts."""
        text = query(name)

        def work(tx):
            return [record.data() for record in tx.run(text, params)]

        with self.session() as session:
            return session.execute_write(work)

    def run_schema(self, text: str, /, **params: Any) -> list[dict]:
        """An auto-commit statement (schema changes cannot share a transaction with writes)."""
        with self.session() as session:
            return [record.data() for record in session.run(text, params)]


def connect(settings: Settings) -> Graph:
    return Graph(settings)
