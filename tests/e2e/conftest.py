"""Fixtures shared by the end-to-end tests of more than one module."""

import pytest


@pytest.fixture(scope="module")
def import_home(tmp_path_factory):
    """Its own Neo4j home and ports for `graphrag import` (the importer writes a stopped store, so
    not the session's Neo4j): the environment to run it with; that Neo4j is stopped at the end."""
    from graphrag_cypher.admin import neo4j_local

    home = tmp_path_factory.mktemp("import-neo4j")
    port = neo4j_local.free_port()
    env = {
        "NEO4J_URI": f"bolt://127.0.0.1:{port}",
        "NEO4J_USERNAME": "neo4j",
        "NEO4J_PASSWORD": "import-test-password",
        "GRAPHRAG_NEO4J_HOME": str(home),
        "GRAPHRAG_NEO4J_HTTP_PORT": "0",
    }
    yield env
    neo4j_local.stop(neo4j_local.LocalInstance(home=home, bolt_port=port, http_port=None))
