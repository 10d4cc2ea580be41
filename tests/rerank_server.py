"""A small `/rerank` server for tests: real HTTP on 127.0.0.1, shaped like llama.cpp's and
vLLM's (`{model, query, documents}` in, `{results: [{index, relevance_score}]}` out) or, with
`tei=True`, like Text Embeddings Inference (`{query, texts}` in, `[{index, score}]` out, 422
for a body without `texts`). It records every request; `score(query, text)` decides."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class RerankServer:
    def __init__(self, score: Callable[[str, str], float], tei: bool = False):
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, payload) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                server.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                if not self.path.endswith("/rerank"):
                    return self._send(404, {"error": "not found"})
                if tei:
                    if "texts" not in body:
                        return self._send(422, {"error": "missing field `texts`", "error_type": "Validation"})
                    scores = [score(body["query"], t) for t in body["texts"]]
                    ranked = sorted(range(len(scores)), key=lambda i: -scores[i])
                    return self._send(200, [{"index": i, "score": scores[i]} for i in ranked])
                scores = [score(body["query"], t) for t in body["documents"]]
                ranked = sorted(range(len(scores)), key=lambda i: -scores[i])[: body.get("top_n") or len(scores)]
                results = [{"index": i, "relevance_score": scores[i]} for i in ranked]
                return self._send(200, {"model": body.get("model"), "results": results})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()  # the port refuses connections from now on
