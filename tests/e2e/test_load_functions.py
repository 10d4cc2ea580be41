"""The loading functions without the CLI, as `chat` and scripts call them: embed_pending,
write_places and learn, against the session's real Neo4j."""

from itertools import pairwise

import pytest

from graphrag_cypher.config import load_settings
from graphrag_cypher.db import connect
from graphrag_cypher.errors import GraphragError
from graphrag_cypher.loaders.gazetteers import GazetteerError, place_row
from graphrag_cypher.loaders.learn import learn
from graphrag_cypher.loaders.places import write_places
from graphrag_cypher.model import ParsedDocument, Section
from graphrag_cypher.store.ingest import LoadOptions, embed_pending, load

pytestmark = pytest.mark.e2e


@pytest.fixture
def graph(schema):
    with connect(load_settings()) as graph:
        yield graph


def rows(neo4j, text, **params):
    with neo4j.driver() as driver:
        return [dict(r) for r in driver.execute_query(text, params).records]


def doc(n: int) -> ParsedDocument:
    text = f"Tale {n}. " + " ".join(f"The miller of village {n} counted sack {i} at the mill." for i in range(12))
    return ParsedDocument(
        id=f"story:{n}", title=f"Tale {n}", kind="story", source=f"tales.jsonl#{n}", sections=[Section(text=text)]
    )


def test_embed_pending_embeds_each_chunk_once_in_batches(schema, graph):
    from graphrag_cypher.embedder import make_embedder

    stats = load(
        graph, None, LoadOptions(loader="test", source_root="tales", chunk_size=200, overlap=0), [doc(1), doc(2)]
    )
    assert stats.created == 2 and stats.embedded == 0 and stats.chunks_created >= 4
    embedder = make_embedder(load_settings())
    seen: list[int] = []
    total = embed_pending(graph, embedder, batch=3, on_progress=seen.append)
    assert total == stats.chunks_created
    assert seen == sorted(seen) and seen[-1] == total and all(b - a <= 3 for a, b in pairwise([0, *seen]))
    assert (
        rows(schema, "MATCH (c:Chunk) WHERE c.embedding IS NULL OR c.embeddingModel <> $m RETURN c", m=embedder.name)
        == []
    )
    assert embed_pending(graph, embedder) == 0


def place(key: str, title: str) -> dict:
    return place_row(
        source="pleiades",
        key=key,
        title=title,
        names=[],
        description=None,
        place_types=["settlement"],
        lat=41.9,
        lon=12.5,
        uri=f"https://pleiades.stoa.org/places/{key}",
        extra={"pleiadesId": key},
    )


def test_write_places_reports_bad_rows_and_changes_nothing_twice(schema, graph):
    errors, progress = [], []
    items = [place("1", "Roma"), GazetteerError("places.csv:3", "no id"), place("2", "Ostia")]
    stats = write_places(
        graph, items, batch=1, on_error=errors.append, on_progress=lambda s: progress.append(s.written)
    )
    assert (stats.created, stats.updated, stats.unchanged, stats.failed) == (2, 0, 0, 1)
    assert [e.item for e in errors] == ["places.csv:3"] and stats.errors == [{"item": "places.csv:3", "error": "no id"}]
    assert progress == [1, 2]
    assert stats.to_dict()["places"] == {"created": 2, "updated": 0, "unchanged": 0, "failed": 1}
    again = write_places(graph, [place("1", "Roma"), place("2", "Ostia Antica")])
    assert (again.created, again.updated, again.unchanged, again.failed) == (0, 1, 1, 0)
    assert {r["title"] for r in rows(schema, "MATCH (p:Place) RETURN p.title AS title")} == {"Roma", "Ostia Antica"}


def test_learn_loads_with_topics_and_relinks_only_on_change(schema, graph, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "ports.md").write_text("# Ports\n\nOstia was the harbour of Rome; grain came from Alexandria.\n")
    relinked = []

    def relink(g):
        relinked.append(g)
        return {"phrases": 0, "links": 0, "links_created": 0, "links_removed": 0}

    result = learn(
        graph, None, f"learn: harbours, grain | path: {notes}", LoadOptions("x", "", topics=("trade",)), relink=relink
    )
    assert result.stats.created == 1 and relinked == [graph]
    assert result.to_dict()["phrases"] == {"phrases": 0, "links": 0, "links_created": 0, "links_removed": 0}
    stored = rows(schema, "MATCH (d:Document) RETURN d.topics AS topics, d.loader AS loader, d.sourceRoot AS root")
    assert stored == [{"topics": ["harbours", "grain", "trade"], "loader": "learn", "root": str(notes.resolve())}]
    again = learn(
        graph, None, f"harbours, grain | path: {notes}", LoadOptions("x", "", topics=("trade",)), relink=relink
    )
    assert again.stats.unchanged == 1 and len(relinked) == 1 and "phrases" not in again.to_dict()
    with pytest.raises(GraphragError, match="path not found"):
        learn(graph, None, f"harbours | path: {tmp_path / 'missing'}")
