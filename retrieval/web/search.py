"""Search backends: a query to `WebResult` s (title, URL, snippet) from SearxNG's or Brave's JSON API."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from graphrag_cypher.errors import GraphragError

PROVIDERS = ("off", "searxng", "brave")
BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
MAX_RESULTS = 20
DEFAULT_TIMEOUT = 10.0  # seconds for one request (the search, or one page)
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
