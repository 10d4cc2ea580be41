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
        ({"k": 101}, "k must be between 1 and 100, not 101"),
        ({"rerank_candidates": 0}, "rerank candidates must be between 1 and 200, not 0"),
        ({"date_from": "2024-13-01"}, "from '2024-13-01' is not a date: write YYYY-MM-DD"),
        ({"date_from": "2024-06-01", "date_to": "2024-05-01"}, "from 2024-06-01 is after to 2024-05-01"),
        ({"about": ""}, "about is empty"),
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


# every face is generated from AskOptions' fields: each one offers every option with the same bound


def _offered():
    from graphrag_cypher.retrieval.options import options

    return options()


def test_every_field_a_face_can_set_declares_its_option():
    import dataclasses

    offered = {f.name for f, _ in _offered()}
    assert offered == {f.name for f in dataclasses.fields(AskOptions)} - {"today"}
    for f, spec in _offered():
        assert spec.help and spec.key, f.name
        assert (spec.low is None) == (spec.high is None), f.name


def _cli_params():
    from graphrag_cypher.cli.ask import ask, chat

    return {name: {p.name: p for p in command.params} for name, command in (("ask", ask), ("chat", chat))}


def test_every_option_is_a_flag_of_ask_and_chat_with_the_same_bound():
    import click

    for command, params in _cli_params().items():
        for f, spec in _offered():
            if spec.flags:
                for flag, _, _ in spec.flags:
                    assert any(flag in p.opts or flag in p.secondary_opts for p in params.values()), (command, flag)
                continue
            param = params[f.name]
            assert param.default == f.default, (command, f.name)
            if spec.high is not None:
                assert isinstance(param.type, click.IntRange)
                assert (param.type.min, param.type.max) == (spec.low, spec.high), (command, f.name)
            if spec.choices:
                assert tuple(param.type.choices) == spec.choices, (command, f.name)


def _schema_property(schema: dict, name: str) -> dict:
    prop = schema["properties"][name]
    # `X | None` is an anyOf of X and null
    return next((p for p in prop.get("anyOf", []) if p.get("type") != "null"), prop) | {
        "default": prop.get("default"),
        "description": prop.get("description"),
    }


def _check_property(prop: dict, f, spec, face: str) -> None:
    if spec.high is not None:
        assert (prop["minimum"], prop["maximum"]) == (spec.low, spec.high), (face, f.name)
    if spec.choices:
        assert tuple(prop["enum"]) == spec.choices, (face, f.name)
    if spec.max_length:
        assert prop["maxLength"] == spec.max_length, (face, f.name)
    assert prop["description"] == spec.help, (face, f.name)


def test_every_option_is_a_field_of_the_chat_body_and_of_v1_with_the_same_bound():
    from graphrag_cypher.server.openai_api import CompletionRequest
    from graphrag_cypher.server.routes.chat import ChatRequest

    chat = ChatRequest.model_json_schema(by_alias=True)
    v1 = CompletionRequest.model_json_schema(by_alias=True)
    for f, spec in _offered():
        _check_property(_schema_property(chat, spec.key), f, spec, "/chat")
        assert _schema_property(chat, spec.key)["default"] == f.default
        if f.name == "mode":
            assert "mode" not in v1["properties"]  # the model's name is the mode
        else:
            _check_property(_schema_property(v1, spec.key), f, spec, "/v1")
    # the names clients send today stay
    assert {"from", "to", "llm", "web", "about", "k", "corpus", "mode"} <= set(chat["properties"])


def _tool_schemas(writes: bool = False) -> dict:
    import anyio

    from graphrag_cypher.server.mcp_tools import build_mcp
    from graphrag_cypher.server.options import ServerOptions

    class State:
        options = ServerOptions(use_llm=False)

    server = build_mcp(State(), writes=writes)
    return {tool.name: tool.input_schema for tool in anyio.run(server.list_tools)}


def test_every_option_is_a_parameter_of_the_mcp_ask_tool_with_the_same_bound():
    from graphrag_cypher.server.ask_params import NOT_FOR_SEARCH

    tools = _tool_schemas()
    for f, spec in _offered():
        _check_property(_schema_property(tools["ask"], f.name), f, spec, "mcp ask")
        if f.name not in NOT_FOR_SEARCH:
            _check_property(_schema_property(tools["search"], f.name), f, spec, "mcp search")
    assert tools["ask"]["required"] == ["question"] and tools["search"]["required"] == ["query"]
    assert _schema_property(tools["search"], "mode")["default"] == "hybrid"  # evidence: hybrid, as before


def test_a_date_is_refused_with_one_message_on_every_face(run_cli):
    from pydantic import ValidationError

    from graphrag_cypher.server.routes.chat import ChatRequest

    message = "'2024-02-30' is not a date: write YYYY-MM-DD, e.g. 2024-05-01"
    with pytest.raises(GraphragError, match="^from " + message):
        AskOptions(date_from="2024-02-30")
    with pytest.raises(ValidationError, match="from " + message):
        ChatRequest.model_validate({"question": "q", "from": "2024-02-30"})
    cli = run_cli("ask", "harbour", "--from", "2024-02-30")
    assert cli.exit_code == 2 and "--from " + message in cli.output
    assert ChatRequest.model_validate({"question": "q", "to": "2024-02-29"}).date_to == "2024-02-29"


def test_the_request_body_names_every_option_as_chat_reads_it():
    from graphrag_cypher.retrieval.options import request_body
    from graphrag_cypher.server import ask_params
    from graphrag_cypher.server.routes.chat import ChatRequest

    options = AskOptions(mode="fulltext", k=60, date_from="2024-01-01", judge="off", convert="s2t", rerank=True)
    body = ChatRequest.model_validate({"question": "q", **request_body(options)})
    assert AskOptions(**ask_params.chosen(body)) == options
