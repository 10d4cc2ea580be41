"""Shared pieces of the benchmarks: the data folder and a throw-away Neo4j."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import tempfile
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    return Path(os.environ.get("GRAPHRAG_DATA_DIR") or REPO.parent / "shared" / "data")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def bench_neo4j():
    """A fresh local Neo4j with the schema applied; yields (settings, graph). User data is never touched."""
    from dataclasses import replace

    from graphrag_cypher import migrations, neo4j_local
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect

    home = Path(tempfile.mkdtemp(prefix="graphrag-bench-"))
    instance = neo4j_local.LocalInstance(home=home, bolt_port=free_port(), http_port=None,
                                         password=secrets.token_urlsafe(16), heap="1g")
    neo4j_local.start(instance, timeout=240, echo=lambda *_: None)
    try:
        settings = replace(load_settings({}), neo4j_uri=f"bolt://127.0.0.1:{instance.bolt_port}",
                           neo4j_password=instance.password)
        with connect(settings) as graph:
            migrations.apply(graph, settings.placeholders())
            yield settings, graph
    finally:
        neo4j_local.stop(instance)
        shutil.rmtree(home, ignore_errors=True)
