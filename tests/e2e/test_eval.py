"""`graphrag eval retrieval` on a small fixture, in its own Neo4j instance."""

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "eval"
# the fixture's questions and their passages, as every eval command takes them
FIXTURE = ("--questions", str(FIXTURES / "musique_questions.json"), "--passages", str(FIXTURES / "corpus.json"))


def test_eval_retrieval_every_mode_peer_and_reranked_row(run_cli, tmp_path, neo4j_server):
    """Every mode and peer on the fixture in the evaluation's own instance; `--rerank` adds a row
    per mode, scored through a real local /rerank server (this one scores by the words a passage
    shares with the question). One run: each run of a corpus starts its instance."""
    import re

    from ..rerank_server import RerankServer

    def overlap(query: str, text: str) -> float:
        words = lambda s: {w for w in re.findall(r"\w+", s.lower()) if len(w) > 3}
        return float(len(words(query) & words(text)))

    server = RerankServer(overlap)
    try:
        result = run_cli(
            "eval",
            "retrieval",
            *FIXTURE,
            "--k",
            "2",
            "--peers",
            "--rerank",
            "--reranker",
            server.url,
            "--rerank-candidates",
            "12",
            "--json",
            "--report",
            str(tmp_path / "report"),
        )
    finally:
        server.close()
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["questions"] == 3 and out["k"] == 2 and out["dataset"].startswith("musique")
    assert out["default_mode"] == "graph"
    modes = {"vector", "fulltext", "hybrid", "graph", "ppr"}
    assert set(out["modes"]) == modes | {f"{m}+rerank" for m in modes}
    assert len(out["peers"]) == 3
    for r in list(out["modes"].values()) + list(out["peers"].values()):
        assert {"recall@2", "recall@5", "hit@2", "hit@5", "mrr", "latency_ms"} <= set(r)
        assert 0 <= r["recall@2"] <= r["recall@5"] <= 100
    assert out["modes"]["vector"]["recall@2"] >= 50, "the fixture questions are easy for dense retrieval"
    assert out["reranker"] == f"{server.url}/rerank"
    row = out["modes"]["vector+rerank"]
    assert 0 <= row["recall@2"] <= row["recall@5"] <= 100 and row["latency_ms"]
    # one request per question and mode, each with at most --rerank-candidates passages
    assert len(server.requests) == 3 * len(modes), len(server.requests)
    assert all(1 <= len(r["body"]["documents"]) <= 12 for r in server.requests)
    report = (tmp_path / "report" / "retrieval.md").read_text()
    assert report.count("|") > 20 and "| graph (default) |" in report
    assert (tmp_path / "report" / "retrieval.png").read_bytes()[:4] == b"\x89PNG"
    # the instance's password is kept beside its data folder, wherever the command ran from
    from graphrag_cypher.admin.neo4j_local import project_root

    homes = [p.parent for p in (project_root() / ".graphrag" / "eval").glob("*/neo4j")]
    assert homes and all((home / "eval-password").is_file() for home in homes)
    # the user's database (the session's Neo4j) saw none of it
    with neo4j_server.driver() as driver:
        assert driver.execute_query("MATCH (d:Document {corpus: 'eval'}) RETURN count(d) AS n").records[0]["n"] == 0


def test_eval_answers_without_llm_says_so(run_exe):
    result = run_exe(
        "eval",
        "answers",
        *FIXTURE,
    )
    assert result.returncode == 0 and "no LLM is configured" in result.stdout


def test_eval_retrieval_scores_against_the_union_of_several_corpora(run_cli, tmp_path):
    """Several --passages (files or a folder) are one corpus: a passage in two files loads once,
    and the distractors of the second compete with the first's gold passages."""
    corpus = json.loads((FIXTURES / "corpus.json").read_text())
    distractors = [
        {"title": f"Mill {n}", "text": f"Mill {n} stands on a river far from Hollowmere; its wheel is old."}
        for n in range(5)
    ]
    folder = tmp_path / "more"
    folder.mkdir()
    (folder / "distractors.json").write_text(json.dumps([corpus[0], *distractors]))
    result = run_cli(
        "eval",
        "retrieval",
        *FIXTURE,
        "--passages",
        str(folder),
        "--modes",
        "vector,graph",
        "--json",
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["corpus_files"] == ["corpus.json", "distractors.json"]
    assert out["corpus_passages"] == len(corpus) + len(distractors), "the passage in both files is loaded once"
    assert set(out["modes"]) == {"vector", "graph"}
    assert all(0 <= r["recall@2"] <= r["recall@5"] <= 100 for r in out["modes"].values())
