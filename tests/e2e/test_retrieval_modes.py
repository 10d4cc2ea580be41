"""The retrieval modes as neo4j-graphrag parts, on the bundled sample: our embedder inside its
VectorRetriever, our modes answering its `search()` API, and the PPR fusion's `rrfK`."""

import pytest

from .test_ask import sample, sample_graph  # noqa: F401  (the module-scoped sample graph)

pytestmark = pytest.mark.e2e


@pytest.fixture
def parts(sample):  # noqa: F811
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect
    from graphrag_cypher.embedder import make_embedder

    settings = load_settings()
    with connect(settings) as graph:
        yield graph, make_embedder(settings)


def test_our_embedder_serves_neo4j_graphrags_vector_retriever(parts):
    from neo4j_graphrag.embeddings.base import Embedder as GraphragEmbedder
    from neo4j_graphrag.retrievers import VectorRetriever

    graph, embedder = parts
    assert isinstance(embedder, GraphragEmbedder)
    assert embedder.embed_query("lantern") == embedder.embed(["lantern"])[0]
    peer = VectorRetriever(
        graph.driver, "chunk_embedding", embedder, return_properties=["id", "text"], neo4j_database=graph.database
    )
    result = peer.search(query_text="Who made the silver lantern?", top_k=3)
    assert len(result.items) == 3
    assert any("lantern" in item.content.lower() for item in result.items)


@pytest.mark.parametrize("mode", ["vector", "fulltext", "hybrid", "graph", "ppr"])
def test_every_mode_is_a_neo4j_graphrag_retriever(parts, mode):
    from neo4j_graphrag.retrievers.base import Retriever as GraphragRetriever
    from neo4j_graphrag.types import RetrieverResult

    from graphrag_cypher.retrieval.modes import retriever

    graph, embedder = parts
    ours = retriever(mode, graph, embedder)
    assert isinstance(ours, GraphragRetriever)
    result = ours.search(query_text="Which river's silt filled the harbour of Ephesus?", top_k=3)
    assert isinstance(result, RetrieverResult) and 0 < len(result.items) <= 3
    first = result.items[0]
    assert first.content and {"chunk_id", "document_id", "title", "score", "via"} <= set(first.metadata)
    assert result.metadata["mode"] == mode and result.metadata["__retriever"] == type(ours).__name__
    # filters travel through the same API
    assert ours.search(query_text="harbour", top_k=3, corpus="no-such-corpus").items == []
