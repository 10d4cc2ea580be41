"""Typing wiki pages without an infobox: title, categories and first sentence; the fallback type."""

import pytest

from graphrag_cypher.kg import infobox
from graphrag_cypher.schema import SchemaError, load_schema, parse_schema


def typed(schema, title, categories=(), lead=""):
    return infobox.classify(load_schema(schema), title, None, {}, list(categories), infobox.first_sentence(lead))


def test_title_category_and_first_sentence_add_up_with_reasons():
    t = typed(
        "got",
        "House Tarly",
        ["Houses of the Reach"],
        "House Tarly is a noble house of the Reach. Its seat is Horn Hill.",
    )
    assert t.type == "House" and t.confidence == "High" and not t.doubtful
    assert "title 'House'" in t.reason and "category 'Houses of the Reach'" in t.reason
    assert "first sentence 'House Tarly is'" in t.reason and t.scores == {"House": 8.0}


@pytest.mark.parametrize(
    ("title", "lead", "expected"),
    [
        ("Battle of the Bells", "The Battle of the Bells was fought in Stoney Sept.", "Battle"),
        ("A Feast for Crows (novel)", "A Feast for Crows is the fourth novel.", "Lore"),
        ("Horn Hill", "Horn Hill is a castle in the Reach.", "Location"),
        ("Samwell Tarly", "Samwell Tarly is the eldest son of Lord Randyll Tarly.", "Character"),
    ],
)
def test_cues_of_the_got_schema(title, lead, expected):
    assert typed("got", title, lead=lead).type == expected


def test_the_first_noun_of_the_sentence_decides_not_a_later_one():
    t = typed("generic", "Achilles", lead="Achilles was a Greek hero of the Trojan War.")
    assert t.type == "Person" and "Event" not in t.scores


def test_nothing_scores_gives_the_fallback_type_flagged_for_review():
    t = typed("got", "Winter", lead="Winter comes.")
    assert (t.type, t.confidence, t.doubtful) == ("Lore", "Low", True) and t.reason == "no rule matched: fallback Lore"
    assert typed("generic", "Albedo", lead="Albedo measures whiteness.").type == "Concept"


def test_close_calls_are_flagged_for_validation():
    t = typed("generic", "Astronomer", lead="An astronomer is a scientist in the field of astronomy.")
    assert t.doubtful and t.confidence == "Low" and set(t.scores) == {"Person", "Concept"}


def test_a_fallback_outside_the_schema_is_refused():
    with pytest.raises(SchemaError, match="fallback 'Thing' is not an entity type"):
        parse_schema({"name": "x", "entity_types": ["A"], "infobox": {"fallback": "Thing"}})
