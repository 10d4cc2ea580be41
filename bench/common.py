"""Shared pieces of the benchmarks: the data folder and a throw-away Neo4j."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    return Path(os.environ.get("GRAPHRAG_DATA_DIR") or REPO.parent / "shared" / "data")


def free_port() -> int:
    from graphrag_cypher.admin.neo4j_local import free_port as free

    return free()


@contextmanager
def bench_neo4j():
    """A fresh local Neo4j with the schema applied; yields (settings, graph). User data is never touched."""
    from graphrag_cypher.admin import migrations, neo4j_local
    from graphrag_cypher.db import connect

    with neo4j_local.ephemeral(heap="1g") as server:
        settings = server.settings()
        with connect(settings) as graph:
            migrations.apply(graph, settings.placeholders())
            yield settings, graph


def graphrag_env(settings) -> dict:
    """The environment of a `graphrag` subprocess: the bench Neo4j, no .env, no LLM."""
    env = dict(
        os.environ,
        NEO4J_URI=settings.neo4j_uri,
        NEO4J_USERNAME=settings.neo4j_username,
        NEO4J_PASSWORD=settings.neo4j_password,
        GRAPHRAG_ENV_FILE=os.devnull,
    )
    for name in ("OPENAI_BASE_URL", "GRAPHRAG_LLM_MODEL", "OPENAI_API_KEY", "GRAPHRAG_API_KEY"):
        env.pop(name, None)
    return env
