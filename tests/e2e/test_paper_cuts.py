"""Paper cuts, against Neo4j: a user's mapping YAML with `schema: music.yaml` beside it loads from
any folder (and the graph records where the schema is), and `doctor` at 80 columns or off a
terminal prints no line longer than that and no word cut in two."""

import json
import re

import pytest

pytestmark = pytest.mark.e2e

MUSIC = """name: music
id_prefix: music
entity_types: [Artist, Album]
relation_types:
  RECORDED: {source: Artist, target: Album}
resolve:
  prefix_types: [Artist]
"""
MAPPING = """schema: music.yaml
records: artists
entity:
  name: name
  type: Artist
relations:
  - {field: albums, relation: RECORDED, target: Album}
"""
ARTISTS = {
    "artists": [
        {"name": "Nina Quill", "albums": ["Tidewater", "Salt Lines"]},
        {"name": "The Larks", "albums": ["Morning Field"]},
    ]
}


def test_a_users_mapping_and_its_schema_load_from_another_folder(schema, run_cli, tmp_path, monkeypatch):
    project = tmp_path / "music"
    project.mkdir()
    (project / "music.yaml").write_text(MUSIC, encoding="utf-8")
    (project / "artists-map.yaml").write_text(MAPPING, encoding="utf-8")
    (project / "artists.json").write_text(json.dumps(ARTISTS), encoding="utf-8")
    # the current folder is the one above, with a music.yaml of its own that must not be read
    (tmp_path / "music.yaml").write_text("name: decoy\nentity_types: [Thing]\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run_cli("load", "records", "music/artists.json", "--mapping", "music/artists-map.yaml", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["schema"] == "music" and out["records"] == 2 and out["failed"] == 0
    assert out["edgesByType"] == {"RECORDED": 3}
    with schema.driver() as driver:
        recorded = driver.execute_query("MATCH (s:__Schema {name: 'music'}) RETURN s.path AS path").records
        albums = driver.execute_query(
            "MATCH (:Artist {name: 'Nina Quill'})-[:RECORDED]->(a:Album) RETURN a.name AS name ORDER BY name"
        ).records
    # the whole path: `resolve` reads the schema again (its prefix_types) from any folder
    assert [r["path"] for r in recorded] == [str((project / "music.yaml").resolve())]
    assert [r["name"] for r in albums] == ["Salt Lines", "Tidewater"]
    (tmp_path / "third").mkdir()
    monkeypatch.chdir(tmp_path / "third")
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.kg.resolve import prefix_types_of

    with connect(load_settings()) as graph:
        assert prefix_types_of(graph, {"music"}) == {"music": {"Artist"}}, "the schema file was found again"


def test_a_mapping_whose_schema_is_missing_says_where_it_looked(schema, run_cli, tmp_path, monkeypatch):
    project = tmp_path / "music"
    project.mkdir()
    (project / "artists-map.yaml").write_text(MAPPING, encoding="utf-8")
    (project / "artists.json").write_text(json.dumps(ARTISTS), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "music.yaml").write_text(MUSIC, encoding="utf-8")  # in the current folder, not beside it
    result = run_cli("load", "records", str(project / "artists.json"), "--mapping", str(project / "artists-map.yaml"))
    assert result.exit_code == 1
    assert f"schema file not found: {(project / 'music.yaml').resolve()}" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output


def assert_fits(stdout: str, words: set[str], width: int = 80) -> None:
    lines = stdout.splitlines()
    assert all(len(line) <= width for line in lines), [line for line in lines if len(line) > width]
    printed = {w.strip(",:()") for w in stdout.split()}
    missing = {w for w in words if w.strip(",:()") not in printed}
    assert not missing, f"cut in two or lost: {sorted(missing)}\n{stdout}"


@pytest.mark.parametrize("env", [{"COLUMNS": "80"}, {"COLUMNS": None}], ids=["COLUMNS=80", "not a terminal"])
def test_doctor_fits_80_columns_and_cuts_no_word(schema, run_cli, env):
    result = run_cli("doctor", env=env)
    assert result.exit_code == 0, result.output
    report = json.loads(run_cli("doctor", "--json").stdout)
    words = set()
    for index in report["indexes"]:
        names = (index["labels_or_types"] or []) + (index["properties"] or [])
        words |= {index["name"], index["type"], index["state"], *names}
    assert_fits(result.stdout, words)
    # the indexes as a list under their heading, one item each, continuation lines indented
    listed = result.stdout.split("\nIndexes\n", 1)[1]
    items = [line for line in listed.splitlines() if re.match(r"  \S", line)]
    assert [line.split(":", 1)[0].strip() for line in items[: len(report["indexes"])]] == [
        i["name"] for i in report["indexes"]
    ]
    assert "chunk_embedding: type VECTOR, on Chunk (embedding), state ONLINE" in " ".join(listed.split())
