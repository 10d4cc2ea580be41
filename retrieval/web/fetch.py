"""Fetching results' pages under the crawler's rules (the page client the caller gives), one
host's pages one after another, each page fetched and parsed once per process (`PAGE_MEMO`)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Protocol
from urllib.parse import urlsplit

from graphrag_cypher.model import ItemError, ParsedDocument

from .config import Blocklist, WebConfig
from .trace import ResultTrace

PAGE_BYTES = 5 * 1024 * 1024  # a search result is read, not archived: bigger pages are skipped
PAGE_CHARS = 200_000  # characters of a result's page parsed at most: its first chunks are what is used


def page_budget(timeout: float):
    """The parse budget of a result's page: the environment's, within the fallback's page
    timeout and `PAGE_CHARS` (a question waits on it; a load of the same URL gets the whole one)."""
    from dataclasses import replace

    from graphrag_cypher.budget import ParseBudget

    budget = ParseBudget.from_env()
    return replace(budget, seconds=min(budget.seconds, timeout), chars=min(budget.chars, PAGE_CHARS))


class PageClient(Protocol):
    """What fetches a result's page: `loaders.web.PoliteClient` (a context manager), made with
    `delay`, `timeout`, `max_bytes`, `crawl_timeout`, `blocked` and `allow_local`."""

    def __enter__(self) -> PageClient: ...

    def __exit__(self, *exc) -> None: ...

    def page(self, url: str) -> ParsedDocument | ItemError: ...


class PageMemo:
    """The pages this process fetched and parsed, by URL (a bounded LRU), so that the same result
    page is never fetched and parsed twice, however often it is asked about. A page that could
    not be had is remembered for `error_seconds` only: a fetch may fail for a moment."""

    def __init__(self, size: int = 256, error_seconds: float = 600.0):
        import threading
        from collections import OrderedDict

        self.size, self.error_seconds = size, error_seconds
        self._pages: OrderedDict[str, tuple[float, ParsedDocument | ItemError]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, url: str) -> ParsedDocument | ItemError | None:
        with self._lock:
            entry = self._pages.get(url)
            if entry is None:
                return None
            if entry[0] < time.monotonic():
                del self._pages[url]
                return None
            self._pages.move_to_end(url)
            page = entry[1]
        # a copy: the fallback sets a missing title on the document it gets
        return dataclasses.replace(page) if isinstance(page, ParsedDocument) else page

    def put(self, url: str, page: ParsedDocument | ItemError) -> None:
        expires = time.monotonic() + self.error_seconds if isinstance(page, ItemError) else float("inf")
        with self._lock:
            self._pages[url] = (expires, page)
            self._pages.move_to_end(url)
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._pages.clear()


PAGE_MEMO = PageMemo()


def fetch_pages(
    results: list[ResultTrace], make_client: Callable[..., PageClient], config: WebConfig
) -> dict[str, ParsedDocument | ItemError]:
    """Each result's page; hosts in parallel (a client from `make_client` each), one host's pages
    one after another (`delay` apart). A page fetched and parsed before in this process is taken
    from `PAGE_MEMO`."""
    merged: dict[str, ParsedDocument | ItemError] = {}
    by_host: dict[str, list[str]] = {}
    for result in results:
        known = PAGE_MEMO.get(result.url)
        if known is not None:
            merged[result.url] = known
        else:
            by_host.setdefault((urlsplit(result.url).hostname or "").lower(), []).append(result.url)
    if not by_host:
        return merged

    def fetch_host(urls: list[str]) -> dict[str, ParsedDocument | ItemError]:
        out: dict[str, ParsedDocument | ItemError] = {}
        with make_client(
            delay=config.delay,
            timeout=config.timeout,
            max_bytes=PAGE_BYTES,
            crawl_timeout=config.timeout * 2 + config.delay * len(urls),
            blocked=_blocked_hop(config.blocklist),
            allow_local=config.allow_local,
            budget=page_budget(config.timeout),
        ) as client:
            for url in urls:
                try:
                    out[url] = client.page(url)
                except Exception as exc:  # a parser's surprise is this page's problem only
                    out[url] = ItemError(url, f"cannot read the page: {type(exc).__name__}: {exc}")
        return out

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(4, len(by_host))) as pool:
        for part in pool.map(fetch_host, by_host.values()):
            for url, page in part.items():
                PAGE_MEMO.put(url, page)
                merged[url] = PAGE_MEMO.get(url) or page
    return merged


def read_page(result: ResultTrace, doc: ParsedDocument | ItemError | None) -> ParsedDocument | None:
    """The result's parsed page (its trace filled in), or None with the reason in the trace."""
    if not isinstance(doc, ParsedDocument):
        result.error = doc.error if isinstance(doc, ItemError) else "not fetched"
        return None
    result.fetched = True
    result.final_url = doc.uri if doc.uri != result.url else None
    if doc.title == doc.uri and result.title != result.url:
        doc.title = result.title  # a page without a <title>: the search's title
    if doc.notes:
        result.note = "; ".join(doc.notes)  # what the parse budget cut
    return doc


def _blocked_hop(blocklist: Blocklist) -> Callable[[str], str | None]:
    """Why the page client must not follow a redirect to a URL: its domain is on the blocklist."""

    def blocked(url: str) -> str | None:
        entry = blocklist.match(url)
        return f"{entry} is on the web blocklist" if entry else None

    return blocked
