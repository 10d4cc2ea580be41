"""The FastAPI application: the routers, the guard, MCP, and errors as one JSON message."""

from __future__ import annotations

import asyncio
import contextlib
import sys

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from graphrag_cypher import __version__, telemetry

from . import engine, metrics, openai_api
from .common import ApiError, State, error_response
from .errors import one_line, status_for
from .guard import Guard
from .mcp_tools import build_mcp
from .options import ServerOptions
from .routes import audit, chat, communities, documents, health, jobs, modes, page
from .routes import graph as graph_view  # `graph` is the driver create_app is given


def create_app(settings, options: ServerOptions, graph=None, embedder=None) -> FastAPI:
    telemetry.setup()  # spans over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set
    if graph is None:
        from graphrag_cypher.db import connect

        graph = connect(settings)
    if embedder is None:
        from graphrag_cypher.onnx_embedder import make_query_embedder

        embedder = make_query_embedder(settings)
    if options.use_llm:
        from graphrag_cypher import llm

        llm.prepare(settings)  # a local model: loaded once, now, for every request (a bad path fails here)
    state = State(settings, options, graph, embedder)
    engine.clean_stale_uploads()  # left by a server that was killed mid-upload
    mcp = build_mcp(state, writes=options.mcp_writes and options.writes_enabled)
    mcp_app = mcp.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        host=options.host if options.host in ("127.0.0.1", "localhost", "::1") else "0.0.0.0",
    )

    @contextlib.asynccontextmanager
    async def lifespan(app):
        from graphrag_cypher.retrieval.question.language import warm_language_detectors

        await asyncio.to_thread(warm_language_detectors)  # before the first request, not during it
        async with mcp.session_manager.run():
            yield
        await asyncio.to_thread(state.jobs.shutdown)  # a running job stops at its next document

    app = FastAPI(
        title="graphrag",
        version=__version__,
        lifespan=lifespan,
        description="Cited answers from a Neo4j knowledge graph: chat (streamed as server-sent events), "
        "graph views, learning jobs, an OpenAI-compatible endpoint and MCP.",
    )
    app.state.graphrag = state
    for route in mcp_app.routes:
        app.router.routes.append(route)

    # -- errors: one JSON message --------------------------------------------------------
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        return error_response(exc.status, exc.message, request.url.path.startswith("/v1/"))

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException):
        message = exc.detail if isinstance(exc.detail, str) else "request failed"
        if exc.status_code == 404 and message == "Not Found":
            message = f"no such endpoint: {request.method} {request.url.path} (see /docs)"
        return error_response(exc.status_code, message, request.url.path.startswith("/v1/"))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errors = exc.errors()
        first = errors[0] if errors else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "request"
        message = f"invalid {where}: {str(first.get('msg', 'not valid')).removeprefix('Value error, ')}"
        return error_response(422, " ".join(message.split()), request.url.path.startswith("/v1/"))

    async def _failed(request: Request, exc: Exception):
        status = status_for(exc)
        if status == 500:
            print(
                f"graphrag serve: {request.method} {request.url.path} failed: {type(exc).__name__}: {exc}",
                file=sys.stderr,
            )
        return error_response(status, one_line(exc), request.url.path.startswith("/v1/"))

    from neo4j.exceptions import DriverError, Neo4jError

    from graphrag_cypher.errors import GraphragError

    for known in (GraphragError, Neo4jError, DriverError):  # answered here, not re-raised to the server
        app.add_exception_handler(known, _failed)
    app.add_exception_handler(Exception, _failed)

    for module in (page, health, modes, chat, graph_view, communities, documents, jobs, audit, openai_api):
        app.include_router(module.router(state))
    app.include_router(metrics.router())
    app.add_middleware(Guard, options=options)
    app.add_middleware(metrics.Measured, routes=app.router.routes)  # outside the guard: refusals count too
    if options.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(options.cors_origins),
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Accept"],
        )
    return app
