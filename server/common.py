"""What the routers, the OpenAI-compatible endpoint and the MCP tools share: the state every
request reads (settings, one driver, the embedders, jobs, remembered answers) and the errors
they answer with."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import uuid
from collections import OrderedDict
from pathlib import Path

from fastapi.responses import JSONResponse

from graphrag_cypher.retrieval.routes import drawn_fields
from graphrag_cypher.retrieval.shown import asked_fields

from . import engine
from .jobs import Jobs, QueueFull
from .options import ServerOptions

HEALTH_WAIT = 2.0  # seconds /health waits for Neo4j at most (less when GRAPHRAG_NEO4J_TIMEOUT is lower)
# what GET /graph?answer= reads of an answer is remembered, the newest first, within this many
# bytes of JSON in all (GRAPHRAG_ANSWER_CACHE_BYTES); an answer bigger than that is not remembered
ANSWER_CACHE_BYTES = 32 * 1024 * 1024
ANSWER_CACHE_ENV = "GRAPHRAG_ANSWER_CACHE_BYTES"
TOO_BIG_REMEMBERED = 256  # ids of answers too big to remember, kept to say so


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


class State:
    """What every request shares: settings, one driver, one embedding model, jobs, answers."""

    def __init__(self, settings, options: ServerOptions, graph, embedder):
        self.settings, self.options = settings, options
        # questions: the query embedder (ONNX for the default model); documents: `document_embedder`
        self.graph, self.embedder = graph, engine.LockedEmbedder(embedder)
        self._documents_embedder = None if getattr(embedder, "backend", None) == "onnx" else self.embedder
        self.jobs = Jobs()
        engine.web_fallback()  # a web-search configuration that cannot work stops the server at start
        self.answers = AnswerCache(answer_cache_bytes())
        self._lock = threading.Lock()
        self._probe: asyncio.Future | None = None  # the readiness check in flight

    def document_embedder(self):
        """What learned documents are embedded with: sentence-transformers, loaded on the first
        learn when questions go through ONNX (loading stays on the library it was built with)."""
        with self._lock:
            if self._documents_embedder is None:
                from graphrag_cypher.embedder import make_embedder

                self._documents_embedder = engine.LockedEmbedder(make_embedder(self.settings))
            return self._documents_embedder

    def learn(self, items, progress, error, should_stop, **options) -> dict:
        """`engine.learn` of `items` on this server's graph, document embedder and settings, as a
        job runs it (its progress, error and stop callbacks); `options`: loader, source_root,
        corpus, topics."""
        return engine.learn(
            self.graph,
            self.document_embedder(),
            items,
            on_progress=progress,
            on_error=error,
            should_stop=should_stop,
            settings=self.settings,
            **options,
        )

    def remember(self, result: dict) -> str:
        """An id for the answer; GET /graph?answer=<id> draws its evidence while it is remembered."""
        from graphrag_cypher.principal import current

        answer_id = uuid.uuid4().hex[:16]
        self.answers.put(answer_id, result, owner=current().name)
        return answer_id

    async def readiness(self):
        """The schema plan (`migrations.status`), or the one-line error why Neo4j cannot give it,
        within HEALTH_WAIT seconds at most: a server known to be gone is reported at once, and
        one probe runs at a time, so health checks of a hung server do not pile up threads."""
        from graphrag_cypher.admin import migrations
        from graphrag_cypher.errors import Neo4jUnavailable

        if self.graph.is_down():
            raise Neo4jUnavailable(
                f"Neo4j at {self.settings.neo4j_uri} is not answering (checked under {self.settings.neo4j_timeout:g} s ago)"
            )
        with self._lock:
            if self._probe is None or self._probe.done():
                self._probe = asyncio.ensure_future(
                    asyncio.to_thread(migrations.status, self.graph, self.settings.placeholders())
                )
            probe = self._probe
        wait = min(HEALTH_WAIT, self.settings.neo4j_timeout)
        try:
            return await asyncio.wait_for(asyncio.shield(probe), timeout=wait)
        except TimeoutError:
            raise Neo4jUnavailable(f"Neo4j at {self.settings.neo4j_uri} did not answer within {wait:g} s") from None

    def answer(self, answer_id: str) -> dict:
        """What GET /graph reads of a remembered answer; ApiError 404 saying why when there is none.
        An answer is drawn only for the key that asked it (or an admin key): another key is told
        what an unknown id is told."""
        from graphrag_cypher.principal import current

        who = current()
        found = self.answers.get(answer_id, owner=None if who.can("admin") else who.name)
        if found is not None:
            return found
        size = self.answers.too_big(answer_id)
        if size is not None:
            raise ApiError(
                404,
                f"answer {answer_id!r} was not remembered: its evidence takes {size} bytes, more than the "
                f"{self.answers.budget} the server keeps for answers ({ANSWER_CACHE_ENV}): "
                "ask again with a narrower question",
            )
        raise ApiError(
            404,
            f"no answer {answer_id!r} is remembered (the newest answers are, within {self.answers.budget} bytes "
            f"in all, {ANSWER_CACHE_ENV}): ask again",
        )

    def check_room(self) -> None:
        """A 429 now when the job queue is full (before an upload is read or a crawl planned)."""
        try:
            self.jobs.check_room()
        except QueueFull as exc:
            raise ApiError(429, str(exc)) from None


def answer_cache_bytes(environ=None) -> int:
    """GRAPHRAG_ANSWER_CACHE_BYTES: the bytes of remembered answers, 0 (remember none) to 4 GiB
    (default 32 MiB); anything else is a one-line GraphragError."""
    from graphrag_cypher.errors import GraphragError

    raw = ((os.environ if environ is None else environ).get(ANSWER_CACHE_ENV) or "").strip()
    if not raw:
        return ANSWER_CACHE_BYTES
    if not raw.isdigit() or int(raw) > 4 * 1024**3:
        raise GraphragError(f"{ANSWER_CACHE_ENV}={raw!r}: give a number of bytes from 0 to {4 * 1024**3}")
    return int(raw)


class AnswerCache:
    """Answers for GET /graph?answer=, by id: only what that route reads of one (its evidence's
    chunk ids and what its route draws: paths, a structured plan and rows), the newest kept within `budget` bytes of JSON
    in all. An answer bigger than the budget is not kept; its id is, for a while, to say so."""

    def __init__(self, budget: int):
        self.budget = budget
        self.used = 0
        self._answers: OrderedDict[str, tuple[dict, int, str | None]] = OrderedDict()  # kept, size, owner
        self._too_big: OrderedDict[str, int] = OrderedDict()  # answer id -> its size
        self._lock = threading.Lock()

    def put(self, answer_id: str, result: dict, owner: str | None = None) -> bool:
        """Remember the answer (and the name of the key that asked it); False when it is bigger
        than the whole budget (then it is not)."""
        kept = drawn_fields(result)
        kept["evidence"] = [{"chunk_id": ev["chunk_id"]} for ev in result.get("evidence") or [] if "chunk_id" in ev]
        kept.update(asked_fields(result))  # the confidence cut draws what the question asks for
        size = len(json.dumps(kept, ensure_ascii=False, default=str).encode("utf-8"))
        with self._lock:
            if size > self.budget:
                self._too_big[answer_id] = size
                while len(self._too_big) > TOO_BIG_REMEMBERED:
                    self._too_big.popitem(last=False)
                return False
            self._answers[answer_id] = (kept, size, owner)
            self.used += size
            while self.used > self.budget:
                _, (_, gone, _) = self._answers.popitem(last=False)
                self.used -= gone
            return True

    def get(self, answer_id: str, owner: str | None = None) -> dict | None:
        """The answer remembered as `answer_id`; with `owner`, only if that key asked it."""
        with self._lock:
            found = self._answers.get(answer_id)
            return found[0] if found is not None and (owner is None or found[2] == owner) else None

    def too_big(self, answer_id: str) -> int | None:
        """The size of an answer that was too big to remember, or None."""
        with self._lock:
            return self._too_big.get(answer_id)

    def __len__(self) -> int:
        with self._lock:
            return len(self._answers)


def error_response(status: int, message: str, openai_shape: bool = False) -> JSONResponse:
    body = (
        {
            "error": {
                "message": message,
                "type": "invalid_request_error" if status < 500 else "server_error",
                "code": status,
            }
        }
        if openai_shape
        else {"error": message}
    )
    return JSONResponse(body, status_code=status)


def allowed_path(path: str, allowed: tuple[str, ...]) -> Path:
    """A server-side folder the operator allowed (--allow-path), resolved; anything else is refused."""
    target = Path(path).expanduser().resolve()
    for root in allowed:
        base = Path(root).expanduser().resolve()
        if target == base or base in target.parents:
            if not target.exists():
                raise ApiError(404, f"path not found: {path}")
            return target
    raise ApiError(403, f"path {path!r} is not under a folder the server allows (graphrag serve --allow-path DIR)")
