"""Liveness (``/health/live``, no database call) and readiness (``/health``: Neo4j, the schema)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from graphrag_cypher import __version__

from ..common import State
from ..errors import one_line


def router(state: State) -> APIRouter:
    routes = APIRouter(tags=["health"])

    @routes.get("/health/live", summary="The server is up: its version and instance, no database call")
    async def health_live():
        # liveness, as against /health's readiness: what `graphrag ask` checks before handing a
        # question over, in a millisecond (the schema check of /health reads the graph). Answered on
        # the event loop itself: a plain function would wait for a worker thread, and under many
        # /chat answers those threads queue behind CPU-bound work

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

    @routes.get("/health", summary="Neo4j reachable, schema up to date (never waits on a dead server)")
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

    return routes
