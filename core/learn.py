"""The self-learning chatbot's `learn:` syntax: "topic, topic | path: DIR | url: URL"."""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import GraphragError


@dataclass
class LearnRequest:
    topics: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)


def parse_learn(text: str) -> LearnRequest:
    """Split a learn command into topics, paths and URLs; a leading "learn:" is optional."""
    body = text.strip()
    if body.lower().startswith("learn:"):
        body = body[len("learn:"):]
    request = LearnRequest()
    for part in (p.strip() for p in body.split("|")):
        if not part:
            continue
        key, sep, value = part.partition(":")
        key = key.strip().lower()
        if sep and key in {"path", "paths", "file", "folder", "dir"}:
            request.paths += [v.strip() for v in value.split(",") if v.strip()]
        elif sep and key in {"url", "urls", "site"}:
            request.urls += [v.strip() for v in value.split(",") if v.strip()] if "://" not in value else [value.strip()]
        elif sep and key in {"topic", "topics"}:
            request.topics += [t.strip() for t in value.split(",") if t.strip()]
        else:
            request.topics += [t.strip() for t in part.split(",") if t.strip()]
    if not request.paths and not request.urls:
        raise GraphragError("nothing to learn from: add `| path: DIR` or `| url: URL` (topics alone are only labels)")
    return request
