"""An OpenAI-compatible embeddings server on 127.0.0.1 that takes a set time per text, and a
`graphrag serve` that embeds with it: loads as slow as a tester needs, without burning CPU.

Vectors are 16 numbers from the text's hash (the same text, the same vector), so the graph a
load leaves can be compared with another load's.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DIMENSIONS = 16
KEY = "test-key-0123456789abcdef"


def vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    raw = [b - 127.5 for b in digest[:DIMENSIONS]]
    norm = math.sqrt(sum(v * v for v in raw)) or 1.0
    return [v / norm for v in raw]


class SlowEmbedder:
    """`seconds_per_text` per text; `texts` counts them, `encoded` each text; a request holding
    `refuse` is answered 400, as an endpoint refuses bad input."""

    def __init__(self, seconds_per_text: float = 0.01, refuse: str | None = None):
        self.seconds_per_text = seconds_per_text
        self.refuse = refuse
        self.texts = 0
        self.encoded: Counter[str] = Counter()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                texts = body.get("input") or []
                texts = [texts] if isinstance(texts, str) else texts
                if server.refuse and any(server.refuse in t for t in texts):
                    self._send(400, {"error": {"message": "input refused", "type": "invalid_request_error"}})
                    return
                time.sleep(server.seconds_per_text * len(texts))
                server.texts += len(texts)
                server.encoded.update(texts)
                self._send(
                    200,
                    {
                        "object": "list",
                        "model": body.get("model"),
                        "data": [
                            {"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(texts)
                        ],
                        "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
                    },
                )

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def env(self) -> dict[str, str]:
        return {
            "OPENAI_BASE_URL": self.url,
            "OPENAI_API_KEY": "test",
            "GRAPHRAG_EMBEDDER": "openai/slow-test",
            "GRAPHRAG_EMBEDDING_DIMENSIONS": str(DIMENSIONS),
        }

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def apply_schema(neo4j_server, embedder: SlowEmbedder) -> None:
    """The session's Neo4j emptied and its schema applied for this embedder's vectors."""
    from click.testing import CliRunner

    from graphrag_cypher.cli.main import cli

    from ..conftest import wipe

    with neo4j_server.driver() as driver:
        wipe(driver)
    env = dict(neo4j_server.env(), GRAPHRAG_ENV_FILE="/nonexistent.env", **embedder.env())
    result = CliRunner().invoke(cli, ["apply-schema"], env=env)
    assert result.exit_code == 0, result.output


def start(neo4j_server, tmp: Path, embedder: SlowEmbedder, *args: str, key: str | None = KEY, env: dict | None = None):
    """`graphrag serve --no-llm` embedding with `embedder`, its temporary files under tmp/tmp."""
    from ..e2e.serve.conftest import start_server

    (tmp / "tmp").mkdir(exist_ok=True)
    extra = dict(embedder.env(), TMPDIR=str(tmp / "tmp"), **(env or {}))
    return start_server(neo4j_server, tmp, key, None, "--no-llm", *args, env_extra=extra)


def text_file(paragraphs: int, word: str = "harbour") -> bytes:
    """Plain text of about 1 KB per paragraph, each paragraph different (so each chunk is new).
    Its sentences run on in lower case: how fast a text is split into sentences is not what
    these tests measure."""
    return "\n\n".join(
        f"paragraph {i} tells of the {word} of ostia, its grain ships and the lighthouse that guided them; " * 10
        for i in range(paragraphs)
    ).encode()


def wait(http, job_id: str, until=lambda job: job["state"] not in {"queued", "running"}, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        job = http.get(f"/jobs/{job_id}").json()
        if until(job) or time.monotonic() > deadline:
            return job
        time.sleep(0.1)
