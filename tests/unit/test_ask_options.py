"""The one options object every face builds for a question (retrieval/options.py)."""

import inspect

import pytest

from graphrag_cypher.errors import GraphragError
from graphrag_cypher.retrieval import qa
from graphrag_cypher.retrieval.modes import ANSWER_MODES, DEFAULT_MODE
from graphrag_cypher.retrieval.options import AskOptions


def test_defaults_are_the_commands_defaults():
    options = AskOptions()
    assert options.mode == DEFAULT_MODE and options.k == 5 and options.use_llm is True
    assert (options.judge, options.web_mode, options.convert) == ("auto", "auto", "auto")


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"mode": "semantic"}, "unknown mode 'semantic': use one of " + ", ".join(ANSWER_MODES)),
        ({"judge": "sometimes"}, "unknown judge 'sometimes'"),
        ({"web_mode": "on"}, "unknown web mode 'on'"),
        ({"convert": "s2x"}, "unknown conversion 's2x'"),
        ({"k": 0}, "k must be between 1 and 100, not 0"),
        ({"rerank_candidates": 0}, "rerank candidates must be at least 1"),
    ],
)
def test_a_wrong_setting_is_refused_in_one_line_when_made(changes, message):
    with pytest.raises(GraphragError, match="^" + message.replace("(", r"\(")):
        AskOptions(**changes)
    with pytest.raises(GraphragError):
        AskOptions().but(**changes)


def test_but_changes_some_fields_and_keeps_the_rest():
    base = AskOptions(corpus="grimm", k=8)
    changed = base.but(use_llm=False)
    assert (changed.corpus, changed.k, changed.use_llm) == ("grimm", 8, False)
    assert base.use_llm is True  # frozen: the original is untouched
    with pytest.raises(TypeError):
        base.but(colour="blue")


def test_qa_ask_takes_the_options_not_loose_settings():
    """Settings travel in AskOptions; beside it only the services, the conversation and the callback."""
    parameters = inspect.signature(qa.ask).parameters
    assert list(parameters) == [
        "graph",
        "embedder",
        "settings",
        "question",
        "options",
        "history",
        "on_token",
        "reranker",
        "web",
        "changes",
    ]
