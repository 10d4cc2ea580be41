"""Options shared by several commands, each defined once."""

from __future__ import annotations

from pathlib import Path

import click

json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")

dry_run_option = click.option("--dry-run", is_flag=True, help="Show what would change; change nothing.")

migrations_dir_option = click.option(
    "--migrations-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="GRAPHRAG_MIGRATIONS_DIR",
    default=None,
    help="Folder of V*/R* .cypher migrations (default: the ones shipped with graphrag). Env: GRAPHRAG_MIGRATIONS_DIR.",
)


def local_instance_options(func):
    """--home, --bolt-port, --http-port for commands that manage a local Neo4j."""
    func = click.option(
        "--http-port",
        type=int,
        default=None,
        help="HTTP port for Neo4j Browser; 0 turns HTTP off. Env: GRAPHRAG_NEO4J_HTTP_PORT (default 7474).",
    )(func)
    func = click.option(
        "--bolt-port",
        type=int,
        default=None,
        help="Bolt port on 127.0.0.1 (default: the port of NEO4J_URI, else 7687).",
    )(func)
    func = click.option(
        "--home",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Instance folder for data, logs and config. Env: GRAPHRAG_NEO4J_HOME (default .graphrag/neo4j).",
    )(func)
    return func
