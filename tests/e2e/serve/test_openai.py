"""The `openai` Python client pointed at graphrag's /v1: models, streamed and whole answers."""

import pytest
from openai import OpenAI

from .conftest import FORGED, KEY

pytestmark = pytest.mark.e2e


@pytest.fixture
def client(served):
    return OpenAI(base_url=served.url + "/v1", api_key=KEY, max_retries=0)


def test_models_are_the_retrieval_modes_and_the_global_route(client):
    assert {m.id for m in client.models.list()} == {
        "graphrag-global",
        "graphrag-vector",
        "graphrag-fulltext",
        "graphrag-hybrid",
        "graphrag-graph",
        "graphrag-ppr",
    }


def test_the_client_streams_an_answer_with_citations(client):
    stream = client.chat.completions.create(
        model="graphrag-hybrid", stream=True, messages=[{"role": "user", "content": "Who made the silver lantern?"}]
    )
    pieces, citations = [], None
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            pieces.append(chunk.choices[0].delta.content)
        extra = chunk.model_extra or {}
        if extra.get("citations") is not None:
            citations = extra["citations"]
            assert chunk.choices[0].finish_reason == "stop"
    text = "".join(pieces)
    assert len(pieces) > 2 and citations
    title = citations[0]["title"]
    assert f"[{title}]" in text and f"Sources: {title}" in text
    assert FORGED not in text and "FAKE9" not in text


def test_the_client_gets_a_whole_answer_and_history_is_rewritten(client):
    reply = client.chat.completions.create(
        model="graphrag-graph",
        messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Who made the silver lantern?"},
            {"role": "assistant", "content": "Old Maren made it."},
            {"role": "user", "content": "And who stole it?"},
        ],
    )
    extra = reply.model_extra
    assert extra["question"] == "Who stole the silver lantern?"
    assert extra["citations"] and reply.choices[0].message.content.startswith("Old Maren made the lantern [")


def test_an_unknown_model_is_one_openai_error(client):
    import openai

    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="gpt-4", messages=[{"role": "user", "content": "hi"}])
    assert "graphrag-graph" in caught.value.message
