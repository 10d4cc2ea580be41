"""Server-sent events: an answer's tokens as they are written, then its citations, evidence and
the whole answer, each event's data JSON with ASCII escapes."""

from __future__ import annotations

import asyncio
import contextvars
import json
import re

from graphrag_cypher.retrieval.options import AskOptions

from . import engine
from .common import State
from .errors import one_line, status_for


def sse(events):
    from sse_starlette.sse import EventSourceResponse

    return EventSourceResponse(events, ping=15, headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def event(name: str, data) -> dict:
    # JSON with ASCII escapes: a document's text cannot end an event or start a field
    return {"event": name, "data": json.dumps(data, ensure_ascii=True)}


async def run_streaming(state: State, question: str, options: AskOptions, history=()):
    """qa.ask in a worker thread; yields ("token", text) while it runs, then ("result", dict)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()
    streamed = False

    def on_token(text: str) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, ("token", text))

    def work() -> None:
        try:
            result = engine.ask(state.graph, state.embedder, state.settings, question, options, history, on_token)
            loop.call_soon_threadsafe(queue.put_nowait, ("result", result))
        except BaseException as exc:
            loop.call_soon_threadsafe(queue.put_nowait, ("error", exc))

    # a client that goes away does not stop the answer: it finishes in its thread and is dropped
    # in this request's context: its key (scope, audit) and its trace reach the worker thread
    loop.run_in_executor(None, contextvars.copy_context().run, work)
    while True:
        kind, value = await queue.get()
        if kind == "token":
            streamed = True
            yield "token", value
        elif kind == "result":
            if not streamed:  # an extractive answer is written at once: send it in pieces
                for piece in re.findall(r"\S+\s*", value.get("answer_with_titles") or ""):
                    yield "token", piece
            yield "result", value
            return
        else:
            raise value


async def stream_answer(state: State, question: str, options: AskOptions, history, finish):
    yield event("question", {"question": question})
    try:
        async for kind, value in run_streaming(state, question, options, history):
            if kind == "token":
                yield event("token", {"text": value})
            else:
                result = finish(value)
                yield event(
                    "citations", {"citations": result["citations"], "dropped_citations": result["dropped_citations"]}
                )
                yield event("evidence", {"evidence": result["evidence"]})
                yield event("answer", result)
    except Exception as exc:
        yield event("error", {"error": one_line(exc), "status": status_for(exc)})
    yield event("done", {})
