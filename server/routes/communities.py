"""``GET /communities``: the corpus's themes; ``GET /communities/{id}``: one community's report."""

from __future__ import annotations

from fastapi import APIRouter, Query
from fastapi import Path as PathParam

from .. import engine
from ..common import ApiError, State


def router(state: State) -> APIRouter:
    routes = APIRouter(tags=["communities"])

    @routes.get("/communities", summary="The corpus's themes: communities of the graph, the largest first")
    def list_communities(
        level: int | None = Query(default=0, ge=0, le=100),
        corpus: str | None = Query(default=None, max_length=200),
        limit: int = Query(default=50, ge=1, le=engine.MAX_COMMUNITIES),
    ):
        return engine.communities(state.graph, level, corpus, limit)

    @routes.get("/communities/{community_id}", summary="One community's report, its parent and children")
    def get_community(community_id: str = PathParam(max_length=100)):
        found = engine.community(state.graph, community_id)
        if found is None:
            raise ApiError(404, f"no community {community_id!r}: GET /communities lists them")
        return found

    return routes
