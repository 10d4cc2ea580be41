"""OpenAI-compatible chat completions: each retrieval mode is a model (`graphrag-graph`, …).

The last user message is the question; earlier turns are rewritten into a standalone
question as `graphrag chat` does. The answer's citations appear in the text as their
sources' titles and, structured, in a `citations` field of the response (and of the last
chunk of a stream). An answer that abstains (the graph holds no answer) is its sentence, then
its closest passages apart under "Closest, not an answer:", with no sources; `abstained` says
who abstained and why (null when the question was answered). An answer of the structured route
also has its `rows` (one per name or title, each with its citation id) and its `structured`
plan there; other answers have no rows. `graphrag-global` answers from the whole corpus; a
global answer has its `global` trace and the `communities` it used there too. The content is Markdown whose `&`, `<` and `>` are HTML entities
(`markdown_text`): no title or quoted sentence from a document becomes markup in a chat UI.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from typing import TYPE_CHECKING

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, create_model

from graphrag_cypher.config import MAX_QUESTION, question_too_long
from graphrag_cypher.retrieval.abstain_text import closest_lines
from graphrag_cypher.retrieval.routes import route_fields

from . import ask_params, engine
from .common import ApiError
from .errors import one_line
from .streaming import run_streaming, sse

PREFIX = "graphrag-"


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str = Field(max_length=32)
    content: str | list | None = None


class _Completion(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, max_tokens, … are accepted and ignored
    model: str = Field(default=PREFIX + engine.DEFAULT_MODE, max_length=100)
    messages: list[Message] = Field(min_length=1, max_length=100)
    stream: bool = False


# graphrag's own extra fields: every ask option /chat takes (`about`, `k`, `corpus`, `from`, `judge`,
# …), as AskOptions declares it; the mode is the model's name
if TYPE_CHECKING:
    CompletionRequest = _Completion
else:
    CompletionRequest = create_model(
        "CompletionRequest", __base__=_Completion, **ask_params.body_fields(exclude=("mode",))
    )


def models() -> list[str]:
    return [PREFIX + mode for mode in engine.ANSWER_MODES]


MAX_MESSAGE = 20000  # characters of one earlier message (an answer, a system prompt), as /chat's turns
MAX_CONVERSATION = 100_000  # characters of all the messages' text together


def _refuse(message: str):
    return ApiError(422, message)


def _text(content, where: str) -> str:
    """A message's text: a string, or the text parts of a list of parts ([{"type": "text", "text": …}, …];
    other parts, images and the like, are skipped). A part that is not an object, or a text part whose
    text is not a string, is refused (422)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for number, part in enumerate(content):
            if not isinstance(part, dict):
                raise _refuse(f"invalid {where}.content.{number}: a content part must be an object")
            if part.get("type") == "text":
                if not isinstance(part.get("text"), str):
                    raise _refuse(f"invalid {where}.content.{number}.text: a text part's text must be a string")
                texts.append(part["text"])
        return " ".join(texts)
    return ""


def _turns(messages: list[Message]) -> tuple[str, list[dict]]:
    """(the last user message, earlier user/assistant pairs as history turns). The question is at
    most MAX_QUESTION characters, an earlier user message too, any other message MAX_MESSAGE, and
    all of them together MAX_CONVERSATION; longer is refused (422) before any work is done."""
    texts = [_text(m.content, f"messages.{i}") for i, m in enumerate(messages)]
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if not users or not texts[users[-1]].strip():
        raise _refuse('no user message: the last message with role "user" is the question')
    last = users[-1]
    said = texts[last].strip()
    too_long = question_too_long(said)
    if too_long:
        raise _refuse(too_long)
    for i, (message, text) in enumerate(zip(messages, texts, strict=True)):
        limit = MAX_QUESTION if message.role == "user" else MAX_MESSAGE
        if i != last and len(text) > limit:
            raise _refuse(
                f"invalid messages.{i}: {len(text)} characters; a {message.role} message takes at most {limit}"
            )
    total = sum(map(len, texts))
    if total > MAX_CONVERSATION:
        raise _refuse(f"the messages hold {total} characters together; at most {MAX_CONVERSATION} are taken")
    history, question = [], None
    for message, text in zip(messages[:last], texts[:last], strict=True):
        if message.role == "user":
            question = text
        elif message.role == "assistant" and question is not None:
            history.append({"question": question, "answer": text})
            question = None
    return said, history


def _citations(result: dict) -> list[dict]:
    return [
        {"id": c["id"], "title": c["title"], "uri": c["uri"], "document_id": c["document_id"]}
        for c in result["citations"]
    ]


_HTML_CODES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_LINKABLE = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)


def markdown_text(text: str) -> str:
    """Text as the Markdown of a message's content: chat UIs render that content as Markdown, in
    which raw HTML is HTML, so `&`, `<` and `>` are written as entities (which Markdown shows as
    the characters themselves). Titles and quoted sentences come from documents: a title
    `<img src=x onerror=…>` is shown, never made an element."""
    return text.translate(_HTML_CODES)


def _closest_block(result: dict) -> str:
    """An abstaining answer's closest passages under the answer, apart (`markdown_text`): the
    heading, then each one's title and snippet; empty when the question was answered."""
    lines = closest_lines(result.get("abstained"))
    return "\n\n" + "\n".join(markdown_text(line) for line in lines) if lines else ""


def _sources_line(result: dict) -> str:
    """The cited sources under the answer, by title (one line, brackets neutralised, `markdown_text`);
    an http(s) URI as an autolink, any other as text."""
    if not result["citations"]:
        return ""
    labels = []
    for c in result["citations"]:
        label = markdown_text(engine.label(c["title"] or c["document_id"]))
        uri = c["uri"] or ""
        if _LINKABLE.fullmatch(uri):
            label += f" <{uri}>"
        elif uri:
            label += f" ({markdown_text(engine.label(uri))})"
        labels.append(label)
    return "\n\nSources: " + "; ".join(labels)


def router(state) -> APIRouter:
    routes = APIRouter(tags=["openai"])

    @routes.get("/v1/models", summary="OpenAI-compatible: the retrieval modes as models")
    def list_models():
        return {
            "object": "list",
            "data": [{"id": name, "object": "model", "created": 0, "owned_by": "graphrag"} for name in models()],
        }

    @routes.post("/v1/chat/completions", summary="OpenAI-compatible chat completions (streamed or not)")
    async def completions(body: CompletionRequest, request: Request):
        mode = body.model[len(PREFIX) :] if body.model.startswith(PREFIX) else None
        if body.model == "graphrag":
            mode = engine.DEFAULT_MODE
        if mode not in engine.ANSWER_MODES:
            raise ApiError(404, f"model {body.model!r} does not exist: use one of {', '.join(models())}")
        said, history = _turns(body.messages)
        options = ask_params.make_options(state, ask_params.chosen(body, mode=mode), _refuse)
        question = await asyncio.to_thread(engine.standalone, state.settings, history, said, options.use_llm)
        turns = engine.history_messages(history)
        created, ident = int(time.time()), "chatcmpl-" + uuid.uuid4().hex[:24]
        if not body.stream:
            result = await asyncio.to_thread(
                engine.ask, state.graph, state.embedder, state.settings, question, options, turns
            )
            answer = result["answer_with_titles"] or "I found no evidence for this question."
            content = markdown_text(answer) + _closest_block(result) + _sources_line(result)
            return {
                "id": ident,
                "object": "chat.completion",
                "created": created,
                "model": body.model,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                "citations": _citations(result),
                **route_fields(result),
                "trace": result.get("trace"),
                "abstained": result.get("abstained"),  # null: answered (else who abstained, why, the closest)
                "question": question,
            }

        def chunk(delta: dict, finish: str | None = None, **extra) -> dict:
            payload = {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": body.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                **extra,
            }
            return {"data": json.dumps(payload, ensure_ascii=True)}

        async def events():
            yield chunk({"role": "assistant", "content": ""})
            try:
                async for kind, value in run_streaming(state, question, options, turns):
                    if kind == "token":
                        yield chunk({"content": markdown_text(value)})
                    else:
                        tail = _closest_block(value) + _sources_line(value)
                        if tail:
                            yield chunk({"content": tail})
                        yield chunk(
                            {},
                            "stop",
                            citations=_citations(value),
                            trace=value.get("trace"),
                            abstained=value.get("abstained"),
                            **route_fields(value),
                        )
            except Exception as exc:
                yield {"data": json.dumps({"error": {"message": one_line(exc), "type": "server_error"}})}
            yield {"data": "[DONE]"}

        return sse(events())

    return routes
