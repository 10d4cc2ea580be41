"""What commands share: the configuration and an open graph, given by decorators.

A command that needs Neo4j says so once::

    @click.command()
    @with_graph
    def sanity(graph, corpus): ...

and gets an open :class:`graphrag_cypher.db.Graph` as its ``graph`` argument (and, with
``@with_graph(config=True)``, the settings as ``config``). The graph is closed when the
command ends, whatever happens; connection errors are already one line.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


def settings():
    """The configuration, loaded once per command (errors become one line)."""
    from graphrag_cypher.config import load_settings

    return load_settings()


def with_graph(func: Callable[..., Any] | None = None, *, config: bool = False):
    """Open the configured graph around a click callback and pass it as ``graph``."""

    def decorate(callback: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(callback)
        def wrapper(*args, **kwargs):
            from graphrag_cypher.db import connect

            loaded = settings()
            if config:
                kwargs["config"] = loaded
            with connect(loaded) as graph, _derived(graph, kwargs):
                return callback(*args, graph=graph, **kwargs)

        return wrapper

    return decorate(func) if func is not None else decorate


def _derived(graph, kwargs: dict):
    """The audit record of a derived command (link, communities, extract, resolve): what it wrote,
    as Neo4j counted it; none for a dry run, nor for any other command (theirs is written where
    they write)."""
    from contextlib import nullcontext

    import click

    from graphrag_cypher import audit

    ctx = click.get_current_context(silent=True)
    command = " ".join(ctx.command_path.split()[1:]) if ctx is not None else ""
    if command not in audit.DERIVED or kwargs.get("dry_run"):
        return nullcontext()
    corpus = kwargs.get("corpus")
    return audit.derived(graph, command, corpus if isinstance(corpus, str) else None)


def with_settings(callback: Callable[..., Any]) -> Callable[..., Any]:
    """Pass the loaded settings as ``config`` (for commands that open no graph, or open another)."""

    @functools.wraps(callback)
    def wrapper(*args, **kwargs):
        return callback(*args, config=settings(), **kwargs)

    return wrapper
