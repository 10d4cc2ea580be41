"""`graphrag audit`: who wrote what, when, to which corpus."""

from __future__ import annotations

import click

from .context import with_graph
from .output import print_json, print_table_or_list
from .params import json_option


def summary(changed: dict, prefix: str = "") -> str:
    """What a record changed, in one line: its non-zero counts and its ids ("documents.created 3")."""
    parts = []
    for key, value in changed.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            inner = summary(value, f"{name}.")
            if inner:
                parts.append(inner)
        elif isinstance(value, list):
            parts.append(f"{name} {', '.join(map(str, value))}" if value else "")
        elif isinstance(value, bool) or value in (0, None, ""):
            continue
        else:
            parts.append(f"{name} {value}")
    return "; ".join(p for p in parts if p)


@click.command("audit")
@click.option(
    "--since", default=None, help="Only records since: a span back from now (30m, 12h, 1d, 2w) or an ISO date/time."
)
@click.option(
    "--key", "key", default=None, help="Only writes made with the key of this name (local: this machine's CLI)."
)
@click.option("--corpus", default=None, help="Only writes that touched this corpus.")
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True, help="Records shown at most.")
@json_option
@with_graph
def audit(graph, since: str | None, key: str | None, corpus: str | None, limit: int, as_json: bool) -> None:
    """The audit of writes, newest first: every load, learn, upload, crawl, forget, embed and
    schema change, with the key that made it (`local` for this machine's CLI, `admin` for
    GRAPHRAG_API_KEY, else the name given to `graphrag keys add`), its time, corpora, what it
    changed (counts; forgotten documents' ids) and, for a write that failed, its error.

    The same records are at GET /audit of `graphrag serve` for admin keys.

    \b
    Example:
      graphrag audit --since 1d
      graphrag audit --key team-a --corpus handbook --json
    """
    from graphrag_cypher.audit import entries

    rows = entries(graph, since=since, key=key, corpus=corpus, limit=limit)
    if as_json:
        print_json({"audit": rows})
        return
    if not rows:
        click.echo("no writes recorded" + (" that match" if since or key or corpus else ""))
        return
    print_table_or_list(
        ["at", "key", "operation", "corpus", "changed"],
        [
            [
                r["at"],
                r["key"],
                r["operation"] if r["ok"] else f"{r['operation']} (failed: {r['error']})",
                ", ".join(r["corpus"] or []),
                summary(r["changed"]) if isinstance(r["changed"], dict) else r["changed"],
            ]
            for r in rows
        ],
    )
