"""An embedding call during a load carries what the embedder runs at once: a model's batch (a GPU's
is larger), or an endpoint's batch times its concurrent requests, never fewer than 64 texts."""

from graphrag_cypher.embedder import DEFAULT_MODEL, OpenAIEmbedder, default_model_path, local_model
from graphrag_cypher.store.ingest import LoadOptions, embed_unit


def test_a_models_batch_fills_one_call():
    assert embed_unit(local_model(DEFAULT_MODEL, default_model_path(), "cpu", 64)) == 64
    assert embed_unit(local_model(DEFAULT_MODEL, default_model_path(), "cpu", 16)) == 64
    # GRAPHRAG_EMBED_BATCH=512 for a GPU: one call is one forward pass of 512
    assert embed_unit(local_model(DEFAULT_MODEL, default_model_path(), "cpu", 512)) == 512


def test_an_endpoint_gets_every_concurrent_request_filled():
    endpoint = OpenAIEmbedder(
        "openai/e", "e", 384, batch_size=128, base_url="http://127.0.0.1:9", api_key="k", concurrency=4
    )
    assert embed_unit(endpoint) == 512


def test_the_step_is_the_embedders_unless_set():
    assert LoadOptions("files", "/data").embed_step is None
    assert LoadOptions("files", "/data", embed_step=4).embed_step == 4
