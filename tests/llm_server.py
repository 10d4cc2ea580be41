"""A small OpenAI-compatible chat-completions server for tests: real HTTP on 127.0.0.1.

It records every request and answers with a scripted reply (streamed as server-sent events
when asked), so tests can check what the prompt carried and what the CLI did with the reply.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LLMServer:
    def __init__(self, reply: Callable[[dict], str] | str = "OK", fail_first: int = 0, fail_status: int = 429):
        self.requests: list[dict] = []
        self.reply = reply
        self.fail_first = fail_first
        self.fail_status = fail_status
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                server.requests.append({"path": self.path, "body": body})
                if server.fail_first > 0:
                    server.fail_first -= 1
                    self.send_response(server.fail_status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Retry-After", "0")
                    self.end_headers()
                    self.wfile.write(json.dumps({"error": {"message": "slow down", "type": "rate_limit"}}).encode())
                    return
                text = server.reply(body) if callable(server.reply) else server.reply
                if body.get("stream"):
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    for i in range(0, len(text), 7):
                        chunk = {
                            "id": "c1",
                            "object": "chat.completion.chunk",
                            "created": 0,
                            "model": body.get("model"),
                            "choices": [{"index": 0, "delta": {"content": text[i : i + 7]}, "finish_reason": None}],
                        }
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    done = {
                        "id": "c1",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": body.get("model"),
                        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                    }
                    self.wfile.write(f"data: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode())
                    return
                payload = {
                    "id": "c1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model"),
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
