"""``GET /audit``: the audit of writes (``graphrag audit``), for admin keys only."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Query

from graphrag_cypher import audit
from graphrag_cypher.errors import GraphragError
from graphrag_cypher.principal import current

from ..common import ApiError, State


def router(state: State) -> APIRouter:
    routes = APIRouter(tags=["audit"])

    @routes.get("/audit", summary="Every write recorded, newest first: key, time, corpora, what changed (admin keys)")
    async def list_audit(
        since: str | None = Query(default=None, max_length=40, description="30m, 12h, 1d, 2w or an ISO date/time"),
        key: str | None = Query(default=None, max_length=200),
        corpus: str | None = Query(default=None, max_length=200),
        limit: int = Query(default=100, ge=1, le=audit.MAX_LIST),
    ):
        who = current()
        if not who.can("admin"):
            raise ApiError(403, "the audit is for admin keys: send a key made with `graphrag keys add NAME --admin`")
        if who.corpora is not None:  # an admin key scoped to corpora reads their records only
            corpus = corpus or (who.corpora[0] if len(who.corpora) == 1 else None)
            if corpus is None or not who.sees(corpus):
                raise ApiError(403, f"key {who.name!r} reads the audit of its corpora only: give ?corpus= one of them")
        try:
            since_at = audit.since_time(since)
        except GraphragError as exc:
            raise ApiError(422, str(exc)) from None
        rows = await asyncio.to_thread(audit.entries, state.graph, since_at, key, corpus, limit)
        return {"audit": rows}

    return routes
