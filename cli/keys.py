"""`graphrag keys`: the server's API keys, each scoped to corpora and rights (add, list, revoke)."""

from __future__ import annotations

import click

from .context import with_graph
from .output import print_json, print_table
from .params import json_option


@click.group("keys")
def keys_group() -> None:
    """API keys for `graphrag serve`: each with a name (shown in logs and the audit), the corpora
    it may touch and what it may do. Stored hashed in the graph; the key itself is shown once.

    Once any key exists, every request to the server needs one (reads too, unless the server
    runs with --open-reads); GRAPHRAG_API_KEY keeps working as the admin key. Revoking a key
    takes effect on a running server within 5 seconds.

    \b
    Example:
      graphrag keys add team-a --corpus grimm --read
      graphrag keys add loader --corpus grimm --corpus andersen --write --rpm 60 --jobs 1
      graphrag keys list
      graphrag keys revoke team-a
    """


@keys_group.command("add")
@click.argument("name")
@click.option("--corpus", "corpora", multiple=True, help="A corpus the key may touch; repeatable. None: every corpus.")
@click.option("--read", "level", flag_value="read", help="Ask questions and read (no writes).")
@click.option("--write", "level", flag_value="write", help="Read, and learn, upload, crawl and forget.")
@click.option("--admin", "level", flag_value="admin", help="Everything, on every corpus (the audit, metrics).")
@click.option(
    "--rpm",
    type=click.IntRange(0, 1_000_000),
    default=None,
    help="Requests per minute (0: no limit). Default: GRAPHRAG_KEY_RPM, else 600.",
)
@click.option(
    "--jobs",
    type=click.IntRange(0, 1000),
    default=None,
    help="Learning jobs queued or running at once (0: no limit). Default: GRAPHRAG_KEY_JOBS, else 2.",
)
@json_option
@with_graph
def add(graph, name, corpora, level, rpm, jobs, as_json) -> None:
    """Make a key NAME and print it (once: only its hash is stored).

    A key with --corpus reads only those corpora, in every query the server makes for it:
    passages, the entities and relations they name, communities, the evidence graph, MCP tools.
    A key of several corpora reads all of them when a request names none, and names the one it
    writes to. Text-to-Cypher is off for such a key. Made and revoked keys are in `graphrag audit`.

    \b
    Example:
      graphrag keys add team-a --corpus grimm --read
      graphrag keys add teams --corpus grimm --corpus andersen --read
      curl localhost:8000/chat -H "Authorization: Bearer grk_..." -d '{"question": "Who made the lantern?"}'
    """
    from graphrag_cypher import apikeys
    from graphrag_cypher.errors import GraphragError

    if level is None:
        raise GraphragError("say what the key may do: --read, --write or --admin")
    if level == "admin" and corpora:
        raise GraphragError("an --admin key acts on every corpus: leave out --corpus, or use --write")
    made = apikeys.add(graph, name, corpora, level, rpm=rpm, jobs=jobs)
    if as_json:
        print_json(made)
        return
    scope = ", ".join(made["corpora"]) if made["corpora"] else "every corpus"
    click.echo(f"key {made['name']} ({level}, {scope}; {_limits(made)}); shown once, keep it now:", err=True)
    click.echo(made["key"])


@keys_group.command("list")
@json_option
@with_graph
def list_keys(graph, as_json) -> None:
    """Every key: name, corpora, rights, limits, when it was made, whether it is revoked (never the key).

    \b
    Example:
      graphrag keys list --json
    """
    from graphrag_cypher import apikeys
    from graphrag_cypher.terminal import safe_text

    rows = [dict(r, rights=list(r["rights"] or [])) for r in apikeys.listed(graph)]
    if as_json:
        print_json({"keys": rows})
        return
    if not rows:
        click.echo("no keys: `graphrag keys add NAME --corpus C --read` makes one", err=True)
        return
    print_table(
        ["name", "corpora", "rights", "limits", "created", "revoked"],
        [
            [
                safe_text(r["name"]),
                safe_text(", ".join(r["corpora"])) if r["corpora"] else "every corpus",
                ", ".join(r["rights"]),
                _limits(r),
                (r["created"] or "")[:19],
                "yes" if r["revoked"] else "",
            ]
            for r in rows
        ],
    )


def _limits(r: dict) -> str:
    rpm = f"{r['rpm']}/min" if r.get("rpm") else "no rate limit"
    jobs = f"{r['jobs']} jobs" if r.get("jobs") else "no job limit"
    return f"{rpm}, {jobs}"


@keys_group.command("revoke")
@click.argument("name")
@json_option
@with_graph
def revoke(graph, name, as_json) -> None:
    """Revoke the key NAME: a running server refuses it within 5 seconds. It stays listed.

    \b
    Example:
      graphrag keys revoke team-a
    """
    from graphrag_cypher import apikeys

    result = apikeys.revoke(graph, name)
    if as_json:
        print_json(result)
    else:
        click.echo(f"key {name} {'was revoked already' if result['was_revoked'] else 'revoked'}")
