"""A local GGUF model (GRAPHRAG_LLM_MODEL=local:…): the model string, the options, the device
choice, the response formats and the one-line errors. No model is loaded here: these run where
llama-cpp-python is not installed (CI) as well."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from graphrag_cypher import llm, local_llm
from graphrag_cypher.cli.ask import _llm_line
from graphrag_cypher.cli.doctor import _llm_text
from graphrag_cypher.config import load_settings
from graphrag_cypher.llm import LLMError, LLMRequestRefused


def settings_for(model: str, **env: str):
    return load_settings({"GRAPHRAG_LLM_MODEL": model, **env})


def test_a_local_model_string_names_a_file_and_needs_no_endpoint(tmp_path):
    local = settings_for(f"local:{tmp_path}/models/Qwen2.5-0.5B-Q4_K_M.gguf")
    assert local.local_model_path == tmp_path / "models" / "Qwen2.5-0.5B-Q4_K_M.gguf"
    assert local.llm_configured, "no OPENAI_BASE_URL or key is needed"
    assert local.llm_label == "local:Qwen2.5-0.5B-Q4_K_M.gguf", "no machine path in answers or the graph"
    home = settings_for("local:~/m.gguf").local_model_path
    assert home is not None and str(home) == os.path.expanduser("~/m.gguf")
    # an endpoint's model is untouched, and still needs an endpoint or a key
    remote = settings_for("llama3.1")
    assert remote.local_model_path is None and remote.llm_label == "llama3.1" and not remote.llm_configured
    assert settings_for("llama3.1", OPENAI_BASE_URL="http://127.0.0.1:11434/v1").llm_configured


def test_options_defaults_and_values():
    assert local_llm.options({}) == local_llm.LocalOptions(None, 8192, None, 2048, None)
    chosen = local_llm.options(
        {
            "GRAPHRAG_LOCAL_GPU_LAYERS": "20",
            "GRAPHRAG_LOCAL_CTX": "4096",
            "GRAPHRAG_LOCAL_THREADS": "2",
            "GRAPHRAG_LOCAL_MAX_TOKENS": "512",
            "GRAPHRAG_LOCAL_CHAT_FORMAT": "gemma",
        }
    )
    assert chosen == local_llm.LocalOptions(20, 4096, 2, 512, "gemma")
    assert local_llm.options({"GRAPHRAG_LOCAL_MAX_TOKENS": "none"}).max_tokens is None, "until the context is full"
    for raw, layers in (("auto", None), ("", None), ("all", -1), ("ALL", -1), ("-1", -1), ("0", 0)):
        assert local_llm.options({"GRAPHRAG_LOCAL_GPU_LAYERS": raw}).gpu_layers == layers
    assert local_llm.options({"GRAPHRAG_LOCAL_CTX": "0"}).context == 0, "0: the model's own context"


@pytest.mark.parametrize(
    "name, value",
    [
        ("GRAPHRAG_LOCAL_GPU_LAYERS", "many"),
        ("GRAPHRAG_LOCAL_GPU_LAYERS", "-2"),
        ("GRAPHRAG_LOCAL_CTX", "-1"),
        ("GRAPHRAG_LOCAL_THREADS", "0"),
        ("GRAPHRAG_LOCAL_MAX_TOKENS", "1.5"),
    ],
)
def test_a_bad_option_is_one_line_naming_it(name, value):
    with pytest.raises(LLMError) as raised:
        local_llm.options({name: value})
    message = str(raised.value)
    assert message.startswith(f"{name}={value!r} is not valid: use a whole number") and "\n" not in message


def test_the_device_follows_the_build_the_machine_and_the_setting():
    choose = local_llm.choose_device
    # automatic: every layer on the GPU when the build can offload, else the CPU and why
    assert choose(None, True, True) == local_llm.Device("gpu", -1, choose(None, True, True).reason)
    cpu = choose(None, False, False)
    assert (cpu.kind, cpu.gpu_layers, cpu.reason) == ("cpu", 0, "no GPU offload in this build")
    assert cpu.describe() == "CPU (no GPU offload in this build)"
    seen = choose(None, False, True)
    assert seen.kind == "cpu" and "a GPU is present" in seen.reason and "GGML_CUDA=on" in seen.reason
    # asked for: 0 keeps the CPU even with offload; N layers; all
    assert choose(0, True, True).kind == "cpu" and choose(0, True, True).reason == "GRAPHRAG_LOCAL_GPU_LAYERS=0"
    assert choose(20, True, True).gpu_layers == 20 and choose(20, True, True).describe().startswith(
        "GPU offload: 20 layers"
    )
    assert choose(-1, True, False).describe().startswith("GPU offload: all layers")
    # asked for layers that this build cannot offload: the CPU, and the setting is named as not applied
    ignored = choose(20, False, False)
    assert ignored.kind == "cpu" and "GRAPHRAG_LOCAL_GPU_LAYERS=20 not applied" in ignored.reason


def test_a_gpu_is_seen_by_its_tools_on_the_path(tmp_path, monkeypatch):
    tools = tmp_path / "bin"
    tools.mkdir()
    monkeypatch.setenv("PATH", str(tools))
    devices = any(os.path.exists(p) for p in ("/dev/nvidia0", "/dev/kfd"))
    assert local_llm.gpu_present() is devices
    smi = tools / "nvidia-smi"
    smi.write_text("#!/bin/sh\nexit 0\n")
    smi.chmod(smi.stat().st_mode | stat.S_IXUSR)
    assert local_llm.gpu_present() is True


def test_response_formats_as_llama_cpp_takes_them():
    schema = {"type": "object", "properties": {"relevant": {"type": "boolean"}}}
    assert local_llm.llama_format({"type": "json_schema", "json_schema": {"name": "v", "schema": schema}}) == {
        "type": "json_object",
        "schema": schema,
    }
    assert local_llm.llama_format({"type": "json_object"}) == {"type": "json_object"}
    assert local_llm.llama_format(None) is None and local_llm.llama_format({"type": "text"}) is None
    with pytest.raises(LLMRequestRefused):  # the extractor then tries its next format
        local_llm.llama_format({"type": "xml"})


def test_a_missing_or_wrong_file_is_one_line(tmp_path):
    missing = settings_for(f"local:{tmp_path}/none.gguf")
    with pytest.raises(LLMError, match=r"the local model .*none\.gguf does not exist: set GRAPHRAG_LLM_MODEL=local:"):
        llm.complete(missing, [{"role": "user", "content": "hi"}])
    with pytest.raises(LLMError, match="is not a file"):
        llm.stream(settings_for(f"local:{tmp_path}"), [{"role": "user", "content": "hi"}])
    text = tmp_path / "notes.gguf"
    text.write_text("not a model")
    with pytest.raises(LLMError, match=r"notes\.gguf is not a GGUF file"):
        llm.prepare(settings_for(f"local:{text}"))
    with pytest.raises(LLMError, match="names no file"):
        llm.prepare(settings_for("local:"))


def test_without_llama_cpp_the_error_says_how_to_install_it(tmp_path, monkeypatch):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + bytes(60))  # the header's magic: the file check passes
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as where the extra is not installed
    with pytest.raises(LLMError) as raised:
        llm.stream(settings_for(f"local:{model}"), [{"role": "user", "content": "hi"}])
    assert str(raised.value) == (
        "GRAPHRAG_LLM_MODEL=local:m.gguf needs llama-cpp-python, which is not installed: "
        "pip install 'graphrag-cypher[local]'"
    )
    found = local_llm.inspect(settings_for(f"local:{model}"))
    assert found["error"] == str(raised.value) and found["size_bytes"] == 64 and found["llama_cpp"] is None


def test_doctor_and_explain_lines():
    local = {
        "model": "local:m.gguf",
        "local": {
            "path": "/models/m.gguf",
            "size_bytes": 4_100_000_000,
            "llama_cpp": "0.3.36",
            "device": "cpu",
            "gpu_layers": 0,
            "device_reason": "no GPU offload in this build",
            "error": None,
        },
    }
    assert _llm_text(local) == (
        "local:m.gguf (/models/m.gguf, 4.1 GB): llama.cpp 0.3.36, CPU (no GPU offload in this build)"
    )
    local["local"].update(device="gpu", gpu_layers=-1, device_reason="detected")
    assert _llm_text(local).endswith("llama.cpp 0.3.36, GPU offload: all layers (detected)")
    assert _llm_text({"model": "llama3.1", "configured": True, "base_url": None}) == "llama3.1 at api.openai.com"
    used = {"used": True, "model": "local:m.gguf", "backend": "llama.cpp 0.3.36", "device": "gpu", "gpu_layers": 20}
    assert _llm_line(dict(used, device_reason="GRAPHRAG_LOCAL_GPU_LAYERS=20")) == (
        "local:m.gguf (llama.cpp 0.3.36, GPU offload: 20 layers (GRAPHRAG_LOCAL_GPU_LAYERS=20))"
    )
    assert _llm_line({"used": True, "model": "gpt-4o-mini", "backend": "openai-compatible"}) == (
        "gpt-4o-mini (openai-compatible)"
    )
    cpu = dict(used, device="cpu", gpu_layers=0, device_reason="no GPU offload in this build")
    assert _llm_line(cpu) == "local:m.gguf (llama.cpp 0.3.36, CPU (no GPU offload in this build))"
    assert _llm_line({"used": False}).startswith("none")
