"""Web-search fallback: search the web when the graph has nothing relevant, read the pages.

A :class:`SearchProvider` turns a query into :class:`WebResult` s (title, URL, snippet):

- :class:`SearxngProvider` — any SearxNG instance (self-hostable): ``GET {base}/search?q=…&format=json``,
  SearxNG's JSON ``results[{title, url, content, engine, …}]``;
- :class:`BraveProvider` — the Brave Search API behind a key: ``GET …/res/v1/web/search?q=…``
  with ``X-Subscription-Token``, JSON ``web.results[{title, url, description}]``.

:class:`WebFallback` then drops results on the domain blocklist (a domain blocks its
subdomains too) before anything is fetched, fetches the rest with the crawler's rules (the
page client is given by the caller: `loaders.web.PoliteClient`, robots.txt, redirects checked
hop by hop, byte caps, deadlines), chunks each page as a load would, embeds the chunks in
memory with the query embedder and keeps the chunks closest to the question. A result whose
page cannot be had falls back to its search snippet. Everything it did is in a
:class:`WebTrace` (``ask --json``'s ``web``), and `learn_pages` stores the pages used as
documents (``--learn-web``), reusing the vectors made here.

Configuration (environment or `.env`): GRAPHRAG_WEB_SEARCH (off, searxng, brave),
GRAPHRAG_SEARXNG_URL, GRAPHRAG_BRAVE_API_KEY, GRAPHRAG_BRAVE_URL, GRAPHRAG_WEB_BLOCKLIST,
GRAPHRAG_WEB_BLOCKLIST_FILE, GRAPHRAG_WEB_RESULTS, GRAPHRAG_WEB_TIMEOUT, GRAPHRAG_WEB_DELAY,
GRAPHRAG_WEB_CORPUS, GRAPHRAG_WEB_ALLOW_LOCAL. Results on loopback, private or link-local
addresses are not fetched unless GRAPHRAG_WEB_ALLOW_LOCAL=1: a search engine's results must not
steer the fetcher into the local network.
"""

from __future__ import annotations

import dataclasses
import html
import ipaddress
import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from graphrag_cypher.errors import GraphragError
from graphrag_cypher.model import ItemError, ParsedDocument, Section

PROVIDERS = ("off", "searxng", "brave")
ENV_NAMES = (
    "GRAPHRAG_WEB_SEARCH",
    "GRAPHRAG_SEARXNG_URL",
    "GRAPHRAG_BRAVE_API_KEY",
    "GRAPHRAG_BRAVE_URL",
    "GRAPHRAG_WEB_BLOCKLIST",
    "GRAPHRAG_WEB_BLOCKLIST_FILE",
    "GRAPHRAG_WEB_RESULTS",
    "GRAPHRAG_WEB_TIMEOUT",
    "GRAPHRAG_WEB_DELAY",
    "GRAPHRAG_WEB_CORPUS",
    "GRAPHRAG_WEB_ALLOW_LOCAL",
)
BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
DEFAULT_RESULTS = 5
MAX_RESULTS = 20
DEFAULT_TIMEOUT = 10.0  # seconds for one request (the search, or one page)
DEFAULT_DELAY = 0.5  # seconds between two requests to the same host
DEFAULT_CORPUS = "web"
PAGE_BYTES = 5 * 1024 * 1024  # a search result is read, not archived: bigger pages are skipped
PAGE_CHARS = 200_000  # characters of a result's page parsed at most: its first chunks are what is used


def page_budget(timeout: float):
    """The parse budget of a result's page: the environment's, within the fallback's page
    timeout and `PAGE_CHARS` (a question waits on it; a load of the same URL gets the whole one)."""
    from dataclasses import replace

    from graphrag_cypher.budget import ParseBudget

    budget = ParseBudget.from_env()
    return replace(budget, seconds=min(budget.seconds, timeout), chars=min(budget.chars, PAGE_CHARS))


CHUNKS_PER_PAGE = 40  # chunks of a page considered (a long page's first ones)
EMBEDDED_PER_PAGE = 8  # of those, the ones sharing most question words are embedded
CHUNK_SIZE, CHUNK_OVERLAP = 1000, 100  # as `graphrag load url` chunks, so learned chunks match
SEARCH_BYTES = 2 * 1024 * 1024
USER_AGENT = "graphrag-cypher/0.1 (web-search fallback)"


@dataclass
class WebResult:
    """One search hit, as the provider gave it (snippet as plain text)."""

    title: str
    url: str
    snippet: str = ""
    engine: str | None = None


Dates = tuple[str | None, str | None]  # (from, to), inclusive, YYYY-MM-DD; None: open


class SearchProvider(Protocol):
    name: str

    def search(self, query: str, n: int) -> list[WebResult]:
        """The first `n` results for `query`; GraphragError with one line when the search fails.
        A provider that takes ``dates=(from, to)`` as well is given the question's date range
        (`WebFallback` passes it only when there is one)."""
        ...


def with_dates(text: str, dates: Dates | None) -> str:
    """`text` with its date range as the search operators Google-family engines read
    (``after:YYYY-MM-DD before:YYYY-MM-DD``): what SearxNG sends on to its engines."""
    start, end = dates or (None, None)
    return " ".join(part for part in (text, start and f"after:{start}", end and f"before:{end}") if part)


def web_question(analysis, today: date) -> tuple[str, Dates | None]:
    """(text, dates): what the web is asked for a question — the standalone question with a
    relative time expression ("上個月", "last month") taken out and stated as the dates it
    means against `today`, since a search engine cannot resolve it. The graph's date filter
    (the question's own range, or --from/--to) is stated too. An absolute expression the graph
    did not filter by ("born in 1990" in an undated corpus) stays in the text as written: an
    engine reads it there."""
    from .question import parse_time_range, strip_time_expression

    filters = analysis.filters
    stated = (filters.date_from, filters.date_to)
    if filters.time_expression:
        return analysis.search_text, stated
    question = analysis.question
    dates = stated if any(stated) else None
    found = parse_time_range(question, today)
    if found is not None and _relative(question, found, today):
        question = strip_time_expression(question, found)
        dates = dates or (
            found.start.isoformat() if found.start else None,
            found.end.isoformat() if found.end else None,
        )
    return question, dates


def _relative(question: str, found, today: date) -> bool:
    """Whether the expression's dates depend on today (the same question asked 400 days later
    means other dates)."""
    from datetime import timedelta

    from .question import parse_time_range

    later = parse_time_range(question, today + timedelta(days=400))
    return later is None or (later.start, later.end) != (found.start, found.end)


class PageClient(Protocol):
    """What fetches a result's page: `loaders.web.PoliteClient` (a context manager), made with
    `delay`, `timeout`, `max_bytes`, `crawl_timeout`, `blocked` and `allow_local`."""

    def __enter__(self) -> PageClient: ...

    def __exit__(self, *exc) -> None: ...

    def page(self, url: str) -> ParsedDocument | ItemError: ...


def plain(text: str | None) -> str:
    """A snippet as plain text: search APIs mark the matched words with HTML (<strong>)."""
    if not text:
        return ""
    return " ".join(html.unescape(re.sub(r"<[^>]{0,200}>", "", str(text))).split())


class _JsonSearch:
    """One GET returning JSON, with one-line errors."""

    name = ""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT):
        self.timeout = timeout

    def _get(self, url: str, params: dict, headers: dict) -> dict:
        import httpx

        try:
            with httpx.Client(timeout=self.timeout, follow_redirects=False) as client:
                response = client.get(url, params=params, headers={"User-Agent": USER_AGENT, **headers})
        except httpx.HTTPError as exc:
            raise GraphragError(f"{self.name} search at {url} failed: {type(exc).__name__}: {exc}") from None
        if response.status_code != 200:
            raise GraphragError(
                f"{self.name} search at {url} answered HTTP {response.status_code}{self._hint(response)}"
            )
        if len(response.content) > SEARCH_BYTES:
            raise GraphragError(f"{self.name} search at {url} sent more than {SEARCH_BYTES // 1024 // 1024} MB")
        try:
            data = response.json()
        except ValueError:
            raise GraphragError(f"{self.name} search at {url} did not answer JSON") from None
        if not isinstance(data, dict):
            raise GraphragError(f"{self.name} search at {url} answered JSON that is not an object")
        return data

    def _hint(self, response) -> str:
        return ""


class SearxngProvider(_JsonSearch):
    """A SearxNG instance's JSON API (its settings must list `json` under search.formats)."""

    name = "searxng"

    def __init__(self, base_url: str, timeout: float = DEFAULT_TIMEOUT):
        super().__init__(timeout)
        self.base_url = base_url.rstrip("/")
        if self.base_url.endswith("/search"):
            self.base_url = self.base_url[: -len("/search")]

    def search(self, query: str, n: int, dates: Dates | None = None) -> list[WebResult]:
        q = with_dates(query, dates)
        data = self._get(f"{self.base_url}/search", {"q": q, "format": "json"}, {"Accept": "application/json"})
        return parse_searxng(data)[:n]

    def _hint(self, response) -> str:
        if response.status_code == 403:
            return ": enable the JSON format in SearxNG's settings.yml (search: formats: [html, json])"
        return ""


class BraveProvider(_JsonSearch):
    """The Brave Search API (a subscription key; GRAPHRAG_BRAVE_URL points it elsewhere)."""

    name = "brave"

    def __init__(self, api_key: str, base_url: str = BRAVE_URL, timeout: float = DEFAULT_TIMEOUT):
        super().__init__(timeout)
        self.api_key, self.base_url = api_key, base_url

    def search(self, query: str, n: int, dates: Dates | None = None) -> list[WebResult]:
        params: dict = {"q": query[:400], "count": min(n, MAX_RESULTS)}
        if dates and any(dates):
            # Brave's own date filter: freshness=YYYY-MM-DDtoYYYY-MM-DD (both ends needed)
            params["freshness"] = f"{dates[0] or '1970-01-01'}to{dates[1] or date.today().isoformat()}"
        data = self._get(self.base_url, params, {"Accept": "application/json", "X-Subscription-Token": self.api_key})
        return parse_brave(data)[:n]

    def _hint(self, response) -> str:
        if response.status_code in (401, 403, 422):
            return ": check GRAPHRAG_BRAVE_API_KEY"
        if response.status_code == 429:
            return ": the key's rate limit was reached"
        return ""


def _results(rows, snippet_key: str) -> list[WebResult]:
    out, seen = [], set()
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict):
            continue
        url = str(row.get("url") or "").strip()
        if not url.lower().startswith(("http://", "https://")) or url in seen:
            continue
        seen.add(url)
        engine = row.get("engine")
        out.append(
            WebResult(
                title=plain(row.get("title")) or url,
                url=url,
                snippet=plain(row.get(snippet_key)),
                engine=str(engine) if isinstance(engine, str) else None,
            )
        )
    return out


def parse_searxng(data: dict) -> list[WebResult]:
    """SearxNG's `results[{title, url, content, engine}]`, in order; non-http(s) and repeated URLs left out."""
    return _results(data.get("results"), "content")


def parse_brave(data: dict) -> list[WebResult]:
    """Brave's `web.results[{title, url, description}]`, in order."""
    web = data.get("web")
    return _results(web.get("results") if isinstance(web, dict) else None, "description")


# -- the blocklist ----------------------------------------------------------------------------


def _domain(entry: str) -> str | None:
    """A blocklist entry as a host name: URLs give their host; "*.x" and ".x" mean x."""
    entry = entry.strip().lower()
    if not entry or entry.startswith("#"):
        return None
    if "://" in entry:
        entry = urlsplit(entry).hostname or ""
    else:
        entry = entry.split("/", 1)[0]
        if entry.startswith("[") and "]" in entry:
            entry = entry[1 : entry.index("]")]
        elif entry.count(":") == 1:
            entry = entry.split(":", 1)[0]  # a port is not part of a domain
    entry = entry.removeprefix("*.").lstrip(".").rstrip(".")
    return entry or None


class Blocklist:
    """Domains never fetched nor cited; a domain blocks its subdomains (`example.com` blocks
    `news.example.com`, not `badexample.com`). IP addresses match themselves only."""

    def __init__(self, domains: Iterable[str] = ()):
        self.domains = frozenset(d for d in (_domain(x) for x in domains) if d)

    @classmethod
    def from_env(cls, environ: dict | None = None) -> Blocklist:
        env = (environ if environ is not None else os.environ).get
        entries = [x for x in (env("GRAPHRAG_WEB_BLOCKLIST") or "").split(",")]
        path = env("GRAPHRAG_WEB_BLOCKLIST_FILE")
        if path:
            try:
                entries += Path(path).expanduser().read_text("utf-8").splitlines()
            except OSError as exc:
                raise GraphragError(f"GRAPHRAG_WEB_BLOCKLIST_FILE {path}: {exc.strerror or exc}") from None
        return cls(e.split("#", 1)[0] for e in entries)

    def match(self, url: str) -> str | None:
        """The blocklist entry that blocks `url`'s host, or None."""
        try:
            host = (urlsplit(url).hostname or "").lower().rstrip(".")
        except ValueError:
            return None
        if not host:
            return None
        if host in self.domains:
            return host
        try:
            ipaddress.ip_address(host)
            return None  # an address has no parent domains
        except ValueError:
            pass
        parts = host.split(".")
        for i in range(1, len(parts)):
            parent = ".".join(parts[i:])
            if parent in self.domains:
                return parent
        return None

    def __len__(self) -> int:
        return len(self.domains)


# -- configuration ----------------------------------------------------------------------------


@dataclass
class WebConfig:
    provider: str = "off"  # off, searxng, brave
    searxng_url: str | None = None
    brave_key: str | None = None
    brave_url: str = BRAVE_URL
    results: int = DEFAULT_RESULTS
    timeout: float = DEFAULT_TIMEOUT
    delay: float = DEFAULT_DELAY
    corpus: str = DEFAULT_CORPUS
    blocklist: Blocklist = field(default_factory=Blocklist)
    allow_local: bool = False  # results on loopback, private or link-local addresses are fetched too

    @classmethod
    def from_env(cls, environ: dict | None = None) -> WebConfig:
        """The web-search settings; a value that cannot work is a one-line GraphragError."""
        env = (environ if environ is not None else os.environ).get
        provider = (env("GRAPHRAG_WEB_SEARCH") or "off").strip().lower()
        if provider in ("", "none", "0", "false", "no"):
            provider = "off"
        if provider not in PROVIDERS:
            raise GraphragError(f"GRAPHRAG_WEB_SEARCH={provider!r}: use {', '.join(PROVIDERS)}")
        config = cls(
            provider=provider,
            searxng_url=(env("GRAPHRAG_SEARXNG_URL") or "").strip() or None,
            brave_key=(env("GRAPHRAG_BRAVE_API_KEY") or "").strip() or None,
            brave_url=(env("GRAPHRAG_BRAVE_URL") or "").strip() or BRAVE_URL,
            results=int(_number(env, "GRAPHRAG_WEB_RESULTS", DEFAULT_RESULTS, 1, MAX_RESULTS, whole=True)),
            timeout=_number(env, "GRAPHRAG_WEB_TIMEOUT", DEFAULT_TIMEOUT, 1, 120),
            delay=_number(env, "GRAPHRAG_WEB_DELAY", DEFAULT_DELAY, 0, 30),
            corpus=(env("GRAPHRAG_WEB_CORPUS") or "").strip() or DEFAULT_CORPUS,
            blocklist=Blocklist.from_env(environ),
            allow_local=(env("GRAPHRAG_WEB_ALLOW_LOCAL") or "").strip().lower() in ("1", "true", "yes", "on"),
        )
        if provider == "searxng":
            if not config.searxng_url:
                raise GraphragError(
                    "GRAPHRAG_WEB_SEARCH=searxng needs GRAPHRAG_SEARXNG_URL (e.g. http://127.0.0.1:8888)"
                )
            if not config.searxng_url.lower().startswith(("http://", "https://")):
                raise GraphragError(f"GRAPHRAG_SEARXNG_URL={config.searxng_url!r} is not an http(s) URL")
        if provider == "brave" and not config.brave_key:
            raise GraphragError("GRAPHRAG_WEB_SEARCH=brave needs GRAPHRAG_BRAVE_API_KEY (a Brave Search API key)")
        return config

    def provider_object(self) -> SearchProvider | None:
        if self.provider == "searxng" and self.searxng_url:
            return SearxngProvider(self.searxng_url, self.timeout)
        if self.provider == "brave" and self.brave_key:
            return BraveProvider(self.brave_key, self.brave_url, self.timeout)
        return None


def _number(env, name: str, default: float, low: float, high: float, whole: bool = False) -> float:
    raw = env(name)
    if raw is None or not str(raw).strip():
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        raise GraphragError(f"{name}={raw!r} is not a {'whole ' if whole else ''}number") from None
    if not low <= value <= high:
        raise GraphragError(f"{name}={raw!r}: use a value from {low:g} to {high:g}")
    return value


# -- what was done, for --explain and --json --------------------------------------------------


@dataclass
class ResultTrace:
    title: str
    url: str
    snippet: str = ""
    id: str | None = None  # W1, W2, … when the result gave evidence
    fetched: bool = False  # its page was fetched and parsed
    blocked: str | None = None  # the blocklist entry that kept it from being fetched
    error: str | None = None  # why its page could not be used
    snippet_used: bool = False  # its search snippet stands in for the page
    final_url: str | None = None  # where redirects led
    chunks: int = 0  # chunks of the page compared with the question
    best_similarity: float | None = None
    note: str | None = None  # why a fetched result gave no evidence
    dropped: str | None = None  # why it gave no evidence, in a few words (blocked, robots, gate, judge…)

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "url": self.url,
            "final_url": self.final_url,
            "fetched": self.fetched,
            "blocked": self.blocked is not None,
            "blocked_by": self.blocked,
            "error": self.error,
            "snippet_used": self.snippet_used,
            "chunks": self.chunks,
            "best_similarity": None if self.best_similarity is None else round(self.best_similarity, 4),
            "note": self.note,
            "dropped": None if self.id else self.why_dropped(),
        }

    def why_dropped(self) -> str | None:
        """Why this result gave no evidence: blocked, not fetched (robots.txt, HTTP errors, local
        addresses), under the gate, judged off-topic, or outranked."""
        if self.blocked:
            return f"blocked: {self.blocked} is on the web blocklist"
        if self.dropped:
            return self.dropped
        if self.error and not self.snippet_used:
            return f"not fetched: {self.error}"
        return self.note


@dataclass
class WebTrace:
    """Whether the web was searched, why, and what became of each result."""

    provider: str | None
    searched: bool = False
    reason: str = ""
    query: str | None = None  # the standalone question, a relative time expression taken out
    dates: Dates | None = None  # the date range stated with it (from, to)
    results: list[ResultTrace] = field(default_factory=list)
    error: str | None = None  # the search itself failed
    min_similarity: float | None = None  # chunks under it were not used (None with a judge)
    judged_by: str | None = None  # the LLM that judged the pages, if one did
    learned: dict | None = None  # --learn-web: what storing the pages did
    ms: float = 0.0

    def to_dict(self) -> dict:
        return {
            "provider": self.provider,
            "searched": self.searched,
            "reason": self.reason,
            "query": self.query,
            "dates": {"from": self.dates[0], "to": self.dates[1]} if self.dates else None,
            "results": [r.to_dict() for r in self.results],
            "error": self.error,
            "min_similarity": self.min_similarity,
            "judged_by": self.judged_by,
            "learned": self.learned,
            "ms": round(self.ms, 1),
        }


@dataclass
class WebPage:
    """A result that gave evidence: its id, the parsed page (None: only the snippet), its chunks."""

    cite: str
    result: ResultTrace
    document: ParsedDocument | None
    chunks: list[WebChunk]


@dataclass
class WebChunk:
    chunk_id: str
    text: str
    similarity: float
    vector: list[float]
    embedded_text: str


@dataclass
class WebFound:
    pages: list[WebPage]
    trace: WebTrace
    vectors: dict[str, list[float]] = field(default_factory=dict)  # embedded text -> vector, for learning


# -- the fallback ------------------------------------------------------------------------------


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
        documents = self._fetch(to_fetch)
        words = _stems(keywords) or _stems(re.findall(r"\w+", query))
        candidates: list[tuple[ResultTrace, ParsedDocument | None, str, str, str]] = []
        for result in to_fetch:
            doc = self._read(result, documents.get(result.url))
            if doc is not None:
                texts = _page_chunks(doc)
                if not texts:
                    result.dropped = "the page has no text"
                for chunk_id, text in _best_by_words(texts, words, EMBEDDED_PER_PAGE):
                    candidates.append((result, doc, chunk_id, text, _embedding_input(doc.title, text)))
                result.chunks = len(texts)
                if texts:
                    continue
            if result.snippet:
                result.snippet_used = True
                candidates.append(
                    (
                        result,
                        None,
                        f"{result.url}::snippet",
                        result.snippet,
                        _embedding_input(result.title, result.snippet),
                    )
                )
        if candidates:
            vectors = embed([c[4] for c in candidates])
            found.vectors = {c[4]: v for c, v in zip(candidates, vectors, strict=True)}
        scored = []
        for (result, doc, chunk_id, text, embedded), vector in zip(
            candidates, vectors if candidates else [], strict=True
        ):
            sim = _cosine(question_vector, vector)
            if result.best_similarity is None or sim > result.best_similarity:
                result.best_similarity = sim
            scored.append((sim, result, doc, WebChunk(chunk_id, text, sim, vector, embedded)))
        scored.sort(key=lambda s: -s[0])
        if judge is not None:
            off_topic = self._judge(scored, judge, trace)
            chosen = [s for s in scored if s[1].url not in off_topic][:k]
        else:
            chosen = [s for s in scored if min_similarity is None or s[0] >= min_similarity][:k]
        pages: dict[str, WebPage] = {}
        for _sim, result, doc, chunk in chosen:
            page = pages.get(result.url)
            if page is None:
                page = pages[result.url] = WebPage("", result, doc, [])
            page.chunks.append(chunk)
        for result in trace.results:
            if result.url not in pages and result.best_similarity is not None and result.dropped is None:
                if judge is None and min_similarity is not None and result.best_similarity < min_similarity:
                    result.dropped = f"cosine {result.best_similarity:.3f} below the gate ({min_similarity:g})"
                else:
                    result.dropped = f"other results were closer to the question (the best {k} chunk(s) are used)"
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

    @staticmethod
    def _read(result: ResultTrace, doc: ParsedDocument | ItemError | None) -> ParsedDocument | None:
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

    @staticmethod
    def _judge(scored: list, judge: Callable, trace: WebTrace) -> set[str]:
        """The URLs of the pages the judge called off-topic, each judged by its best chunk."""
        from .base import Evidence

        best: dict[str, tuple] = {}
        for _sim, result, doc, chunk in scored:  # best first
            if result.url not in best:
                best[result.url] = (result, doc, chunk)
        if not best:
            return set()
        passages = [
            Evidence(
                chunk.chunk_id, result.url, doc.title if doc else result.title, result.url, chunk.text, chunk.similarity
            )
            for result, doc, chunk in best.values()
        ]
        verdicts, trace.judged_by = judge(passages)
        off = set()
        for url, (result, _doc, chunk) in best.items():
            relevant, reason = verdicts.get(chunk.chunk_id, (True, "no verdict: kept"))
            if not relevant:
                off.add(url)
                result.dropped = f"judged off-topic by {trace.judged_by}" + (f": {reason}" if reason else "")
        return off

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
            fetched = self._fetch(batch)
            for result in batch:
                doc = self._read(result, fetched.get(result.url))
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

    def _fetch(self, results: list[ResultTrace]) -> dict[str, ParsedDocument | ItemError]:
        """Each result's page; hosts in parallel, one host's pages one after another (`delay` apart).
        A page fetched and parsed before in this process is taken from `PAGE_MEMO`."""
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
        cfg = self.config

        def fetch_host(urls: list[str]) -> dict[str, ParsedDocument | ItemError]:
            out: dict[str, ParsedDocument | ItemError] = {}
            with self.client(
                delay=cfg.delay,
                timeout=cfg.timeout,
                max_bytes=PAGE_BYTES,
                crawl_timeout=cfg.timeout * 2 + cfg.delay * len(urls),
                blocked=self._blocked_hop,
                allow_local=cfg.allow_local,
                budget=page_budget(cfg.timeout),
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

    def _blocked_hop(self, url: str) -> str | None:
        entry = self.config.blocklist.match(url)
        return f"{entry} is on the web blocklist" if entry else None


def _embedding_input(title: str | None, text: str) -> str:
    from graphrag_cypher.store.ingest import embedding_input

    return embedding_input(title, text)


def _page_chunks(doc: ParsedDocument) -> list[tuple[str, str]]:
    """(chunk id, text) of a page's first chunks, ids as a load gives them (`<url>::<index>`)."""
    from graphrag_cypher.chunking import chunk_document

    specs = chunk_document(doc, size=CHUNK_SIZE, overlap=CHUNK_OVERLAP)
    return [(f"{doc.id}::{s.index}", s.text) for s in specs if s.text.strip()][:CHUNKS_PER_PAGE]


def _stems(words: Iterable[str]) -> set[str]:
    return {w.lower()[:5] for w in words if len(w) > 2}


def _best_by_words(texts: list[tuple[str, str]], stems: set[str], n: int) -> list[tuple[str, str]]:
    """The `n` chunks sharing most question word stems (ties: earlier chunks), in page order."""
    if len(texts) <= n:
        return texts

    def overlap(text: str) -> int:
        words = {w[:5] for w in re.findall(r"\w+", text.lower())}
        return len(stems & words)

    ranked = sorted(range(len(texts)), key=lambda i: (-overlap(texts[i][1]), i))[:n]
    return [texts[i] for i in sorted(ranked)]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = sum(x * x for x in a) ** 0.5
    nb = sum(y * y for y in b) ** 0.5
    return dot / (na * nb) if na and nb else 0.0


# -- --learn-web --------------------------------------------------------------------------------


class _KnownVectors:
    """The query embedder, answering from the vectors the fallback already made."""

    def __init__(self, embedder, known: dict[str, list[float]]):
        self._embedder, self._known = embedder, known
        self.name, self.dimensions = embedder.name, embedder.dimensions
        self.computed = 0  # texts the embedder had to embed

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        todo = list(dict.fromkeys(t for t in texts if t not in self._known))
        self.computed += len(todo)
        if todo:
            self._known.update(zip(todo, self._embedder.embed(todo), strict=True))
        return [self._known[t] for t in texts]


def learned_nothing(note: str | None = None, error: str | None = None) -> dict:
    """`learned` of a --learn-web that stored nothing, shaped as `learn_pages` answers."""
    out: dict = {"documents": 0, "created": 0, "updated": 0, "unchanged": 0, "chunks": 0, "embedded": 0}
    return dict(out, errors=[], note=note, error=error)


def stored_page(doc: ParsedDocument, stamp: str) -> ParsedDocument:
    """A fetched page as a web document to store (kind `web`, :WebPage, `fetched` the date
    of the fetch whose text is stored)."""
    return ParsedDocument(
        id=doc.id,
        title=doc.title,
        kind="web",
        source=doc.source,
        uri=doc.uri,
        labels=tuple(doc.labels),
        metadata=dict(doc.metadata, fetched=stamp),
        sections=[Section(s.text, s.title, s.page, s.kind, s.seq) for s in doc.sections],
    )


@dataclass
class TopicPages:
    """What a topic's search gave to learn: the pages (web documents) and, in the trace, what
    became of each result (blocked, not fetched, no text, not needed)."""

    topic: str
    trace: WebTrace
    documents: list[ParsedDocument] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "topic": self.topic,
            "provider": self.trace.provider,
            "error": self.trace.error,
            "results": len(self.trace.results),
            "pages": [d.id for d in self.documents],
            "skipped": [  # the results tried or blocked that gave no page
                {"url": r.url, "why": r.why_dropped()}
                for r in self.trace.results
                if r.id is None and (r.blocked or r.error or r.dropped)
            ],
        }


def learn_pages(graph, embedder, found: WebFound, corpus: str = DEFAULT_CORPUS, today: date | None = None) -> dict:
    """Store the fetched pages that gave evidence as web documents (kind `web`, with `fetched`,
    the date of the fetch whose text is stored), through the ingest path in write
    transactions: unchanged pages are left as they are, changed ones are updated (a page the
    graph already held is refreshed this way). Returns the load's counts."""
    from graphrag_cypher.store.ingest import LoadOptions, load

    stamp = (today or date.today()).isoformat()
    docs = [stored_page(page.document, stamp) for page in found.pages if page.document is not None]
    if not docs:
        return learned_nothing("only search snippets gave evidence: nothing to learn")
    options = LoadOptions(
        loader="web-search", source_root="web-search", corpus=corpus, chunk_size=CHUNK_SIZE, overlap=CHUNK_OVERLAP
    )
    vectors = _KnownVectors(embedder, dict(found.vectors))
    stats = load(graph, vectors, options, docs)
    return {
        "documents": len(docs),
        "created": stats.created,
        "updated": stats.updated,
        "unchanged": stats.unchanged,
        "chunks": stats.chunks_created,
        "embedded": vectors.computed,  # chunks whose vector the question's search had not made
        "errors": [f"{e['item']}: {e['error']}" for e in stats.errors],
        "note": None,
        "error": None,
    }
