"""core/telemetry.py: nothing is set up without an OTLP endpoint, spans say what they may
(never a question's text unless asked for), a failure is marked by its type only."""

from __future__ import annotations

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from graphrag_cypher import telemetry


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with telemetry.tracing_to(provider):
        yield exporter


def test_without_an_endpoint_nothing_is_set_up(monkeypatch):
    for name in telemetry.ENDPOINT_ENVS:
        monkeypatch.delenv(name, raising=False)
    assert telemetry.endpoint() is None and telemetry.setup() is False
    from opentelemetry.sdk.trace import TracerProvider as SdkProvider

    assert not isinstance(trace.get_tracer_provider(), SdkProvider)  # the API's proxy, exporting nothing
    with telemetry.span("graphrag.ask", k=5) as current:
        assert not current.is_recording()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    assert telemetry.endpoint() is None  # the SDK's own switch is honoured


def test_attributes_and_nesting(spans):
    with telemetry.span("outer", mode="graph", corpus=None, ids=("a", 1), **{"gen_ai.request.model": "m"}):
        with telemetry.span("inner", k=3):
            pass
    inner, outer = spans.get_finished_spans()
    assert inner.parent.span_id == outer.context.span_id
    assert dict(outer.attributes) == {"graphrag.mode": "graph", "graphrag.ids": ("a", "1"), "gen_ai.request.model": "m"}


def test_a_question_is_its_length_unless_asked_for(monkeypatch):
    monkeypatch.delenv(telemetry.QUESTIONS_ENV, raising=False)
    assert telemetry.question_attrs("Who made it?") == {"graphrag.question.chars": 12, "graphrag.question": None}
    monkeypatch.setenv(telemetry.QUESTIONS_ENV, "1")
    assert telemetry.question_attrs("Who made it?")["graphrag.question"] == "Who made it?"


def test_a_failure_names_its_type_not_its_message(spans):
    @telemetry.traced("step", lambda x: {"x": x})
    def step(x):
        raise ValueError("secret passage text")

    with pytest.raises(ValueError):
        step(2)
    (done,) = spans.get_finished_spans()
    assert done.status.status_code == trace.StatusCode.ERROR and done.status.description == "ValueError"
    assert not done.events and dict(done.attributes) == {"graphrag.x": 2}


def test_a_job_is_counted_and_traced(spans):
    metrics = telemetry.enable_metrics()

    def count(name: str, **labels) -> float:
        return metrics_value(getattr(metrics, name), labels)

    before = count("jobs_started", kind="unit"), count("jobs_finished", kind="unit", state="done")
    failed = count("jobs_failed", kind="unit")
    with telemetry.span("POST /documents"):
        done = telemetry.traced_job("unit", lambda progress, error, stop: {"cancelled": False})
        broken = telemetry.traced_job("unit", lambda progress, error, stop: 1 / 0)
    assert done(None, None, None) == {"cancelled": False}
    with pytest.raises(ZeroDivisionError):
        broken(None, None, None)
    assert count("jobs_started", kind="unit") == before[0] + 2
    assert count("jobs_finished", kind="unit", state="done") == before[1] + 1
    assert count("jobs_failed", kind="unit") == failed + 1
    jobs = [s for s in spans.get_finished_spans() if s.name == "graphrag.job"]
    request = next(s for s in spans.get_finished_spans() if s.name == "POST /documents")
    assert len(jobs) == 2 and all(j.parent.span_id == request.context.span_id for j in jobs)


def metrics_value(metric, labels: dict) -> float:
    for family in metric.collect():
        for sample in family.samples:
            if sample.name.endswith("_total") and sample.labels == labels:
                return sample.value
    return 0.0
