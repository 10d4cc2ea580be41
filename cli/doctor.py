"""`graphrag doctor`: is everything in place?"""

from __future__ import annotations

import click

from .output import print_json, print_table, stdout_console
from .params import json_option, migrations_dir_option


@click.command("doctor")
@json_option
@migrations_dir_option
def doctor(as_json: bool, migrations_dir) -> None:
    """Check Neo4j, APOC, GDS, the schema, every index, the embedder and the LLM.

    Exits with code 1 when Neo4j cannot be reached, a migration is pending or
    changed, or an index is not ONLINE.

    \b
    Example:
      graphrag doctor
      graphrag doctor --json | jq .indexes
    """
    from graphrag_cypher.doctor import report

    from .main import settings

    result = report(settings(), migrations_dir=migrations_dir)
    if as_json:
        print_json(result)
        if not result["ok"]:
            raise SystemExit(1)
        return
    if not result["neo4j"]["reachable"]:
        raise click.ClickException(result["neo4j"]["error"])
    console = stdout_console()
    neo4j = result["neo4j"]
    console.print(f"[bold]Neo4j[/bold]   {neo4j['version']} {neo4j['edition']} at {neo4j['uri']} (database {neo4j['database']})")
    console.print(f"[bold]APOC[/bold]    {result['apoc'] or 'not installed'}")
    console.print(f"[bold]GDS[/bold]     {result['gds'] or 'not installed'}")
    schema = result["schema"]
    state = "up to date" if schema["up_to_date"] else f"{len(schema['pending'])} pending, {len(schema['changed'])} changed"
    console.print(f"[bold]Schema[/bold]  {len(schema['applied'])} migration(s) applied, {state}")
    embedder = result["embedder"]
    console.print(f"[bold]Embedder[/bold] {embedder['name']} ({embedder['dimensions']} dimensions)")
    llm = result["llm"]
    llm_text = f"{llm['model']} at {llm['base_url'] or 'api.openai.com'}" if llm["configured"] else "none (answers are extractive)"
    console.print(f"[bold]LLM[/bold]     {llm_text}")
    rows = []
    for index in result["indexes"]:
        detail = ""
        if index["type"] == "VECTOR":
            detail = f"{index.get('dimensions')} dims, {index.get('similarity')}"
        elif index["type"] == "FULLTEXT":
            detail = f"analyzer {index.get('analyzer')}"
        target = ",".join(index["labels_or_types"] or []) + (f"({','.join(index['properties'])})" if index["properties"] else "")
        rows.append([index["name"], index["type"], target, index["state"], detail])
    print_table(["index", "type", "on", "state", "detail"], rows, title="Indexes")
    for warning in result["warnings"]:
        console.print(f"[yellow]warning:[/yellow] {warning}")
    if not result["ok"]:
        raise SystemExit(1)
