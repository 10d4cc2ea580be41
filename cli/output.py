"""Printing: results to stdout, progress and diagnostics to stderr, JSON for scripts."""

from __future__ import annotations

import json
from typing import Any

import click


def stdout_console():
    from rich.console import Console

    return Console()


def info(message: str) -> None:
    """A progress or diagnostic line on stderr (never mixed into --json output)."""
    click.echo(message, err=True)


def jsonable(value: Any) -> Any:
    """Neo4j values (nodes, relationships, paths, temporal and spatial types) as JSON-ready data."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [jsonable(v) for v in value]
    try:
        from neo4j.graph import Node, Path, Relationship
    except ImportError:  # pragma: no cover - neo4j is a hard dependency
        Node = Path = Relationship = ()  # type: ignore
    if isinstance(value, Node):
        return {"elementId": value.element_id, "labels": sorted(value.labels), "properties": jsonable(dict(value))}
    if isinstance(value, Relationship):
        return {
            "elementId": value.element_id,
            "type": value.type,
            "start": value.start_node.element_id if value.start_node else None,
            "end": value.end_node.element_id if value.end_node else None,
            "properties": jsonable(dict(value)),
        }
    if isinstance(value, Path):
        return {
            "nodes": [jsonable(n) for n in value.nodes],
            "relationships": [jsonable(r) for r in value.relationships],
        }
    if hasattr(value, "iso_format"):
        return value.iso_format()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "srid"):  # spatial points
        return {"srid": value.srid, "coordinates": list(value)}
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def print_json(data: Any) -> None:
    click.echo(json.dumps(jsonable(data), ensure_ascii=False, indent=2))


def cell(value: Any) -> str:
    value = jsonable(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def print_table(columns: list[str], rows: list[list[Any]], title: str | None = None) -> None:
    """A table of values as literal text: data never becomes Rich markup, emoji or escape sequences."""
    from rich.table import Table

    from graphrag_cypher.terminal import rich_text

    table = Table(title=rich_text(title) if title else None, show_lines=False)
    for column in columns:
        table.add_column(rich_text(str(column)), overflow="fold")
    for row in rows:
        table.add_row(*(rich_text(cell(v)) for v in row))
    stdout_console().print(table)


def wrap_words(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    """`text` in lines of at most `width` characters, broken at spaces only: a word longer than
    the width stands whole on a line of its own."""
    import textwrap

    return textwrap.wrap(
        text, width, initial_indent=first, subsequent_indent=rest, break_long_words=False, break_on_hyphens=False
    )


def print_table_or_list(columns: list[str], rows: list[list[Any]], title: str | None = None) -> None:
    """A table when stdout is a terminal wide enough for every row on one line; otherwise (a
    narrow terminal, a pipe, a file) one line an item, `first cell: column value, …`, wrapped at
    spaces to the width (the terminal's, else COLUMNS, else 80): no word is cut in two. Values
    are literal text, as in `print_table`."""

    from rich.measure import Measurement
    from rich.table import Table

    from graphrag_cypher.terminal import rich_text, safe_text

    console = stdout_console()
    table = Table(title=rich_text(title) if title else None, show_lines=False)
    for column in columns:
        table.add_column(rich_text(str(column)), no_wrap=True)
    for row in rows:
        table.add_row(*(rich_text(cell(v)) for v in row))
    unbounded = console.options.update_width(10_000)  # measured against the width, not within it
    if console.is_terminal and Measurement.get(console, unbounded, table).maximum <= console.width:
        console.print(table)
        return
    width = max(console.width, 20)
    if title:
        click.echo(safe_text(title, keep_newlines=False))
    for row in rows:
        values = [" ".join(safe_text(cell(v), keep_newlines=False).split()) for v in row]
        rest = ", ".join(f"{column} {value}" for column, value in zip(columns[1:], values[1:], strict=True) if value)
        item = f"{values[0]}: {rest}" if rest else values[0]
        click.echo("\n".join(wrap_words(item, width, "  ", "      ")))


def print_kg_summary(result: dict) -> None:
    """What a knowledge-graph build wrote (`extract`, `load records`): entities, edges, what the schema skipped."""
    from graphrag_cypher.terminal import safe_text

    click.echo(
        f"schema {result['schema']}: {result['entities']} entities, {result['edgesBuilt']} edges built, "
        f"{result['edgesSkippedBySchema']} edges skipped by schema"
    )
    if result.get("nodesByType"):
        click.echo("nodes by type: " + ", ".join(f"{t} {n}" for t, n in result["nodesByType"].items()))
    if result.get("edgesByType"):
        click.echo("edges by type: " + ", ".join(f"{t} {n}" for t, n in result["edgesByType"].items()))
    if result.get("confidence"):
        click.echo("confidence: " + ", ".join(f"{c} {n}" for c, n in sorted(result["confidence"].items())))
    for reason, n in (result.get("skipped") or {}).items():
        click.echo(f"skipped {n}: {safe_text(str(reason))}")
    written = result.get("written") or {}
    click.echo(
        f"written: {written.get('nodesCreated', 0)} nodes and "
        f"{written.get('relationshipsCreated', 0)} relationships created"
    )


def print_ner_summary(result: dict) -> None:
    """What `extract --extractor ner` read and wrote, one line each."""
    from graphrag_cypher.terminal import safe_text

    click.echo(
        f"ner {safe_text(result['model'])} (schema {safe_text(result['schema'])}): {result['chunks']} chunk(s) read "
        f"in {result['seconds']} s; {result['entitiesCreated']} entities created, "
        f"{result['mentionsCreated']} mentions created, {result['mentionsRemoved']} removed"
    )
    if result.get("mentionsByType"):
        click.echo("mentions found by type: " + ", ".join(f"{t} {n}" for t, n in result["mentionsByType"].items()))
    if result.get("entitiesByType"):
        click.echo("entities by type: " + ", ".join(f"{t} {n}" for t, n in result["entitiesByType"].items()))
    if result.get("skippedLabels"):
        click.echo(
            "labels not in the schema (skipped): "
            + ", ".join(f"{safe_text(t)} {n}" for t, n in result["skippedLabels"].items())
        )
    if not result["chunks"]:
        click.echo("nothing to read: every chunk was read in its current text already")
