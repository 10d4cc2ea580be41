"""`graphrag link places` on a real Neo4j: the cached name table (linkers/name_cache.py) is
used while the places are unchanged, follows every change to them, survives a damaged or
stale file, and links exactly what a run without it links; a run writes only the difference
(new, changed and stale edges)."""

import json
import marshal
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

from graphrag_cypher.linkers import name_cache
from graphrag_cypher.linkers.places import PlaceLinkOptions, link_places, link_set

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "linkers"


def query(neo4j, text, **params):
    with neo4j.driver() as driver:
        return [dict(r) for r in driver.execute_query(text, params).records]


def link(run_cli, *args):
    result = run_cli("link", "places", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def edges(neo4j):
    return {
        (r["chunk"], r["place"]): r["m"]
        for r in query(
            neo4j, "MATCH (c:Chunk)-[m:MENTIONS]->(p:Place) RETURN c.id AS chunk, p.id AS place, m {.*} AS m"
        )
    }


@pytest.fixture
def loaded(schema, run_cli):
    assert run_cli("load", "pleiades", str(FIXTURES / "pleiades-sample.geojsonl")).exit_code == 3  # one bad line
    assert run_cli("load", "files", str(FIXTURES / "articles"), "--no-embed").exit_code == 0
    return schema


def test_the_cached_names_follow_loads_extracted_places_and_deletions(loaded, run_cli, tmp_path):
    first = link(run_cli)
    assert not first["names_cached"] and list(Path(".graphrag/cache").glob("place-names-*.marshal"))
    second = link(run_cli)
    assert second["names_cached"] and second["mentions_created"] == second["mentions_updated"] == 0
    at = {k: m["at"] for k, m in edges(loaded).items()}

    # A load that changes a place: Uruk is no longer also called Warka.
    lines = (FIXTURES / "pleiades-sample.geojsonl").read_text("utf-8").splitlines()
    changed = tmp_path / "pleiades.geojsonl"
    changed.write_text(
        "\n".join(line.replace('"names":["Uruk","Warka"]', '"names":["Uruk"]') for line in lines), "utf-8"
    )
    assert run_cli("load", "pleiades", str(changed)).exit_code == 3
    third = link(run_cli)
    assert not third["names_cached"]
    assert (third["mentions_created"], third["mentions_updated"], third["mentions_removed"]) == (0, 1, 0)
    now = edges(loaded)
    [uruk] = [m for (_, place), m in now.items() if place == "pleiades:912986"]
    assert uruk["matched"] == ["Uruk"] and {k: m["at"] for k, m in now.items()} == at, "`at` is the first-made time"

    # A place written without a content hash (an extracted entity typed Place), then deleted.
    query(loaded, "CREATE (:Place:__Entity__ {id: 'kg:old-cairo', name: 'Old Cairo'})")
    fourth = link(run_cli)
    assert not fourth["names_cached"] and fourth["mentions_created"] == 1
    assert fourth["names"] == third["names"] + 1
    query(loaded, "MATCH (p:Place {id: 'kg:old-cairo'}) DETACH DELETE p")
    fifth = link(run_cli)
    assert not fifth["names_cached"] and fifth["mentions_total"] == third["mentions_total"]
    assert link(run_cli)["names_cached"]

    # A hand edit in Neo4j Browser, content hash untouched: Uruk is called Warka again.
    query(loaded, "MATCH (p:Place {id: 'pleiades:912986'}) SET p.names = ['Uruk', 'Warka']")
    sixth = link(run_cli)
    assert not sixth["names_cached"]
    [uruk] = [m for (_, place), m in edges(loaded).items() if place == "pleiades:912986"]
    assert uruk["matched"] == ["Uruk", "Warka"]


def test_without_the_cache_the_links_are_the_same(loaded, run_cli, monkeypatch):
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect

    link(run_cli)
    uncached = link(run_cli, "--no-cache")
    assert not uncached["names_cached"] and uncached["mentions_created"] == uncached["mentions_removed"] == 0
    with connect(load_settings()) as graph:
        cached = link_places(graph, PlaceLinkOptions(dry_run=True))
        fresh = link_places(graph, PlaceLinkOptions(dry_run=True, cache_dir=None))
    assert cached.names_cached and not fresh.names_cached
    assert link_set(cached.edges) == link_set(fresh.edges) and len(cached.edges) == 8


def test_a_run_writes_only_the_difference(loaded, run_cli):
    link(run_cli)
    before = edges(loaded)
    memphis, babylon = ("pleiades:736963", "pleiades:893951")
    query(loaded, "MATCH (:Chunk)-[m:MENTIONS]->(:Place {id: $p}) DELETE m", p=memphis)
    query(loaded, "MATCH (:Chunk)-[m:MENTIONS]->(:Place {id: $p}) SET m.rule = 'tampered', m.note = 'kept'", p=babylon)
    query(
        loaded,
        "MATCH (c:Chunk), (p:Place {id: 'pleiades:79574'}) WITH c, p LIMIT 1 "  # London: stop-listed
        "CREATE (c)-[:MENTIONS {linker: 'places', rule: 'unique-name'}]->(p)",
    )
    query(
        loaded,
        "MATCH (c:Chunk), (p:Place {id: 'pleiades:123456'}) WITH c, p LIMIT 1 "
        "CREATE (c)-[:MENTIONS {linker: 'entities', rule: 'other linker'}]->(p)",
    )
    uruk = "pleiades:912986"  # an extracted mention of Uruk where the linker finds one: taken over, not doubled
    query(
        loaded,
        "MATCH (c:Chunk)-[m:MENTIONS]->(p:Place {id: $p}) DELETE m "
        "CREATE (c)-[:MENTIONS {source: 'llm', at: datetime('2020-01-01T00:00:00Z')}]->(p)",
        p=uruk,
    )
    out = link(run_cli)
    babylon_edges = sum(1 for (_, p) in before if p == babylon)
    assert (out["mentions_created"], out["mentions_updated"], out["mentions_removed"]) == (1, babylon_edges, 1)
    after = edges(loaded)
    other = [m for m in after.values() if m["linker"] == "entities"]
    assert len(other) == 1, "another linker's edge is not this linker's to remove"
    for key, m in before.items():
        assert {k: v for k, v in after[key].items() if k not in ("at", "note")} == {
            k: v for k, v in m.items() if k != "at"
        }
        if key[1] not in (memphis, uruk):
            assert after[key]["at"] == m["at"]
    [(_, taken)] = [(k, m) for k, m in after.items() if k[1] == uruk]
    assert (
        str(taken["at"]).startswith("2020-01-01")
        and len(query(loaded, "MATCH (:Chunk)-[m:MENTIONS]->(:Place {id: $p}) RETURN m", p=uruk)) == 1
    )
    assert all(after[k].get("note") == "kept" for k in before if k[1] == babylon), "other properties stay"
    again = link(run_cli)
    assert again["mentions_created"] == again["mentions_updated"] == again["mentions_removed"] == 0


@contextmanager
def graph_reads():
    """The configured graph, and the names of the queries it is asked to read (the server answers them)."""
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect

    asked: list[str] = []
    with connect(load_settings()) as graph:
        read, read_row = graph.read, graph.read_row
        graph.read = lambda name, /, **params: (asked.append(name), read(name, **params))[1]
        graph.read_row = lambda name, /, **params: (asked.append(name), read_row(name, **params))[1]
        yield graph, asked


def cache_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("place-names-*.marshal"))


def test_an_unchanged_gazetteer_is_linked_without_reading_a_name(loaded, tmp_path):
    cache = tmp_path / "cache"
    said: list[str] = []
    with graph_reads() as (graph, asked):
        first = link_places(graph, PlaceLinkOptions(cache_dir=cache, dry_run=True, progress=said.append))
        assert not first.names_cached and "places/names" in asked
        assert said == [
            f"{first.names} names of {first.places} places ({first.stoplisted} stop-listed, "
            f"{first.too_short} too short)"
        ], "the one progress callback"
        assert first.found == len(first.edges) == first.to_dict()["mentions"] > 0
        [path] = cache_files(cache)
        asked.clear()
        second = link_places(graph, PlaceLinkOptions(cache_dir=cache, dry_run=True))
    assert second.names_cached and "places/names" not in asked and "places/fingerprint" in asked
    assert cache_files(cache) == [path]
    assert link_set(second.edges) == link_set(first.edges) and second.names == first.names


def test_the_names_query_fingerprints_the_places_as_the_fingerprint_query_does(loaded):
    with graph_reads() as (graph, _):
        names = graph.read_row("places/names", sources=None)
        [row] = graph.read("places/fingerprint", sources=None)
        [pleiades] = graph.read("places/fingerprint", sources=["pleiades"])
        only = graph.read_row("places/names", sources=["pleiades"])
    assert [len(names["ids"]), names["fingerprint"]] == [row["places"], row["fingerprint"]]
    assert [len(only["ids"]), only["fingerprint"]] == [pleiades["places"], pleiades["fingerprint"]]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "automaton", "missing keys"])
def test_a_damaged_cache_file_is_built_again_and_links_the_same(loaded, tmp_path, damage):
    cache = tmp_path / "cache"
    with graph_reads() as (graph, asked):
        fresh = link_places(graph, PlaceLinkOptions(cache_dir=None, dry_run=True))
        link_places(graph, PlaceLinkOptions(cache_dir=cache, dry_run=True))
        [path] = cache_files(cache)
        data = path.read_bytes()
        if damage == "garbage":
            path.write_bytes(b"\x00 not a table")
        elif damage == "truncated":
            path.write_bytes(data[: len(data) // 2])
        elif damage == "missing keys":
            path.write_bytes(marshal.dumps({"fingerprint": [1, "x"]}))
        else:  # a file that reads, with an automaton that does not load
            saved = marshal.loads(data)
            saved["automaton"] = {"forms": [], "automaton": ["not", "an", "automaton"]}
            path.write_bytes(marshal.dumps(saved))
        asked.clear()
        again = link_places(graph, PlaceLinkOptions(cache_dir=cache, dry_run=True))
    assert link_set(again.edges) == link_set(fresh.edges) and again.found == fresh.found > 0
    if damage == "automaton":
        assert again.names_cached and "places/names" not in asked, "the table stands; the matcher is built anew"
    else:
        assert not again.names_cached and "places/names" in asked
        assert marshal.loads(path.read_bytes())["fingerprint"], "the file was written again"


def test_a_stale_cache_file_is_never_used(loaded, run_cli, tmp_path):
    cache = tmp_path / "cache"
    with graph_reads() as (graph, _):
        link_places(graph, PlaceLinkOptions(cache_dir=cache, dry_run=True))
    [path] = cache_files(cache)
    old = tmp_path / "old.marshal"
    shutil.copy(path, old)
    query(loaded, "MATCH (p:Place {id: 'pleiades:912986'}) SET p.names = ['Uruk']")  # no longer also Warka
    with graph_reads() as (graph, _):
        fresh = link_places(graph, PlaceLinkOptions(cache_dir=None, dry_run=True))
        rebuilt = link_places(graph, PlaceLinkOptions(cache_dir=cache, dry_run=True))
        shutil.copy(old, path)  # the file of the places before, back in its place
        stale = link_places(graph, PlaceLinkOptions(cache_dir=cache, dry_run=True))
        stale_cypher = link_places(graph, PlaceLinkOptions(engine="cypher", cache_dir=None, dry_run=True))
    assert not rebuilt.names_cached and not stale.names_cached, "the fingerprint differs: names read again"
    assert link_set(stale.edges) == link_set(rebuilt.edges) == link_set(fresh.edges)
    assert {m for p in fresh.edges.values() for m in p["matched"]} >= {"Uruk"}
    assert not any("Warka" in p["matched"] for p in stale.edges.values())
    assert {(c, t) for c, t in stale.edges} == {(c, t) for c, t in stale_cypher.edges}


def test_rules_have_their_own_file_the_cache_can_be_off_and_old_files_go(loaded, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    with graph_reads() as (graph, asked):
        link_places(graph, PlaceLinkOptions(cache_dir=None, dry_run=True))
        assert not cache.exists(), "--no-cache writes nothing"
        base = link_places(graph, PlaceLinkOptions(cache_dir=cache, dry_run=True))
        shorter = link_places(graph, PlaceLinkOptions(cache_dir=cache, dry_run=True, min_length=2))
        assert not shorter.names_cached and len(cache_files(cache)) == 2 and shorter.names >= base.names
        assert link_places(graph, PlaceLinkOptions(cache_dir=cache, dry_run=True)).names_cached
        sample = link_places(graph, PlaceLinkOptions(cache_dir=cache, dry_run=True, only_keys=frozenset({"uruk"})))
        assert sample.names_cached and sample.names == 1
        assert {t for _, t in sample.edges} == {"pleiades:912986"}, "a sample builds its own automaton"
        monkeypatch.setattr(name_cache, "CACHE_KEEP", 2)
        for length in (4, 5, 6):
            link_places(graph, PlaceLinkOptions(cache_dir=cache, dry_run=True, min_length=length))
    assert len(cache_files(cache)) == 2
