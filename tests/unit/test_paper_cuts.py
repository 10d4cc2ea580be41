"""Paper cuts without a database: a mapping's schema path is read from the mapping's folder,
`load records` without `--mapping` says which mappings exist and how to write one, and tables
that do not fit the width become a list wrapped at spaces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphrag_cypher.kg import records
from graphrag_cypher.schema import SchemaError, load_schema

MUSIC = """name: music
entity_types: [Artist, Album]
relation_types:
  RECORDED: {source: Artist, target: Album}
"""
DECOY = "name: decoy\nentity_types: [Thing]\n"
MAPPING = """schema: {schema}
entity:
  name: name
  type: Artist
relations:
  - {{field: albums, relation: RECORDED, target: Album}}
"""


@pytest.fixture
def folders(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """(the mapping's folder, another folder that is the current one and holds a decoy schema)."""
    mine, elsewhere = tmp_path / "project" / "maps", tmp_path / "elsewhere"
    mine.mkdir(parents=True)
    elsewhere.mkdir()
    (mine / "music.yaml").write_text(MUSIC, encoding="utf-8")
    (elsewhere / "music.yaml").write_text(DECOY, encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    return mine, elsewhere


@pytest.mark.parametrize("named", ["music.yaml", "./music.yaml", "../maps/music.yaml"])
def test_a_schema_path_in_a_mapping_is_read_from_the_mapping_folder(folders, named):
    mine, _ = folders
    mapping = mine / "artists.yaml"
    mapping.write_text(MAPPING.format(schema=named), encoding="utf-8")
    loaded = records.load_mapping(str(mapping))
    assert loaded.schema.name == "music", "the decoy in the current folder must not be read"
    # the graph records the whole path, so a later command finds it from any folder
    assert loaded.schema.path == str((mine / "music.yaml").resolve())


def test_a_relative_mapping_path_still_reads_its_schema_beside_it(folders, monkeypatch):
    mine, _ = folders
    (mine / "artists.yaml").write_text(MAPPING.format(schema="music.yaml"), encoding="utf-8")
    monkeypatch.chdir(mine.parent)
    assert records.load_mapping("maps/artists.yaml").schema.name == "music"


def test_a_schema_in_a_subfolder_of_the_mapping(folders):
    mine, _ = folders
    (mine / "schemas").mkdir()
    (mine / "schemas" / "music.yaml").write_text(MUSIC.replace("name: music", "name: nested"), encoding="utf-8")
    (mine / "artists.yaml").write_text(MAPPING.format(schema="schemas/music.yaml"), encoding="utf-8")
    assert records.load_mapping(str(mine / "artists.yaml")).schema.name == "nested"


def test_a_missing_schema_file_names_where_it_was_looked_for(folders):
    mine, elsewhere = folders
    (mine / "music.yaml").unlink()  # only the decoy in the current folder is left
    (mine / "artists.yaml").write_text(MAPPING.format(schema="music.yaml"), encoding="utf-8")
    with pytest.raises(SchemaError) as error:
        records.load_mapping(str(mine / "artists.yaml"))
    message = str(error.value)
    assert f"schema file not found: {(mine / 'music.yaml').resolve()}" in message
    assert "mapping's folder" in message and str(elsewhere / "music.yaml") not in message


def test_a_built_in_schema_name_in_a_mapping_stays_built_in(folders):
    mine, _ = folders
    (mine / "got").write_text(DECOY, encoding="utf-8")  # a file named like the built-in schema
    (mine / "chars.yaml").write_text("schema: got\nentity: {name: n, type: Character}\n", encoding="utf-8")
    loaded = records.load_mapping(str(mine / "chars.yaml"))
    assert loaded.schema.name == "got" and loaded.schema.path == "got"


def test_the_command_line_schema_is_read_from_the_current_folder(folders):
    mine, elsewhere = folders
    (mine / "artists.yaml").write_text(MAPPING.format(schema="music.yaml"), encoding="utf-8")
    (elsewhere / "music.yaml").write_text(MUSIC.replace("name: music", "name: typed"), encoding="utf-8")
    loaded = records.load_mapping(str(mine / "artists.yaml"), "music.yaml")  # --schema music.yaml, as typed
    assert loaded.schema.name == "typed" and loaded.schema.path == str((elsewhere / "music.yaml").resolve())


def test_a_schema_file_records_its_whole_path_and_a_built_in_its_name(folders):
    mine, _ = folders
    assert load_schema(str(mine / "music.yaml")).path == str((mine / "music.yaml").resolve())
    assert load_schema("folktale").path == "folktale"


# --- load records without --mapping -----------------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--schema", "got"]])
def test_load_records_without_a_mapping_lists_the_built_in_ones(run_cli, tmp_path, extra):
    data = tmp_path / "data.json"
    data.write_text("[]", encoding="utf-8")
    # no Neo4j anywhere: the usage error comes before any connection
    result = run_cli("load", "records", str(data), *extra, env={"NEO4J_URI": "bolt://127.0.0.1:1"})
    assert result.exit_code == 2, result.output  # click's usage error
    lines = result.stderr.splitlines()
    assert "Error: Missing option '--mapping'. Built-in mappings (--mapping NAME):" in lines
    assert lines[0].startswith("Usage: graphrag load records")
    builtin = records.builtin_mappings()
    assert builtin
    for name in builtin:  # one line each, with what it reads and its schema
        (line,) = [line for line in lines if line.startswith(f"  {name}  ")]
        assert re.search(r"\(schema \w+, \w+\)$", line), line
    assert "  got-characters  Game of Thrones characters.json (schema got, Character)" in lines
    assert any(line.startswith("  entity: {name: ") for line in lines)
    assert any(line.startswith("  relations: [{field: ") for line in lines)
    schema_line = next(line for line in lines if line.startswith("  schema: "))
    assert schema_line.startswith(f"  schema: {'got' if extra else 'generic'}  #")
    assert ("--schema only replaces" in result.stderr) == bool(extra)
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert result.stdout == ""


def test_the_shape_the_hint_shows_is_a_mapping_that_loads(tmp_path):
    """The three lines the hint shows, filled in, are a mapping `load_mapping` accepts."""
    hint = records.mapping_hint("got").splitlines()
    start = next(i for i, line in enumerate(hint) if line.startswith("  schema: "))
    shape = "\n".join(line[2:].split("  #")[0] for line in hint[start : start + 3])
    filled = (
        shape.replace("<field holding the name>", "name")
        .replace("<entity type>", "Character")
        .replace("<field>", "parents")
        .replace("<RELATION>", "CHILD_OF")
    )
    (tmp_path / "mine.yaml").write_text(filled, encoding="utf-8")
    loaded = records.load_mapping(str(tmp_path / "mine.yaml"))
    assert loaded.schema.name == "got" and loaded.data["relations"][0]["relation"] == "CHILD_OF"


# --- tables at 80 columns -------------------------------------------------------------------


ROWS = [
    ["chunk_embedding", "VECTOR", "Chunk (embedding)", "ONLINE", "384 dims, COSINE"],
    [
        "document_text_fulltext_index",
        "FULLTEXT",
        "Chunk, Document (title, aliases, names, text, summary, keywords)",
        "ONLINE",
        "analyzer standard-no-stop-words",
    ],
    ["[/bold]:x:", "RANGE", "Scratch (x)", "ONLINE", ""],
]


def words_of(rows) -> set[str]:
    return {w for row in rows for value in row for w in str(value).split()}


@pytest.mark.parametrize("columns", ["80", "60", None])
def test_a_table_off_a_terminal_is_a_list_wrapped_at_spaces(capsys, monkeypatch, columns):
    from graphrag_cypher.cli.output import print_table_or_list

    if columns:
        monkeypatch.setenv("COLUMNS", columns)
    else:
        monkeypatch.delenv("COLUMNS", raising=False)
    print_table_or_list(["index", "type", "on", "state", "detail"], ROWS, title="Indexes")
    out = capsys.readouterr().out
    lines = out.splitlines()
    width = int(columns or 80)
    assert lines[0] == "Indexes" and all(len(line) <= width for line in lines), out
    printed = set(out.split())
    # every word of every cell is printed whole (none cut in two), the title's and names' too
    assert {w.rstrip(",:") for w in words_of(ROWS)} <= {w.rstrip(",:") for w in printed}, out
    assert "[/bold]:x:" in out and "\x1b" not in out
    # one item a row, its continuation lines indented under it
    assert [line for line in lines[1:] if not line.startswith("      ")] == [
        line for line in lines[1:] if line.startswith(("  chunk_embedding:", "  document_text", "  [/bold]"))
    ]


@pytest.mark.parametrize("width", [200, 80])
def test_a_terminal_gets_the_table_only_when_every_row_fits(monkeypatch, width):
    import io

    from rich.console import Console

    from graphrag_cypher.cli import output

    screen = io.StringIO()
    monkeypatch.setattr(output, "stdout_console", lambda: Console(file=screen, force_terminal=True, width=width))
    monkeypatch.setattr(output.click, "echo", lambda text="", **_: screen.write(f"{text}\n"))
    output.print_table_or_list(["index", "type", "on", "state", "detail"], ROWS, title="Indexes")
    shown = re.sub(r"\x1b\[[0-9;]*m", "", screen.getvalue())  # the table's colours
    lines = shown.splitlines()
    assert all(len(line) <= width for line in lines), shown
    if width == 200:  # a table, each row on one line
        assert any("┃ index" in line for line in lines), shown
        assert any("document_text_fulltext_index" in line and "standard-no-stop-words" in line for line in lines)
    else:
        assert not any("┃" in line for line in lines), shown
        assert any(line.startswith("  document_text_fulltext_index: type FULLTEXT,") for line in lines), shown
