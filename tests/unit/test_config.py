import pytest

from graphrag_cypher.config import load_settings
from graphrag_cypher.errors import GraphragError


def test_defaults():
    settings = load_settings({})
    assert settings.neo4j_uri == "bolt://127.0.0.1:7687"
    assert settings.bolt_port == 7687 and settings.is_local_uri
    assert settings.embedding_dimensions == 384
    assert settings.neo4j_password is None
    assert not settings.llm_configured


def test_environment_values():
    settings = load_settings(
        {
            "NEO4J_URI": "neo4j://db.example:7688",
            "NEO4J_USERNAME": "alice",
            "NEO4J_PASSWORD": "s3cret",
            "NEO4J_DATABASE": "graph",
            "GRAPHRAG_NEO4J_HTTP_PORT": "0",
            "OPENAI_BASE_URL": "http://127.0.0.1:11434/v1",
            "GRAPHRAG_LLM_MODEL": "llama3.1",
        }
    )
    assert (settings.bolt_port, settings.is_local_uri) == (7688, False)
    assert (settings.neo4j_username, settings.neo4j_password, settings.neo4j_database) == ("alice", "s3cret", "graph")
    assert settings.neo4j_http_port is None
    assert settings.llm_configured


def test_embedder_dimensions_known_or_explicit():
    assert load_settings({"GRAPHRAG_EMBEDDER": "openai/text-embedding-3-small"}).embedding_dimensions == 1536
    assert (
        load_settings({"GRAPHRAG_EMBEDDER": "my/model", "GRAPHRAG_EMBEDDING_DIMENSIONS": "768"}).embedding_dimensions
        == 768
    )
    with pytest.raises(GraphragError, match="GRAPHRAG_EMBEDDING_DIMENSIONS"):
        load_settings({"GRAPHRAG_EMBEDDER": "my/model"})


def test_dotenv_file_is_read_without_overriding_the_environment(tmp_path, monkeypatch):
    import os

    import graphrag_cypher.config as config

    monkeypatch.setattr(os, "environ", os.environ.copy())  # what load_dotenv sets is undone after the test
    env_file = tmp_path / ".env"
    env_file.write_text("NEO4J_PASSWORD=from-file\nNEO4J_DATABASE=fromfile\n")
    monkeypatch.setenv("GRAPHRAG_ENV_FILE", str(env_file))
    monkeypatch.setenv("NEO4J_DATABASE", "fromenv")
    monkeypatch.setattr(config, "_dotenv_loaded", False)
    settings = load_settings()
    assert settings.neo4j_password == "from-file"
    assert settings.neo4j_database == "fromenv"


@pytest.mark.parametrize("value", ["0", "-1", "abc", "nan", "1e9"])
def test_a_bad_neo4j_timeout_is_one_line(value):
    with pytest.raises(GraphragError, match="GRAPHRAG_NEO4J_TIMEOUT"):
        load_settings({"GRAPHRAG_NEO4J_TIMEOUT": value})


def test_the_neo4j_timeout_defaults_to_a_few_seconds():
    assert load_settings({}).neo4j_timeout == 3.0
    assert load_settings({"GRAPHRAG_NEO4J_TIMEOUT": "10"}).neo4j_timeout == 10.0
