"""The guard in front of every route (plain ASGI, so streams pass untouched): the loopback
Host check, who is asking (GRAPHRAG_API_KEY, a stored key, or nobody), what that key may do
(writes, corpora, requests per minute, jobs), and the request size limits. Every route, job and
MCP tool then runs as that principal (`graphrag_cypher.principal.current`)."""

from __future__ import annotations

import asyncio
import hmac
import json
import math
import sys
import threading
import time
from urllib.parse import parse_qsl, urlencode

from graphrag_cypher.principal import ADMIN, ANONYMOUS, Principal, acting_as

from .common import ApiError, error_response
from .options import ServerOptions, is_loopback
from .scope import Refused, scoped_corpus

__all__ = ["Guard", "Keys", "Refused", "route_corpus", "scoped_corpus"]

OPEN_PATHS = {"/", "/favicon.ico", "/modes"}  # the page and what it needs before a key is typed
OPEN_PREFIXES = ("/static/",)
CACHE_SECONDS = 5.0  # a key found (or refused) is trusted this long: a revoked key is refused within it
JOB_RETRY_SECONDS = 30  # Retry-After of a key at its limit of jobs (a job's length is not known)
JSON_BODIES = {"/chat", "/v1/chat/completions", "/crawl", "/mcp"}  # bodies the door reads for a scoped key
CORPUS_QUERIES = {"/documents", "/communities"}  # GET routes filtered by ?corpus=
CORPUS_TOOLS = {"ask", "search", "communities"}  # MCP tools with a `corpus` argument
JOB_PATHS = {("POST", "/crawl"), ("POST", "/documents")}


def is_write(method: str, path: str) -> bool:
    return (method == "POST" and path in {"/crawl", "/documents"}) or (
        method == "DELETE" and path.startswith(("/documents/", "/jobs/"))
    )


def loopback_host(host: str) -> bool:
    """Whether a Host header names this machine's loopback ("127.0.0.1:8000", "[::1]", "localhost")."""
    if host.startswith("["):
        name = host[1 : host.index("]")] if "]" in host else host
    elif host.count(":") == 1:
        name = host.split(":")[0]
    else:
        name = host
    return is_loopback(name)


def route_corpus(corpus: str | None, write: bool = False) -> str | None:
    """scoped_corpus for a route: a refusal is the route's ApiError."""
    try:
        return scoped_corpus(corpus, write)
    except Refused as exc:
        raise ApiError(exc.status, exc.message) from None


class Keys:
    """Stored keys as the door sees them: whether any exists, and who a bearer key is; each
    answer is kept CACHE_SECONDS (revoking a key takes effect within that), requests per minute
    and jobs counted per key."""

    def __init__(self, options: ServerOptions):
        self.options = options
        self._lock = threading.Lock()
        self._checked = float("-inf")  # never checked
        self._found: dict[str, tuple[float, tuple | None]] = {}
        self._buckets: dict[str, tuple[float, float]] = {}  # key name -> (tokens left, when)

    def fresh(self) -> bool:
        """Whether `exist` would answer from what it knows (no query): the event loop asks first."""
        return time.monotonic() - self._checked < CACHE_SECONDS

    def exist(self, graph) -> bool:
        """Whether keys are stored (GRAPHRAG_API_KEY aside); the last answer when Neo4j is down."""
        from graphrag_cypher import apikeys

        now = time.monotonic()
        if now - self._checked < CACHE_SECONDS or graph.is_down():
            return self.options.keys_stored
        try:
            self.options.keys_stored = apikeys.any_key(graph)
        except Exception:  # Neo4j away: keep the last answer (checked again next time)
            return self.options.keys_stored
        self._checked = now
        return self.options.keys_stored

    def find(self, graph, token: str):
        """(principal, limits) of a stored key, or None (unknown or revoked)."""
        from graphrag_cypher import apikeys

        digest, now = apikeys.digest(token), time.monotonic()
        with self._lock:
            cached = self._found.get(digest)
        if cached and now - cached[0] < CACHE_SECONDS:
            return cached[1]
        try:
            found = apikeys.find(graph, token)
        except Exception as exc:
            raise Refused(
                503, f"the key cannot be checked now: Neo4j is not answering ({type(exc).__name__})"
            ) from None
        with self._lock:
            if len(self._found) > 10_000:  # bounded: tokens anyone sends
                self._found.clear()
            self._found[digest] = (now, found)
        return found

    def spend(self, name: str, rpm: int) -> None:
        """Count one request of key `name` against its `rpm` (a bucket refilled every second);
        Refused 429 with Retry-After when it is empty."""
        if rpm <= 0:
            return
        now = time.monotonic()
        with self._lock:
            tokens, then = self._buckets.get(name, (float(rpm), now))
            tokens = min(float(rpm), tokens + (now - then) * rpm / 60.0)
            if tokens < 1.0:
                self._buckets[name] = (tokens, now)
                wait = max(1, math.ceil((1.0 - tokens) * 60.0 / rpm))
                raise Refused(
                    429,
                    f"key {name!r} is over its limit of {rpm} requests a minute: retry in {wait} s",
                    {"Retry-After": str(wait)},
                )
            self._buckets[name] = (tokens - 1.0, now)


def bearer(headers: dict) -> str | None:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class Guard:
    """Who asks and what they may do, and the size limit, before any route runs."""

    def __init__(self, app, options: ServerOptions):
        self.app, self.options = app, options
        self._key = options.api_key.encode() if options.api_key else None
        # On loopback a page from another site could rebind its name to 127.0.0.1 and read the
        # graph: only requests addressed to a loopback name are answered there.
        self._loopback = is_loopback(options.host)
        self.keys = Keys(options)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path, method = scope["path"], scope["method"]
        openai_shape = path.startswith("/v1/")
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if self._loopback and not loopback_host(headers.get("host", "")):
            return await error_response(
                421, "this server answers only requests addressed to 127.0.0.1, localhost or [::1]", openai_shape
            )(scope, receive, send)
        limit = self.options.max_upload if (method == "POST" and path == "/documents") else self.options.max_body
        try:
            principal, keyed = await self._principal(scope, headers)
            if keyed and principal.corpora is not None and method == "GET" and path in CORPUS_QUERIES:
                scope = dict(scope, query_string=self._scoped_query(scope, principal))
            if keyed and (principal.corpora is not None or not principal.can("write")):
                receive = await self._checked_body(scope, receive, principal, limit)
                await self._check_node(scope, principal)
        except Refused as exc:
            return await self._refuse(scope, receive, send, exc, principal_name(scope))
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            return await error_response(413, f"request body too large: the limit is {limit} bytes", openai_shape)(
                scope, receive, send
            )
        with acting_as(principal):
            await self._bounded(scope, receive, send, limit, openai_shape)

    async def _principal(self, scope, headers: dict) -> tuple[Principal, bool]:
        """Who asks, and whether this server has keys at all (then what a key may do is checked);
        Refused when the request may not go on."""
        path, method = scope["path"], scope["method"]
        open_path = path in OPEN_PATHS or path.startswith(OPEN_PREFIXES) or method == "OPTIONS"
        state = getattr(getattr(scope.get("app"), "state", None), "graphrag", None)
        graph = state.graph if state is not None else None
        keyed = self._key is not None or (
            graph is not None
            and (self.options.keys_stored if self.keys.fresh() else await asyncio.to_thread(self.keys.exist, graph))
        )
        if not keyed:  # no key anywhere: reads open (on loopback), writes off, as ever
            if is_write(method, path):
                raise Refused(
                    403, "writes are off: start the server with GRAPHRAG_API_KEY set and send it as a bearer token"
                )
            return ANONYMOUS, False
        token = bearer(headers)
        principal, limits = None, None
        if token and self._key and hmac.compare_digest(token.encode(), self._key):
            principal = ADMIN
        elif token and graph is not None:
            found = await asyncio.to_thread(self.keys.find, graph, token)
            if found is not None:
                principal, limits = found
        if principal is None:
            if open_path or (self.options.open_reads and not token and not is_write(method, path)):
                principal = ANONYMOUS
            else:
                raise Refused(401, self._unknown(token), {"WWW-Authenticate": "Bearer"})
        scope.setdefault("state", {})["graphrag_principal"] = principal.name
        if limits is not None:
            self.keys.spend(principal.name, limits.rpm)
        if is_write(method, path) and not principal.can("write"):
            raise Refused(403, f"key {principal.name!r} may not write: {method} {path} needs a --write key")
        if limits is not None and limits.jobs and (method, path) in JOB_PATHS and state is not None:
            self._check_jobs(state, principal, limits.jobs)
        return principal, True

    def _unknown(self, token: str | None) -> str:
        if not self.options.keys_stored:  # GRAPHRAG_API_KEY alone, as before keys were stored
            return "missing or wrong API key: send Authorization: Bearer <GRAPHRAG_API_KEY>"
        what = "wrong, unknown or revoked API key" if token else "missing API key"
        return f"{what}: send Authorization: Bearer <key> (a key from `graphrag keys add`)"

    def _check_jobs(self, state, principal: Principal, most: int) -> None:
        active = state.jobs.active_of(principal.name)
        if active >= most:
            raise Refused(
                429,
                f"key {principal.name!r} has {active} jobs queued or running, its limit: retry when one has "
                "finished (GET /jobs)",
                {"Retry-After": str(JOB_RETRY_SECONDS)},
            )

    def _scoped_query(self, scope, principal: Principal) -> bytes:
        """The query string with `corpus` checked against the key, or its only corpus put in (none
        for a key of several corpora: the query filters to them)."""
        pairs = [(k, v) for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)]
        named = next((v for k, v in pairs if k == "corpus"), None)
        corpus = scoped_corpus(named, principal=principal)
        kept = [(k, v) for k, v in pairs if k != "corpus"]
        return urlencode(kept + ([("corpus", corpus)] if corpus is not None else [])).encode()

    async def _checked_body(self, scope, receive, principal: Principal, limit: int):
        """For a scoped or read-only key: the JSON body read (within the size limit), its corpus
        checked or filled in, `learn_web` and the MCP `learn` tool refused without the right; a
        receive that hands the (perhaps rewritten) body on."""
        if scope["method"] != "POST" or scope["path"] not in JSON_BODIES:
            return receive
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return receive  # the client went away: the route sees it
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > limit:
                raise Refused(413, f"request body too large: the limit is {limit} bytes")
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        try:
            data = json.loads(body)
        except ValueError:
            data = None  # the route answers a body that is not JSON
        if data is not None:
            changed = self._check_data(scope["path"], data, principal)
            for node_id in tool_node_ids(data) if scope["path"] == "/mcp" else ():
                await self._check_id(scope, principal, node_id)
            if changed:
                body = json.dumps(data).encode()
                scope["headers"] = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"] + [
                    (b"content-length", str(len(body)).encode())
                ]
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        return replay

    def _check_data(self, path: str, data, principal: Principal) -> bool:
        """Check one JSON body against the key (Refused), filling in its corpus; whether it changed."""
        if path == "/mcp":
            calls = [m for m in (data if isinstance(data, list) else [data]) if isinstance(m, dict)]
            changed = False
            for message in calls:
                params = message.get("params") if message.get("method") == "tools/call" else None
                if isinstance(params, dict):
                    changed |= self._check_tool(params, principal)
            return changed
        if not isinstance(data, dict):
            return False
        write = path == "/crawl"
        if data.get("learn_web") and not principal.can("write"):
            raise Refused(403, f"key {principal.name!r} may not write: learn_web stores web pages, a write")
        corpus = scoped_corpus(data.get("corpus"), write=write or bool(data.get("learn_web")), principal=principal)
        if corpus != data.get("corpus"):
            data["corpus"] = corpus
            return True
        return False

    def _check_tool(self, params: dict, principal: Principal) -> bool:
        name, args = params.get("name"), params.get("arguments")
        args = args if isinstance(args, dict) else {}
        if name == "learn":
            if not principal.can("write"):
                raise Refused(403, f"key {principal.name!r} may not write: the MCP learn tool needs a --write key")
            if principal.corpora is not None:
                raise Refused(
                    403,
                    f"key {principal.name!r} is scoped to corpora: MCP learn writes the default corpus; "
                    "use POST /crawl with its corpus",
                )
            return False
        if name not in CORPUS_TOOLS:
            return False
        if args.get("learn_web") and not principal.can("write"):
            raise Refused(403, f"key {principal.name!r} may not write: learn_web stores web pages, a write")
        corpus = scoped_corpus(args.get("corpus"), write=bool(args.get("learn_web")), principal=principal)
        if corpus != args.get("corpus"):
            params["arguments"] = dict(args, corpus=corpus)
            return True
        return False

    async def _check_node(self, scope, principal: Principal) -> None:
        """A document or chunk named by id (GET/DELETE /documents/{id}, GET /graph?id=) must be in
        the key's corpora; an entity's or community's id is not checked here."""
        if principal.corpora is None:
            return
        path = scope["path"]
        if path.startswith("/documents/"):
            node_id = path[len("/documents/") :]
        elif path == "/graph":
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            node_id = query.get("id", "")
        else:
            return
        await self._check_id(scope, principal, node_id)

    async def _check_id(self, scope, principal: Principal, node_id) -> None:
        state = getattr(scope["app"].state, "graphrag", None)
        if principal.corpora is None or not isinstance(node_id, str) or not node_id or state is None:
            return
        rows = await asyncio.to_thread(state.graph.read, "keys/node_corpus", id=node_id)
        if rows and not principal.sees(rows[0]["corpus"]):
            # the same answer as for an id that does not exist: nothing of another corpus shows
            raise Refused(
                404, f"no entity, document or chunk with id {node_id!r} in the corpora of key {principal.name!r}"
            )

    async def _refuse(self, scope, receive, send, exc: Refused, name: str | None) -> None:
        who = f" (key {name})" if name else ""
        if exc.status in (401, 403, 429):
            print(
                f"graphrag serve: {exc.status} {scope['method']} {scope['path']}{who}: {exc.message}", file=sys.stderr
            )
        response = error_response(exc.status, exc.message, scope["path"].startswith("/v1/"))
        for header, value in exc.headers.items():
            response.headers[header] = value
        await response(scope, receive, send)

    async def _bounded(self, scope, receive, send, limit: int, openai_shape: bool) -> None:
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
                    await error_response(413, f"request body too large: the limit is {limit} bytes", openai_shape)(
                        scope, receive, send
                    )
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message):
            if not refused:
                await send(message)

        await self.app(scope, bounded_receive, guarded_send)


NODE_TOOLS = {"get_document": "document_id", "graph_neighbourhood": "node_id"}  # MCP tools naming a node


def tool_node_ids(data) -> list:
    """The document or chunk ids an MCP request's tool calls name (get_document, graph_neighbourhood)."""
    ids = []
    for message in data if isinstance(data, list) else [data]:
        params = message.get("params") if isinstance(message, dict) and message.get("method") == "tools/call" else None
        if isinstance(params, dict) and params.get("name") in NODE_TOOLS and isinstance(params.get("arguments"), dict):
            ids.append(params["arguments"].get(NODE_TOOLS[params["name"]]))
    return ids


def principal_name(scope) -> str | None:
    """The key's name a request came with, once the door knows it (for log lines)."""
    return (scope.get("state") or {}).get("graphrag_principal")
