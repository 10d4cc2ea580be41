"""`graphrag neo4j start|stop|status|logs`: a real local Neo4j, no Docker needed.

The first start builds the server layout (Neo4j Community, APOC Core, Open GDS) with
Maven from `procedures/` and caches it; later starts take seconds.
"""

from __future__ import annotations

import time

import click

from .output import info, print_json
from .params import json_option, local_instance_options


def _instance(home, bolt_port, http_port, heap=None):
    from graphrag_cypher.admin.neo4j_local import LocalInstance
    from graphrag_cypher.errors import GraphragError

    from .context import settings

    config = settings()
    if not config.neo4j_password:
        raise GraphragError("NEO4J_PASSWORD is not set: put it in .env (see .env.example) or the environment")
    if http_port is None:
        http_port = config.neo4j_http_port
    return config, LocalInstance(
        home=home or config.neo4j_home,
        bolt_port=bolt_port or config.bolt_port,
        http_port=http_port or None,
        password=config.neo4j_password,
        heap=heap or config.neo4j_heap,
    )


@click.group("neo4j")
def neo4j_group() -> None:
    """Run a local Neo4j 5.26 with APOC and Open GDS (no Docker needed)."""


@neo4j_group.command("build")
def neo4j_build() -> None:
    """Build (or verify) the local server: Neo4j, APOC Core and Open GDS.

    Runs Maven on `procedures/` when the build is missing or older than its POMs;
    `graphrag neo4j start` does this by itself on first use.

    \b
    Example:
      graphrag neo4j build
    """
    from graphrag_cypher.admin import neo4j_local

    path = neo4j_local.ensure_built(echo=info)
    versions = neo4j_local.versions()
    click.echo(f"local server ready in {path}: " + ", ".join(f"{k} {v}" for k, v in versions.items()))


@neo4j_group.command("start")
@local_instance_options
@click.option("--heap", default=None, help="Java heap size, e.g. 1g. Env: GRAPHRAG_NEO4J_HEAP.")
@click.option("--timeout", type=float, default=180.0, show_default=True, help="Seconds to wait for Bolt to answer.")
@json_option
def neo4j_start(home, bolt_port, http_port, heap, timeout, as_json) -> None:
    """Start Neo4j in the background and wait until Bolt answers.

    Builds the server on first use (Maven, Java 17), then reuses it. Does nothing
    if this instance is already running. Two instances can run side by side with
    different --home and ports.

    \b
    Example:
      graphrag neo4j start
      graphrag neo4j start --home .graphrag/eval --bolt-port 7688 --http-port 0
    """
    from graphrag_cypher.admin import neo4j_local

    config, instance = _instance(home, bolt_port, http_port, heap)
    started = time.monotonic()
    result = neo4j_local.start(instance, timeout=timeout, echo=info)
    result["seconds"] = round(time.monotonic() - started, 1)
    if as_json:
        print_json(result)
    elif result.get("already_running"):
        click.echo(f"Neo4j is already running on bolt://127.0.0.1:{instance.bolt_port} (pid {result.get('pid')})")
    else:
        browser = f"; Browser at http://127.0.0.1:{instance.http_port}/browser/" if instance.http_port else ""
        click.echo(f"Neo4j is up on bolt://127.0.0.1:{instance.bolt_port} (pid {result.get('pid')}){browser}")


@neo4j_group.command("stop")
@local_instance_options
@json_option
def neo4j_stop(home, bolt_port, http_port, as_json) -> None:
    """Stop the local Neo4j (does nothing if it is not running).

    \b
    Example:
      graphrag neo4j stop
    """
    from graphrag_cypher.admin import neo4j_local

    _, instance = _instance(home, bolt_port, http_port)
    result = neo4j_local.stop(instance)
    if as_json:
        print_json(result)
    else:
        click.echo("Neo4j stopped" if result.get("was_running") else "Neo4j was not running")


@neo4j_group.command("status")
@local_instance_options
@json_option
def neo4j_status(home, bolt_port, http_port, as_json) -> None:
    """Show whether the local Neo4j runs, and its Neo4j, APOC and GDS versions.

    Exits with code 1 when it is not running.

    \b
    Example:
      graphrag neo4j status --json
    """
    from graphrag_cypher.admin import neo4j_local
    from graphrag_cypher.admin.doctor import local_versions

    config, instance = _instance(home, bolt_port, http_port)
    result = dict(neo4j_local.status(instance))
    result["versions"] = local_versions(config, instance.bolt_port) if result.get("running") else None
    if as_json:
        print_json(result)
    elif result.get("running"):
        v = result["versions"]
        click.echo(
            f"running (pid {result.get('pid')}) on {result.get('uri')}: Neo4j {v['neo4j']} {v['edition']}, "
            f"APOC {v['apoc'] or 'not installed'}, GDS {v['gds'] or 'not installed'}"
        )
    if not result.get("running"):
        if not as_json:
            click.echo(f"not running (home {result.get('home')}); start it with `graphrag neo4j start`")
        raise SystemExit(1)


@neo4j_group.command("logs")
@local_instance_options
@click.option("-n", "--lines", type=int, default=50, show_default=True, help="How many of the last lines to show.")
@click.option("-f", "--follow", is_flag=True, help="Keep printing new lines until interrupted.")
def neo4j_logs(home, bolt_port, http_port, lines, follow) -> None:
    """Print the end of the local Neo4j log.

    \b
    Example:
      graphrag neo4j logs -n 100
      graphrag neo4j logs --follow
    """
    from collections import deque

    from graphrag_cypher.admin import neo4j_local
    from graphrag_cypher.errors import GraphragError

    _, instance = _instance(home, bolt_port, http_port)
    path = neo4j_local.log_path(instance)
    if not path.is_file():
        raise GraphragError(f"no log at {path}: this instance has not been started yet")
    from graphrag_cypher.terminal import safe_text

    # The log quotes failed queries and their data: printed without escape sequences.
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in deque(handle, maxlen=lines):
            click.echo(safe_text(line), nl=False)
        while follow:
            line = handle.readline()
            if line:
                click.echo(safe_text(line), nl=False)
            else:
                time.sleep(0.5)
