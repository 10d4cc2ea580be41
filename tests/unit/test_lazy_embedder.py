"""LazyEmbedder makes the configured embedder only when there is text to embed."""

import pytest

from graphrag_cypher.config import load_settings
from graphrag_cypher.embedder import LazyEmbedder
from graphrag_cypher.errors import GraphragError


def test_nothing_to_embed_makes_no_embedder_and_a_bad_one_fails_on_first_use():
    settings = load_settings({"GRAPHRAG_EMBEDDER": "no/such-model", "GRAPHRAG_EMBEDDING_DIMENSIONS": "16"})
    lazy = LazyEmbedder(settings)
    assert lazy.name == "no/such-model" and lazy.dimensions == 16
    assert lazy.embed([]) == [] and lazy._embedder is None
    with pytest.raises(GraphragError, match="unknown embedder"):
        lazy.embed(["text"])
