"""The ask options over HTTP and MCP, generated from AskOptions' fields (retrieval/options.py):
the fields of `POST /chat`'s body, `/v1`'s extra fields and the MCP tools' parameters, each with
the one bound, choices and help its field declares, and the checks a server adds (a reranker
configured here; web pages stored only when writes are on)."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field

from graphrag_cypher.errors import GraphragError
from graphrag_cypher.retrieval.options import AskOptions, Option, check_choice, check_date, options

# answer-only options the MCP `search` tool (evidence, no answer written) does not take
NOT_FOR_SEARCH = ("use_llm", "convert", "judge", "web_mode", "learn_web")


def _checked(check):
    """A pydantic validator from one of retrieval/options.py's checks: the same one-line message."""

    def checked(value):
        try:
            return check(value)
        except GraphragError as exc:
            raise ValueError(str(exc)) from None

    return checked


def _type(field: dataclasses.Field, spec: Option) -> Any:
    """The field's type with its bounds, as pydantic checks it and JSON schema shows it."""
    if spec.choices:  # listed in the schema; a value not in it gets AskOptions' message
        choices = Field(json_schema_extra={"enum": list(spec.choices)})
        kind: Any = Annotated[
            str, choices, AfterValidator(_checked(lambda value: check_choice(field.name, value, spec.choices)))
        ]
    elif spec.high is not None:
        kind = Annotated[int, Field(ge=spec.low, le=spec.high)]
    elif field.type in ("bool", bool):
        kind = bool
    else:
        kind = Annotated[str, Field(min_length=spec.min_length, max_length=spec.max_length)]
    if spec.date:
        kind = Annotated[kind, BeforeValidator(_checked(lambda value: check_date(value, spec.key)))]
    return kind


def body_fields(exclude: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ask options as pydantic fields (for `create_model`): named as AskOptions names them, sent
    as their key (`from`, `to`, `llm`, `web`), with the field's default; null is the default too."""
    fields = {}
    for field, spec in options():
        if field.name in exclude:
            continue
        alias = spec.key if spec.key != field.name else None
        fields[field.name] = (
            _type(field, spec) | None,
            Field(default=field.default, alias=alias, description=spec.help),
        )
    return fields


def chosen(body, **overrides) -> dict:
    """The AskOptions settings a request body gives (a null or absent one: the default)."""
    given = {
        field.name: getattr(body, field.name) for field, _ in options() if getattr(body, field.name, None) is not None
    }
    return given | overrides


def make_options(state, settings: dict, refuse) -> AskOptions:
    """AskOptions from a request's settings, with what this server adds: its LLM only when it has
    one, a reranker only when GRAPHRAG_RERANKER names one, web pages stored only when writes are on
    (GRAPHRAG_API_KEY). `refuse(message)` makes the face's one-line error."""
    settings = dict(settings)
    settings["use_llm"] = settings.get("use_llm", True) and state.options.use_llm
    if settings.get("rerank") and not reranker_configured():
        raise refuse(
            "rerank needs a reranker on the server: start it with GRAPHRAG_RERANKER set to "
            "cross-encoder:<model> or to the URL of a server with a /rerank endpoint"
        )
    if settings.get("learn_web") and not state.options.writes_enabled:
        raise refuse(
            "learn_web stores web pages, a write: start the server with GRAPHRAG_API_KEY set "
            "and send it as a bearer token"
        )
    from .scope import Refused, scoped_corpus

    try:  # the door filled in or checked the corpus; checked again where the question is asked
        settings["corpus"] = scoped_corpus(settings.get("corpus"), write=bool(settings.get("learn_web")))
    except Refused as exc:
        raise refuse(exc.message) from None
    try:
        return AskOptions(**settings)
    except GraphragError as exc:
        raise refuse(str(exc)) from None


def reranker_configured() -> bool:
    import os

    return bool((os.environ.get("GRAPHRAG_RERANKER") or "").strip())


def reranker(options: AskOptions):
    """The server's reranker (GRAPHRAG_RERANKER) when these options ask for one, else None."""
    if not options.rerank:
        return None
    from graphrag_cypher.retrieval.rerank import make_reranker

    return make_reranker(None)


def tool_parameters(first: str, exclude: tuple[str, ...] = (), defaults: dict | None = None):
    """A tool `fn(first, **settings)` as MCP sees it: `first` (the question or query), then every ask
    option by its AskOptions name with its type, bound, default and help (the tool's JSON schema is
    made from them; a value out of bounds is refused before the tool runs)."""
    defaults = defaults or {}

    def declare(fn):
        parameters = [inspect.Parameter(first, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str)]
        for field, spec in options():
            if field.name in exclude:
                continue
            default = defaults.get(field.name, field.default)
            kind = _type(field, spec)
            annotation = Annotated[kind if default is not None else kind | None, Field(description=spec.help)]
            parameters.append(
                inspect.Parameter(field.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
            )
        fn.__signature__ = inspect.Signature(parameters, return_annotation=dict)
        fn.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": dict}
        return fn

    return declare
