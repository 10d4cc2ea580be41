"""KG schemas: the built-ins load, the allowlist holds, bad schemas fail with one line."""

import pytest

from graphrag_cypher.schema import SchemaError, builtin_schemas, load_schema, parse_schema


def test_builtin_schemas_load():
    assert {"folktale", "got", "ancient-world", "generic"} <= set(builtin_schemas())
    for name in builtin_schemas():
        assert load_schema(name).entity_types


def test_folktale_and_got_types():
    folk = load_schema("folktale")
    assert set(folk.entity_types) == {"CHARACTER", "CREATURE", "OBJECT", "MAGICAL_ITEM", "LOCATION", "EVENT", "TASK"}
    assert folk.scope == "story"
    got = load_schema("got")
    assert got.allows("Character", "CHILD_OF", "Character")
    assert not got.allows("Object", "CHILD_OF", "Character")  # a sword is nobody's child
    assert got.allows("Character", "MARRIED_TO", "Character") and not got.allows("House", "MARRIED_TO", "Character")
    assert got.allows("House", "SEATED_AT", "Location") and not got.allows("Character", "SEATED_AT", "Location")


@pytest.mark.parametrize(
    "value", ["Character`) DETACH DELETE n //", "Character:Admin", "", None, 42, "x" * 10000, "Char acter"]
)
def test_hostile_types_are_not_in_the_allowlist(value):
    schema = load_schema("got")
    assert schema.entity_type(value) is None
    assert schema.relation_type(value) is None


def test_types_are_matched_case_insensitively():
    schema = load_schema("folktale")
    assert schema.entity_type("magical_item") == "MAGICAL_ITEM"
    assert schema.relation_type("transforms into") == "TRANSFORMS_INTO"


@pytest.mark.parametrize(
    "data, message",
    [
        ({"entity_types": {"Bad`Label": {}}}, "letters, digits"),
        ({"entity_types": {"Chunk": {}}}, "reserved"),
        ({"entity_types": {"A": {}}, "relation_types": {"R": {"source": ["B"]}}}, "unknown source type"),
        ({"entity_types": {"A": {}}, "relation_types": {"MENTIONS": {}}}, "reserved"),
        ({"entity_types": {}}, "at least one type"),
        ({"entity_types": {"A": {}}, "scope": "galaxy"}, "scope"),
    ],
)
def test_bad_schemas_are_refused(data, message):
    with pytest.raises(SchemaError, match=message):
        parse_schema(data, "test.yaml")


def test_user_schema_file(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(
        "name: mine\nentity_types: [Ship, Port]\nrelation_types:\n  DOCKS_AT: {source: [Ship], target: [Port]}\n"
    )
    schema = load_schema(str(path))
    assert schema.allows("Ship", "DOCKS_AT", "Port") and not schema.allows("Port", "DOCKS_AT", "Ship")
    with pytest.raises(SchemaError, match="unknown schema"):
        load_schema("no-such-schema")
