"""``GET /graph``: the evidence subgraph of a remembered answer, or a node's neighbourhood."""

from __future__ import annotations

from fastapi import APIRouter, Query

from .. import engine
from ..common import ApiError, State


def router(state: State) -> APIRouter:
    routes = APIRouter(tags=["graph"])

    @routes.get("/graph", summary="The evidence subgraph of an answer, or a node's neighbourhood")
    def graph_view(
        answer: str | None = Query(default=None, max_length=64),
        id: str | None = Query(default=None, max_length=2000),
        limit: int = Query(default=25, ge=1, le=engine.MAX_GRAPH_NODES),
    ):
        if answer:
            result = state.answer(answer)  # a 404 saying why when it is not remembered
            return engine.evidence_graph(state.graph, result, limit=limit)
        if id:
            found = engine.neighbourhood(state.graph, id, limit)
            if found is None:
                raise ApiError(404, f"no entity, document or chunk with id {id!r}")
            return found
        raise ApiError(422, "say what to draw: ?answer=<answer_id> or ?id=<entity, document or chunk id>")

    return routes
