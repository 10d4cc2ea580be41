"""Not-a-place contexts, longest match and the decision, on plain strings (no database)."""

from graphrag_cypher.linkers.contexts import Occurrence, kind_cues, longest_matches, not_a_place, qualifier
from graphrag_cypher.linkers.disambiguation import Profile, decide, profile
from graphrag_cypher.text import fold


def occ(before, surface, after="", key=None, start=0):
    return Occurrence("c1", key or fold(surface), start, start + len(surface), surface, before, after)


def test_longest_match_wins_and_the_earlier_on_ties():
    asia = occ("", "Asia", key="asia", start=10)
    minor = Occurrence("c1", "asia minor", 10, 20, "Asia Minor", "", "")
    other = Occurrence("c1", "rome", 30, 34, "Rome", "", "")
    assert longest_matches([asia, minor, other]) == [minor, other]
    a, b = Occurrence("c1", "ab cd", 0, 5, "Ab Cd", "", ""), Occurrence("c1", "cd ef", 3, 8, "Cd Ef", "", "")
    assert longest_matches([b, a]) == [a]


def test_not_a_place_contexts():
    assert not_a_place(occ("the work of Heron of ", "Alexandria")) == "person-epithet"
    assert not_a_place(occ("across the Gulf of ", "Corinth")) is None
    assert not_a_place(occ("the Bishop of ", "Edessa")) is None
    assert not_a_place(occ("see P. ", "Cairo", " 30758")) == "siglum"
    assert not_a_place(occ("the American School at ", "Athens")) == "institution"
    assert not_a_place(occ("Queen ", "Berenice"), person_names=frozenset({"berenice"})) == "person-name"
    assert not_a_place(occ("the port of ", "Berenice"), person_names=frozenset({"berenice"})) is None
    title = occ("published in ", "Libya", " Antiqua 5 (1968)")
    assert not_a_place(title, emphasis=["Libya Antiqua"]) == "title"
    assert not_a_place(occ("we sailed to ", "Libya", " and back"), emphasis=["Libya Antiqua"]) is None
    assert not_a_place(occ("the game ", "Thebes", " is"), emphasis=["Thebes"]) is None, "a bare name in italics"


def test_kind_cues_and_qualifiers():
    assert "province" in kind_cues(occ("the province of ", "Asia"))
    assert "island" in kind_cues(occ("on the island of ", "Delos"))
    assert "modern" in kind_cues(occ("in modern ", "Greece"))
    assert qualifier(occ("", "Antioch", " in Pisidia was")) == "Pisidia"


def test_decide_prefers_described_located_records_and_context():
    described = profile(
        title="Asia (Roman province)",
        description="The Roman province of Asia.",
        source="pleiades",
        place_types=[],
        lat=38.4,
        lon=27.7,
        fold=fold,
    )
    stub = profile(
        title="Asia",
        description="An ancient place, cited: BAtlas 61 E1 *Asia",
        source="pleiades",
        place_types=[],
        lat=38.0,
        lon=27.4,
        fold=fold,
    )
    continent = profile(
        title="Asia",
        description="A continent.",
        source="geonames",
        place_types=["continent"],
        lat=29.8,
        lon=89.3,
        fold=fold,
    )
    assert described.kind == "province" and stub.quality == 0 and continent.modern
    profiles = {"p:1": described, "p:2": stub, "g:1": continent}
    province = decide("asia", ("p:1", "p:2", "g:1"), profiles, cues={"province"})
    assert province.target == "p:1" and province.rule in ("kind-cue", "modern-name") and province.confidence >= 0.5
    assert decide("asia", ("p:1", "p:2", "g:1"), profiles, cues=set()).target == "g:1"
    assert decide("asia", ("p:1", "p:2", "g:1"), profiles, cues={"ancient"}).target == "p:1"
    unlocated = {"p:9": Profile(quality=-0.4)}
    assert decide("mena", ("p:9",), unlocated, cues=set()).confidence < 0.5, "an unlocated stub alone links nothing"
    near = {"a": Profile(quality=1.0, point=(37.9, 23.0)), "b": Profile(quality=1.0, point=(39.9, 26.6))}
    close = decide("kenchreai", ("a", "b"), near, cues=set(), distance=lambda t: {"a": 10.0, "b": 400.0}[t])
    assert close.target == "a" and close.rule == "context-nearest" and close.candidates == ["a", "b"]


def test_title_cues():
    from graphrag_cypher.linkers.contexts import title_cue

    assert title_cue(occ("a game like ", "Thebes", "? What is at stake"))
    assert title_cue(occ("played ", "Thebes", " (2007, originally published"))
    assert title_cue(occ("", "Thebes", " is only one game among many"))
    assert not title_cue(occ("the walls of ", "Thebes", " (Boeotia) were"))
