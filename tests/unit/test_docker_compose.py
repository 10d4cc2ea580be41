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
    assert "apoc.*" in env["NEO4J_dbms_security_procedures_unrestricted"]
    assert "gds.*" in env["NEO4J_dbms_security_procedures_unrestricted"]
    for key in settings:
        # dots become "_", underscores "__"; a 5.x setting starts with dbms/server/db
        assert re.fullmatch(r"NEO4J_(dbms|server|db)(_[a-z]+|__[a-z]+)+", key), key


def test_healthcheck_ports_and_volumes():
    svc = service()
    assert svc["healthcheck"]["test"][0] in {"CMD", "CMD-SHELL"}
    assert any(p.endswith(":7687") for p in svc["ports"]) and any(p.endswith(":7474") for p in svc["ports"])
    mounts = {v.split(":")[1] for v in svc["volumes"]}
    assert {"/data", "/logs", "/plugins"} <= mounts
