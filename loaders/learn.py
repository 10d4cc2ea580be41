"""Learning from folders and sites, as `graphrag learn` and the chatbot's `learn:` do.

A request reads "topic, topic | path: DIR | url: URL"; the topics are recorded on every
document loaded. :func:`learn` loads what the request names and, when anything changed,
calls `relink` (the CLI passes the shared-phrase linker) so graph retrieval can follow
what was just learned.

Topics alone ("quillon harbours, tide ledgers") are learned from the web: :func:`learn_topics`
asks the configured web search (the caller gives it: `retrieval.web.WebFallback`, its
providers, blocklist and crawler rules) for each topic's first pages and stores them as
:WebPage documents, each with the topics whose search found it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphrag_cypher.audit import audited
from graphrag_cypher.db import Graph
from graphrag_cypher.errors import GraphragError
from graphrag_cypher.store.ingest import LoadOptions, LoadStats, common_root, load


@dataclass
class LearnRequest:
    topics: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)

    @property
    def topics_only(self) -> bool:
        """Topics and nothing to load them from: they are learned from the web."""
        return bool(self.topics) and not self.paths and not self.urls

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
    if not request.paths and not request.urls and not request.topics:
        raise GraphragError('nothing to learn: name topics ("harbours, tides") or add `| path: DIR` or `| url: URL`')
    return request


TOPICS_NEED_WEB = (
    "topics alone are learned from the web, and no web search is configured: set GRAPHRAG_WEB_SEARCH=searxng and "
    "GRAPHRAG_SEARXNG_URL (or brave and GRAPHRAG_BRAVE_API_KEY), or add `| path: DIR` or `| url: URL`"
)
DEFAULT_PER_TOPIC = 3  # pages learned per topic
MAX_PER_TOPIC = 20


@dataclass
class LearnResult:
    stats: LoadStats
    phrases: dict | None = None  # what `relink` reported, when it ran
    extraction: dict | None = None  # what `extract` reported, when it ran (GRAPHRAG_EXTRACT)
    web: dict | None = None  # topics learned from the web: what each topic's search gave

    def to_dict(self) -> dict:
        result = self.stats.to_dict()
        if self.web is not None:
            result["web"] = self.web
        if self.phrases is not None:
            found = self.phrases.to_dict() if hasattr(self.phrases, "to_dict") else dict(self.phrases)
            keys = ("phrases", "links", "links_created", "links_removed", "chunks", "full")
            result["phrases"] = {k: found[k] for k in keys if k in found}
            if found.get("errors"):  # chunks the phrase linker could not write, skipped
                result["phrases"]["errors"] = found["errors"]
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
    web=None,
    per_topic: int = DEFAULT_PER_TOPIC,
    on_topic: Callable[[dict], None] = lambda topic: None,
) -> LearnResult:
    """Load the folders and sites `request` names, its topics (and `options.topics`) on every document.

    `options` gives chunking, corpus and --prune (its loader and source root are set here);
    without an embedder chunks get no vector. Topics alone are learned from the web through
    `web` (see :func:`learn_topics`; None: TOPICS_NEED_WEB). Raises GraphragError for a
    request with nothing to learn from or a missing path, and ``LoadInterrupted`` when Neo4j
    goes away."""
    parsed = (parse_learn(request) if isinstance(request, str) else request).check()
    options = options or LoadOptions(loader="learn", source_root="")
    if parsed.topics_only:
        return learn_topics(
            graph,
            embedder,
            parsed.topics,
            web,
            per_topic,
            options,
            relink,
            on_error=on_error,
            on_progress=on_progress,
            on_topic=on_topic,
            extract=extract,
        )
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
    with audited(graph, "upload" if options.loader == "upload" else "learn", options.corpus) as audit:
        stats = load(
            graph, embedder, options, items, on_error=on_error, on_progress=on_progress, should_stop=should_stop
        )
        changed = stats.created or stats.updated or stats.pruned_documents
        phrases = relink(graph) if relink is not None and changed else None
        audit.add(_links(phrases))
        extraction = extract(graph, stats.changed_ids) if extract is not None and stats.changed_ids else None
    return LearnResult(stats, phrases, extraction)


def _links(phrases) -> dict:
    """The phrase links a relink made and removed, for the audit record."""
    if phrases is None:
        return {}
    found = phrases.to_dict() if hasattr(phrases, "to_dict") else dict(phrases)
    return {"links": {"created": found.get("links_created") or 0, "removed": found.get("links_removed") or 0}}


def learn_topics(
    graph: Graph,
    embedder,
    topics: Iterable[str],
    web,
    per_topic: int = DEFAULT_PER_TOPIC,
    options: LoadOptions | None = None,
    relink: Callable[[Graph], Any] | None = None,
    on_error: Callable[[str], None] = lambda line: None,
    on_progress: Callable[[LoadStats], None] = lambda stats: None,
    on_topic: Callable[[dict], None] = lambda topic: None,
    should_stop: Callable[[], bool] = lambda: False,
    extract: Callable[[Graph, list[str]], dict] | None = None,
) -> LearnResult:
    """Learn each topic from the web: `web.topic_pages(topic, per_topic)` (a
    `retrieval.web.WebFallback`: the fallback's providers, blocklist and crawler rules)
    gives the topic's first `per_topic` pages, which are stored as :WebPage documents in
    `options.corpus` (default: the web search's corpus) with the topics whose search found
    them (added to those it was learned under before). What each topic's search gave goes to
    `on_topic` (`TopicPages.to_dict()`); a failed search is one `on_error` line. A second run
    over the same results changes nothing: a page is rewritten only when its text changed or
    a new topic found it."""
    if web is None or getattr(web, "name", None) is None:
        raise GraphragError(TOPICS_NEED_WEB)
    if not 1 <= per_topic <= MAX_PER_TOPIC:
        raise GraphragError(f"pages per topic: give a whole number from 1 to {MAX_PER_TOPIC}, not {per_topic}")
    options = options or LoadOptions(loader="learn", source_root="")
    if options.prune:
        raise GraphragError("--prune does not apply to topics learned from the web (a search's results change)")
    names = list(dict.fromkeys(t.strip() for t in topics if t and t.strip()))
    pages: dict[str, tuple[Any, list[str]]] = {}  # url -> (document, the topics that found it)
    report = []
    for topic in names:
        if should_stop():
            break
        found = web.topic_pages(topic, per_topic)
        summary = found.to_dict()
        report.append(summary)
        on_topic(summary)
        if summary["error"]:
            on_error(f"web search for {topic!r} failed: {summary['error']}")
        for doc in found.documents:
            pages.setdefault(doc.id, (doc, []))[1].append(topic)
    # a page keeps the topics it was learned under before: learning one topic again changes nothing
    stored = {r["id"]: r["topics"] for r in graph.read("documents/topics", ids=list(pages))} if pages else {}
    groups: dict[tuple[str, ...], list] = {}
    for url, (doc, found_by) in pages.items():
        groups.setdefault(tuple(dict.fromkeys((*stored.get(url, ()), *found_by))), []).append(doc)
    corpus = options.corpus or getattr(getattr(web, "config", None), "corpus", None)
    with audited(graph, "learn", corpus) as audit:
        stats = _learn_groups(graph, embedder, groups, options, corpus, on_error, on_progress)
        changed = stats.created or stats.updated
        phrases = relink(graph) if relink is not None and changed else None
        audit.add(_links(phrases))
        extraction = extract(graph, stats.changed_ids) if extract is not None and stats.changed_ids else None
    failed = sum(1 for t in report if t["error"])
    web_summary = {"provider": web.name, "corpus": corpus, "topics": report, "pages": len(pages), "failed": failed}
    return LearnResult(stats, phrases, extraction, web_summary)


def _learn_groups(graph, embedder, groups: dict, options: LoadOptions, corpus, on_error, on_progress) -> LoadStats:
    """Load each group of pages with the topics that found them; their counts added up."""
    stats = LoadStats()
    for group_topics, docs in groups.items():
        grouped = dataclasses.replace(
            options,
            loader="learn",
            source_root="web-search",
            corpus=corpus,
            topics=tuple(dict.fromkeys((*group_topics, *options.topics))),
        )
        _add(stats, load(graph, embedder, grouped, docs, on_error=on_error, on_progress=on_progress))
    return stats


def _add(total: LoadStats, part: LoadStats) -> None:
    """`part`'s counts added to `total`'s."""
    for name in (
        "created",
        "updated",
        "unchanged",
        "failed",
        "chunks_created",
        "chunks_deleted",
        "pruned_documents",
        "embedded",
        "reused_vectors",
    ):
        setattr(total, name, getattr(total, name) + getattr(part, name))
    total.errors += part.errors
    total.warnings += part.warnings
    total.changed_ids += part.changed_ids
