"""The graph mode's passages about the question's entities hold as the corpus grows: an entity that
many passages name in passing keeps its own passage among the seeds, on both paths (the plugin's
`graphrag.retrieve.graph` and the Cypher files)."""

from __future__ import annotations

import random

import pytest

pytestmark = pytest.mark.e2e

PASSING = 30  # passages naming each entity in passing: more than perEntity (20)


def build(driver) -> None:
    """Two topics, each named in passing by PASSING chunks; t1's own chunk linked before them, t2's
    after, so whichever order the database lists mentions in, one of them comes past the first 20."""
    rng = random.Random(5)
    chunks = [{"id": f"c{i:02d}", "doc": f"d{i:02d}", "embedding": [rng.random() for _ in range(4)]} for i in range(64)]
    mentions = [{"chunk": "c60", "entity": "t1", "rule": "own-title"}]
    mentions += [{"chunk": f"c{i:02d}", "entity": "t1", "rule": "unique"} for i in range(PASSING)]
    mentions += [{"chunk": f"c{i:02d}", "entity": "t2", "rule": "unique"} for i in range(PASSING, 2 * PASSING)]
    mentions += [{"chunk": "c61", "entity": "t2", "rule": "own-title"}]
    with driver.session() as session:
        session.run(
            "UNWIND $chunks AS c CREATE (d:Document {id: c.doc, title: 'Doc ' + c.doc, corpus: 'a'}) "
            "CREATE (:Chunk {id: c.id, text: 'chunk ' + c.id + ' harbour', embedding: c.embedding})"
            "-[:FROM_DOCUMENT]->(d)",
            chunks=chunks,
        ).consume()
        for m in mentions:  # one by one: the order the relationships are made in is the point
            session.run(
                "MATCH (c:Chunk {id: $chunk}) MERGE (t:__Entity__:Topic {id: $entity}) "
                "ON CREATE SET t.name = 'Topic ' + $entity CREATE (c)-[:MENTIONS {rule: $rule}]->(t)",
                **m,
            ).consume()
        session.run(
            "CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS FOR (c:Chunk) ON c.embedding "
            "OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.similarity_function`: 'cosine'}}"
        ).consume()
        session.run("CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (c:Chunk) ON EACH [c.text]").consume()
        session.run("CALL db.awaitIndexes(60)").consume()


def test_an_entity_named_in_passing_by_many_passages_keeps_its_own_passage(neo4j):
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.retrieval.base import Analysis, Filters
    from graphrag_cypher.retrieval.graph import GraphRetriever

    with neo4j.driver() as driver:
        build(driver)
    with connect(load_settings()) as graph:
        analysis = Analysis(
            question="harbour",
            search_text="harbour",
            keywords=["harbour"],
            entities=[{"id": "t1"}, {"id": "t2"}],
            route=None,
            language="en",
            filters=Filters(),
            embedding=[0.2, 0.9, 0.1, 0.4],
        )
        first = graph.read_text(
            "UNWIND ['t1', 't2'] AS t MATCH (:__Entity__ {id: t})<-[:MENTIONS]-(n:Chunk) "
            "WITH t, collect(n.id)[0..20] AS first RETURN collect(first) AS firsts"
        )[0]["firsts"]
        assert not all({"c60", "c61"} & set(ids) for ids in first), "one own chunk comes past the first 20 mentions"
        retriever = GraphRetriever(graph, None, {"linkSeeds": 0})
        inside = retriever.rank(analysis, 5)
        graph._graphrag_plugin = {"version": None, "names": []}  # as on a server without the jar
        try:
            outside = retriever.rank(analysis, 5)
        finally:
            del graph._graphrag_plugin
    for ranked in (inside, outside):
        about = [e.chunk_id for e in ranked if e.via[0].startswith("about question entity")]
        assert about == ["c60", "c61"], [(e.chunk_id, e.via) for e in ranked]
    assert [e.to_dict() for e in inside] == [e.to_dict() for e in outside]
