"""Traces and metrics: OpenTelemetry spans for an ask and a job's steps, Prometheus counters for
the server.

Spans go through the OpenTelemetry API. With ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) set, :func:`setup` exports them over OTLP/HTTP (the
standard ``OTEL_*`` variables apply: headers, service name, ``OTEL_SDK_DISABLED``); without it
nothing is set up and every span is the API's no-op one. A span's attributes name steps,
counts, modes and models, never a document's text or a key; a question is given by its length,
its text only with ``GRAPHRAG_TRACE_QUESTIONS=1``.

Metrics exist once the server asks for them (:func:`enable_metrics`): the CLI never imports
``prometheus_client``.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

TRACER = "graphrag_cypher"
QUESTIONS_ENV = "GRAPHRAG_TRACE_QUESTIONS"
ENDPOINT_ENVS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
# seconds: a retrieval takes milliseconds, an answer an LLM writes up to minutes
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)

_lock = threading.Lock()
_tracer: Any = None
_routed = False  # tracing_to gave a provider of its own
_exporting = False
_metrics: SimpleNamespace | None = None


def endpoint() -> str | None:
    """The OTLP endpoint spans are sent to, None when none is configured (or the SDK is disabled)."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    return next((os.environ[name] for name in ENDPOINT_ENVS if os.environ.get(name, "").strip()), None)


def setup() -> bool:
    """Export this process's spans over OTLP/HTTP when an endpoint is configured (once per
    process; a later call does nothing). Returns whether spans are exported."""
    global _exporting
    with _lock:
        if _exporting or endpoint() is None:
            return _exporting
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        from . import __version__

        named = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": "graphrag"}
        provider = TracerProvider(resource=Resource.create({**named, "service.version": __version__}))
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))  # flushed at exit by the SDK
        trace.set_tracer_provider(provider)
        _exporting = True
        return True


def tracer():
    """The tracer spans are started with (the global provider's, or the one `tracing_to` gave)."""
    global _tracer
    if _tracer is None:
        from opentelemetry import trace

        _tracer = trace.get_tracer(TRACER)  # a proxy: it follows a provider set later by setup()
    return _tracer


@contextmanager
def tracing_to(provider) -> Iterator[None]:
    """Send graphrag's spans to `provider` in the block (an SDK TracerProvider), not to the global
    one: how an application embedding graphrag, or a test, reads them."""
    global _tracer, _routed
    before = tracer(), _routed
    _tracer, _routed = provider.get_tracer(TRACER), True
    try:
        yield
    finally:
        _tracer, _routed = before


def quiet() -> bool:
    """No provider records spans (none set up, none given): a span is then the API's invalid
    one, neither started nor made current, so an untraced process pays a check per step."""
    if _routed:
        return False
    from opentelemetry.trace import ProxyTracerProvider, get_tracer_provider

    return isinstance(get_tracer_provider(), ProxyTracerProvider)


def attributes(attrs: dict[str, Any]) -> dict[str, Any]:
    """Span attributes from keyword names: `mode` becomes ``graphrag.mode``, a dotted name
    (``gen_ai.request.model``) stays; None is left out, a list becomes a list of strings."""
    out: dict[str, Any] = {}
    for key, value in attrs.items():
        if value is None:
            continue
        name = key if "." in key else f"graphrag.{key}"
        if isinstance(value, (list, tuple, set, frozenset)):
            value = [str(v) for v in value]
        elif not isinstance(value, (bool, int, float, str)):
            value = str(value)
        out[name] = value
    return out


@contextmanager
def span(name: str, **attrs: Any) -> Iterator[Any]:
    """A span around the block, a child of the span running now. An exception marks it failed
    with the exception's type only (its message may quote data)."""
    from opentelemetry.trace import INVALID_SPAN, Status, StatusCode

    if quiet():
        yield INVALID_SPAN
        return
    with tracer().start_as_current_span(
        name, attributes=attributes(attrs), record_exception=False, set_status_on_exception=False
    ) as current:
        try:
            yield current
        except BaseException as exc:
            current.set_status(Status(StatusCode.ERROR, type(exc).__name__))
            raise


def annotate(current, **attrs: Any) -> None:
    """Add attributes to a span (as :func:`span` names them)."""
    if current.is_recording():
        current.set_attributes(attributes(attrs))


def traced(name: str, attrs: Callable[..., dict] | None = None, result: Callable[[Any], dict] | None = None):
    """A function (or method) run in a span `name`: `attrs(*args, **kwargs)` gives the span's
    attributes from its arguments, `result(returned)` those of what it returned. A method whose
    object has `_trace_parent` (a context taken on another thread) is traced under it."""

    def decorate(func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            parent = getattr(args[0], "_trace_parent", None) if args else None
            if quiet():
                return func(*args, **kwargs)
            with _attached(parent), span(name, **(attrs(*args, **kwargs) if attrs else {})) as current:
                returned = func(*args, **kwargs)
                if result is not None and current.is_recording():
                    annotate(current, **result(returned))
                return returned

        return wrapper

    return decorate


def context_now() -> Any:
    """The trace context of this thread now, for work that goes on in another thread (`traced`)."""
    from opentelemetry import context

    return context.get_current()


@contextmanager
def _attached(parent) -> Iterator[None]:
    if parent is None:
        yield
        return
    from opentelemetry import context

    token = context.attach(parent)
    try:
        yield
    finally:
        context.detach(token)


def question_attrs(question: str) -> dict[str, Any]:
    """What a span says of a question: its length, its text only when GRAPHRAG_TRACE_QUESTIONS=1."""
    shown = os.environ.get(QUESTIONS_ENV, "").strip().lower() in ("1", "true", "yes")
    return {"graphrag.question.chars": len(question), "graphrag.question": question if shown else None}


# -- metrics ----------------------------------------------------------------------------------
def enable_metrics() -> SimpleNamespace:
    """The server's Prometheus metrics (made once per process, in the default registry)."""
    global _metrics
    with _lock:
        if _metrics is None:
            from prometheus_client import Counter, Histogram

            _metrics = SimpleNamespace(
                requests=Counter("graphrag_http_requests", "HTTP requests answered", ("method", "route", "status")),
                latency=Histogram(
                    "graphrag_http_request_duration_seconds",
                    "Time to answer an HTTP request (a stream: until its last byte)",
                    ("method", "route"),
                    buckets=BUCKETS,
                ),
                asks=Histogram(
                    "graphrag_ask_duration_seconds",
                    "Time to answer a question, by the route that answered and the retrieval mode",
                    ("route", "mode"),
                    buckets=BUCKETS,
                ),
                jobs_started=Counter("graphrag_jobs_started", "Jobs that started running", ("kind",)),
                jobs_finished=Counter(
                    "graphrag_jobs_finished", "Jobs that ran to their end (done or cancelled)", ("kind", "state")
                ),
                jobs_failed=Counter("graphrag_jobs_failed", "Jobs that failed", ("kind",)),
                tokens=Counter("graphrag_llm_tokens", "LLM tokens, as the LLM reported its usage", ("model", "kind")),
            )
        return _metrics


def request_done(method: str, route: str, status: int, seconds: float) -> None:
    """Count an HTTP request and its latency."""
    if _metrics is not None:
        _metrics.requests.labels(method, route, str(status)).inc()
        _metrics.latency.labels(method, route).observe(seconds)


def answered(current, route: str, mode: str, seconds: float, **attrs: Any) -> None:
    """An ask's outcome on its span, and its latency by route and mode."""
    annotate(current, route=route, mode=mode, **attrs)
    if _metrics is not None:
        _metrics.asks.labels(route, mode).observe(seconds)


def llm_usage(current, model: str | None, usage: Any) -> None:
    """The tokens an LLM reported (an OpenAI ``usage``; None when it reported none)."""
    prompt = getattr(usage, "prompt_tokens", None)
    completion = getattr(usage, "completion_tokens", None)
    annotate(current, **{"gen_ai.usage.input_tokens": prompt, "gen_ai.usage.output_tokens": completion})
    if _metrics is not None:
        for kind, count in (("prompt", prompt), ("completion", completion)):
            if isinstance(count, int) and count > 0:
                _metrics.tokens.labels(model or "unknown", kind).inc(count)


def traced_job(kind: str, work: Callable) -> Callable:
    """A job's `work(progress, error, should_stop)` counted (started, finished, failed) and run
    in a span ``graphrag.job`` under the span that queued it."""
    parent = context_now()

    def run(progress, error, should_stop):
        if _metrics is not None:
            _metrics.jobs_started.labels(kind).inc()
        try:
            with _attached(parent), span("graphrag.job", kind=kind) as current:
                summary = work(progress, error, should_stop)
                state = "cancelled" if summary.get("cancelled") else "done"
                annotate(current, state=state)
        except Exception:
            if _metrics is not None:
                _metrics.jobs_failed.labels(kind).inc()
            raise
        if _metrics is not None:
            _metrics.jobs_finished.labels(kind, state).inc()
        return summary

    return run
