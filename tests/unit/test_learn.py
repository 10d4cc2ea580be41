import pytest

from graphrag_cypher.errors import GraphragError
from graphrag_cypher.loaders.learn import parse_learn


def test_topics_paths_and_urls():
    request = parse_learn("learn: ancient harbours, trade | path: ./notes | url: https://example.org/ports/")
    assert request.topics == ["ancient harbours", "trade"]
    assert request.paths == ["./notes"]
    assert request.urls == ["https://example.org/ports/"]


def test_without_prefix_and_several_paths():
    request = parse_learn("path: a, b | topics: x")
    assert request.paths == ["a", "b"] and request.topics == ["x"] and request.urls == []


def test_topics_alone_are_learned_from_the_web_and_nothing_at_all_is_refused_with_advice():
    request = parse_learn("learn: rome, carthage")
    assert request.topics == ["rome", "carthage"] and request.topics_only
    assert not parse_learn("rome | path: ./notes").topics_only
    with pytest.raises(GraphragError, match="path: DIR"):
        parse_learn("learn:  | ")
