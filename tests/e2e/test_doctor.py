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
    assert report["embedder"] == {"name": "sentence-transformers/all-MiniLM-L6-v2", "dimensions": 384}
    assert report["llm"]["configured"] is False


def test_doctor_table(neo4j, run_cli):
    run_cli("apply-schema")
    result = run_cli("doctor", env={"GRAPHRAG_LLM_MODEL": "llama3.1", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert result.exit_code == 0, result.output
    for text in ("Neo4j", "5.26", "APOC", "GDS", "chunk_embedding", "ONLINE", "llama3.1"):
        assert text in result.stdout
