"""Options shared by several commands, each defined once.

The ask options of `graphrag ask` and `graphrag chat` are generated from AskOptions' fields
(retrieval/options.py): their flags, choices, bounds, help and environment variables are
declared there once, for the command line, `POST /chat`, `/v1` and the MCP tools alike."""

from __future__ import annotations

import functools
import os
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


class UsageProblem(click.ClickException):
    """A usage error in one line, exit code 2: what is wrong and what to write instead."""

    exit_code = 2


# beside the AskOptions flags: the reranker itself is a service, named on the command line only
# (over HTTP the server's own GRAPHRAG_RERANKER is used: a client never names a URL the server calls)
reranker_option = click.option(
    "--reranker",
    "reranker_spec",
    default=None,
    metavar="cross-encoder:MODEL|URL",
    help="The reranker for --rerank: a sentence-transformers CrossEncoder, or a server with a /rerank "
    "endpoint. Env: GRAPHRAG_RERANKER.",
)


def _flag_pair(spec) -> bool:
    """Whether an option's two flags are --x and --no-x (one click option --x/--no-x)."""
    return len(spec.flags) == 2 and spec.flags[1][0] == "--no-" + spec.flags[0][0][2:]


def _checked_date(ctx, param, value):
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.retrieval.options import check_date

    try:
        return check_date(value, param.opts[0])
    except GraphragError as exc:
        raise UsageProblem(str(exc)) from None


def _click_options(field, spec) -> list:
    """The click options of one AskOptions field, from its Option."""
    if _flag_pair(spec):
        (on, _, help_text), (off, _, _) = spec.flags
        return [click.option(f"{on}/{off}", field.name, default=None, help=help_text)]
    if spec.flags:
        return [
            click.option(
                flag, is_flag=True, envvar=spec.envvar if isinstance(value, bool) and spec.envvar else None, help=text
            )
            for flag, value, text in spec.flags
        ]
    names = [*([spec.short] if spec.short else []), "--" + spec.key.replace("_", "-"), field.name]
    extra: dict = {}
    if spec.choices:
        extra["type"] = click.Choice(spec.choices)
    elif spec.high is not None:
        extra["type"] = click.IntRange(spec.low, spec.high)
    if spec.date:
        extra["callback"] = _checked_date
    if spec.envvar:
        extra["envvar"] = spec.envvar
    return [
        click.option(
            *names,
            default=field.default,
            show_default=field.default is not None,
            metavar=spec.metavar or None,
            help=spec.help,
            **extra,
        )
    ]


def _flag_params(spec) -> list[tuple[str, object]]:
    """(click parameter name, the value it sets) of each of an option's flags."""
    return [(flag.lstrip("-").replace("-", "_"), value) for flag, value, _ in spec.flags]


def _chosen(field, spec, params: dict):
    """The value of one AskOptions field from the command's parameters (popped from them): the
    flag given (the last listed wins), else the environment variable, else the field's default."""
    if _flag_pair(spec):
        given = params.pop(field.name)
        return field.default if given is None else spec.flags[0 if given else 1][1]
    if not spec.flags:
        return params.pop(field.name)
    value = field.default
    for name, sets in _flag_params(spec):
        if params.pop(name):
            value = sets
    if value == field.default and spec.choices and spec.envvar and os.environ.get(spec.envvar):
        value = os.environ[spec.envvar].strip().lower()
        if value not in spec.choices:
            raise UsageProblem(f"{spec.envvar}={value!r}: use {', '.join(spec.choices[:-1])} or {spec.choices[-1]}")
    return value


def ask_options(func):
    """The AskOptions flags on a command (`graphrag ask`, `graphrag chat`), generated from its fields;
    the command gets `options`, the AskOptions they make (checked before any graph opens: a wrong
    one is a one-line usage error)."""
    from graphrag_cypher.retrieval.options import options

    @functools.wraps(func)
    def wrapper(*args, **params):
        from graphrag_cypher.errors import GraphragError
        from graphrag_cypher.retrieval.options import AskOptions, check_range

        chosen = {field.name: _chosen(field, spec, params) for field, spec in options()}
        try:
            check_range(chosen["date_from"], chosen["date_to"])
            made = AskOptions(**chosen)
        except GraphragError as exc:
            raise UsageProblem(str(exc)) from None
        return func(*args, options=made, **params)

    decorators = []
    for field, spec in options():
        decorators += _click_options(field, spec)
        if field.name == "rerank":
            decorators.append(reranker_option)
    for decorator in reversed(decorators):
        wrapper = decorator(wrapper)
    return wrapper
