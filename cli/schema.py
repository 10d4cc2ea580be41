"""`graphrag apply-schema` and `graphrag schema status|validate|clean|unlock`: versioned Cypher migrations."""

from __future__ import annotations

import click

from .context import with_graph
from .output import info, print_json, print_table
from .params import dry_run_option, json_option, migrations_dir_option


@click.command("apply-schema")
@dry_run_option
@json_option
@migrations_dir_option
@click.option(
    "--lock-timeout", type=float, default=120.0, show_default=True, help="Seconds to wait for another run's lock."
)
@with_graph(config=True)
def apply_schema(graph, config, dry_run: bool, as_json: bool, migrations_dir, lock_timeout: float) -> None:
    """Apply pending Cypher migrations: constraints, full-text and vector indexes.

    Versioned files (V0001__*.cypher) run once, in order; repeatable ones (R__*.cypher)
    run again when their resolved text changes. An applied versioned file that was
    edited is refused. Waits until every index is ONLINE.

    \b
    Example:
      graphrag apply-schema --dry-run
      graphrag apply-schema --json     # {"applied": [...], "pending": []}
    """
    from graphrag_cypher.admin import migrations

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
@with_graph(config=True)
def schema_status(graph, config, as_json: bool, migrations_dir) -> None:
    """Show each migration as applied, pending or changed.

    Exits with code 1 when an applied versioned migration was edited.

    \b
    Example:
      graphrag schema status
      graphrag schema status --json
    """
    from graphrag_cypher.admin import migrations

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


@schema_group.command("validate")
@json_option
@migrations_dir_option
@with_graph(config=True)
def schema_validate(graph, config, as_json: bool, migrations_dir) -> None:
    """Check the migration files against what the database recorded.

    Prints one line per problem and exits with code 1 when an applied versioned file was
    changed, an applied file is missing, or a file is not a migration (bad name, a version
    used twice, no statement). Pending migrations are fine: apply-schema applies them.

    \b
    Example:
      graphrag schema validate
      graphrag schema validate --json   # {"valid": false, "problems": [{"kind": "changed", ...}], ...}
    """
    from graphrag_cypher.admin import migrations

    result = migrations.validate(graph, config.placeholders(), directory=migrations_dir)
    if as_json:
        print_json(result)
    elif result["valid"]:
        pending = len(result["pending"])
        click.echo(f"valid: {result['applied']} applied" + (f", {pending} pending" if pending else ""))
    else:
        for problem in result["problems"]:
            click.echo(f"{problem['kind']}: {problem['message']}")
    if not result["valid"]:
        raise SystemExit(1)


def _require_yes(ctx: click.Context, param: click.Parameter, yes: bool) -> bool:
    if not yes and not ctx.resilient_parsing:
        from .context import settings

        raise click.ClickException(
            "schema clean removes all data, constraints, indexes and migration records of "
            f"{settings().neo4j_uri}; run it again with --yes to do so"
        )
    return yes


@schema_group.command("clean")
@click.option(
    "--yes",
    is_flag=True,
    callback=_require_yes,
    expose_value=False,
    help="Really remove everything (without it, nothing is done).",
)
@json_option
@with_graph
def schema_clean(graph, as_json: bool) -> None:
    """Empty the database, for tests: all nodes and relationships, constraints, indexes and
    migration records. Refuses unless --yes is given; prints what it removed.

    \b
    Example:
      graphrag schema clean --yes && graphrag apply-schema
    """
    from graphrag_cypher.admin import migrations

    removed = migrations.clean(graph)
    if as_json:
        print_json(removed)
        return
    for name in removed["constraints"]:
        click.echo(f"dropped constraint {name}")
    for name in removed["indexes"]:
        click.echo(f"dropped index {name}")
    click.echo(
        f"deleted {removed['nodes']} node(s) and {removed['relationships']} relationship(s), "
        f"{removed['migrations']} of them migration records"
    )


@schema_group.command("unlock")
@with_graph
def schema_unlock(graph) -> None:
    """Remove a migration lock left behind by a run that died.

    \b
    Example:
      graphrag schema unlock
    """
    from graphrag_cypher.admin import migrations

    released = migrations.unlock(graph)
    click.echo("released the migration lock" if released else "no migration lock was held")
