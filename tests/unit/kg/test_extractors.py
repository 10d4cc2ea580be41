"""Infobox typing, records mapping, LLM reply checking and fuzzy resolution, without a database."""

import json
from pathlib import Path

from graphrag_cypher.kg import infobox, llm_extract, records, resolve
from graphrag_cypher.kg.names import norm_name
from graphrag_cypher.schema import load_schema

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "kg"


def test_norm_name_folds_case_accents_and_punctuation():
    assert norm_name("Dawn-Fang") == norm_name("dawnfang") == "dawnfang"
    assert norm_name("  Zoë  O'Hara ") == "zoe ohara"
    assert norm_name("Jaqen H'ghar!") == "jaqen hghar"


def page(title, template, fields, categories=()):
    return {
        "id": f"wiki:t:{title}",
        "title": title,
        "infoboxType": template,
        "infobox": json.dumps(fields),
        "aliases": [],
        "categories": list(categories),
    }


def test_infobox_types_with_scores_confidence_and_reason():
    schema = load_schema("got")
    typing = infobox.classify(schema, "Edric Varn", "Infobox character", {"father": "x", "spouse": "y"}, ["Characters"])
    assert typing.type == "Character" and typing.confidence == "High"
    assert "template 'Infobox character'" in typing.reason and typing.scores["Character"] > 5
    unsure = infobox.classify(schema, "Thing", "Infobox misc", {"region": "x"}, [])
    assert unsure.confidence == "Low" and unsure.doubtful


def test_infobox_relations_are_checked_against_the_schema():
    schema = load_schema("got")
    out = infobox.extract(
        schema,
        [
            page(
                "Edric Varn", "Infobox character", {"father": "Osgar Varn", "house": "House Varn", "weapon": "Dawnfang"}
            ),
            page("Dawnfang", "Infobox object", {"owner": "Edric Varn", "father": "Tamsin Holt"}),
        ],
    )
    rels = {(r["source"], r["type"], r["target"]) for r in out.relations.values()}
    assert ("got:edric varn", "CHILD_OF", "got:osgar varn") in rels
    assert ("got:dawnfang", "WIELDED_BY", "got:edric varn") in rels
    assert ("got:dawnfang", "OWNED_BY", "got:edric varn") in rels
    assert not any(r[0] == "got:dawnfang" and r[1] == "CHILD_OF" for r in rels)
    assert out.skipped["schema: CHILD_OF not allowed from Object to Character"] == 1
    assert out.entities["got:osgar varn"]["implied"] and out.entities["got:dawnfang"]["type"] == "Object"


def test_field_values_split_and_filter():
    assert infobox.field_values("King's Landing - Red Keep", {}) == ["King's Landing", "Red Keep"]
    assert infobox.field_values("Hodgenville, Kentucky, U.S.", {"take": "first"}) == ["Hodgenville"]
    assert not infobox.is_name("A Lhazareen town in the Dothraki Sea.", {"max_words": 4})


def test_records_mapping_on_a_small_sample():
    mapping = records.load_mapping("got-characters")
    sample = [
        {
            "characterName": "Jon Snow",
            "houseName": ["Stark"],
            "parents": ["Rhaegar Targaryen", "Lyanna Stark"],
            "actorName": "Kit Harington",
            "killedBy": ["Olly"],
            "killed": ["Olly"],
        },
        {"characterName": "Olly", "killedBy": ["Jon Snow"]},
        {"characterName": "Old Nan", "killedBy": ["Old Age"]},
        {"characterName": "Baby Sam", "actors": [{"actorName": "William Wilson"}]},
        {"characterName": ""},
    ]
    out = records.extract(mapping, sample, "records:test.json")
    rels = {(r["source"], r["type"], r["target"]) for r in out.relations.values()}
    assert ("got:jon snow", "CHILD_OF", "got:rhaegar targaryen") in rels
    assert ("got:jon snow", "BELONGS_TO", "got:house stark") in rels
    assert ("got:jon snow", "PLAYED_BY", "got:kit harington") in rels
    assert ("got:olly", "KILLED_BY", "got:jon snow") in rels
    assert ("got:baby sam", "PLAYED_BY", "got:william wilson") in rels
    assert out.skipped["schema: KILLED_BY not allowed from Character to Event"] == 1
    assert out.skipped["record without a name"] == 1
    assert out.entities["got:house stark"]["type"] == "House"


def test_llm_reply_checking_rejects_and_counts():
    schema = load_schema("folktale")
    story = {"id": "story:sample:T3", "chunks": []}
    reply = json.loads((FIXTURES / "tales" / "T3.json").read_text())
    out = llm_extract.Extraction()
    llm_extract.add_story(out, schema, story, [reply], "llm:test")
    assert "T3::E1" in out.entities and out.entities["T3::E1"]["documentId"] == "story:sample:T3"
    assert out.skipped["entity type not in schema"] == 1
    assert out.skipped["relation type not in schema"] == 1
    assert out.skipped["schema: HELPS not allowed from LOCATION to CHARACTER"] == 1
    assert out.entities["folktale:ilsa"]["canonical"] is True
    assert {"id": "T3::E1", "canonicalId": "folktale:ilsa", "source": "llm:test"} in out.instance_of


def test_parse_reply_tolerates_fences_and_refuses_garbage():
    assert llm_extract.parse_reply('```json\n{"entities": [], "relations": []}\n```') == {
        "entities": [],
        "relations": [],
    }
    for bad in ["", (FIXTURES / "malformed.txt").read_text(), '{"entities": 3}', "[1, 2]"]:
        try:
            llm_extract.parse_reply(bad)
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad!r}")


def test_long_stories_are_split_into_units():
    story = {"chunks": [{"text": "a" * 400}, {"text": "b" * 400}, {"text": "c" * 400}]}
    assert len(llm_extract.units(story, 12000)) == 1
    assert len(llm_extract.units(story, 900)) == 2


def test_fuzzy_resolution_is_strict_about_words_and_numbers():
    assert resolve.similarity("edric varn", "edrick varn") >= 90
    assert resolve.similarity("tyrion lannister", "tywin lannister") < 90
    assert resolve.similarity("musician 1", "musician 2") == 0
    assert resolve.similarity("dawn fang", "dawnfang") == 100
    ents = [
        {
            "id": i,
            "name": n,
            "normName": norm_name(n),
            "type": "Character",
            "schema": "got",
            "scope": "global",
            "storyId": None,
            "degree": d,
        }
        for i, n, d in [
            ("a", "Edric Varn", 5),
            ("b", "Edrick Varn", 1),
            ("c", "Tywin Lannister", 1),
            ("d", "Tyrion Lannister", 1),
        ]
    ]
    pairs = resolve.candidates(ents, 90)
    assert [(p["keep"]["id"], p["merge"]["id"]) for p in pairs] == [("a", "b")]
    assert resolve.merge_rows(pairs) == [{"keep": "a", "merge": "b"}]
