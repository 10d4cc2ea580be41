from __future__ import annotations

import json

import pytest

from graphrag_cypher.loaders.stories import parse_stories_jsonl, parse_story_book
from graphrag_cypher.model import ItemError, ParsedDocument

from .conftest import FIXTURES, real_data


def test_jsonl_bad_lines_are_item_errors_and_the_rest_loads(tmp_path):
    lines = [
        json.dumps({"id": 1, "title": "The Heron", "text": "A heron waited.", "year": 1900}),
        "{not json",
        json.dumps({"id": 2, "text": "No title here."}),
        "",
        json.dumps({"id": 3, "title": "The Gull", "text": "A gull flew.\n\nIt came back."}),
        json.dumps({"id": 3, "title": "Again", "text": "Duplicate id."}),
    ]
    path = tmp_path / "tales.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = list(parse_stories_jsonl(path))
    assert [type(r).__name__ for r in results] == [
        "ParsedDocument",
        "ItemError",
        "ItemError",
        "ParsedDocument",
        "ItemError",
    ]
    assert results[1].item == "tales.jsonl line 2" and results[1].error.startswith("invalid JSON")
    assert results[2] == ItemError("tales.jsonl line 3", "missing title")
    story = results[0]
    assert story.id == "story:tales:1" and story.labels == ("Story",) and story.kind == "story"
    assert story.metadata == {"corpus": "tales", "year": 1900}
    assert results[3].sections[0].text == "A gull flew.\n\nIt came back."


def test_book_skips_gutenberg_boilerplate_and_contents():
    results = list(parse_story_book(FIXTURES / "tales.txt", corpus="small"))
    assert all(isinstance(r, ParsedDocument) for r in results)
    assert [(r.id, r.title) for r in results] == [
        ("story:small:the-lantern-maker", "The Lantern Maker"),
        ("story:small:the-river-and-the-heron", "The River and the Heron"),
        ("story:small:the-two-sisters", "The Two Sisters"),
    ]
    sisters = results[2]
    assert [s.title for s in sisters.sections] == ["The Two Sisters > First Story", "The Two Sisters > Second Story"]
    assert sisters.metadata["printedTitle"] == "THE TWO SISTERS"
    text = " ".join(r.text for r in results)
    assert "boilerplate" not in text and "CONTENTS" not in text
    assert results[1].sections[0].text.startswith("A heron stood in a river for a hundred days, waiting")


@pytest.mark.real_data
def test_real_grimm_book_has_about_62_stories_with_known_titles():
    results = list(parse_story_book(real_data("tales/grimm-pg2591.txt")))
    assert all(isinstance(r, ParsedDocument) for r in results)
    assert 60 <= len(results) <= 64
    printed = [r.metadata["printedTitle"] for r in results]
    for title in ("THE GOLDEN BIRD", "HANSEL AND GRETEL", "RUMPELSTILTSKIN", "SNOW-WHITE AND ROSE-RED"):
        assert title in printed
    assert printed[0] == "THE GOLDEN BIRD" and results[0].id == "story:grimm-pg2591:the-golden-bird"
    assert len({r.id for r in results}) == len(results)
    assert all(len(r.text) > 1000 for r in results)
