"""The web-search fallback: search, block, fetch, chunk, embed and rank, for one question at a time."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from datetime import date

from graphrag_cypher.errors import GraphragError

from .config import WebConfig
from .fetch import PageClient, fetch_pages, read_page
from .learn import TopicPages, stored_page
from .rank import by_page, by_similarity, chunks_to_embed, judge_pages, note_unused
from .search import MAX_RESULTS, Dates, SearchProvider
from .trace import ResultTrace, WebFound, WebTrace


class WebFallback:
    """Search, block, fetch, chunk, embed and rank, for one question at a time.

    `client` makes a page client for one host (called as ``client(delay=…, timeout=…,
    max_bytes=…, crawl_timeout=…, blocked=…)``); `loaders.web.PoliteClient` is the one to give."""

    def __init__(self, config: WebConfig, client: Callable[..., PageClient], provider: SearchProvider | None = None):
        self.config = config
        self.client = client
        self.provider = provider or config.provider_object()

    @property
    def name(self) -> str | None:
        return self.provider.name if self.provider else None

    def find(
        self,
        query: str,
        question_vector: Sequence[float],
        embed: Callable[[list[str]], list[list[float]]],
        k: int = 5,
        keywords: Iterable[str] = (),
        min_similarity: float | None = None,
        reason: str = "",
        dates: Dates | None = None,
        judge: Callable | None = None,
    ) -> WebFound:
        """The web evidence for `query` (searched with `dates`, the question's date range): at
        most `k` chunks, those under `min_similarity` left out. With a `judge`
        (gate.passage_judge: an LLM is configured), each page is judged by its best chunk
        instead and the cosine floor does not apply: an English-only embedder's cosine says
        little about a page in another language (it scores any two Chinese texts alike)."""
        started = time.perf_counter()
        trace = WebTrace(
            self.name,
            searched=True,
            reason=reason,
            query=query,
            dates=dates if dates and any(dates) else None,
            min_similarity=None if judge else min_similarity,
        )
        found = WebFound([], trace)
        to_fetch = self._search(query, self.config.results, trace)
        if trace.error:
            trace.ms = (time.perf_counter() - started) * 1000
            return found
        candidates = chunks_to_embed(to_fetch, fetch_pages(to_fetch, self.client, self.config), query, keywords)
        vectors = embed([c[4] for c in candidates]) if candidates else []
        found.vectors = {c[4]: v for c, v in zip(candidates, vectors, strict=True)}
        scored = by_similarity(candidates, vectors, question_vector)
        if judge is not None:
            off_topic = judge_pages(scored, judge, trace)
            chosen = [s for s in scored if s[1].url not in off_topic][:k]
        else:
            chosen = [s for s in scored if min_similarity is None or s[0] >= min_similarity][:k]
        pages = by_page(chosen)
        note_unused(trace, pages, k, min_similarity, judged=judge is not None)
        found.pages = list(pages.values())
        trace.ms = (time.perf_counter() - started) * 1000
        return found

    def _search(self, query: str, n: int, trace: WebTrace) -> list[ResultTrace]:
        """Search (results into `trace`, a failure as its `error`) and drop what the blocklist
        blocks: the results left to fetch, in order."""
        try:
            if self.provider is None:
                hits = []
            elif trace.dates:
                hits = self.provider.search(query, n, dates=trace.dates)  # type: ignore[call-arg]
            else:
                hits = self.provider.search(query, n)
        except GraphragError as exc:
            trace.error = str(exc)
            return []
        trace.results = [ResultTrace(h.title, h.url, h.snippet) for h in hits]
        to_fetch = []
        for result in trace.results:
            entry = self.config.blocklist.match(result.url)
            if entry:
                result.blocked = entry
            else:
                to_fetch.append(result)
        return to_fetch

    def topic_pages(self, topic: str, n: int, today: date | None = None) -> TopicPages:
        """The first `n` results for `topic` whose pages could be had, as web documents to store
        (`learn "topic"`): blocked results are never fetched, and pages are fetched under the
        crawler's rules as the fallback fetches them; more results are asked for than `n`, so
        that a blocked or unreadable one does not leave the topic short."""
        trace = WebTrace(self.name, searched=True, reason="learn: a topic", query=topic)
        candidates = self._search(topic, min(MAX_RESULTS, max(self.config.results, 2 * n)), trace)
        stamp = (today or date.today()).isoformat()
        out = TopicPages(topic, trace)
        while candidates and len(out.documents) < n:
            batch, candidates = candidates[: n - len(out.documents)], candidates[n - len(out.documents) :]
            fetched = fetch_pages(batch, self.client, self.config)
            for result in batch:
                doc = read_page(result, fetched.get(result.url))
                if doc is None:
                    continue
                if not any(s.text.strip() for s in doc.sections):
                    result.dropped = "the page has no text"
                    continue
                result.id = f"P{len(out.documents) + 1}"
                out.documents.append(stored_page(doc, stamp))
        for result in candidates:
            result.note = f"not fetched: the first {n} page(s) were enough"
        return out
