"""The guard in front of every route (plain ASGI, so streams pass untouched): the loopback
Host check, the API key, writes only with a key, and the request size limits."""

from __future__ import annotations

import hmac

from .common import error_response
from .options import ServerOptions, is_loopback

OPEN_PATHS = {"/", "/favicon.ico", "/modes"}  # the page and what it needs before a key is typed
OPEN_PREFIXES = ("/static/",)


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


class Guard:
    """The key check and the size limit, before any route runs."""

    def __init__(self, app, options: ServerOptions):
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
        if self._loopback and not loopback_host(headers.get("host", "")):
            return await error_response(
                421, "this server answers only requests addressed to 127.0.0.1, localhost or [::1]", openai_shape
            )(scope, receive, send)
        if is_write(method, path) and not self._key:
            return await error_response(
                403,
                "writes are off: start the server with GRAPHRAG_API_KEY set and send it as a bearer token",
                openai_shape,
            )(scope, receive, send)
        if self._key and not open_path and not self._authorised(headers.get("authorization", "")):
            response = error_response(
                401, "missing or wrong API key: send Authorization: Bearer <GRAPHRAG_API_KEY>", openai_shape
            )
            response.headers["WWW-Authenticate"] = "Bearer"
            return await response(scope, receive, send)
        limit = self.options.max_upload if (method == "POST" and path == "/documents") else self.options.max_body
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            return await error_response(413, f"request body too large: the limit is {limit} bytes", openai_shape)(
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
                    await error_response(413, f"request body too large: the limit is {limit} bytes", openai_shape)(
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
