"""The OpenAI-compatible embeddings endpoint (TEI, vLLM, Ollama) against a real HTTP server on
127.0.0.1 that answers /v1/embeddings: requests in parallel, vectors in the texts' order,
429 and 5xx answers retried, the model's name kept."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from graphrag_cypher.config import load_settings
from graphrag_cypher.embedder import OpenAIEmbedder, embedding_plan, make_embedder


def vector_of(text: str, dimensions: int = 8) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [b / 255 for b in digest[:dimensions]]


class EmbeddingsServer(ThreadingHTTPServer):
    """/v1/embeddings: deterministic vectors (or a real model's), answered in reverse order with
    their indexes, each request held `delay` seconds; the first `failures` requests get the
    given status. Counts requests and the most in flight at once."""

    daemon_threads = True

    def __init__(self, delay=0.0, failures=(), model=None):
        super().__init__(("127.0.0.1", 0), Handler)
        self.delay, self.failures, self.model = delay, list(failures), model
        self.lock = threading.Lock()
        self.in_flight = self.most_in_flight = self.requests = 0
        self.inputs: list[list[str]] = []
        self.models: set[str] = set()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class Handler(BaseHTTPRequestHandler):
    server: EmbeddingsServer

    def log_message(self, *args):
        pass

    def do_POST(self):
        server = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with server.lock:
            server.requests += 1
            status = server.failures.pop(0) if server.failures else 200
            server.in_flight += 1
            server.most_in_flight = max(server.most_in_flight, server.in_flight)
        try:
            time.sleep(server.delay)
        finally:  # counted while held back, not while the reply is written (see tests/llm_server.py)
            with server.lock:
                server.in_flight -= 1
        if self.path != "/v1/embeddings":
            status = 404
        if status != 200:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(b'{"error": {"message": "busy"}}')
            return
        texts = body["input"]
        with server.lock:
            server.inputs.append(texts)
            server.models.add(body["model"])
        vectors = server.model.embed(texts) if server.model else [vector_of(t) for t in texts]
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        payload = json.dumps(
            {
                "object": "list",
                "data": data[::-1],
                "model": body["model"],
                "usage": {"prompt_tokens": 0, "total_tokens": 0},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def serve():
    servers = []

    def start(**kw) -> EmbeddingsServer:
        server = EmbeddingsServer(**kw)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def endpoint_settings(server, **env):
    return load_settings(
        {
            "GRAPHRAG_EMBEDDER": "openai/bge-small",
            "GRAPHRAG_EMBEDDING_DIMENSIONS": "8",
            "GRAPHRAG_EMBED_BASE_URL": server.base_url,
            **env,
        }
    )


def test_requests_go_in_parallel_and_vectors_come_back_in_order(serve):
    server = serve(delay=0.3)
    embedder = make_embedder(endpoint_settings(server, GRAPHRAG_EMBED_BATCH="10", GRAPHRAG_EMBED_CONCURRENCY="4"))
    texts = [f"passage {i} about Carrow" for i in range(80)]
    started = time.monotonic()
    vectors = embedder.embed(texts)
    elapsed = time.monotonic() - started
    assert vectors == [vector_of(t) for t in texts]  # each text its own vector, in order
    assert server.requests == 8 and all(len(batch) == 10 for batch in server.inputs)
    assert server.most_in_flight == 4  # GRAPHRAG_EMBED_CONCURRENCY requests at once, never more
    assert elapsed < 8 * 0.3 * 0.75  # faster than one request after another
    assert server.models == {"bge-small"} and embedder.name == "openai/bge-small"  # the chunks' embeddingModel


def test_one_request_at_a_time_when_concurrency_is_one(serve):
    server = serve(delay=0.05)
    embedder = make_embedder(endpoint_settings(server, GRAPHRAG_EMBED_BATCH="3", GRAPHRAG_EMBED_CONCURRENCY="1"))
    texts = [str(i) for i in range(10)]
    assert embedder.embed(texts) == [vector_of(t) for t in texts]
    assert server.requests == 4 and server.most_in_flight == 1


def test_busy_and_failing_answers_are_retried_with_backoff(serve):
    server = serve(failures=[429, 503, 500])
    embedder = make_embedder(endpoint_settings(server, GRAPHRAG_EMBED_CONCURRENCY="1"))
    assert embedder.embed(["a", "b"]) == [vector_of("a"), vector_of("b")]
    assert server.requests == 4  # three refusals, then the answer


def test_retries_run_out_into_an_error(serve):
    server = serve(failures=[503] * 10)
    embedder = make_embedder(endpoint_settings(server, GRAPHRAG_EMBED_RETRIES="1"))
    with pytest.raises(Exception, match="503|busy"):
        embedder.embed(["a"])
    assert server.requests == 2


def test_vectors_of_another_size_are_refused(serve):
    server = serve()
    embedder = OpenAIEmbedder("openai/x", "x", 16, base_url=server.base_url)
    with pytest.raises(Exception, match="8-dimensional vectors, but GRAPHRAG_EMBEDDING_DIMENSIONS is 16"):
        embedder.embed(["a"])


@pytest.mark.model
def test_an_endpoint_serving_minilm_gives_the_local_models_vectors(serve):
    """TEI serving all-MiniLM-L6-v2: the endpoint's vectors are the ones the local model makes,
    so chunks embedded there match questions embedded here."""
    from graphrag_cypher.embedder import default_model_path, local_model

    local = local_model("sentence-transformers/all-MiniLM-L6-v2", default_model_path())
    server = serve(model=local)
    settings = endpoint_settings(
        server,
        GRAPHRAG_EMBEDDER="openai/sentence-transformers/all-MiniLM-L6-v2",
        GRAPHRAG_EMBEDDING_DIMENSIONS="384",
        GRAPHRAG_EMBED_BATCH="2",
    )
    texts = ["Carrow\nCarrow is a harbour town.", "Vell\nThe Vell reaches the sea.", "The Salt Road."]
    remote = make_embedder(settings).embed(texts)
    for mine, theirs in zip(local.embed(texts), remote, strict=True):
        assert max(abs(a - b) for a, b in zip(mine, theirs, strict=True)) < 1e-5
    assert server.models == {"sentence-transformers/all-MiniLM-L6-v2"}


def test_the_plan_names_the_endpoint_its_batch_and_concurrency(serve):
    server = serve()
    plan = embedding_plan(endpoint_settings(server, GRAPHRAG_EMBED_CONCURRENCY="16"))
    assert plan == {"backend": "openai", "endpoint": server.base_url, "batch": 128, "concurrency": 16, "retries": 5}
