"""Embedding settings: the device and batch of the batch embedder (GRAPHRAG_EMBED_DEVICE,
GRAPHRAG_EMBED_BATCH), an endpoint's concurrency and retries, and what doctor is told."""

from __future__ import annotations

import pytest

from graphrag_cypher.config import load_settings
from graphrag_cypher.embedder import _cuda_present, embedding_plan, make_embedder, resolve_device
from graphrag_cypher.errors import GraphragError


def test_defaults_are_auto_and_the_backends_batch():
    settings = load_settings({})
    assert (settings.embed_device, settings.embed_batch, settings.embed_concurrency, settings.embed_retries) == (
        "auto",
        None,
        4,
        5,
    )
    plan = embedding_plan(settings)
    assert plan["backend"] == "sentence-transformers" and plan["batch"] == 64 and plan["device_setting"] == "auto"


@pytest.mark.parametrize("device", ["cpu", "cuda", "cuda:1", "mps", "AUTO"])
def test_devices_torch_knows_are_taken(device):
    assert load_settings({"GRAPHRAG_EMBED_DEVICE": device}).embed_device == device.lower()


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("GRAPHRAG_EMBED_DEVICE", "gpu", "use auto, cpu, cuda, cuda:N or mps"),
        ("GRAPHRAG_EMBED_DEVICE", "cpu:1", "use auto, cpu, cuda, cuda:N or mps"),
        ("GRAPHRAG_EMBED_BATCH", "0", "from 1 to 65536"),
        ("GRAPHRAG_EMBED_BATCH", "many", "from 1 to 65536"),
        ("GRAPHRAG_EMBED_CONCURRENCY", "1000", "from 1 to 256"),
        ("GRAPHRAG_EMBED_RETRIES", "-1", "from 0 to 20"),
    ],
)
def test_bad_values_are_one_line_errors(name, value, message):
    with pytest.raises(GraphragError, match=message):
        load_settings({name: value})


def test_auto_is_the_cpu_without_a_gpu_and_an_explicit_device_is_kept():
    if _cuda_present():
        pytest.skip("this machine has an NVIDIA GPU: auto may be cuda")
    assert resolve_device("auto") == "cpu"
    assert resolve_device("cuda:1") == "cuda:1"


@pytest.mark.model
def test_the_model_runs_on_the_device_and_batch_configured():
    settings = load_settings({"GRAPHRAG_EMBED_DEVICE": "cpu", "GRAPHRAG_EMBED_BATCH": "7"})
    embedder = make_embedder(settings)
    assert embedder.device == "cpu" and embedder.batch_size == 7 and str(embedder.model.device) == "cpu"
    assert embedding_plan(settings) == {
        "backend": "sentence-transformers",
        "device": "cpu",
        "device_setting": "cpu",
        "batch": 7,
    }
    assert len(embedder.embed(["Carrow is a harbour town."])[0]) == 384


def test_the_endpoint_falls_back_to_openai_base_url():
    settings = load_settings(
        {"GRAPHRAG_EMBEDDER": "openai/text-embedding-3-small", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    )
    assert embedding_plan(settings)["endpoint"] == "http://127.0.0.1:9/v1"
    settings = load_settings(
        {
            "GRAPHRAG_EMBEDDER": "openai/text-embedding-3-small",
            "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
            "GRAPHRAG_EMBED_BASE_URL": "http://127.0.0.1:8080/v1",
        }
    )
    assert embedding_plan(settings)["endpoint"] == "http://127.0.0.1:8080/v1"


@pytest.mark.model
def test_doctor_reports_the_device_and_batch_even_without_neo4j():
    from graphrag_cypher.admin.doctor import report
    from graphrag_cypher.admin.neo4j_local import free_port

    settings = load_settings(
        {"NEO4J_URI": f"bolt://127.0.0.1:{free_port()}", "GRAPHRAG_EMBED_DEVICE": "cpu", "GRAPHRAG_EMBED_BATCH": "256"}
    )
    found = report(settings)
    assert found["neo4j"]["reachable"] is False
    assert found["embedder"]["documents"] == {
        "backend": "sentence-transformers",
        "device": "cpu",
        "device_setting": "cpu",
        "batch": 256,
    }


def test_on_a_gpu_auto_is_cuda_and_its_vectors_are_the_cpus():
    """Run where there is a CUDA GPU (skipped elsewhere): auto picks it, and chunks embedded there
    match questions embedded on the CPU (ONNX or torch), so one model name covers both."""
    if resolve_device("auto") != "cuda":
        pytest.skip("no CUDA GPU here")
    texts = ["Carrow\nCarrow is a harbour town on the Vell estuary.", "The Salt Road ends at Carrow."] * 300
    gpu = make_embedder(load_settings({"GRAPHRAG_EMBED_BATCH": "512"}))
    cpu = make_embedder(load_settings({"GRAPHRAG_EMBED_DEVICE": "cpu"}))
    assert str(gpu.model.device).startswith("cuda") and gpu.name == cpu.name
    for a, b in zip(gpu.embed(texts), cpu.embed(texts), strict=True):
        assert sum(x * y for x, y in zip(a, b, strict=True)) > 0.9999
