"""The door's decisions without a server: keys are random and stored as their SHA-256, names are
checked, a scoped key's corpus is checked or filled in, and requests per minute are counted."""

import hashlib

import pytest

from graphrag_cypher import apikeys
from graphrag_cypher.errors import GraphragError
from graphrag_cypher.principal import Principal
from graphrag_cypher.server.guard import Keys, Refused, scoped_corpus
from graphrag_cypher.server.options import ServerOptions


def test_keys_are_random_and_stored_as_their_hash():
    one, two = apikeys.new_key(), apikeys.new_key()
    assert one != two and one.startswith("grk_") and len(one) >= 4 + 43
    assert apikeys.digest(one) == hashlib.sha256(one.encode()).hexdigest() != one


@pytest.mark.parametrize("name", ["", "admin", "local", "-x", "a b", "x" * 65])
def test_bad_or_reserved_names_are_refused(name):
    with pytest.raises(GraphragError):
        apikeys.check_name(name)


def test_a_scoped_key_gets_its_corpus_or_a_refusal():
    one = Principal("team-a", ("a",), frozenset({"read"}))
    two = Principal("team-ab", ("a", "b"), frozenset({"write"}))
    everyone = Principal("admin", None, frozenset({"admin"}))
    assert scoped_corpus(None, principal=one) == "a" and scoped_corpus(" a ", principal=one) == "a"
    assert scoped_corpus("b", principal=two) == "b" and scoped_corpus(None, principal=everyone) is None
    assert scoped_corpus(None, principal=two) is None  # a read in every corpus of the key: $scope filters
    with pytest.raises(Refused) as refused:
        scoped_corpus("b", principal=one)
    assert refused.value.status == 403 and refused.value.message == "key 'team-a' may not read corpus 'b': it holds a"
    with pytest.raises(Refused) as several:
        scoped_corpus(None, write=True, principal=two)
    assert several.value.status == 422


def test_requests_per_minute_are_counted_per_key():
    keys = Keys(ServerOptions())
    for _ in range(5):
        keys.spend("a", 5)
    keys.spend("b", 5)  # another key has its own count
    with pytest.raises(Refused) as over:
        keys.spend("a", 5)
    assert over.value.status == 429 and 1 <= int(over.value.headers["Retry-After"]) <= 12
    keys.spend("c", 0)  # 0: no limit
