"""A small OpenAI-compatible chat-completions server for tests: real HTTP on 127.0.0.1.

It records every request (with the time it came and the status it got) and answers with a
scripted reply (streamed as server-sent events when asked), so tests can check what the prompt
carried and what the CLI did with the reply. `delay` holds each reply back (requests held back
at once are counted in `most_in_flight`); the first `fail_first` requests get `fail_status`
with a Retry-After of `retry_after` seconds.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Server(ThreadingHTTPServer):
    request_queue_size = 64  # many clients connecting at once (a --concurrency run) are all accepted
    daemon_threads = True


class LLMServer:
    def __init__(
        self,
        reply: Callable[[dict], str] | str = "OK",
        fail_first: int = 0,
        fail_status: int = 429,
        delay: float = 0.0,
        retry_after: str = "0",
    ):
        self.requests: list[dict] = []
        self.reply = reply
        self.fail_first = fail_first
        self.fail_status = fail_status
        self.delay = delay
        self.retry_after = retry_after
        self.in_flight = self.most_in_flight = 0
        lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with lock:
                    fail = server.fail_first > 0
                    server.fail_first -= int(fail)
                    record = {"path": self.path, "body": body, "at": time.monotonic(), "status": 200}
                    server.requests.append(record)
                    server.in_flight += 1
                    server.most_in_flight = max(server.most_in_flight, server.in_flight)
                try:
                    if server.delay:
                        time.sleep(server.delay)
                finally:
                    # counted while held back, not while the reply is written: a client that
                    # reads a reply and sends its next request at once is not two in flight
                    with lock:
                        server.in_flight -= 1
                self.answer(body, fail, record)

            def answer(self, body: dict, fail: bool, record: dict) -> None:
                if fail:
                    record["status"] = server.fail_status
                    self.send_response(server.fail_status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Retry-After", server.retry_after)
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

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()


def cite_of(body: dict, title: str) -> str:
    """The citation id the prompt's SOURCES list gives the source titled `title` ("D2"), as a
    model reading the context would cite it."""
    import re

    prompt = body["messages"][-1]["content"]
    found = re.search(rf"^\[(\w+)\] {re.escape(title)}$", prompt, re.MULTILINE)
    assert found, f"no source titled {title!r} in the prompt"
    return found.group(1)
