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

The layers, one module each: `search` (the backends), `query` (what the web is asked),
`config` (settings and the blocklist), `fetch` (pages under the crawler's rules), `rank`
(chunks against the question), `trace` (what was done), `learn` (storing the pages), and
`fallback`, which runs them.
"""

from .config import ENV_NAMES, Blocklist, WebConfig
from .fallback import WebFallback
from .fetch import PAGE_CHARS, PAGE_MEMO, PageClient, PageMemo, page_budget
from .learn import TopicPages, learn_pages, learned_nothing, stored_page
from .query import web_question
from .search import BraveProvider, SearchProvider, SearxngProvider, WebResult, parse_brave, parse_searxng, with_dates
from .trace import ResultTrace, WebChunk, WebFound, WebPage, WebTrace

__all__ = [
    "ENV_NAMES",
    "PAGE_CHARS",
    "PAGE_MEMO",
    "Blocklist",
    "BraveProvider",
    "PageClient",
    "PageMemo",
    "ResultTrace",
    "SearchProvider",
    "SearxngProvider",
    "TopicPages",
    "WebChunk",
    "WebConfig",
    "WebFallback",
    "WebFound",
    "WebPage",
    "WebResult",
    "WebTrace",
    "learn_pages",
    "learned_nothing",
    "page_budget",
    "parse_brave",
    "parse_searxng",
    "stored_page",
    "web_question",
    "with_dates",
]
