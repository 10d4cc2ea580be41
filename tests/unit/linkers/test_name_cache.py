"""The name cache's file name: one per set of name rules and version of what builds the table.
(The cache itself is tested against Neo4j: tests/e2e/test_link_places_cache.py.)"""

import pytest

from graphrag_cypher.linkers import name_cache
from graphrag_cypher.linkers.matcher import load_stoplist


@pytest.mark.parametrize("change", ["query", "stoplist", "min_length", "sources"])
def test_the_file_name_follows_the_rules_and_the_queries(change, monkeypatch):
    sources, min_length, stoplist = None, 3, load_stoplist()
    before = name_cache.rules_key(sources, min_length, stoplist)
    assert name_cache.rules_key(sources, min_length, stoplist) == before
    if change == "query":
        monkeypatch.setattr(name_cache, "query", lambda name: "changed " + name)
    elif change == "stoplist":
        stoplist = stoplist | {"babylon"}
    elif change == "min_length":
        min_length = 4
    else:
        sources = ["pleiades"]
    assert name_cache.rules_key(sources, min_length, stoplist) != before
