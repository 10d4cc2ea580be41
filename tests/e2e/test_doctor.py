import json

import pytest

pytestmark = pytest.mark.e2e


def test_doctor_json_before_and_after_the_schema(neo4j, run_cli):
    before = run_cli("doctor", "--json")
    assert before.exit_code == 1, "pending migrations are not a healthy state"
    report = json.loads(before.stdout)
    assert report["schema"]["up_to_date"] is False and report["schema"]["pending"]

    assert run_cli("apply-schema").exit_code == 0
    after = run_cli("doctor", "--json")
    assert after.exit_code == 0, after.output
    report = json.loads(after.stdout)
    assert {"neo4j", "apoc", "gds", "schema", "indexes", "embedder", "llm"} <= set(report)
    assert report["neo4j"]["reachable"] and report["neo4j"]["version"].startswith("5.26")
    assert report["neo4j"]["edition"] == "community"
    assert report["apoc"].startswith("5.26") and report["gds"].startswith("2.13")
    assert report["schema"]["up_to_date"] and not report["schema"]["pending"]
    by_name = {i["name"]: i for i in report["indexes"]}
    assert by_name["chunk_embedding"]["dimensions"] == 384
    assert all(i["state"] == "ONLINE" for i in report["indexes"])
    embedder = report["embedder"]
    assert {k: embedder[k] for k in ("name", "dimensions")} == {
        "name": "sentence-transformers/all-MiniLM-L6-v2",
        "dimensions": 384,
    }
    assert embedder["queries"] in {"onnx", "sentence-transformers"} and embedder["queries_reason"]
    assert report["llm"]["configured"] is False


def test_doctor_says_what_embeds_questions_and_why(neo4j, run_cli, onnx_export, tmp_path):
    run_cli("apply-schema")
    used = json.loads(run_cli("doctor", "--json", env={"GRAPHRAG_MODELS_DIR": str(onnx_export.parent)}).stdout)
    assert used["embedder"]["queries"] == "onnx" and "cosine" in used["embedder"]["queries_reason"]
    missing = run_cli("doctor", env={"GRAPHRAG_MODELS_DIR": str(tmp_path / "none")})
    assert "Queries sentence-transformers: no ONNX export" in " ".join(missing.stdout.split())
    assert "graphrag models export" in missing.stdout


def test_doctor_table(neo4j, run_cli):
    run_cli("apply-schema")
    result = run_cli("doctor", env={"GRAPHRAG_LLM_MODEL": "llama3.1", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert result.exit_code == 0, result.output
    for text in ("Neo4j", "5.26", "APOC", "GDS", "chunk_embedding", "ONLINE", "llama3.1"):
        assert text in result.stdout
