"""``POST /chat``: one question (a conversation's history rewritten into a standalone one),
answered with checked citations, as JSON or streamed as server-sent events."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field, create_model, field_validator

from graphrag_cypher.config import MAX_QUESTION
from graphrag_cypher.retrieval.options import AskOptions

from .. import ask_params, engine
from ..common import ApiError, State
from ..streaming import sse, stream_answer

MAX_HISTORY = 20


class Turn(BaseModel):
    question: str = Field(max_length=MAX_QUESTION)
    answer: str = Field(default="", max_length=20000)
    entities: list[str] = Field(default_factory=list, max_length=50)
    time: str | None = Field(default=None, max_length=200)


class _Question(BaseModel):
    question: str = Field(min_length=1, max_length=MAX_QUESTION)
    history: list[Turn] = Field(default_factory=list, max_length=MAX_HISTORY)
    stream: bool | None = None

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the question is empty")
        return value


# the question, then every ask option `graphrag ask` has, as AskOptions declares it (its bound,
# choices and help); `from`, `to`, `llm` and `web` are the body's names for date_from, date_to,
# use_llm and web_mode
if TYPE_CHECKING:
    ChatRequest = _Question
else:
    ChatRequest = create_model("ChatRequest", __base__=_Question, **ask_params.body_fields())


def router(state: State) -> APIRouter:
    routes = APIRouter(tags=["chat"])

    def prepare(body) -> tuple[str, AskOptions, list[dict]]:
        # the options first: a date range that ends before it starts is refused as before
        options = ask_params.make_options(state, ask_params.chosen(body), lambda message: ApiError(422, message))
        if body.question.strip().lower().startswith("learn:"):
            raise ApiError(422, 'learn: requests are jobs: POST them to /crawl as {"request": "learn: ..."}')
        history = [t.model_dump() for t in body.history]
        question = engine.standalone(state.settings, history, body.question.strip(), use_llm=options.use_llm)
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
