"""`graphrag serve` and `graphrag mcp`: the HTTP face (API, OpenAI-compatible endpoint, MCP, page)
and MCP over stdio. The only module that imports `graphrag_cypher.server`."""

from __future__ import annotations

import os

import click

from .context import with_graph


def server_options(func):
    decorators = [
        click.option(
            "--allow-path",
            "allowed_paths",
            multiple=True,
            type=click.Path(file_okay=False),
            help="A server-side folder POST /crawl (and MCP learn) may learn from; repeatable. None by default.",
        ),
        click.option(
            "--crawl-allow-local",
            is_flag=True,
            help="Let POST /crawl and MCP learn fetch loopback, private and link-local addresses "
            "(a local wiki, an intranet); as GRAPHRAG_CRAWL_ALLOW_LOCAL=1. Refused by default.",
        ),
        click.option("--no-llm", is_flag=True, help="Answer extractively even when an LLM is configured."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


class UnsafeHost(click.ClickException):
    """A usage error in one line, exit code 2."""

    exit_code = 2


def _check_host(ctx, param, value: str) -> str:
    """Before any connection: another host than loopback needs the key (one line, exit 2)."""
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.server.options import API_KEY_ENV, ServerOptions, check_options

    try:
        check_options(ServerOptions(host=value, api_key=os.environ.get(API_KEY_ENV) or None))
    except GraphragError as exc:
        raise UnsafeHost(str(exc)) from None
    return value


def _check_cors(ctx, param, value: tuple[str, ...]) -> tuple[str, ...]:
    """Before any connection: a wildcard origin ('*', 'null') needs the key (one line, exit 2)."""
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.server.options import API_KEY_ENV, ServerOptions, check_options

    try:
        check_options(ServerOptions(api_key=os.environ.get(API_KEY_ENV) or None, cors_origins=tuple(value)))
    except GraphragError as exc:
        raise UnsafeHost(str(exc)) from None
    return value


def _options(**kw):
    from graphrag_cypher.server.options import API_KEY_ENV, ServerOptions, check_options

    key = os.environ.get(API_KEY_ENV) or None
    options = ServerOptions(api_key=key, **kw)
    check_options(options)
    return options


@click.command("serve")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    callback=_check_host,
    help="Address to listen on. Anything but loopback requires GRAPHRAG_API_KEY.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option(
    "--cors-origin",
    "cors_origins",
    multiple=True,
    callback=_check_cors,
    help="An origin (https://app.example.org) whose pages may call the API; repeatable. None by default; "
    "'*' only with GRAPHRAG_API_KEY.",
)
@click.option(
    "--max-body",
    type=click.IntRange(1000, 100_000_000),
    default=1_000_000,
    show_default=True,
    help="Largest JSON request, in bytes.",
)
@click.option(
    "--max-upload",
    type=click.IntRange(1000, 1_000_000_000),
    default=20_000_000,
    show_default=True,
    help="Largest upload request (all files), in bytes.",
)
@click.option("--mcp-writes", is_flag=True, help="Offer the MCP `learn` tool (it needs the API key like every write).")
@click.option(
    "--open-reads",
    is_flag=True,
    help="With keys stored (graphrag keys add): let requests without a key read every corpus, as a public "
    "demo; writes still need a --write key. Said at start.",
)
@server_options
@with_graph(config=True)
def serve(
    graph,
    config,
    host,
    port,
    cors_origins,
    max_body,
    max_upload,
    mcp_writes,
    open_reads,
    allowed_paths,
    crawl_allow_local,
    no_llm,
) -> None:
    """Serve the graph over HTTP: chat with streamed cited answers, the web page,
    an OpenAI-compatible endpoint, MCP and learning jobs.

    \b
    Endpoints: / (the page), POST /chat (SSE when asked), GET /graph, POST /crawl,
    POST /documents (upload), GET /documents, DELETE /documents/{id}, GET /jobs,
    GET /jobs/{id}, DELETE /jobs/{id} (cancel), GET /health, /v1/models and
    /v1/chat/completions (OpenAI-compatible; models graphrag-graph, graphrag-hybrid, …),
    /mcp (MCP, streamable HTTP), /docs (OpenAPI).

    It listens on 127.0.0.1 unless told otherwise; any other host needs GRAPHRAG_API_KEY,
    which every request must then send as "Authorization: Bearer <key>". Writes (crawl,
    uploads, forget, cancelling a job, MCP learn) always need a key; GRAPHRAG_API_KEY must be
    at least 16 characters with no surrounding whitespace. Learning jobs run one at a time;
    GET /jobs shows the line and each job's progress.

    Keys made with `graphrag keys add` are scoped to corpora and rights (read, write,
    admin), with limits of requests per minute and jobs; GRAPHRAG_API_KEY is the admin key.
    Once any key exists every request needs one, reads too (--open-reads: reads stay open).

    While it runs it leaves .graphrag/serve.json (mode 0600: its URL, pid, Neo4j URI and
    database) in this folder, so `graphrag ask` run here sends its questions to it.

    \b
    Example:
      graphrag serve
      graphrag ask "Who made the silver lantern?"   # answered by the server above
      curl -N localhost:8000/chat -H 'Accept: text/event-stream' -d '{"question": "Who made the silver lantern?"}'
      GRAPHRAG_API_KEY=$(openssl rand -hex 24) graphrag serve --host 0.0.0.0 --port 8080
    """
    import secrets
    import signal

    import uvicorn

    from graphrag_cypher import __version__
    from graphrag_cypher.onnx_embedder import make_query_embedder
    from graphrag_cypher.server.app import create_app
    from graphrag_cypher.server.options import warnings

    from . import served

    _crawl_allow_local(crawl_allow_local)
    instance = secrets.token_hex(8)
    options = _options(
        host=host,
        port=port,
        cors_origins=tuple(cors_origins),
        allowed_paths=tuple(allowed_paths),
        max_body=max_body,
        max_upload=max_upload,
        use_llm=not no_llm,
        mcp_writes=mcp_writes,
        open_reads=open_reads,
        keys_stored=_keys_stored(graph),
        extra={"instance": instance},
    )
    for line in warnings(options):
        click.echo(f"graphrag serve: {line}", err=True)
    app = create_app(config, options, graph=graph, embedder=make_query_embedder(config))
    server = uvicorn.Server(
        uvicorn.Config(app, host=host, port=port, log_level="warning", server_header=False, timeout_graceful_shutdown=5)
    )
    sock = server.config.bind_socket()  # bound here, so --port 0 has its real port for the state file
    _no_delay(sock)
    bound = sock.getsockname()[1]
    url = served.local_url(host, bound)
    click.echo(
        f"graphrag serving on http://{host if ':' not in host else f'[{host}]'}:{bound}/ ({_access(options)})",
        err=True,
    )
    click.echo(f"graphrag serve: {_traces()}", err=True)
    # `graphrag ask` from this folder finds the server here (and checks it is this one)
    state = served.write_state(url, config, __version__, instance)

    def stopped(signum, _frame):  # uvicorn re-raises SIGTERM once it has shut down: the file goes first
        served.remove_state(state, instance)
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)

    signal.signal(signal.SIGTERM, stopped)
    try:
        server.run(sockets=[sock])
    finally:
        served.remove_state(state, instance)


def _keys_stored(graph) -> bool:
    """Whether `graphrag keys add` made a key; False when Neo4j does not answer yet (the server
    starts anyway and its guard asks again every few seconds, before which nothing is readable)."""
    from graphrag_cypher import apikeys

    try:
        return apikeys.any_key(graph)
    except Exception:  # Neo4j down at start: /health says so; the guard checks again once it answers
        return False


def _access(options) -> str:
    """Who may do what, for the line printed at start."""
    if not options.writes_enabled:
        return "writes off: set GRAPHRAG_API_KEY or make a key with `graphrag keys add`"
    if options.open_reads:
        return "keys required for writes; reads open to anyone (--open-reads)"
    return "a key required for every request" + ("" if options.keys_stored else " (GRAPHRAG_API_KEY)")


def _traces() -> str:
    """Whether spans leave this process, for the line printed at start (never the endpoint's
    credentials: only its scheme, host and port)."""
    from urllib.parse import urlsplit

    from graphrag_cypher.telemetry import ENDPOINT_ENVS

    name = next((n for n in reversed(ENDPOINT_ENVS) if (os.environ.get(n) or "").strip()), None)
    if name is None:
        return (
            "traces off (set OTEL_EXPORTER_OTLP_ENDPOINT to export spans over OTLP); metrics at /metrics for admin keys"
        )
    parts = urlsplit(os.environ[name].strip())
    where = (
        f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}" if parts.hostname else "(unparsed)"
    )
    return f"traces exported over OTLP to {where} ({name}); metrics at /metrics for admin keys"


def _crawl_allow_local(flag: bool) -> None:
    """--crawl-allow-local is GRAPHRAG_CRAWL_ALLOW_LOCAL=1 for this process (read at each crawl)."""
    if flag:
        from graphrag_cypher.loaders.web import ALLOW_LOCAL_ENV

        os.environ[ALLOW_LOCAL_ENV] = "1"


def _no_delay(sock) -> None:
    """TCP_NODELAY on the listening socket (Linux hands it to each accepted connection). asyncio
    sets it only on sockets created with proto IPPROTO_TCP, and uvicorn's bind_socket makes one with
    proto 0: without it every response, written as headers then body, waited out the client's
    delayed ACK (measured: 40-45 ms added to each request on loopback)."""
    import socket

    if sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


@click.command("mcp")
@click.option(
    "--allow-writes", is_flag=True, help="Offer the `learn` tool (URLs, and folders given with --allow-path)."
)
@server_options
@with_graph(config=True)
def mcp(graph, config, allow_writes, allowed_paths, crawl_allow_local, no_llm) -> None:
    """Serve the graph to an MCP client (a desktop assistant, an agent) over stdio.

    Tools: ask (a cited answer), search (evidence only), get_document,
    graph_neighbourhood, schema, communities and community_report (the corpus's
    themes); `learn` only with --allow-writes. Results are bounded in size. `graphrag serve` offers the same tools over HTTP at /mcp.

    \b
    Example:
      graphrag mcp
      # a desktop client's config: {"mcpServers": {"graphrag": {"command": "graphrag", "args": ["mcp"]}}}
    """
    from graphrag_cypher.onnx_embedder import make_query_embedder
    from graphrag_cypher.server.common import State
    from graphrag_cypher.server.mcp_tools import run_stdio
    from graphrag_cypher.server.options import ServerOptions

    _crawl_allow_local(crawl_allow_local)
    options = ServerOptions(allowed_paths=tuple(allowed_paths), use_llm=not no_llm, mcp_writes=allow_writes)
    run_stdio(State(config, options, graph, make_query_embedder(config)))
