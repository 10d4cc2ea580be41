"""The FastAPI application: routes, the key check, size limits, errors as one JSON message."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import re
import sys
import threading
import uuid
from collections import OrderedDict
from importlib import resources
from pathlib import Path
from typing import Literal

from fastapi import FastAPI, File, Form, Query, Request, UploadFile
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field, field_validator
from starlette.exceptions import HTTPException

from graphrag_cypher import __version__
from graphrag_cypher.config import MAX_QUESTION

from . import ServerOptions, engine
from .errors import one_line, status_for
from .jobs import JobFinished, Jobs, QueueFull

MAX_HISTORY = 20
HEALTH_WAIT = 2.0  # seconds /health waits for Neo4j at most (less when GRAPHRAG_NEO4J_TIMEOUT is lower)
MAX_ANSWERS = 256  # answers remembered for GET /graph?answer=
OPEN_PATHS = {"/", "/favicon.ico"}
OPEN_PREFIXES = ("/static/",)
_DATE = r"^\d{4}-\d{2}-\d{2}$"
MAX_SKIP = 1_000_000_000  # GET /documents?skip=: Neo4j's SKIP takes a 64-bit integer
_UPLOAD_NAME = re.compile(r"^[\w][\w .()+-]{0,199}$")


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


class State:
    """What every request shares: settings, one driver, one embedding model, jobs, answers."""

    def __init__(self, settings, options: ServerOptions, graph, embedder):
        self.settings, self.options = settings, options
        # questions: the query embedder (ONNX for the default model); documents: `document_embedder`
        self.graph, self.embedder = graph, engine.LockedEmbedder(embedder)
        self._documents_embedder = None if getattr(embedder, "backend", None) == "onnx" else self.embedder
        self.jobs = Jobs()
        engine.web_fallback()  # a web-search configuration that cannot work stops the server at start
        self.answers: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()
        self._probe: asyncio.Future | None = None  # the readiness check in flight

    def document_embedder(self):
        """What learned documents are embedded with: sentence-transformers, loaded on the first
        learn when questions go through ONNX (loading stays on the library it was built with)."""
        with self._lock:
            if self._documents_embedder is None:
                from graphrag_cypher.embedder import make_embedder

                self._documents_embedder = engine.LockedEmbedder(make_embedder(self.settings))
            return self._documents_embedder

    def remember(self, result: dict) -> str:
        answer_id = uuid.uuid4().hex[:16]
        with self._lock:
            self.answers[answer_id] = result
            while len(self.answers) > MAX_ANSWERS:
                self.answers.popitem(last=False)
        return answer_id

    async def readiness(self):
        """The schema plan (`migrations.status`), or the one-line error why Neo4j cannot give it,
        within HEALTH_WAIT seconds at most: a server known to be gone is reported at once, and
        one probe runs at a time, so health checks of a hung server do not pile up threads."""
        from graphrag_cypher.admin import migrations
        from graphrag_cypher.errors import Neo4jUnavailable

        if self.graph.is_down():
            raise Neo4jUnavailable(
                f"Neo4j at {self.settings.neo4j_uri} is not answering (checked under {self.settings.neo4j_timeout:g} s ago)"
            )
        with self._lock:
            if self._probe is None or self._probe.done():
                self._probe = asyncio.ensure_future(
                    asyncio.to_thread(migrations.status, self.graph, self.settings.placeholders())
                )
            probe = self._probe
        wait = min(HEALTH_WAIT, self.settings.neo4j_timeout)
        try:
            return await asyncio.wait_for(asyncio.shield(probe), timeout=wait)
        except TimeoutError:
            raise Neo4jUnavailable(f"Neo4j at {self.settings.neo4j_uri} did not answer within {wait:g} s") from None

    def answer(self, answer_id: str) -> dict | None:
        with self._lock:
            return self.answers.get(answer_id)


# --- request bodies -----------------------------------------------------------------------


class Turn(BaseModel):
    question: str = Field(max_length=MAX_QUESTION)
    answer: str = Field(default="", max_length=20000)
    entities: list[str] = Field(default_factory=list, max_length=50)
    time: str | None = Field(default=None, max_length=200)


class ChatRequest(BaseModel):
    question: str = Field(min_length=1, max_length=MAX_QUESTION)
    history: list[Turn] = Field(default_factory=list, max_length=MAX_HISTORY)
    mode: Literal["vector", "fulltext", "hybrid", "graph", "ppr", "global"] | None = None
    k: int = Field(default=5, ge=1, le=50)
    corpus: str | None = Field(default=None, max_length=200)
    # only chunks that mention this entity or place: an id, or a name (as `graphrag ask --about`)
    about: str | None = Field(default=None, min_length=1, max_length=200)
    date_from: str | None = Field(default=None, alias="from")
    date_to: str | None = Field(default=None, alias="to")
    stream: bool | None = None
    llm: bool = True
    # the web-search fallback, as `ask --web` / `--no-web`: when the graph has nothing relevant
    # (auto), alongside the graph (always) or never (off); nothing without GRAPHRAG_WEB_SEARCH
    web: Literal["auto", "always", "off"] = "auto"

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the question is empty")
        return value

    @field_validator("date_from", "date_to", mode="before")
    @classmethod
    def _calendar_date(cls, value):
        """A real calendar date written YYYY-MM-DD, as `graphrag ask --from/--to` takes."""
        from datetime import date

        if value is None:
            return None
        try:
            if not isinstance(value, str) or not re.fullmatch(_DATE, value):
                raise ValueError
            return date.fromisoformat(value).isoformat()
        except ValueError:
            raise ValueError(f"{value!r} is not a date: write YYYY-MM-DD, e.g. 2024-05-01") from None


class CrawlRequest(BaseModel):
    request: str | None = Field(
        default=None, max_length=4000, description='The chat syntax: "topic | url: URL | path: DIR"'
    )
    url: str | None = Field(default=None, max_length=2000)
    urls: list[str] = Field(default_factory=list, max_length=50)
    path: str | None = Field(default=None, max_length=1000)
    crawl: bool = True
    max_pages: int = Field(default=30, ge=1, le=500)
    delay: float = Field(default=0.5, ge=0, le=10)
    corpus: str | None = Field(default=None, max_length=200)
    topics: list[str] = Field(default_factory=list, max_length=20)
    per_topic: int = Field(default=3, ge=1, le=20, description="Pages learned per topic when only topics are given")


# --- middleware (plain ASGI, so streams pass untouched) -------------------------------------


def _error_response(status: int, message: str, openai_shape: bool = False) -> JSONResponse:
    body = (
        {
            "error": {
                "message": message,
                "type": "invalid_request_error" if status < 500 else "server_error",
                "code": status,
            }
        }
        if openai_shape
        else {"error": message}
    )
    return JSONResponse(body, status_code=status)


def _is_write(method: str, path: str) -> bool:
    return (method == "POST" and path in {"/crawl", "/documents"}) or (
        method == "DELETE" and path.startswith(("/documents/", "/jobs/"))
    )


def _loopback_host(host: str) -> bool:
    """Whether a Host header names this machine's loopback ("127.0.0.1:8000", "[::1]", "localhost")."""
    from . import is_loopback

    if host.startswith("["):
        name = host[1 : host.index("]")] if "]" in host else host
    elif host.count(":") == 1:
        name = host.split(":")[0]
    else:
        name = host
    return is_loopback(name)


class Guard:
    """The key check and the size limit, before any route runs."""

    def __init__(self, app, options: ServerOptions):
        from . import is_loopback

        self.app, self.options = app, options
        self._key = options.api_key.encode() if options.api_key else None
        # On loopback a page from another site could rebind its name to 127.0.0.1 and read the
        # graph: only requests addressed to a loopback name are answered there.
        self._loopback = is_loopback(options.host)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path, method = scope["path"], scope["method"]
        openai_shape = path.startswith("/v1/")
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        open_path = path in OPEN_PATHS or path.startswith(OPEN_PREFIXES) or method == "OPTIONS"
        if self._loopback and not _loopback_host(headers.get("host", "")):
            return await _error_response(
                421, "this server answers only requests addressed to 127.0.0.1, localhost or [::1]", openai_shape
            )(scope, receive, send)
        if _is_write(method, path) and not self._key:
            return await _error_response(
                403,
                "writes are off: start the server with GRAPHRAG_API_KEY set and send it as a bearer token",
                openai_shape,
            )(scope, receive, send)
        if self._key and not open_path and not self._authorised(headers.get("authorization", "")):
            response = _error_response(
                401, "missing or wrong API key: send Authorization: Bearer <GRAPHRAG_API_KEY>", openai_shape
            )
            response.headers["WWW-Authenticate"] = "Bearer"
            return await response(scope, receive, send)
        limit = self.options.max_upload if (method == "POST" and path == "/documents") else self.options.max_body
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            return await _error_response(413, f"request body too large: the limit is {limit} bytes", openai_shape)(
                scope, receive, send
            )
        seen, refused = 0, False

        async def bounded_receive():
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:  # answer now; the route sees a client that went away
                    refused = True
                    await _error_response(413, f"request body too large: the limit is {limit} bytes", openai_shape)(
                        scope, receive, send
                    )
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message):
            if not refused:
                await send(message)

        await self.app(scope, bounded_receive, guarded_send)

    def _authorised(self, header: str) -> bool:
        scheme, _, token = header.partition(" ")
        return (
            bool(self._key)
            and scheme.lower() == "bearer"
            and hmac.compare_digest(token.strip().encode(), self._key or b"")
        )


# --- the app ------------------------------------------------------------------------------


def create_app(settings, options: ServerOptions, graph=None, embedder=None) -> FastAPI:
    from graphrag_cypher.store import documents

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
    from .mcp_tools import build_mcp

    mcp = build_mcp(state, writes=options.mcp_writes and options.writes_enabled)
    mcp_app = mcp.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        host=options.host if options.host in ("127.0.0.1", "localhost", "::1") else "0.0.0.0",
    )

    @contextlib.asynccontextmanager
    async def lifespan(app):
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
        return _error_response(exc.status, exc.message, request.url.path.startswith("/v1/"))

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException):
        message = exc.detail if isinstance(exc.detail, str) else "request failed"
        if exc.status_code == 404 and message == "Not Found":
            message = f"no such endpoint: {request.method} {request.url.path} (see /docs)"
        return _error_response(exc.status_code, message, request.url.path.startswith("/v1/"))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errors = exc.errors()
        first = errors[0] if errors else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "request"
        message = f"invalid {where}: {str(first.get('msg', 'not valid')).removeprefix('Value error, ')}"
        return _error_response(422, " ".join(message.split()), request.url.path.startswith("/v1/"))

    async def _failed(request: Request, exc: Exception):
        status = status_for(exc)
        if status == 500:
            print(
                f"graphrag serve: {request.method} {request.url.path} failed: {type(exc).__name__}: {exc}",
                file=sys.stderr,
            )
        return _error_response(status, one_line(exc), request.url.path.startswith("/v1/"))

    from neo4j.exceptions import DriverError, Neo4jError

    from graphrag_cypher.errors import GraphragError

    for known in (GraphragError, Neo4jError, DriverError):  # answered here, not re-raised to the server
        app.add_exception_handler(known, _failed)
    app.add_exception_handler(Exception, _failed)

    # -- the page ------------------------------------------------------------------------
    page = resources.files("graphrag_cypher.server").joinpath("page")
    security_headers = {
        "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
        "script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }

    @app.get("/", include_in_schema=False)
    def index():
        return Response(
            page.joinpath("index.html").read_bytes(), media_type="text/html; charset=utf-8", headers=security_headers
        )

    @app.get("/static/{name}", include_in_schema=False)
    def static(name: str):
        types = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
        suffix = Path(name).suffix
        target = page.joinpath(name)
        if suffix not in types or "/" in name or not target.is_file():
            raise ApiError(404, f"no such file: {name}")
        return Response(target.read_bytes(), media_type=types[suffix], headers=security_headers)

    # -- health --------------------------------------------------------------------------
    @app.get("/health/live", summary="The server is up: its version and instance, no database call")
    def health_live():
        # liveness, as against /health's readiness: what `graphrag ask` checks before handing a
        # question over, in a millisecond (the schema check of /health reads the graph)
        return JSONResponse(
            {
                "status": "ok",
                "version": __version__,
                "llm": bool(state.settings.llm_configured and state.options.use_llm),
                "writes": state.options.writes_enabled,
                "query_embedder": getattr(state.embedder, "backend", None),
                "instance": state.options.extra.get("instance"),
            }
        )

    @app.get("/health", summary="Neo4j reachable, schema up to date (never waits on a dead server)")
    async def health():
        try:
            plan = await state.readiness()
        except Exception as exc:
            return JSONResponse(
                {"status": "unavailable", "neo4j": "unreachable", "error": one_line(exc)}, status_code=503
            )
        up_to_date = not plan.pending and not plan.changed
        return JSONResponse(
            {
                "status": "ok" if up_to_date else "schema-outdated",
                "version": __version__,
                "neo4j": "ok",
                "schema": {
                    "up_to_date": up_to_date,
                    "applied": len(plan.applied),
                    "pending": [m.file for m in plan.pending],
                    "changed": [m.file for m, _ in plan.changed],
                },
                "llm": bool(state.settings.llm_configured and state.options.use_llm),
                "writes": state.options.writes_enabled,
                # what `graphrag ask --json` reports, and the id of `graphrag serve`'s state file
                "query_embedder": getattr(state.embedder, "backend", None),
                "instance": state.options.extra.get("instance"),
            },
            status_code=200 if up_to_date else 503,
        )

    # -- chat ------------------------------------------------------------------------------
    def prepare(body: ChatRequest) -> tuple[str, dict]:
        if body.date_from and body.date_to and body.date_from > body.date_to:
            raise ApiError(422, f"from {body.date_from} is after to {body.date_to}: nothing could match")
        if body.question.strip().lower().startswith("learn:"):
            raise ApiError(422, 'learn: requests are jobs: POST them to /crawl as {"request": "learn: ..."}')
        use_llm = body.llm and state.options.use_llm
        history = [t.model_dump() for t in body.history]
        question = engine.standalone(state.settings, history, body.question.strip(), use_llm=use_llm)
        kwargs = dict(
            mode=body.mode or engine.DEFAULT_MODE,
            k=body.k,
            corpus=body.corpus,
            about=body.about,
            date_from=body.date_from,
            date_to=body.date_to,
            use_llm=use_llm,
            web_mode=body.web,
            history=engine.history_messages(history),
        )
        return question, kwargs

    def finish(result: dict, said: str, question: str) -> dict:
        result["said"] = said
        result["standalone"] = question != said
        result["answer_id"] = state.remember(result)
        return result

    @app.post("/chat", summary="Answer a question with checked citations (SSE when asked for a stream)")
    async def chat(body: ChatRequest, request: Request):
        wants_stream = (
            body.stream if body.stream is not None else "text/event-stream" in request.headers.get("accept", "")
        )
        question, kwargs = await asyncio.to_thread(prepare, body)
        if not wants_stream:
            result = await asyncio.to_thread(
                engine.ask, state.graph, state.embedder, state.settings, question, **kwargs
            )
            return finish(result, body.question.strip(), question)
        return _sse(stream_answer(state, question, kwargs, lambda r: finish(r, body.question.strip(), question)))

    # -- graph -----------------------------------------------------------------------------
    @app.get("/graph", summary="The evidence subgraph of an answer, or a node's neighbourhood")
    def graph_view(
        answer: str | None = Query(default=None, max_length=64),
        id: str | None = Query(default=None, max_length=2000),
        limit: int = Query(default=25, ge=1, le=engine.MAX_GRAPH_NODES),
    ):
        if answer:
            result = state.answer(answer)
            if result is None:
                raise ApiError(404, f"no answer {answer!r} is remembered (the last {MAX_ANSWERS} are): ask again")
            return engine.evidence_graph(state.graph, result, limit=limit)
        if id:
            found = engine.neighbourhood(state.graph, id, limit)
            if found is None:
                raise ApiError(404, f"no entity, document or chunk with id {id!r}")
            return found
        raise ApiError(422, "say what to draw: ?answer=<answer_id> or ?id=<entity, document or chunk id>")

    # -- communities -----------------------------------------------------------------------
    @app.get("/communities", summary="The corpus's themes: communities of the graph, the largest first")
    def list_communities(
        level: int | None = Query(default=0, ge=0, le=100),
        corpus: str | None = Query(default=None, max_length=200),
        limit: int = Query(default=50, ge=1, le=engine.MAX_COMMUNITIES),
    ):
        return engine.communities(state.graph, level, corpus, limit)

    @app.get("/communities/{community_id}", summary="One community's report, its parent and children")
    def get_community(community_id: str = PathParam(max_length=100)):
        found = engine.community(state.graph, community_id)
        if found is None:
            raise ApiError(404, f"no community {community_id!r}: GET /communities lists them")
        return found

    # -- documents and jobs ----------------------------------------------------------------
    @app.get("/documents", summary="Documents in the graph, newest first")
    def list_documents(
        corpus: str | None = Query(default=None, max_length=200),
        skip: int = Query(default=0, ge=0, le=MAX_SKIP),
        limit: int = Query(default=100, ge=1, le=500),
    ):
        return {"documents": documents.list_documents(state.graph, corpus, skip, limit)}

    @app.get("/documents/{document_id:path}", summary="One document and its first chunks")
    def get_document(document_id: str):
        return documents.get_document(state.graph, document_id)

    @app.delete("/documents/{document_id:path}", summary="Forget a document completely (needs the key)")
    def forget(document_id: str):
        return engine.forget(state.graph, document_id)

    @app.post("/documents", status_code=202, summary="Upload files to learn (a job; needs the key)")
    async def upload(
        files: list[UploadFile] = File(...),
        corpus: str | None = Form(default=None, max_length=200),
        topics: str | None = Form(default=None, max_length=1000),
    ):
        _room()
        folder = engine.upload_folder()
        names: list[str] = []
        try:
            for upload in files:
                name = Path(upload.filename or "").name
                if not _UPLOAD_NAME.match(name) or name in names:
                    raise ApiError(
                        422,
                        f"bad file name {upload.filename!r}: letters, digits, spaces and .()+- only, each name once",
                    )
                data = await upload.read()
                (Path(folder.name) / name).write_bytes(data)
                names.append(name)
        except BaseException:
            folder.cleanup()
            raise

        def work(progress, error, should_stop):
            return engine.learn(
                state.graph,
                state.document_embedder(),
                engine.upload_items(Path(folder.name), names),
                loader="upload",
                source_root=engine.UPLOAD_SOURCE,
                corpus=corpus,
                topics=(topics or "").split(","),
                on_progress=progress,
                on_error=error,
                should_stop=should_stop,
                settings=state.settings,
            )

        try:
            return state.jobs.submit("upload", ", ".join(names), work, cleanup=folder.cleanup, total=len(names))
        except QueueFull as exc:
            folder.cleanup()
            raise ApiError(429, str(exc)) from None

    @app.post(
        "/crawl", status_code=202, summary="Learn a URL, a site or an allowed server-side folder (a job; needs the key)"
    )
    def crawl(body: CrawlRequest):
        urls, paths, topics = list(body.urls) + ([body.url] if body.url else []), [], list(body.topics)
        if body.path:
            paths.append(body.path)
        if body.request:
            parsed = engine.parse_learn(body.request)
            urls, paths, topics = urls + parsed.urls, paths + parsed.paths, topics + parsed.topics
        if not urls and not paths and topics:
            return _learn_topics(topics, body)
        if not urls and not paths:
            raise ApiError(422, 'nothing to learn from: give url, urls, path or request ("topic | url: URL")')
        bad = [u for u in urls if not u.lower().startswith(("http://", "https://"))]
        if bad:
            raise ApiError(422, f"not an http(s) URL: {bad[0]!r}")
        resolved = [_allowed_path(p, state.options.allowed_paths) for p in paths]
        _room()

        def work(progress, error, should_stop):
            def items():
                yield from engine.path_items([str(p) for p in resolved])
                if urls:
                    yield from engine.crawl_items(urls, crawl=body.crawl, max_pages=body.max_pages, delay=body.delay)

            root = " ".join([str(p) for p in resolved] + sorted(urls))
            return engine.learn(
                state.graph,
                state.document_embedder(),
                items(),
                loader="learn",
                source_root=root,
                corpus=body.corpus,
                topics=topics,
                on_progress=progress,
                on_error=error,
                should_stop=should_stop,
                settings=state.settings,
            )

        try:
            return state.jobs.submit("crawl", " ".join([*map(str, resolved), *urls]), work)
        except QueueFull as exc:
            raise ApiError(429, str(exc)) from None

    def _learn_topics(topics: list[str], body: CrawlRequest):
        """Topics alone: learned from the configured web search (a job), as `graphrag learn "topic"`."""
        missing = engine.topics_need_web()
        if missing:
            raise ApiError(422, missing)
        _room()

        def work(progress, error, should_stop):
            return engine.learn_topics(
                state.graph,
                state.document_embedder(),
                topics,
                per_topic=body.per_topic,
                corpus=body.corpus,
                on_progress=progress,
                on_error=error,
                should_stop=should_stop,
                settings=state.settings,
            )

        try:
            return state.jobs.submit("learn", ", ".join(topics), work)
        except QueueFull as exc:
            raise ApiError(429, str(exc)) from None

    def _room() -> None:
        try:
            state.jobs.check_room()
        except QueueFull as exc:
            raise ApiError(429, str(exc)) from None

    @app.get("/jobs", summary="Every job remembered, oldest first: state, place in the line, progress")
    def jobs():
        listed = state.jobs.all()
        running = next((j["id"] for j in listed if j["state"] == "running"), None)
        return {
            "jobs": listed,
            "running": running,
            "queued": [j["id"] for j in sorted(listed, key=lambda j: j["position"] or 0) if j["state"] == "queued"],
        }

    @app.get("/jobs/{job_id}", summary="A job's state, place in the line, progress and load summary")
    def job(job_id: str):
        found = state.jobs.get(job_id)
        if found is None:
            raise ApiError(404, f"no job {job_id!r}")
        return found

    @app.delete(
        "/jobs/{job_id}",
        summary="Cancel a job: a queued one now (200), a running one at its next document (202; needs the key)",
    )
    def cancel_job(job_id: str):
        try:
            found = state.jobs.cancel(job_id)
        except JobFinished as exc:
            raise ApiError(409, str(exc)) from None
        if found is None:
            raise ApiError(404, f"no job {job_id!r}")
        return JSONResponse(found, status_code=200 if found["state"] == "cancelled" else 202)

    from .openai_api import add_routes

    add_routes(app, state)
    app.add_middleware(Guard, options=options)
    if options.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(options.cors_origins),
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Accept"],
        )
    return app


def _allowed_path(path: str, allowed: tuple[str, ...]) -> Path:
    """A server-side folder the operator allowed (--allow-path), resolved; anything else is refused."""
    target = Path(path).expanduser().resolve()
    for root in allowed:
        base = Path(root).expanduser().resolve()
        if target == base or base in target.parents:
            if not target.exists():
                raise ApiError(404, f"path not found: {path}")
            return target
    raise ApiError(403, f"path {path!r} is not under a folder the server allows (graphrag serve --allow-path DIR)")


# --- streaming -------------------------------------------------------------------------------


def _sse(events):
    from sse_starlette.sse import EventSourceResponse

    return EventSourceResponse(events, ping=15, headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _event(name: str, data) -> dict:
    # JSON with ASCII escapes: a document's text cannot end an event or start a field
    return {"event": name, "data": json.dumps(data, ensure_ascii=True)}


async def run_streaming(state: State, question: str, kwargs: dict):
    """qa.ask in a worker thread; yields ("token", text) while it runs, then ("result", dict)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()
    streamed = False

    def on_token(text: str) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, ("token", text))

    def work() -> None:
        try:
            result = engine.ask(state.graph, state.embedder, state.settings, question, on_token=on_token, **kwargs)
            loop.call_soon_threadsafe(queue.put_nowait, ("result", result))
        except BaseException as exc:
            loop.call_soon_threadsafe(queue.put_nowait, ("error", exc))

    # a client that goes away does not stop the answer: it finishes in its thread and is dropped
    loop.run_in_executor(None, work)
    while True:
        kind, value = await queue.get()
        if kind == "token":
            streamed = True
            yield "token", value
        elif kind == "result":
            if not streamed:  # an extractive answer is written at once: send it in pieces
                for piece in re.findall(r"\S+\s*", value.get("answer_with_titles") or ""):
                    yield "token", piece
            yield "result", value
            return
        else:
            raise value


async def stream_answer(state: State, question: str, kwargs: dict, finish):
    yield _event("question", {"question": question})
    try:
        async for kind, value in run_streaming(state, question, kwargs):
            if kind == "token":
                yield _event("token", {"text": value})
            else:
                result = finish(value)
                yield _event(
                    "citations", {"citations": result["citations"], "dropped_citations": result["dropped_citations"]}
                )
                yield _event("evidence", {"evidence": result["evidence"]})
                yield _event("answer", result)
    except Exception as exc:
        yield _event("error", {"error": one_line(exc), "status": status_for(exc)})
    yield _event("done", {})
