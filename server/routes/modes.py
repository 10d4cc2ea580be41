"""``GET /modes``: the retrieval modes from the one registry (the page builds its mode list from it)."""

from __future__ import annotations

from fastapi import APIRouter

from graphrag_cypher.retrieval.modes import describe

from ..common import State


def router(state: State) -> APIRouter:
    routes = APIRouter(tags=["chat"])

    @routes.get("/modes", summary="The retrieval modes: name, one line on each, which is the default")
    def modes():
        return {"modes": describe()}

    return routes
