"""Recall of `link places` by kind of mention, on a small gazetteer and article written here:
names from Pleiades' name index (and none it gives another place, nor a monument's kind),
spellings texts use (an Arabic article left out, -os/-us, "Methana-Arsinoe" for
"Methana/Arsinoe"), English names, a region's adjective that settles a shared name ("Cilician
Seleucia"), a country after a name that does not veto it; and what stays out (a project's
name, a collection's "City, K 9323", a publisher's "City, Country:"). Loading twice changes nothing; the three engines make
the same links and a second run writes nothing."""

import gzip
import json

import pytest

pytestmark = pytest.mark.e2e


def place(pid, title, names, description, lon, lat):
    return {
        "type": "FeatureCollection",
        "id": pid,
        "title": title,
        "names": names,
        "description": description,
        "features": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat]}}],
    }


PLACES = [
    place(
        "776210",
        "Oasis Magna/Thebaidos",
        ["Oasis Magna", "Thebaidos", "El-Kharga"],
        "Kharga: one of the large oases of Egypt's Western Desert.",
        30.55,
        25.45,
    ),
    place("716520", "Ammon", ["Ammon"], "The Siwa Oasis, site of the oracle of Ammon.", 25.52, 29.2),
    place(
        "570482",
        "Methana/Arsinoe",
        ["Methana", "Arsinoe"],
        "A peninsula and settlement on the north coast of the Argolid.",
        23.39,
        37.6,
    ),
    place("599612", "Ephesos", ["Ephesos"], "An ancient Greek city on the coast of Ionia.", 27.34, 37.94),
    place(
        "648816",
        "Seleukeia",
        ["Seleukeia", "Seleucia"],
        "A Hellenistic city on the Kalykadnos in Cilicia.",
        33.93,
        36.38,
    ),
    place(
        "658598",
        "Seleukeia",
        ["Seleukeia", "Seleucia"],
        "The port of Antioch on the coast of Syria, Seleucia Pieria.",
        35.93,
        36.12,
    ),
    place("648633", "Cilicia", ["Cilicia"], "A region on the southern coast of Asia Minor.", 34.5, 36.9),
    place(
        "383706", "Augusta Taurinorum", ["Augusta Taurinorum"], "A Roman colony on the Po, modern Torino.", 7.68, 45.07
    ),
    place(
        "658457", "Edessa/Antiochia ad Callirhoem", ["Edessa"], "An ancient city of upper Mesopotamia.", 38.79, 37.15
    ),
    place("874298", "Ad Tygrem/Amida", ["Amida"], "Modern Diyarbakir in Turkey.", 40.22, 37.91),
    place("840672014", "Stadium", [], "The stadium of a Greek city.", 25.27, 37.4),
    place("628949", "Cappadocia", ["Cappadocia"], "A region of central Anatolia.", 35.0, 38.5),
    place("128537", "Vindobona", ["Vindobona", "Vienna"], "A Roman legionary fortress on the Danube.", 16.37, 48.21),
    place("373778", "Cyrene", ["Cyrene", "Kyrene"], "A Greek city of Libya, in the Cyrenaica.", 21.86, 32.82),
]
NAME_INDEX = [
    ["Turin", "383706"],  # a modern name
    ["Edessa", "874298"],  # another place's name: not Amida's
    ["Stadion", "840672014"],  # a monument's kind in another spelling
    ["El-Kharga", "776210"],
]
ARTICLE = """<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en">
<head><title>Garrisons and mints</title></head>
<body><main>
<h1>Garrisons and mints</h1>
<p>The forts of Kharga guarded the desert road; the oracle at Siwa was far to the west.
A papyrus from Kharga came to Turin.</p>
<p>Coins from Methana-Arsinoe in Greece and from Ephesus were found together; the Cilician Seleucia
struck none. The Documenting Cappadocia project published them.</p>
<p>A letter (Vienna, K 9323) names the mint.
Coins of Cyrene are listed in The Extramural Sanctuary at Cyrene, Libya: Final Reports.</p>
</main></body>
</html>
"""


def run_json(run_cli, *args):
    result = run_cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def query(neo4j, text):
    with neo4j.driver() as driver:
        return [dict(r) for r in driver.execute_query(text).records]


def edges(neo4j):
    return {
        r["place"]: r["m"]
        for r in query(neo4j, "MATCH (:Chunk)-[m:MENTIONS]->(p:Place) RETURN p.id AS place, m {.*, at: null} AS m")
    }


def decided(got):
    """What parity compares: every property but the engine's name."""
    return {p: {k: v for k, v in m.items() if k != "source"} for p, m in got.items()}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recall")
    (folder / "pleiades-places.geojsonl").write_text("\n".join(json.dumps(p) for p in PLACES) + "\n")
    (folder / "name_index.json.gz").write_bytes(gzip.compress(json.dumps(NAME_INDEX).encode()))
    (folder / "article").mkdir()
    (folder / "article" / "index.xhtml").write_text(ARTICLE)
    return folder


@pytest.fixture
def loaded(schema, run_cli, files):
    out = run_json(run_cli, "load", "pleiades", str(files / "pleiades-places.geojsonl"))
    assert out["places"]["created"] == len(PLACES)
    run_json(run_cli, "load", "geonames", "--countries-only")
    run_json(run_cli, "load", "files", str(files / "article"), "--no-embed")
    return schema


def names(neo4j):
    return {
        r["id"]: r["names"]
        for r in query(neo4j, "MATCH (p:Place {source: 'pleiades'}) RETURN p.id AS id, p.names AS names")
    }


def test_the_name_index_and_spellings_become_names_once(loaded, run_cli, files):
    got = names(loaded)
    assert "Turin" in got["pleiades:383706"], "the index's modern name"
    assert "Kharga" in got["pleiades:776210"], "El-Kharga without its article"
    assert "Ephesus" in got["pleiades:599612"], "Ephesos with the Latin ending"
    assert "Methana-Arsinoe" in got["pleiades:570482"], "the double title as texts join it"
    assert "Edessa" not in got["pleiades:874298"], "the index gives Amida another place's name"
    assert got["pleiades:840672014"] == ["Stadium"], "nor a monument's kind: neither the index's nor a spelling"
    again = run_json(run_cli, "load", "pleiades", str(files / "pleiades-places.geojsonl"))
    assert again["places"]["unchanged"] == len(PLACES) and again["places"]["updated"] == 0
    run_json(run_cli, "load", "pleiades", str(files / "pleiades-places.geojsonl"), "--no-name-index")
    assert "Turin" not in names(loaded)["pleiades:383706"] and "Kharga" in names(loaded)["pleiades:776210"]


def test_each_kind_of_mention_links_and_the_engines_agree(loaded, run_cli):
    out = run_json(run_cli, "link", "places")
    got = edges(loaded)
    assert {p: m["matched"] for p, m in got.items()} == {
        "pleiades:776210": ["Kharga"],
        "pleiades:716520": ["Siwa"],  # an English name (exonyms.txt)
        "pleiades:383706": ["Turin"],
        "pleiades:570482": ["Methana-Arsinoe"],  # "in Greece" (a country of today) does not veto it
        "pleiades:599612": ["Ephesus"],
        "pleiades:648816": ["Seleucia"],  # the Cilician one, by the region's adjective
        "pleiades:373778": ["Cyrene"],  # "Coins of Cyrene"; not the publisher's "Cyrene, Libya:"
        "geonames:390903": ["Greece"],
    }
    assert got["pleiades:648816"]["rule"] == "qualifier" and got["pleiades:776210"]["mentions"] == 2
    assert got["pleiades:373778"]["mentions"] == 1
    assert out["not_a_place"].get("institution") == 2, "the Documenting Cappadocia project; Vienna's collection"

    again = run_json(run_cli, "link", "places")
    assert again["mentions_created"] == again["mentions_updated"] == again["mentions_removed"] == 0

    run_json(run_cli, "link", "places", "--engine", "cypher")
    assert decided(edges(loaded)) == decided(got), "the reference engine decides alike"
    proc = run_json(run_cli, "link", "places", "--engine", "procedure")
    assert proc["mentions_created"] == proc["mentions_removed"] == 0
    assert decided(edges(loaded)) == decided(got), "and so does the in-database engine"
