"""The names a Pleiades load gives a place beyond its own: the name index's (a bad item is one
error, the rest loads) and the spellings texts use (spelling_variants)."""

import gzip
import json

from graphrag_cypher.loaders.gazetteers import GazetteerError, parse_pleiades, spelling_variants


def test_spelling_variants_by_family():
    assert spelling_variants(["El-Kharga", "al-Ashmunein", "ed-Dayr"]) == ["Kharga", "Ashmunein"], "not a 4-letter word"
    assert spelling_variants(["Oxyrhynchos", "Byzantion", "Tarsus"]) == ["Oxyrhynchus", "Byzantium", "Tarsos"]
    assert spelling_variants(["Korinthos"]) == ["Korinthus", "Corinthus"], "k as c only with the ending"
    assert spelling_variants(["Krane", "Babylon", "Kos"]) == [], "no ending, or too short: nothing"
    assert spelling_variants(["Ag. Epiphanios"]) == ["Ag. Epiphanius"], "each word of a longer name"
    assert spelling_variants(["Methana", "Arsinoe"], "Methana/Arsinoe") == ["Methana-Arsinoe"]
    assert spelling_variants(["Lycaonia", "Lykaonia"], "Lycaonia (province)") == [
        "Lycaonie",
        "Lycaonien",
        "Lykaonie",
        "Lykaonien",
    ], "a province's -ia as French and German texts write it"
    assert spelling_variants(["Olympia"], "Olympia") == [], "a town's -ia stays: only a region's or a province's"
    assert spelling_variants(["Asia"], "Asia (Roman province)") == [], "too short"
    assert spelling_variants(["Apa Epiphanius"], "Apa Epiphanius, Mon.") == [
        "Apa Epiphanios",
        "Monastery of Apa Epiphanius",
        "Apa Epiphanius Monastery",
        "Monastery of Epiphanius",
        "Epiphanius Monastery",
    ]


def _place(pid, title, names):
    return {"type": "FeatureCollection", "id": pid, "title": title, "names": names, "features": []}


def test_the_name_index_adds_names_and_reports_bad_items(tmp_path):
    places = tmp_path / "places.geojsonl"
    places.write_text(
        "\n".join(
            json.dumps(p)
            for p in [
                _place("1", "Augusta Taurinorum", ["Augusta Taurinorum"]),
                _place("2", "Edessa", ["Edessa"]),
                _place("3", "Amida", ["Amida"]),
                _place("4", "Temple of Claudius", ["Temple of Claudius"]),
                _place("5", "Ephesos", ["Ephesos"]),
                _place("6", "Ephesus", ["Ephesus"]),
            ]
        )
    )
    index = tmp_path / "name_index.json.gz"
    pairs = [
        ["Turin", "1"],
        [" Torino ", 1],
        ["Edessa", "3"],
        ["Claudius", "4"],
        ["Turin"],
        [3, "1"],
        ["Augusta/Turin", "1"],
    ]
    index.write_bytes(gzip.compress(json.dumps(pairs).encode()))
    items = list(parse_pleiades(places, name_index=index))
    errors = [i for i in items if isinstance(i, GazetteerError)]
    assert [e.item for e in errors] == ["name_index.json.gz[4]", "name_index.json.gz[5]"]
    assert all(e.error == "not a [name, place id] pair, skipped" for e in errors)
    names = {i["id"]: i["props"]["names"] for i in items if not isinstance(i, GazetteerError)}
    assert names["pleiades:1"] == ["Augusta Taurinorum", "Turin", "Torino", "Augusta"]
    assert names["pleiades:3"] == ["Amida"], "Edessa is another place's own name"
    assert names["pleiades:4"] == ["Temple of Claudius"], "a monument takes no name from the index"
    assert names["pleiades:5"] == ["Ephesos"], "a spelling another place is called by is not added"
    again = list(parse_pleiades(places, name_index=index))
    assert again == items, "the same rows (and content hashes) every time"


def test_an_unreadable_index_is_one_error_and_the_places_load(tmp_path):
    places = tmp_path / "places.geojsonl"
    places.write_text(json.dumps(_place("1", "Ephesos", ["Ephesos"])) + "\n")
    index = tmp_path / "name_index.json"
    index.write_text('{"not": "a list"}')
    items = list(parse_pleiades(places, name_index=index))
    assert [(i.item, i.error) for i in items if isinstance(i, GazetteerError)] == [
        ("name_index.json", "expected a JSON list of [name, place id] pairs")
    ]
    [row] = [i for i in items if not isinstance(i, GazetteerError)]
    assert row["props"]["names"] == ["Ephesos", "Ephesus"]
