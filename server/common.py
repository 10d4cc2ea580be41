"""What the routers, the OpenAI-compatible endpoint and the MCP tools share: the state every
request reads (settings, one driver, the embedders, jobs, remembered answers) and the errors
they answer with."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections import OrderedDict
from pathlib import Path

from fastapi.responses import JSONResponse

from . import engine
from .jobs import Jobs, QueueFull
from .options import ServerOptions

HEALTH_WAIT = 2.0  # seconds /health waits for Neo4j at most (less when GRAPHRAG_NEO4J_TIMEOUT is lower)
MAX_ANSWERS = 256  # answers remembered for GET /graph?answer=


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
        self.answers: OrderedDict[str, dict] = OrderedDict()
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

    def remember(self, result: dict) -> str:
        answer_id = uuid.uuid4().hex[:16]
        with self._lock:
            self.answers[answer_id] = result
            while len(self.answers) > MAX_ANSWERS:
                self.answers.popitem(last=False)
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

    def answer(self, answer_id: str) -> dict | None:
        with self._lock:
            return self.answers.get(answer_id)

    def check_room(self) -> None:
        """A 429 now when the job queue is full (before an upload is read or a crawl planned)."""
        try:
            self.jobs.check_room()
        except QueueFull as exc:
            raise ApiError(429, str(exc)) from None


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
