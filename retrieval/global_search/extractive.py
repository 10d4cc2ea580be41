"""Answers without an LLM: the topic's or the themes' lines, through the citation check."""

from __future__ import annotations

from .result import GlobalResult, _check
from .themes import _theme_lines
from .topic import _topic_lines

EXTRACTIVE_NOTES = {
    "topic": "Answered from every document of the scope that mentions the topic (extractive; no LLM): each quoted "
    "sentence is stored text, cited to its document.",
    "themes": "Answered from the graph's communities (extractive; no LLM): each quoted sentence is stored text of a "
    "member chunk of its theme, cited to its document.",
}


def _extractive(result: GlobalResult, zh: bool) -> None:
    assert result.scope is not None
    if result.family == "topic":
        lines = _topic_lines(result, result.scope, result.scope_total, zh)
    else:
        lines = _theme_lines(result, result.scope, result.scope_total, zh)
    text = "\n".join(lines)
    _check(result, lambda feed: feed(text))
