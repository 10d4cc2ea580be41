"""Prometheus metrics at ``GET /metrics`` (admin keys only), and the middleware that counts every
request by method, route and status with its latency, each in a server span."""

from __future__ import annotations

import time

from fastapi import APIRouter
from fastapi.responses import Response
from starlette.routing import Match

from graphrag_cypher import telemetry
from graphrag_cypher.principal import current

from .common import ApiError


class Measured:
    """Counts each HTTP request (a stream when its last byte is sent) and traces it as a server
    span; the route is the path as declared (``/documents/{document_id}``), never the raw path."""

    def __init__(self, app, routes):
        self.app, self.routes = app, routes
        telemetry.enable_metrics()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        method, started, status = scope["method"], time.perf_counter(), 500

        async def measured_send(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        with telemetry.span(f"{method}", **{"http.request.method": method}) as traced:
            try:
                await self.app(scope, receive, measured_send)
            finally:
                route = self.route_of(scope)
                traced.update_name(f"{method} {route}")
                telemetry.annotate(traced, **{"http.route": route, "http.response.status_code": status})
                telemetry.request_done(method, route, status, time.perf_counter() - started)

    def route_of(self, scope) -> str:
        """The declared path of the route that answered, or that would have (a request refused at
        the door); "unmatched" for a path no route has."""
        route = scope.get("route")
        if route is None:
            route = next((r for r in declared(self.routes) if r.matches(scope)[0] == Match.FULL), None)
        return getattr(route, "path", None) or "unmatched"


def declared(routes) -> list:
    """The routes themselves, those of included routers too (FastAPI keeps those as groups)."""
    out = []
    for route in routes:
        inner = getattr(route, "original_router", None)
        out.extend(declared(inner.routes) if inner is not None else [route])
    return out


def router() -> APIRouter:
    routes = APIRouter(tags=["metrics"])

    @routes.get("/metrics", summary="Prometheus metrics: requests, latency by route and mode, jobs, LLM tokens")
    def metrics() -> Response:
        if not current().can("admin"):
            raise ApiError(403, "the metrics are for admin keys: send an admin key as a bearer token")
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return routes
