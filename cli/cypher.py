"""`graphrag cypher`: ad hoc Cypher from a terminal, read-only unless --write."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .context import with_graph
from .output import print_json, print_table
from .params import json_option


def parse_param(text: str) -> tuple[str, object]:
    """`k=v` with v read as JSON when it parses (numbers, lists, true/null), else as a string."""
    if "=" not in text:
        raise click.BadParameter(f"{text!r} is not NAME=VALUE", param_hint="--param")
    name, raw = text.split("=", 1)
    name = name.strip().lstrip("$")
    if not name.isidentifier():
        raise click.BadParameter(f"{name!r} is not a parameter name", param_hint="--param")
    try:
        return name, json.loads(raw)
    except json.JSONDecodeError:
        return name, raw


@click.command("cypher")
@click.argument("query", required=False)
@click.option(
    "-f",
    "--file",
    "file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read the query from a file.",
)
@click.option(
    "-p",
    "--param",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="A query parameter; VALUE is JSON or a string. Repeatable.",
)
@click.option(
    "--write",
    is_flag=True,
    help="Run anything: writes, schema, LOAD CSV, any procedure (default: read mode, see above).",
)
@json_option
def cypher(query: str | None, file: Path | None, params: tuple[str, ...], write: bool, as_json: bool) -> None:
    """Run one Cypher statement and show the result as a table.

    Without --write the statement runs in read mode: Neo4j plans it first (EXPLAIN)
    and it runs only if it reads. Refused, with one line naming what: writes, schema
    and administration commands, LOAD CSV, TERMINATE TRANSACTIONS, CALL { } IN
    TRANSACTIONS, and any procedure or namespaced function not on the read-only
    allowlist (schema and index reads, apoc.meta/path/coll/text/map..., gds.*.stream,
    .stats and .estimate on graphs already projected). So apoc.load.*, apoc.cypher.*,
    gds.graph.project and gds.*.mutate need --write. A read runs once, in one read
    transaction, never retried. Parameters travel as parameters, never spliced into
    the text; values are printed as text, never as terminal markup.

    \b
    Example:
      graphrag cypher "MATCH (d:Document) RETURN d.title AS title LIMIT 5"
      graphrag cypher 'MATCH (p:Place {pleiadesId: $id}) RETURN p.title' -p id='"423025"'
      graphrag cypher "RETURN gds.version() AS v" --json
      graphrag cypher "CALL gds.graph.project('g', 'Chunk', 'NEXT_CHUNK')" --write
    """
    if bool(query) == bool(file):
        raise click.UsageError("give a QUERY or --file, not both and not neither")
    text = file.read_text(encoding="utf-8") if file else query
    values = dict(parse_param(p) for p in params)
    columns, rows, counters = _run(text, values, write)
    if as_json:
        print_json(
            {"columns": columns, "rows": [dict(zip(columns, row, strict=True)) for row in rows], "counters": counters}
        )
        return
    print_table(columns, rows)
    changes = {k: v for k, v in counters.items() if v and k != "contains_updates"}
    click.echo(
        f"{len(rows)} row(s)" + (f"; {', '.join(f'{k}: {v}' for k, v in changes.items())}" if changes else ""), err=True
    )


@with_graph
def _run(text: str, values: dict, write: bool, *, graph):
    from graphrag_cypher.admin.readonly import run_statement
    from graphrag_cypher.audit import audited

    if not write:
        return run_statement(graph, text, values, write)
    with audited(graph, "cypher") as audit:  # a write by hand is recorded with its statement
        audit.add({"statement": text[:500]})
        columns, rows, counters = run_statement(graph, text, values, write)
        audit.add(
            {"counters": {k: v for k, v in counters.items() if isinstance(v, int) and not isinstance(v, bool) and v}}
        )
    return columns, rows, counters
