"""`graphrag serve` with a local GGUF model: loaded once, at start, and shared by requests that
take turns on it. Skipped where llama-cpp-python (the `local` extra) is not installed."""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from ... import tiny_gguf
from ...conftest import graphrag_exe
from .conftest import load_sample, start_server, stop_server

pytestmark = pytest.mark.e2e
QUESTION = "Who made the silver lantern?"


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed: pip install 'graphrag-cypher[local]'")
    pytest.importorskip("gguf", reason="the gguf package (a dev dependency) is not installed")
    return tiny_gguf.write(tmp_path_factory.mktemp("gguf") / "tiny.gguf")


@pytest.fixture(scope="module")
def served_local(neo4j_server, tmp_path_factory, model):
    load_sample(neo4j_server)
    tmp = tmp_path_factory.mktemp("serve-local")
    env = {"GRAPHRAG_LLM_MODEL": f"local:{model}", "GRAPHRAG_LOCAL_MAX_TOKENS": "256"}
    served = start_server(neo4j_server, tmp, None, None, env_extra=env)
    yield served
    stop_server(served)


def test_requests_share_the_model_loaded_at_start(served_local):
    def chat(_):
        with served_local.client() as http:
            response = http.post("/chat", json={"question": QUESTION, "mode": "hybrid"})
            assert response.status_code == 200, response.text
            return response.json()

    with ThreadPoolExecutor(max_workers=3) as pool:  # at once: they take turns on one llama.cpp context
        answers = list(pool.map(chat, range(3)))
    for out in answers:
        assert out["llm"]["model"] == "local:tiny.gguf" and out["llm"]["backend"].startswith("llama.cpp ")
        assert out["timings_ms"]["llm_load_ms"] == 0, "loaded when the server started, not per request"
        assert out["answer"].startswith("Old Maren made the silver lantern [D1].")
        assert out["dropped_citations"] == ["Z9"]
    with served_local.client() as http:
        assert http.get("/health/live").json()["llm"] is True


def test_a_server_with_a_missing_model_stops_at_start_in_one_line(neo4j_server, tmp_path):
    env = dict(os.environ, **neo4j_server.env(), GRAPHRAG_ENV_FILE=str(tmp_path / "no.env"))
    env["GRAPHRAG_LLM_MODEL"] = f"local:{tmp_path / 'absent.gguf'}"
    done = subprocess.run(
        [graphrag_exe(), "serve", "--port", "0"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"Error: the local model {tmp_path / 'absent.gguf'} does not exist: "
        "set GRAPHRAG_LLM_MODEL=local:/path/to/model.gguf"
    )
