"""The question routes, in the order they are offered a question: the first that answers it
does. A route is one module here (the Route protocol is in base.py) and one line below;
``qa.ask`` and every face (``--json``, ``--explain``, the page, ``/chat``, ``/v1``, MCP) read
this registry and know no route by name.

- **global**: a question about the whole corpus, from its communities (global_search/)
- **relation**: how two named entities are related, from the paths between them
- **structured**: a question about the graph itself, from its relations (structured/)
- **search**: everything else, from the passages a retrieval mode finds
"""

from __future__ import annotations

from .base import Asked, Decline, Done, Found, LLMUse, Route, RouteTrace
from .global_ import GlobalRoute
from .relation import RelationRoute
from .search import SearchRoute
from .structured import StructuredRoute

ROUTES: tuple[Route, ...] = (
    GlobalRoute(),
    RelationRoute(),
    StructuredRoute(),
    SearchRoute(),
)


def route_names() -> list[str]:
    return [route.name for route in ROUTES]


def empty_fields() -> dict:
    """Every route's ``ask --json`` keys with their values when it did not run."""
    out: dict = {}
    for route in ROUTES:
        out.update({key: (list(value) if isinstance(value, list) else value) for key, value in route.fields.items()})
    return out


def route_fields(answer: dict) -> dict:
    """The routes' keys of an answer's JSON, as a face passes them on (``/v1``, MCP)."""
    empty = empty_fields()
    return {key: answer.get(key, value) for key, value in empty.items()}


def drawn_fields(answer: dict) -> dict:
    """The keys of an answer's JSON the routes' `draw` reads (what GET /graph needs of it)."""
    empty = empty_fields()
    return {key: answer.get(key, empty[key]) for route in ROUTES for key in route.drawn}


def explain_lines(answer: dict) -> list[str]:
    """The routes' ``--explain`` lines for an answer's JSON (whichever route answered it)."""
    return [line for route in ROUTES for line in route.explain(answer)]


def note_lines(answer: dict) -> list[str]:
    """The routes' one-line notes printed after an answer (why it left a route that looked right)."""
    return [line for route in ROUTES for line in route.notes(answer)]


__all__ = [
    "ROUTES",
    "Asked",
    "Decline",
    "Done",
    "Found",
    "LLMUse",
    "Route",
    "RouteTrace",
    "drawn_fields",
    "empty_fields",
    "explain_lines",
    "note_lines",
    "route_fields",
    "route_names",
]
