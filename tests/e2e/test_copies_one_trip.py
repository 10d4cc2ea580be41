"""The hybrid and graph modes read each row's copies with the ranking itself (hybrid.cypher,
graph_procedure.cypher): a question is one query, a copy set aside is replaced by a spare row
of the same ranking (no second ranking), and the copies read so are chunk_copies.cypher's."""

import pytest

from .test_ask_copies import QUESTION, load_sample_with_a_copy

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def graph(neo4j_server, tmp_path_factory):
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect

    load_sample_with_a_copy(neo4j_server, tmp_path_factory.mktemp("copies"))
    with pytest.MonkeyPatch.context() as monkeypatch:
        neo4j_server.point_env(monkeypatch)
        monkeypatch.setenv("GRAPHRAG_ENV_FILE", "/nonexistent.env")
        with connect(load_settings()) as g:
            yield g


def analysis_of(graph, **filters):
    """The question analysed, its vector the copied article's first chunk's (no model needed)."""
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer

    analysis = QuestionAnalyzer(graph).analyze(QUESTION, **filters)
    row = graph.read_text(
        "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document) WHERE d.id ENDS WITH ':ephesus.md' "
        "RETURN c.embedding AS e ORDER BY c.id LIMIT 1"
    )
    analysis.embedding = [float(x) for x in row[0]["e"]]
    return analysis


def counted(graph, names: list[str]):
    read = graph.read

    def counting(name, /, **params):
        names.append(name)
        return read(name, **params)

    return counting


@pytest.mark.parametrize("mode", ["hybrid", "graph"])
def test_one_query_settles_the_copies(graph, mode, monkeypatch):
    from graphrag_cypher.retrieval.base import copy_spare
    from graphrag_cypher.retrieval.modes import retriever

    search = retriever(mode, graph, None)
    analysis = analysis_of(graph, corpus="sample")
    ranked = search.rank(analysis, 5, spare=copy_spare(5), copies=True)
    hashes = [e.content_hash for e in ranked]
    assert len(set(hashes[:5])) < 5, "the copied article's chunks take two places of the top 5"
    names: list[str] = []
    monkeypatch.setattr(graph, "read", counted(graph, names))
    evidence = search.retrieve(analysis, 5)
    assert len(names) == 1, names  # one round trip: no chunk_copies, no second ranking
    assert len(evidence) == 5 and len({e.text for e in evidence}) == 5
    kept = []
    for e in ranked:  # the first row of each content hash, in the ranking's order
        if e.content_hash not in {k.content_hash for k in kept}:
            kept.append(e)
    assert [e.text for e in evidence] == [e.text for e in kept[:5]]
    assert any(e.also_in for e in evidence)


@pytest.mark.parametrize("mode", ["hybrid", "graph"])
@pytest.mark.parametrize("corpus", ["sample", None])
def test_the_copies_read_with_the_ranking_are_those_of_chunk_copies(graph, mode, corpus):
    from graphrag_cypher.retrieval.base import MAX_COPIES
    from graphrag_cypher.retrieval.modes import retriever

    ranked = retriever(mode, graph, None).rank(analysis_of(graph, corpus=corpus), 8, copies=True)
    rows = graph.read(
        "retrieval/chunk_copies",
        ids=[e.chunk_id for e in ranked],
        corpus=corpus,
        to=None,
        maxCopies=MAX_COPIES,
        **{"from": None},
    )
    want = {r["chunkId"]: (r["contentHash"], r["copies"]) for r in rows}
    assert {e.chunk_id: (e.content_hash, e.copies) for e in ranked} == want
    assert any(copies for _, copies in want.values())


def test_the_graph_mode_without_the_plugin_settles_copies_in_one_more_query(graph, monkeypatch):
    from graphrag_cypher.retrieval.modes import retriever

    search = retriever("graph", graph, None)
    analysis = analysis_of(graph, corpus="sample")
    with_plugin = search.retrieve(analysis, 5)
    monkeypatch.setattr(graph, "_graphrag_plugin", {"version": None, "names": []}, raising=False)
    names: list[str] = []
    monkeypatch.setattr(graph, "read", counted(graph, names))
    without = search.retrieve(analysis, 5)
    assert names.count("retrieval/chunk_copies") == 1 and names.count("retrieval/seed_neighbours") == 1, names
    assert [e.to_dict() for e in without] == [e.to_dict() for e in with_plugin]
