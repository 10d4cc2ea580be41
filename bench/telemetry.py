"""What tracing costs an ask: p50 with and without OTLP export, side by side, no LLM.

    python bench/telemetry.py [--json] [--rounds N]

Loads the bundled sample into a throw-away Neo4j, then asks its questions (`qa.ask`, in-process,
the question embedder `ask` uses) in turn without telemetry configured (the OpenTelemetry API's
no-op spans, what every ask pays) and with spans exported over OTLP/HTTP (a batch processor, as
`OTEL_EXPORTER_OTLP_ENDPOINT` sets up) to a local receiver on 127.0.0.1 that reads and drops
them. The two alternate ask by ask (the order flipped each round), so a busy machine weighs on
both alike. Goal: the ratio of p50s <= 1.05.
"""

from __future__ import annotations

import json
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, bench_neo4j, graphrag_env  # noqa: E402

MODES = ("hybrid", "graph")


class Sink:
    """An OTLP/HTTP endpoint that accepts every export and keeps only how many bytes came."""

    def __init__(self):
        self.requests = self.bytes = 0
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                sink.bytes += len(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                sink.requests += 1
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/traces"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()


def exporting_provider(url: str):
    """A tracer provider as `telemetry.setup()` makes one, exporting to `url`."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "graphrag-bench"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=url)))
    return provider


def main(rounds: int = 3) -> dict:
    from click.testing import CliRunner

    from graphrag_cypher import telemetry
    from graphrag_cypher.cli.main import cli
    from graphrag_cypher.onnx_embedder import make_query_embedder
    from graphrag_cypher.retrieval.qa import ask

    questions = [q["question"] for q in json.loads((REPO / "loaders" / "sample" / "questions.json").read_text())]
    sink = Sink()
    provider = exporting_provider(sink.url)
    results: dict = {}
    with bench_neo4j() as (settings, graph):
        env = graphrag_env(settings)
        for command in (["load", "sample"], ["link", "phrases"]):
            loaded = CliRunner().invoke(cli, command, env=env)
            assert loaded.exit_code == 0, loaded.output
        embedder = make_query_embedder(settings)
        for mode in MODES:
            for question in questions:  # warm-up: query plans, caches, the exporter's connection
                ask(graph, embedder, settings, question, use_llm=False, mode=mode)
                with telemetry.tracing_to(provider):
                    ask(graph, embedder, settings, question, use_llm=False, mode=mode)
            times: dict[str, list[float]] = {"off": [], "otlp": []}
            for n in range(rounds):
                for question in questions:
                    for kind in ("off", "otlp") if n % 2 == 0 else ("otlp", "off"):
                        started = time.perf_counter()
                        if kind == "otlp":
                            with telemetry.tracing_to(provider):
                                ask(graph, embedder, settings, question, use_llm=False, mode=mode)
                        else:
                            ask(graph, embedder, settings, question, use_llm=False, mode=mode)
                        times[kind].append((time.perf_counter() - started) * 1000)
            off, on = statistics.median(times["off"]), statistics.median(times["otlp"])
            results[mode] = {
                "asks": len(times["off"]),
                "p50_off_ms": round(off, 1),
                "p50_otlp_ms": round(on, 1),
                "ratio": round(on / off, 3),
            }
    provider.force_flush()
    provider.shutdown()
    results["exported"] = {"requests": sink.requests, "bytes": sink.bytes}
    sink.close()
    return results


if __name__ == "__main__":
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    found = main(rounds)
    print(json.dumps(found, indent=None if "--json" in sys.argv else 2))
