"""Who is acting: rights imply each other as documented, scope is by corpus, the CLI is local."""

from graphrag_cypher.principal import LOCAL, Principal, acting_as, current


def test_rights_and_scope():
    reader = Principal("team-a", ("a",), frozenset({"read"}))
    assert reader.can("read") and not reader.can("write") and not reader.can("admin")
    assert reader.sees("a") and not reader.sees("b") and not reader.sees(None)
    writer = Principal("w", ("a",), frozenset({"write"}))
    assert writer.can("read") and writer.can("write") and not writer.can("admin")
    assert Principal("root", None, frozenset({"admin"})).can("write")
    assert LOCAL.sees("anything") and LOCAL.can("admin")


def test_acting_as_sets_and_restores():
    assert current() is LOCAL
    with acting_as(Principal("team-a", ("a",))) as p:
        assert current() is p
    assert current() is LOCAL
