"""The page: ``/`` and its scripts and styles, under a strict Content-Security-Policy."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import Response

from ..common import ApiError, State

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
    "script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


def router(state: State) -> APIRouter:
    routes = APIRouter(include_in_schema=False)
    page = resources.files("graphrag_cypher.server").joinpath("page")

    @routes.get("/")
    def index():
        return Response(
            page.joinpath("index.html").read_bytes(), media_type="text/html; charset=utf-8", headers=SECURITY_HEADERS
        )

    @routes.get("/static/{name}")
    def static(name: str):
        return _file(page, name)

    @routes.get("/static/vendor/{name}")
    def vendor(name: str):
        """The graph library the page draws with (Cytoscape.js), served from the package: no CDN."""
        return _file(page.joinpath("vendor"), name)

    return routes


def _file(folder: Traversable, name: str) -> Response:
    suffix = Path(name).suffix
    target = folder.joinpath(name)
    if suffix not in TYPES or "/" in name or not target.is_file():
        raise ApiError(404, f"no such file: {name}")
    return Response(target.read_bytes(), media_type=TYPES[suffix], headers=SECURITY_HEADERS)
