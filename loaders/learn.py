"""Learning from folders and sites, as `graphrag learn` and the chatbot's `learn:` do.

A request reads "topic, topic | path: DIR | url: URL"; the topics are recorded on every
document loaded. :func:`learn` loads what the request names and, when anything changed,
calls `relink` (the CLI passes the shared-phrase linker) so graph retrieval can follow
what was just learned.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphrag_cypher.db import Graph
from graphrag_cypher.errors import GraphragError
from graphrag_cypher.store.ingest import LoadOptions, LoadStats, common_root, load


@dataclass
class LearnRequest:
    topics: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)

    def check(self) -> LearnRequest:
        """This request, if every path it names exists (else a one-line GraphragError)."""
        missing = [p for p in self.paths if not Path(p).exists()]
        if missing:
            raise GraphragError(f"path not found: {missing[0]}")
        return self


def parse_learn(text: str) -> LearnRequest:
    """Split a learn command into topics, paths and URLs; a leading "learn:" is optional."""
    body = text.strip()
    if body.lower().startswith("learn:"):
        body = body[len("learn:") :]
    request = LearnRequest()
    for part in (p.strip() for p in body.split("|")):
        if not part:
            continue
        key, sep, value = part.partition(":")
        key = key.strip().lower()
        if sep and key in {"path", "paths", "file", "folder", "dir"}:
            request.paths += [v.strip() for v in value.split(",") if v.strip()]
        elif sep and key in {"url", "urls", "site"}:
            request.urls += (
                [v.strip() for v in value.split(",") if v.strip()] if "://" not in value else [value.strip()]
            )
        elif sep and key in {"topic", "topics"}:
            request.topics += [t.strip() for t in value.split(",") if t.strip()]
        else:
            request.topics += [t.strip() for t in part.split(",") if t.strip()]
    if not request.paths and not request.urls:
        raise GraphragError("nothing to learn from: add `| path: DIR` or `| url: URL` (topics alone are only labels)")
    return request


@dataclass
class LearnResult:
    stats: LoadStats
    phrases: dict | None = None  # what `relink` reported, when it ran
    extraction: dict | None = None  # what `extract` reported, when it ran (GRAPHRAG_EXTRACT)

    def to_dict(self) -> dict:
        result = self.stats.to_dict()
        if self.phrases is not None:
            found = self.phrases.to_dict() if hasattr(self.phrases, "to_dict") else dict(self.phrases)
            keys = ("phrases", "links", "links_created", "links_removed", "chunks", "full")
            result["phrases"] = {k: found[k] for k in keys if k in found}
        if self.extraction is not None:
            result["extraction"] = self.extraction
        return result


@dataclass
class FetchLimits:
    """How far `url:` sources are followed."""

    crawl: bool = True
    max_pages: int = 30
    timeout: float = 30.0
    crawl_timeout: float = 600.0
    allow_local: bool | None = None  # None: as GRAPHRAG_CRAWL_ALLOW_LOCAL says (off by default)


def _items(request: LearnRequest, limits: FetchLimits) -> Iterator:
    from .files import parse_folder
    from .web import fetch_pages

    for path in request.paths:
        yield from parse_folder(path)
    if request.urls:
        yield from fetch_pages(
            request.urls,
            crawl=limits.crawl,
            max_pages=limits.max_pages,
            timeout=limits.timeout,
            crawl_timeout=limits.crawl_timeout,
            allow_local=limits.allow_local,
        )


def learn(
    graph: Graph,
    embedder,
    request: str | LearnRequest,
    options: LoadOptions | None = None,
    limits: FetchLimits | None = None,
    relink: Callable[[Graph], Any] | None = None,
    on_error: Callable[[str], None] = lambda line: None,
    on_progress: Callable[[LoadStats], None] = lambda stats: None,
    extract: Callable[[Graph, list[str]], dict] | None = None,
) -> LearnResult:
    """Load the folders and sites `request` names, its topics (and `options.topics`) on every document.

    `options` gives chunking, corpus and --prune (its loader and source root are set here);
    without an embedder chunks get no vector. Raises GraphragError for a request with
    nothing to learn from or a missing path, and ``LoadInterrupted`` when Neo4j goes away."""
    parsed = (parse_learn(request) if isinstance(request, str) else request).check()
    options = options or LoadOptions(loader="learn", source_root="")
    topics = tuple(t for t in (*(t.strip() for t in parsed.topics), *options.topics) if t)
    root = " ".join([common_root(parsed.paths), *sorted(parsed.urls)]).strip()
    options = dataclasses.replace(options, loader="learn", source_root=root, topics=topics)
    return learn_items(
        graph,
        embedder,
        _items(parsed, limits or FetchLimits()),
        options,
        relink,
        on_error=on_error,
        on_progress=on_progress,
        extract=extract,
    )


def learn_items(
    graph: Graph,
    embedder,
    items: Iterable,
    options: LoadOptions,
    relink: Callable[[Graph], Any] | None = None,
    on_error: Callable[[str], None] = lambda line: None,
    on_progress: Callable[[LoadStats], None] = lambda stats: None,
    should_stop: Callable[[], bool] = lambda: False,
    extract: Callable[[Graph, list[str]], dict] | None = None,
) -> LearnResult:
    """Load parsed items (``ParsedDocument`` or ``ItemError``: uploads, pages fetched elsewhere)
    as `learn` does: incremental, one line per bad item, `relink` run when anything changed.
    A load stopped early (`should_stop`) keeps whole documents, and `relink` still runs for
    them: the graph is then the one a load of just those documents leaves. `extract` (the
    entity extractor GRAPHRAG_EXTRACT names, see `graphrag_cypher.kg.auto`) then reads the
    documents created or updated."""
    stats = load(graph, embedder, options, items, on_error=on_error, on_progress=on_progress, should_stop=should_stop)
    changed = stats.created or stats.updated or stats.pruned_documents
    phrases = relink(graph) if relink is not None and changed else None
    extraction = extract(graph, stats.changed_ids) if extract is not None and stats.changed_ids else None
    return LearnResult(stats, phrases, extraction)
