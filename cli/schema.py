"""`graphrag apply-schema` and `graphrag schema status|unlock`: versioned Cypher migrations."""

from __future__ import annotations

import click

from .output import info, print_json, print_table
from .params import dry_run_option, json_option, migrations_dir_option


def _graph():
    from graphrag_cypher.db import connect

    from .main import settings

    config = settings()
    return config, connect(config)


@click.command("apply-schema")
@dry_run_option
@json_option
@migrations_dir_option
@click.option("--lock-timeout", type=float, default=120.0, show_default=True, help="Seconds to wait for another run's lock.")
def apply_schema(dry_run: bool, as_json: bool, migrations_dir, lock_timeout: float) -> None:
    """Apply pending Cypher migrations: constraints, full-text and vector indexes.

    Versioned files (V0001__*.cypher) run once, in order; repeatable ones (R__*.cypher)
    run again when their resolved text changes. An applied versioned file that was
    edited is refused. Waits until every index is ONLINE.

    \b
    Example:
      graphrag apply-schema --dry-run
      graphrag apply-schema --json     # {"applied": [...], "pending": []}
    """
    from graphrag_cypher import migrations

    config, graph = _graph()
    with graph:
        result = migrations.apply(
            graph,
            config.placeholders(),
            directory=migrations_dir,
            dry_run=dry_run,
            lock_timeout=lock_timeout,
            on_apply=None if as_json else lambda m: info(f"applying {m.file}"),
        )
    if as_json:
        print_json(result)
        return
    if dry_run:
        names = [m["file"] for m in result["pending"]]
        click.echo(f"would apply {len(names)} migration(s)" + (": " + ", ".join(names) if names else ""))
    elif result["applied"]:
        click.echo(f"applied {len(result['applied'])} migration(s); all indexes ONLINE")
    else:
        click.echo("schema is up to date; nothing to apply")


@click.group("schema")
def schema_group() -> None:
    """Inspect and maintain the versioned Cypher schema."""


@schema_group.command("status")
@json_option
@migrations_dir_option
def schema_status(as_json: bool, migrations_dir) -> None:
    """Show each migration as applied, pending or changed.

    Exits with code 1 when an applied versioned migration was edited.

    \b
    Example:
      graphrag schema status
      graphrag schema status --json
    """
    from graphrag_cypher import migrations

    config, graph = _graph()
    with graph:
        plan = migrations.status(graph, config.placeholders(), directory=migrations_dir)
    if as_json:
        print_json(plan.to_dict())
    else:
        rows = [[m.file, "applied", m.checksum[:12]] for m in plan.applied]
        rows += [[m.file, "pending", m.checksum[:12]] for m in plan.pending]
        rows += [[m.file, "CHANGED after apply", m.checksum[:12]] for m, _ in plan.changed]
        rows += [[r["file"] or r["version"], "applied, file missing", ""] for r in plan.missing]
        print_table(["migration", "state", "sha256"], rows, title="Schema migrations")
    if plan.changed:
        migrations.refuse_changed(plan)


@schema_group.command("unlock")
def schema_unlock() -> None:
    """Remove a migration lock left behind by a run that died.

    \b
    Example:
      graphrag schema unlock
    """
    from graphrag_cypher import migrations

    _, graph = _graph()
    with graph:
        released = migrations.unlock(graph)
    click.echo("released the migration lock" if released else "no migration lock was held")
