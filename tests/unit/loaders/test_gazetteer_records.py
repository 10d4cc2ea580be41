"""A gazetteer file that repeats an id, or holds a record without one: one clear error per
record, the first record with an id kept, in every Pleiades format."""

from __future__ import annotations

import json

from graphrag_cypher.loaders.gazetteers import GazetteerError, parse_pleiades


def _place(pid, title: str) -> dict:
    record = {"title": title, "names": [title], "features": []}
    return record if pid is None else {"id": pid, **record}


def _split(items):
    rows = [i for i in items if not isinstance(i, GazetteerError)]
    errors = [i for i in items if isinstance(i, GazetteerError)]
    return rows, errors


def test_geojsonl_duplicate_id_keeps_the_first_and_names_both_lines(tmp_path):
    path = tmp_path / "places.geojsonl"
    lines = [_place("1", "Ostia"), _place("2", "Portus"), _place("1", "Not Ostia"), _place(None, "Nameless")]
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8")
    rows, errors = _split(list(parse_pleiades(path)))
    assert [r["props"]["title"] for r in rows] == ["Ostia", "Portus"]
    assert [(e.item, e.error) for e in errors] == [
        ("places.geojsonl:3", "duplicate id '1': places.geojsonl:1 has it already, this record skipped"),
        ("places.geojsonl:4", "record 4 has no id"),
    ]


def test_json_dump_duplicate_and_missing_ids_are_reasons(tmp_path):
    path = tmp_path / "places.json"
    graph = [_place("7", "Babylon"), _place(None, "x"), _place("7", "Babylon again"), "a string", _place(" ", "y")]
    path.write_text(json.dumps({"@graph": graph}), encoding="utf-8")
    rows, errors = _split(list(parse_pleiades(path)))
    assert [r["props"]["title"] for r in rows] == ["Babylon"]
    assert [(e.item, e.error) for e in errors] == [
        ("places.json[1]", "record 1 has no id"),
        ("places.json[2]", "duplicate id '7': places.json[0] has it already, this record skipped"),
        ("places.json[3]", "record 3 is not a JSON object"),
        ("places.json[4]", "record 4 has no id"),
    ]
    assert not any("'id'" == e.error.split(": ")[-1] for e in errors)


def test_csv_duplicate_and_missing_ids(tmp_path):
    path = tmp_path / "pleiades-places.csv"
    path.write_text("id,title\n5,Ostia\n,Nowhere\n5,Ostia again\n", encoding="utf-8")
    rows, errors = _split(list(parse_pleiades(path)))
    assert [r["props"]["title"] for r in rows] == ["Ostia"]
    assert [(e.item, e.error) for e in errors] == [
        ("pleiades-places.csv:3", "record 3 has no id"),
        ("pleiades-places.csv:4", "duplicate id '5': pleiades-places.csv:2 has it already, this record skipped"),
    ]


def test_a_repeated_id_is_counted_as_failed_not_updated(neo4j, run_cli, tmp_path):
    path = tmp_path / "places.geojsonl"
    lines = [_place("1", "Ostia"), _place("1", "Not Ostia"), _place(None, "Nameless"), _place("2", "Portus")]
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8")
    result = run_cli("load", "pleiades", str(path), "--json")
    summary = json.loads(result.stdout)
    assert result.exit_code == 3, result.output
    assert summary["places"]["created"] == 2 and summary["places"]["updated"] == 0, summary
    assert summary["places"]["failed"] == 2, summary
    assert {e["error"] for e in summary["errors"]} == {
        "duplicate id '1': places.geojsonl:1 has it already, this record skipped",
        "record 3 has no id",
    }
    with neo4j.driver() as driver:
        titles = driver.execute_query("MATCH (p:Place) RETURN p.title AS t ORDER BY t").records
    assert [r["t"] for r in titles] == ["Ostia", "Portus"]
