"""``POST /chat``: one question (a conversation's history rewritten into a standalone one),
answered with checked citations, as JSON or streamed as server-sent events."""

from __future__ import annotations

import asyncio
import re
from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field, field_validator

from graphrag_cypher.config import MAX_QUESTION
from graphrag_cypher.retrieval.modes import ANSWER_MODES, DEFAULT_MODE
from graphrag_cypher.retrieval.options import AskOptions

from .. import engine
from ..common import ApiError, State
from ..streaming import sse, stream_answer

MAX_HISTORY = 20
_DATE = r"^\d{4}-\d{2}-\d{2}$"


class Turn(BaseModel):
    question: str = Field(max_length=MAX_QUESTION)
    answer: str = Field(default="", max_length=20000)
    entities: list[str] = Field(default_factory=list, max_length=50)
    time: str | None = Field(default=None, max_length=200)


class ChatRequest(BaseModel):
    question: str = Field(min_length=1, max_length=MAX_QUESTION)
    history: list[Turn] = Field(default_factory=list, max_length=MAX_HISTORY)
    mode: str | None = Field(default=None, description="a retrieval mode (GET /modes lists them)")
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

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, value: str | None) -> str | None:
        if value is not None and value not in ANSWER_MODES:
            raise ValueError(f"unknown mode {value!r}: use one of {', '.join(ANSWER_MODES)} (GET /modes)")
        return value

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


def router(state: State) -> APIRouter:
    routes = APIRouter(tags=["chat"])

    def prepare(body: ChatRequest) -> tuple[str, AskOptions, list[dict]]:
        if body.date_from and body.date_to and body.date_from > body.date_to:
            raise ApiError(422, f"from {body.date_from} is after to {body.date_to}: nothing could match")
        if body.question.strip().lower().startswith("learn:"):
            raise ApiError(422, 'learn: requests are jobs: POST them to /crawl as {"request": "learn: ..."}')
        use_llm = body.llm and state.options.use_llm
        history = [t.model_dump() for t in body.history]
        question = engine.standalone(state.settings, history, body.question.strip(), use_llm=use_llm)
        options = AskOptions(
            mode=body.mode or DEFAULT_MODE,
            k=body.k,
            corpus=body.corpus,
            about=body.about,
            date_from=body.date_from,
            date_to=body.date_to,
            use_llm=use_llm,
            web_mode=body.web,
        )
        return question, options, engine.history_messages(history)

    def finish(result: dict, said: str, question: str) -> dict:
        result["said"] = said
        result["standalone"] = question != said
        result["answer_id"] = state.remember(result)
        return result

    @routes.post("/chat", summary="Answer a question with checked citations (SSE when asked for a stream)")
    async def chat(body: ChatRequest, request: Request):
        wants_stream = (
            body.stream if body.stream is not None else "text/event-stream" in request.headers.get("accept", "")
        )
        question, options, history = await asyncio.to_thread(prepare, body)
        if not wants_stream:
            result = await asyncio.to_thread(
                engine.ask, state.graph, state.embedder, state.settings, question, options, history
            )
            return finish(result, body.question.strip(), question)
        said = body.question.strip()
        return sse(stream_answer(state, question, options, history, lambda r: finish(r, said, question)))

    return routes
