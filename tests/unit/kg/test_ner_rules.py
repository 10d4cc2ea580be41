"""The recogniser's junk rules and the graph's gazetteer, on text (no database)."""

from __future__ import annotations

import pytest

from graphrag_cypher.kg.ner_gazetteer import Gazetteer, kinds_of
from graphrag_cypher.kg.ner_rules import is_junk
from graphrag_cypher.schema import load_schema


@pytest.mark.parametrize(
    "name",
    [
        "BCE",
        "B.C.E.",
        "A.D.",
        "A.D.2",
        "C.E.",
        "CE",
        "AD",
        "B.C.",
        "IV",
        "XII",
        "§ 4",
        "§§",
        "ed.",
        "Eds",
        "Ibid",
        "cf.",
        "Vol. III",
        "Fig. 12",
        "IG",
        "IG II² 1234",
        "P.Oxy.",
        "P. Oxy. 2332",
        "O.Claud.",
        "O. Claud. 12",
        "SEG XXXV",
        "BGU",
        "SB",
    ],
)
def test_era_numbering_sigla_and_abbreviations_are_junk(name):
    assert is_junk(name)


@pytest.mark.parametrize("name", ["Ptolemy II", "Ephesos", "Tam", "Apis", "Rome", "Ur", "Alexandria", "Cicero"])
def test_names_are_not_junk(name):
    assert not is_junk(name)


def test_gazetteer_patterns_leave_out_short_stop_and_stoplisted_names():
    gaz = Gazetteer.from_rows(
        ["pleiades:1", "pleiades:2", "pleiades:3", "person:ann smith"],
        ["Place", "Place", "Place", "Person"],
        [["Ephesos", "Ephesus", "Éphèse"], ["The", "A", "Ur"], ["Alexandria"], ["Ann Smith"]],
        [4, "x"],
        kinds_of(load_schema("generic")),
    )
    assert gaz.names["ephesus"] == {"place": ["pleiades:1"]}
    assert gaz.names["ephese"] == {"place": ["pleiades:1"]}  # the accent folded too
    assert "the" not in gaz.names and "a" not in gaz.names  # stop words are never patterns
    assert gaz.names["ur"] == {"place": ["pleiades:2"]}
    assert gaz.names["ann smith"] == {"person": ["person:ann smith"]}
    assert gaz.key == "4:x:"  # fingerprint, and the name rules (set by load)


def test_gazetteer_reads_the_schemas_person_and_place_types():
    assert kinds_of(load_schema("got")) == {"Character": "person", "Location": "place"}
    assert kinds_of(load_schema("generic")) == {"Person": "person", "Place": "place"}


TEXT = (
    "Strabo travelled from Pisidian Antioch to Ephesus in 25 BCE, and the inscription IG II² 1234 names "
    "the harbour of Alexandria. Heron of Alexandria described it; Gaius Marius wrote to Smyrna. "
    "The Antikythera Mechanism is a gear train: the mechanism was found in 1901 (ed. Price, vol. IV)."
)


@pytest.fixture(scope="module")
def pipeline():
    pytest.importorskip("spacy", reason="spaCy is not installed: make setup installs it")
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.kg.ner import load_pipeline

    try:
        pipe = load_pipeline()
    except GraphragError as exc:
        pytest.skip(str(exc))
    pipe.gazetteer = Gazetteer.from_rows(
        ["pleiades:1", "pleiades:2", "pleiades:3", "pleiades:4", "pleiades:5"],
        ["Place"] * 5,
        [["Ephesos", "Ephesus"], ["Antiocheia", "Antioch"], ["Alexandria"], ["Alexandria"], ["Smyrna"]],
        [5, "x"],
        kinds_of(load_schema("generic")),
    )
    return pipe


def test_gazetteer_names_decide_and_junk_never_becomes_an_entity(pipeline):
    from graphrag_cypher.kg.ner import NerStats, chunk_rows

    [found] = list(pipeline.entities([TEXT]))
    by_name = {name: (label, ids) for name, label, _start, _weight, ids in found}
    assert by_name["Ephesus"] == ("GPE", ("pleiades:1",))  # a variant of the place's names
    assert by_name["Antioch"] == ("GPE", ("pleiades:2",))  # "Pisidian" is an adjective before it
    assert by_name["Smyrna"][1] == ("pleiades:5",)
    alexandria = [f for f in found if f[0] == "Alexandria" and f[4]]
    assert len(alexandria) == 1 and alexandria[0][4] == ("pleiades:3", "pleiades:4")  # not "Heron of Alexandria"
    assert alexandria[0][2] < TEXT.index("Heron")
    assert not {"BCE", "IV", "IG", "IG II² 1234", "ed.", "vol."} & set(by_name)
    chunks = [{"id": "doc::0", "text": TEXT}]
    entities, rows = chunk_rows(load_schema("generic"), chunks, [found], NerStats(), {"doc::0": {"pleiades:4"}})
    mentions = {m["entityId"]: m for m in rows[0]["mentions"]}
    assert mentions["pleiades:1"]["rule"] == "ner-gazetteer" and mentions["pleiades:1"]["confidence"] >= 0.8
    assert "pleiades:4" in mentions  # the place the place linker decided for this chunk
    assert "pleiades:3" not in mentions
    names = {e["normName"] for e in entities.values()}
    assert "mechanism" not in names  # written in lower case in the same text: a common noun
    assert not any(e["type"] == "Place" for e in entities.values() if e["normName"] in ("bce", "iv"))
    for entity in entities.values():  # the recogniser's own entities carry their type's precision
        assert entity["confidence"] == load_schema("generic").ner_confidence.get(entity["type"])


REFERENCES = (
    "[52] Wolf, D., and Lorber, C., “Syracusan imitations,” online.\n"
    "[55] Bouyon, B., Depeyrot G., and Desnier, J.-L., Systèmes et technologie (Gembloux, 2000).\n"
    "Kemp 2003: Kemp, R. 2003. “Le commerce” in R. Ostrow, T. Vasquez and N. Hale (eds.) Les échanges (Lyon), 11-54.\n"
    "Seeing this, Antigonus III marched on; the foreign city of Kuthalla was far away.\n"
    "Later he sailed back to Smyrna.14 The note says so. See P. Cairo Zen. 59001 and P. Leiden I 384."
)


def test_reference_lists_name_people_and_publication_places(pipeline):
    [found] = list(pipeline.entities([REFERENCES]))
    people = {name for name, label, *_ in found if label == "PERSON"}
    places = {name for name, label, *_ in found if label in ("GPE", "LOC", "FAC")}
    assert {"D. Wolf", "C. Lorber", "B. Bouyon", "G. Depeyrot", "J.-L. Desnier", "R. Kemp"} <= people
    assert {"R. Ostrow", "T. Vasquez", "N. Hale"} <= people  # initials before the surname, then "(eds.)"
    assert "Antigonus III" in people  # a ruler's regnal number
    assert {"Gembloux", "Kuthalla"} <= places  # "(City, year)"; "the city of X"
    assert not {"Ostrow", "Vasquez", "Hale", "Gembloux"} & people
    assert not [name for name, *_ in found if name.startswith("P. ")]  # papyri's sigla, not people
    assert ("Smyrna", ("pleiades:5",)) in {(name, ids) for name, _, _, _, ids in found}  # "Smyrna.14": a note
