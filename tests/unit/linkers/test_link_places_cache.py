"""The place linker's name-table cache, against a stand-in for Neo4j: used only while the
places' fingerprint is the one it was built from, rebuilt otherwise, never required."""

import re
from concurrent.futures import ThreadPoolExecutor
from importlib import resources

import pytest

from graphrag_cypher.linkers import places
from graphrag_cypher.linkers.matcher import Matcher
from graphrag_cypher.linkers.places import LinkResult, PlaceLinkOptions, PlaceNameSource, place_names


class Places:
    """Answers places/names and places/fingerprint like Neo4j would, and counts the reads."""

    def __init__(self, rows):
        self.rows, self.reads = rows, []

    def fingerprint(self):
        return [len(self.rows), repr(sorted(self.rows))]

    def read(self, name, /, **params):
        self.reads.append(name)
        places_, md5 = self.fingerprint()
        if name == "places/fingerprint":
            return [{"places": places_, "fingerprint": md5}]
        assert name == "places/names"
        return [{"ids": [r[0] for r in self.rows], "names": [r[1] for r in self.rows],
                 "points": [[r[2], r[3]] for r in self.rows],
                 "profiles": [[r[1][0], None, "pleiades", []] for r in self.rows], "fingerprint": md5}]

    def read_row(self, name, /, **params):
        return self.read(name, **params)[0]


def names_of(graph, tmp_path, **options):
    result = LinkResult("fast")
    names = place_names(graph, PlaceLinkOptions(cache_dir=tmp_path / "cache", **options), result)
    coords = {pid: p.point for pid, p in names.profiles.items() if p.point}
    return names.table.targets, coords, result.names_cached


def test_the_table_is_reused_while_the_places_are_the_same(tmp_path):
    graph = Places([("p:1", ["Babylon", "Bābil"], 32.5, 44.4), ("p:2", ["Uruk"], None, None)])
    first = names_of(graph, tmp_path)
    assert first == ({"babil": ("p:1",), "babylon": ("p:1",), "uruk": ("p:2",)}, {"p:1": (32.5, 44.4)}, False)
    graph.reads.clear()
    assert names_of(graph, tmp_path) == (*first[:2], True)
    assert graph.reads == ["places/fingerprint"], "no names read while the places are unchanged"


def test_a_change_to_the_places_rebuilds_the_table(tmp_path):
    graph = Places([("p:1", ["Babylon"], 32.5, 44.4)])
    names_of(graph, tmp_path)
    graph.rows.append(("p:3", ["Warka"], 31.3, 45.6))
    targets, coords, cached = names_of(graph, tmp_path)
    assert not cached and targets == {"babylon": ("p:1",), "warka": ("p:3",)} and "p:3" in coords
    assert names_of(graph, tmp_path)[2], "the rebuilt table was saved"
    graph.rows.pop(0)
    assert names_of(graph, tmp_path)[:2] == ({"warka": ("p:3",)}, {"p:3": (31.3, 45.6)})


def test_cached_names_come_at_once_and_the_places_confirm_them_after(tmp_path):
    graph = Places([("p:1", ["Babylon"], 32.5, 44.4)])
    names_of(graph, tmp_path)
    graph.rows.append(("p:3", ["Warka"], 31.3, 45.6))
    result = LinkResult("fast")
    with ThreadPoolExecutor(max_workers=1) as pool:  # the fingerprint in the background
        source = PlaceNameSource(graph, PlaceLinkOptions(cache_dir=tmp_path / "cache"), result, pool)
        assert source.names.table.targets == {"babylon": ("p:1",)} and source.unconfirmed and result.names_cached
        assert not source.confirm(), "the places changed"
    assert source.names.table.targets == {"babylon": ("p:1",), "warka": ("p:3",)} and not result.names_cached
    assert source.confirm() and not source.unconfirmed
    assert graph.reads == ["places/names", "places/fingerprint", "places/names"]


def test_rules_have_their_own_table_and_the_cache_can_be_off(tmp_path):
    graph = Places([("p:1", ["Babylon", "Ur"], 32.5, 44.4)])
    assert names_of(graph, tmp_path)[0] == {"babylon": ("p:1",)}
    assert names_of(graph, tmp_path, min_length=2)[0] == {"babylon": ("p:1",), "ur": ("p:1",)}
    assert names_of(graph, tmp_path, stoplist=frozenset({"babylon"}))[0] == {}
    assert names_of(graph, tmp_path)[2] and len(list((tmp_path / "cache").glob("place-names-*"))) == 3
    graph.reads.clear()
    result = LinkResult("fast")
    place_names(graph, PlaceLinkOptions(cache_dir=None), result)
    assert graph.reads == ["places/names"] and not result.names_cached


def test_the_saved_automaton_finds_what_a_new_one_finds(tmp_path):
    graph = Places([("p:1", ["Babylon", "Bābil"], 32.5, 44.4), ("p:2", ["Tell el-Amarna", "Tell el Amarna"], 27.6, 30.9)])
    names_of(graph, tmp_path)
    names = place_names(graph, PlaceLinkOptions(cache_dir=tmp_path / "cache"), LinkResult("fast"))
    assert names.automaton is not None
    text = "From Bābil to Tell el Amarna, and to Babylon; not Babylonia."
    saved, built = Matcher(names.table, saved=names.automaton), Matcher(names.table)
    assert saved.find(text) == built.find(text) and len(built.find(text)) == 3
    sample = place_names(graph, PlaceLinkOptions(cache_dir=tmp_path / "cache", only_keys=frozenset({"babil"})),
                         LinkResult("fast"))
    assert sample.table.targets == {"babil": ("p:1",)} and sample.automaton is None, "a sample builds its own"


def test_a_damaged_saved_automaton_is_built_again(tmp_path):
    graph = Places([("p:1", ["Babylon"], 32.5, 44.4)])
    names = place_names(graph, PlaceLinkOptions(cache_dir=tmp_path / "cache"), LinkResult("fast"))
    names.automaton = {"forms": [], "automaton": ["not", "an", "automaton"]}
    matcher = places._matcher(names, PlaceLinkOptions())
    assert [m.key for m in matcher.find("To Babylon.")] == ["babylon"]


def test_an_unreadable_cache_file_is_rebuilt_and_old_files_are_dropped(tmp_path, monkeypatch):
    graph = Places([("p:1", ["Babylon"], 32.5, 44.4)])
    names_of(graph, tmp_path)
    [path] = (tmp_path / "cache").glob("place-names-*.marshal")
    path.write_bytes(b"\x00 not a table")
    assert names_of(graph, tmp_path) == ({"babylon": ("p:1",)}, {"p:1": (32.5, 44.4)}, False)
    assert names_of(graph, tmp_path)[2]
    monkeypatch.setattr(places, "CACHE_KEEP", 2)
    for length in (4, 5, 6):
        names_of(graph, tmp_path, min_length=length)
    assert len(list((tmp_path / "cache").glob("place-names-*"))) == 2


def test_the_names_query_fingerprints_its_places_as_the_fingerprint_query_does():
    def fingerprint(name):
        text = resources.files("graphrag_cypher.cypher").joinpath("queries", "places", name).read_text("utf-8")
        body = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
        match = re.search(r"apoc\.util\.md5\(.*?\) AS fingerprint", body, re.S)
        return re.sub(r"\s+", " ", match.group(0)), body.split("RETURN")[0]

    assert fingerprint("names.cypher") == fingerprint("fingerprint.cypher")


@pytest.mark.parametrize("change", ["query", "stoplist", "min_length", "sources"])
def test_the_file_name_follows_the_rules_and_the_queries(change, monkeypatch):
    options, sources = PlaceLinkOptions(), None
    before = places.rules_key(sources, options)
    if change == "query":
        monkeypatch.setattr(places, "query", lambda name: "changed " + name)
    elif change == "stoplist":
        options = PlaceLinkOptions(stoplist=options.stoplist | {"babylon"})
    elif change == "min_length":
        options = PlaceLinkOptions(min_length=4)
    else:
        sources = ["pleiades"]
    assert places.rules_key(sources, options) != before
