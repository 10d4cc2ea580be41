"""Migration discovery, checksums and statement splitting: no database needed."""

from pathlib import Path

import pytest

from graphrag_cypher.admin.migrations import checksum, discover, split_statements
from graphrag_cypher.errors import MigrationError


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_split_keeps_semicolons_inside_strings_names_and_comments():
    text = """
    // a comment; with a semicolon
    CREATE (:A {s: 'x;y', t: "it's; fine"});
    /* block; comment */
    MATCH (`odd;name`) RETURN 1;
    RETURN 'escaped \\' quote;' AS q
    """
    statements = split_statements(text)
    assert statements == [
        "CREATE (:A {s: 'x;y', t: \"it's; fine\"})",
        "MATCH (`odd;name`) RETURN 1",
        "RETURN 'escaped \\' quote;' AS q",
    ]


def test_comment_only_text_has_no_statement():
    assert split_statements("// nothing\n/* here */\n;\n") == []


def test_checksum_ignores_line_endings_and_trailing_blanks_but_not_content():
    base = "CREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.x);\n"
    assert checksum(base) == checksum(base.replace("\n", "\r\n") + "   \n\n")
    assert checksum(base) != checksum(base.replace("n.x", "n.y"))


def test_shipped_migrations_are_ordered_versioned_then_repeatable():
    migrations = discover()
    kinds = [m.repeatable for m in migrations]
    assert kinds == sorted(kinds), "repeatable migrations come after all versioned ones"
    versions = [int(m.version) for m in migrations if not m.repeatable]
    assert versions == sorted(versions) and versions[0] == 1
    vector = next(m for m in migrations if "Vector" in m.file)
    assert "384" in " ".join(vector.statements({"embedding_dimensions": "384"}))


def test_versions_sort_numerically(tmp_path):
    folder = write(
        tmp_path / "m",
        {
            "V10__Ten.cypher": "RETURN 10;",
            "V2__Two.cypher": "RETURN 2;",
            "R__Again.cypher": "RETURN 'r';",
        },
    )
    assert [m.file for m in discover(folder)] == ["V2__Two.cypher", "V10__Ten.cypher", "R__Again.cypher"]
    assert discover(folder)[0].description == "Two"


@pytest.mark.parametrize(
    "files, message",
    [
        ({"V1_missing_underscore.cypher": "RETURN 1;"}, "not a migration name"),
        ({"V1__A.cypher": "RETURN 1;", "V001__B.cypher": "RETURN 2;"}, "is also used by"),
        ({"V1__Empty.cypher": "// only a comment\n"}, "no Cypher statement"),
    ],
)
def test_bad_migration_folders_are_refused_with_the_file_named(tmp_path, files, message):
    folder = write(tmp_path / "m", files)
    with pytest.raises(MigrationError, match=message):
        discover(folder)


def test_unknown_placeholder_is_an_error(tmp_path):
    folder = write(tmp_path / "m", {"R__X.cypher": "RETURN {{nope}};"})
    migration = discover(folder)[0]
    with pytest.raises(MigrationError, match="unknown placeholder"):
        migration.statements({"embedding_dimensions": "384"})


def test_checksum_is_taken_before_placeholders_are_filled(tmp_path):
    folder = write(tmp_path / "m", {"R__X.cypher": "RETURN {{embedding_dimensions}};"})
    migration = discover(folder)[0]
    assert migration.checksum == checksum("RETURN {{embedding_dimensions}};")
    assert migration.resolved({"embedding_dimensions": "8"}).strip() == "RETURN 8;"
