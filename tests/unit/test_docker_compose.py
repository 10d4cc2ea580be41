"""docker/compose.yml, checked statically against the official image's conventions."""

import json
import re
from pathlib import Path

import yaml

COMPOSE = Path(__file__).resolve().parents[2] / "docker" / "compose.yml"


def service():
    return yaml.safe_load(COMPOSE.read_text())["services"]["neo4j"]


def test_image_is_neo4j_5_26_community():
    assert service()["image"] == "neo4j:5.26-community"


def test_plugins_are_apoc_and_gds_by_their_image_names():
    assert json.loads(service()["environment"]["NEO4J_PLUGINS"]) == ["apoc", "graph-data-science"]


def test_auth_uses_the_same_variables_as_the_cli():
    auth = service()["environment"]["NEO4J_AUTH"]
    assert re.fullmatch(r"\$\{NEO4J_USERNAME:-neo4j\}/\$\{NEO4J_PASSWORD:\?[^}]+\}", auth)


def test_settings_follow_the_image_env_naming():
    env = service()["environment"]
    settings = [k for k in env if k.startswith("NEO4J_") and k not in {"NEO4J_AUTH", "NEO4J_PLUGINS"}]
    assert "NEO4J_dbms_security_procedures_unrestricted" in settings
    for key in settings:
        # dots become "_", underscores "__"; a 5.x setting starts with dbms/server/db (or internal)
        assert re.fullmatch(r"NEO4J_(dbms|server|db|internal)(_[a-z]+|__[a-z]+)+", key), key


def test_security_settings_match_the_local_server():
    """The container is closed the same way as `graphrag neo4j start`'s server."""
    from graphrag_cypher.admin import neo4j_local

    env = service()["environment"]
    assert env["NEO4J_dbms_security_procedures_unrestricted"].split(",") == list(neo4j_local.UNRESTRICTED_PROCEDURES)
    assert env["NEO4J_internal_dbms_cypher__ip__blocklist"].split(",") == list(neo4j_local.CYPHER_IP_BLOCKLIST)
    assert env["NEO4J_dbms_security_allow__csv__import__from__file__urls"] == "false"
    assert "*" not in env["NEO4J_dbms_security_http__access__control__allow__origin"]
    assert env["NEO4J_db_transaction_monitor_check_interval"] == "200ms"  # timeouts end on time
    apoc = {
        f"APOC_{line.split('=')[0][5:].replace('.', '_').upper()}": line.split("=")[1] for line in neo4j_local.APOC_CONF
    }
    assert {k: env[k] for k in apoc} == apoc


def test_healthcheck_ports_and_volumes():
    svc = service()
    assert svc["healthcheck"]["test"][0] in {"CMD", "CMD-SHELL"}
    assert any(p.endswith(":7687") for p in svc["ports"]) and any(p.endswith(":7474") for p in svc["ports"])
    mounts = {v.split(":")[1] for v in svc["volumes"]}
    assert {"/data", "/logs", "/plugins"} <= mounts
