"""docker/compose.yml's `graphrag` service and docker/Dockerfile, checked statically."""

import re
from pathlib import Path

import yaml

DOCKER = Path(__file__).resolve().parents[2] / "docker"


def service():
    return yaml.safe_load((DOCKER / "compose.yml").read_text())["services"]["graphrag"]


def test_builds_from_the_repository_with_the_dockerfile():
    build = service()["build"]
    assert build["context"] == ".." and (DOCKER.parent / build["dockerfile"]).is_file()


def test_waits_for_a_healthy_neo4j_and_talks_to_it_by_service_name():
    svc = service()
    assert svc["depends_on"]["neo4j"]["condition"] == "service_healthy"
    env = svc["environment"]
    assert env["NEO4J_URI"] == "bolt://neo4j:7687"
    assert re.fullmatch(r"\$\{NEO4J_PASSWORD:\?[^}]+\}", env["NEO4J_PASSWORD"])


def test_the_key_is_required_and_the_port_is_published_on_loopback():
    svc = service()
    assert re.fullmatch(r"\$\{GRAPHRAG_API_KEY:\?[^}]+\}", svc["environment"]["GRAPHRAG_API_KEY"])
    assert all(p.startswith("127.0.0.1:") and p.endswith(":8000") for p in svc["ports"])


def test_dockerfile_serves_on_all_container_addresses_as_a_user_with_pinned_dependencies():
    text = (DOCKER / "Dockerfile").read_text()
    assert re.search(r'^CMD \["graphrag", "serve", "--host", "0.0.0.0", "--port", "8000"\]$', text, re.M)
    assert re.search(r"^USER \w+$", text, re.M) and "-c constraints.txt" in text
    assert "/health" in text and "GRAPHRAG_API_KEY" in text
    import tomllib

    package_dirs = tomllib.loads((DOCKER.parent / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    for folder in package_dirs["package-dir"].values():  # every package folder is copied into the image
        assert re.search(rf"^COPY {folder} \./{folder}$", text, re.M), folder
