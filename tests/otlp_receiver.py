"""A small OTLP/HTTP trace receiver for tests: real HTTP on 127.0.0.1, each export request
decoded with the OpenTelemetry protobufs (`spans()`: every span received, with its service)."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class OTLPReceiver:
    def __init__(self):
        self.bodies: list[bytes] = []
        lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path == "/v1/traces":
                    with lock:
                        receiver.bodies.append(body)
                self.send_response(200 if self.path == "/v1/traces" else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def spans(self) -> list[dict]:
        """Every span received: name, ids, parent, attributes (as plain values) and service name."""
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        out = []
        for body in list(self.bodies):
            request = ExportTraceServiceRequest.FromString(body)
            for resource in request.resource_spans:
                service = next(
                    (a.value.string_value for a in resource.resource.attributes if a.key == "service.name"), None
                )
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        out.append(
                            {
                                "name": span.name,
                                "trace": span.trace_id.hex(),
                                "id": span.span_id.hex(),
                                "parent": span.parent_span_id.hex() or None,
                                "attributes": {a.key: _value(a.value) for a in span.attributes},
                                "service": service,
                            }
                        )
        return out

    def wait_for(self, *names: str, timeout: float = 30) -> list[dict]:
        """The spans received once every one of `names` has come (or the time is up)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            spans = self.spans()
            if set(names) <= {s["name"] for s in spans}:
                return spans
            time.sleep(0.1)
        return self.spans()

    def close(self) -> None:
        self.httpd.shutdown()


def _value(value):
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    return getattr(value, kind) if kind else None
