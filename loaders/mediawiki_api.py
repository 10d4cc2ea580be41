"""A live MediaWiki (1.35 or later) over its Action API: pages as the XML-export loader makes them.

A run lists the chosen pages (namespaces, a category, or titles) with their latest revision
id and the redirects to them, a batch at a time through the API's continuation, compares
them with the stored documents, and fetches the wikitext of only the pages that changed,
50 per request. Each page then goes through the same parsing, infobox extraction and
document id as ``load mediawiki`` (:func:`loaders.mediawiki.page_document`), so a page read
from a dump and from the API is one node.

After each listing batch is written, its continuation is recorded on a ``__WikiSync`` node
in the graph: a stopped run resumes with the next batch, and a finished run clears it.

Politeness: requests are serial, at most one per ``delay`` seconds; every request carries
``maxlag`` (the wiki refuses work while its replicas lag, and we wait) and a descriptive
User-Agent; 429, 5xx, ``maxlag`` and ``ratelimited`` answers and network errors are retried
with exponential backoff that honours Retry-After.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial

from graphrag_cypher import __version__
from graphrag_cypher.errors import GraphragError
from graphrag_cypher.model import ItemError, ParsedDocument
from graphrag_cypher.store.ingest import Checkpoint
from graphrag_cypher.text import collapse_whitespace

from .mediawiki import RawPage, SiteInfo, normal_title, page_document

DEFAULT_USER_AGENT = (
    f"graphrag-cypher/{__version__} (MediaWiki API loader; set --user-agent to add your contact) python-httpx"
)
DEFAULT_DELAY = 1.0  # seconds between request starts: one request a second, serially
DEFAULT_MAXLAG = 5  # seconds of replica lag above which the wiki asks clients to wait
DEFAULT_RETRIES = 6
MAX_BACKOFF = 120.0  # no single wait is longer than this
CONTENT_BATCH = 50  # the API's limit on pages per request when revision content is asked for
LIST_BATCH = 500  # the API's limit on pages per listing request for ordinary clients
MIN_VERSION = (1, 35)
RETRY_CODES = frozenset({"maxlag", "ratelimited", "readonly", "internal_api_error_DBQueryError"})


class ApiError(GraphragError):
    """The wiki answered with an error that waiting will not fix; the message is one line."""


class _Transient(Exception):
    """Worth another try after `retry_after` seconds (None: exponential backoff)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class Politeness:
    delay: float = DEFAULT_DELAY
    maxlag: int | None = DEFAULT_MAXLAG
    retries: int = DEFAULT_RETRIES
    timeout: float = 60.0
    user_agent: str = DEFAULT_USER_AGENT
    max_backoff: float = MAX_BACKOFF


@dataclass
class Selection:
    """Which pages: namespaces (the default), or the members of a category, or titles."""

    namespaces: tuple[int, ...] = (0,)
    category: str | None = None
    titles: tuple[str, ...] = ()

    def key(self) -> str:
        if self.titles:
            return "titles:" + "|".join(sorted(normal_title(t) for t in self.titles))
        if self.category:
            return f"category:{normal_title(self.category)}:ns={','.join(map(str, self.namespaces))}"
        return "ns=" + ",".join(map(str, self.namespaces))


@dataclass
class ApiStats:
    requests: int = 0
    retries: int = 0
    waited_s: float = 0.0
    listed: int = 0
    fetched: int = 0
    resumed: bool = False
    waits: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "requests": self.requests,
            "retries": self.retries,
            "waitedSeconds": round(self.waited_s, 1),
            "pagesListed": self.listed,
            "pagesFetched": self.fetched,
            "resumed": self.resumed,
        }


class MediaWikiAPI:
    """A serial, paced, retrying client for one wiki's api.php."""

    def __init__(self, url: str, politeness: Politeness | None = None, on_wait: Callable[[str], None] | None = None):
        import httpx

        self.url = url
        self.polite = politeness or Politeness()
        self.stats = ApiStats()
        self.on_wait = on_wait or (lambda line: None)
        self.client = httpx.Client(
            headers={"User-Agent": self.polite.user_agent, "Accept-Encoding": "gzip"},
            timeout=self.polite.timeout,
            follow_redirects=True,
        )
        self._last = 0.0
        self._lock = threading.Lock()

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> MediaWikiAPI:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- one request ---------------------------------------------------------------------
    def get(self, params: dict) -> dict:
        """One API call (GET, JSON, formatversion 2, maxlag), retried while the wiki asks us to wait."""
        from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            backoff = min(self.polite.max_backoff, 2.0 ** (state.attempt_number - 1))
            hint = getattr(exc, "retry_after", None)
            seconds = min(self.polite.max_backoff, max(hint, 0.0)) if hint is not None else backoff
            self.stats.retries += 1
            self.stats.waited_s += seconds
            self.stats.waits.append({"seconds": seconds, "why": str(exc)})
            self.on_wait(f"{exc}; waiting {seconds:g} s (attempt {state.attempt_number + 1})")
            return seconds

        query = {"format": "json", "formatversion": "2", "errorformat": "plaintext", **params}
        if self.polite.maxlag is not None:
            query["maxlag"] = str(self.polite.maxlag)
        retrying = Retrying(
            stop=stop_after_attempt(self.polite.retries + 1),
            wait=wait,
            retry=retry_if_exception_type(_Transient),
            reraise=True,
        )
        try:
            return retrying(self._once, query)
        except _Transient as exc:
            raise ApiError(f"{exc} (gave up after {self.polite.retries + 1} attempts)") from None

    def _pace(self) -> None:
        with self._lock:
            gap = self._last + self.polite.delay - time.monotonic()
            if gap > 0:
                time.sleep(gap)
            self._last = time.monotonic()

    def _once(self, query: dict) -> dict:
        import httpx

        self._pace()
        self.stats.requests += 1
        try:
            response = self.client.get(self.url, params=query)
        except httpx.TransportError as exc:
            raise _Transient(f"{type(exc).__name__}: {collapse_whitespace(str(exc)) or 'network error'}") from None
        retry_after = _retry_after(response.headers.get("Retry-After"))
        if response.status_code == 429 or response.status_code >= 500:
            raise _Transient(f"HTTP {response.status_code} from {self.url}", retry_after)
        if response.status_code != 200:
            raise ApiError(f"HTTP {response.status_code} from {self.url}")
        try:
            data = response.json()
        except ValueError:
            raise ApiError(f"{self.url} did not answer with JSON: is it a MediaWiki api.php URL?") from None
        if not isinstance(data, dict):
            raise ApiError(f"{self.url} answered with unexpected JSON")
        errors = data.get("errors") or ([data["error"]] if isinstance(data.get("error"), dict) else [])
        if errors:
            code = str(errors[0].get("code") or "")
            text = collapse_whitespace(str(errors[0].get("text") or errors[0].get("info") or code))
            if code in RETRY_CODES:
                if retry_after is None and code == "maxlag":
                    retry_after = float(errors[0].get("lag") or self.polite.maxlag or 5)
                raise _Transient(f"{code}: {text}", retry_after)
            raise ApiError(f"API error {code}: {text}")
        return data

    # --- continuation --------------------------------------------------------------------
    def query_batches(self, params: dict, start: dict | None = None) -> Iterator[tuple[list[dict], dict | None]]:
        """Pages of a query, one complete batch at a time, with the continuation that follows it
        (None after the last). Page properties split over several responses are merged."""
        cont = dict(start or {})
        pages: dict = {}
        while True:
            data = self.get({"action": "query", **params, **cont})
            query = data.get("query") or {}
            for page in query.get("pages") or []:
                key = page.get("pageid") or page.get("title")
                _merge(pages.setdefault(key, {}), page)
            cont = data.get("continue") or {}
            if data.get("batchcomplete") or not cont:
                yield list(pages.values()), (cont or None)
                pages = {}
            if not cont:
                return


def _merge(into: dict, page: dict) -> None:
    for key, value in page.items():
        if isinstance(value, list) and isinstance(into.get(key), list):
            into[key].extend(value)
        else:
            into[key] = value


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            return max(0.0, (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds())
        except (TypeError, ValueError):
            return None


# --- the site -------------------------------------------------------------------------------


def site_info(api: MediaWikiAPI) -> SiteInfo:
    """Name, id, article URL and the namespace names (with aliases) that parsing needs."""
    data = api.get({"action": "query", "meta": "siteinfo", "siprop": "general|namespaces|namespacealiases"})
    query = data.get("query") or {}
    general = query.get("general") or {}
    generator = str(general.get("generator") or "")
    match = re.search(r"MediaWiki (\d+)\.(\d+)", generator)
    if not match:
        raise ApiError(f"{api.url} is not a MediaWiki API (siteinfo names no MediaWiki version)")
    if (int(match.group(1)), int(match.group(2))) < MIN_VERSION:
        raise ApiError(f"{api.url} runs {generator}; the API loader needs MediaWiki 1.35 or later")
    info = SiteInfo(
        sitename=str(general.get("sitename") or ""),
        dbname=str(general.get("wikiid") or ""),
        base=str(general.get("base") or ""),
    )
    names: dict[int, set[str]] = {}
    for ns in (query.get("namespaces") or {}).values():
        for name in (ns.get("name"), ns.get("canonical")):
            if name:
                names.setdefault(int(ns["id"]), set()).add(str(name).lower())
    for alias in query.get("namespacealiases") or []:
        names.setdefault(int(alias["id"]), set()).add(str(alias.get("alias") or "").lower())
    info.file_prefixes |= names.get(6, set()) | names.get(-2, set())
    info.category_prefixes |= names.get(14, set())
    return info


# --- listing and fetching ----------------------------------------------------------------------


@dataclass
class Listed:
    page_id: int
    title: str
    ns: int
    revision_id: int
    aliases: list[str]


def _listing_params(selection: Selection, batch: int = LIST_BATCH) -> dict:
    common = {"prop": "info|redirects", "rdprop": "title", "rdlimit": "max"}
    spaces = "|".join(map(str, selection.namespaces))
    common["rdnamespace"] = spaces
    if selection.titles:
        return {**common, "redirects": "1"}
    if selection.category:
        title = selection.category
        if ":" not in title:
            title = f"Category:{title}"
        return {
            **common,
            "generator": "categorymembers",
            "gcmtitle": title,
            "gcmnamespace": spaces,
            "gcmtype": "page",
            "gcmlimit": str(batch),
        }
    return {**common, "generator": "allpages", "gapfilterredir": "nonredirects", "gaplimit": str(batch)}


def list_pages(
    api: MediaWikiAPI, selection: Selection, start: dict | None = None, batch: int = LIST_BATCH
) -> Iterator[tuple[list[Listed], list[ItemError], dict | None]]:
    """(pages, errors, continuation after them) per listing batch."""
    params = _listing_params(selection, batch)
    if selection.titles:
        titles = list(dict.fromkeys(selection.titles))
        for i in range(0, len(titles), CONTENT_BATCH):
            part = titles[i : i + CONTENT_BATCH]
            for rows, _ in api.query_batches({**params, "titles": "|".join(part)}):
                pages, errors = _listed(rows, selection, api.url)
                yield pages, errors, None
        return
    for rows, cont in api.query_batches(params, start):
        pages, errors = _listed(rows, selection, api.url)
        yield pages, errors, cont


def _listed(batch: list[dict], selection: Selection, url: str) -> tuple[list[Listed], list[ItemError]]:
    pages, errors = [], []
    for page in batch:
        title = str(page.get("title") or "")
        if page.get("missing") or page.get("invalid"):
            errors.append(ItemError(f"{url} page {title!r}", "no such page"))
            continue
        if page.get("redirect") or (not selection.titles and int(page.get("ns", 0)) not in selection.namespaces):
            continue
        aliases = sorted({r["title"] for r in page.get("redirects") or [] if r.get("title")})
        pages.append(
            Listed(int(page["pageid"]), title, int(page.get("ns", 0)), int(page.get("lastrevid") or 0), aliases)
        )
    pages.sort(key=lambda p: p.title)
    return pages, errors


def fetch_documents(
    api: MediaWikiAPI, info: SiteInfo, pages: list[Listed], site: str | None = None
) -> Iterator[ParsedDocument | ItemError]:
    """The wikitext, categories and latest revision of `pages`, as documents."""
    by_id = {p.page_id: p for p in pages}
    for i in range(0, len(pages), CONTENT_BATCH):
        ids = [str(p.page_id) for p in pages[i : i + CONTENT_BATCH]]
        params = {
            "pageids": "|".join(ids),
            "prop": "revisions|categories",
            "rvprop": "ids|timestamp|content",
            "rvslots": "main",
            "clshow": "!hidden",
            "cllimit": "max",
        }
        for batch, _ in api.query_batches(params):
            for page in sorted(batch, key=lambda p: p.get("title", "")):
                yield _document(api, info, page, by_id.get(int(page.get("pageid") or 0)), site)


def _document(api: MediaWikiAPI, info: SiteInfo, page: dict, listed: Listed | None, site: str | None):
    title = str(page.get("title") or "")
    where = f"{api.url} page {title!r}"
    revisions = page.get("revisions") or []
    if page.get("missing") or not revisions:
        return ItemError(where, "deleted or hidden since it was listed")
    revision = revisions[0]
    main = (revision.get("slots") or {}).get("main") or {}
    if main.get("texthidden") or "content" not in main:
        return ItemError(where, "its text is hidden or not readable")
    if main.get("contentmodel", "wikitext") != "wikitext":
        return ItemError(where, f"content model {main.get('contentmodel')} is not wikitext")
    api.stats.fetched += 1
    raw = RawPage(
        title=title,
        ns=int(page.get("ns", 0)),
        page_id=int(page["pageid"]),
        revision_id=int(revision.get("revid") or 0) or None,
        timestamp=revision.get("timestamp"),
        redirect=None,
        text=str(main.get("content") or ""),
    )
    categories = [str(c["title"]).split(":", 1)[-1] for c in page.get("categories") or [] if c.get("title")]
    try:
        return page_document(raw, info, api.url, listed.aliases if listed else [], site, categories)
    except Exception as exc:  # one odd page must not stop the wiki
        return ItemError(where, f"{type(exc).__name__}: {collapse_whitespace(str(exc))}")


# --- a run -----------------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _document_id(info: SiteInfo, site: str | None, title: str) -> str:
    from graphrag_cypher.text import slugify

    return f"wiki:{site or info.dbname or slugify(info.sitename or 'wiki')}:{title}"


@dataclass
class SyncRun:
    """One API load: the items for `ingest.load`, and what it did (`api.stats`, `resumed`)."""

    graph: object
    api: MediaWikiAPI
    selection: Selection
    site: str | None = None
    corpus: str | None = None
    full: bool = False
    restart: bool = False
    limit: int | None = None  # stop (resumably) after listing this many pages: for trials and tests
    batch: int = LIST_BATCH  # pages per listing request; the checkpoint advances once per batch
    info: SiteInfo | None = None
    listed_ids: list[str] = field(default_factory=list)  # every page of the selection seen this run
    stopped: bool = False  # by --limit, with a checkpoint to go on from

    @property
    def sync_id(self) -> str:
        return f"{self.api.url}#{self.selection.key()}"

    def items(self) -> Iterator[ParsedDocument | ItemError | Checkpoint]:
        graph = self.graph
        self.info = info = site_info(self.api)
        stored = graph.read("ingest/wiki_sync_checkpoint", id=self.sync_id)  # type: ignore[attr-defined]
        start = None
        if stored and stored[0]["continue"] and not self.restart and not self.selection.titles:
            start = json.loads(stored[0]["continue"])
            self.api.stats.resumed = True
        started = _now()
        self._save(None if start is None else json.dumps(start), startedAt=started, finishedAt=None)
        listed_total = (stored[0]["pagesListed"] or 0) if start else 0
        for pages, errors, cont in list_pages(self.api, self.selection, start, self.batch):
            yield from errors
            ids = {p.page_id: _document_id(info, self.site, p.title) for p in pages}
            known = {
                r["id"]: r
                for r in graph.read("ingest/wiki_revisions", ids=list(ids.values()))  # type: ignore[attr-defined]
            }
            todo, current = [], []
            for page in pages:
                row = known.get(ids[page.page_id])
                if (
                    self.full
                    or row is None
                    or row["revisionId"] != page.revision_id
                    or sorted(row["aliases"]) != page.aliases
                    or row["corpus"] != self.corpus
                ):
                    todo.append(page)
                else:
                    current.append(ids[page.page_id])
            self.listed_ids.extend(ids.values())
            self.api.stats.listed += len(pages)
            listed_total += len(pages)
            yield from fetch_documents(self.api, info, todo, self.site)
            text = json.dumps(cont) if cont else None
            yield Checkpoint(reached=partial(self._save, text, pagesListed=listed_total), unchanged=tuple(current))
            if cont is None:
                break
            if self.limit is not None and self.api.stats.listed >= self.limit:
                self.stopped = True
                return  # stopped on purpose: the checkpoint says where to go on
        self._save(None, finishedAt=_now(), pagesListed=listed_total)

    @property
    def complete(self) -> bool:
        """Whether this run saw the whole selection (so pages it did not see are gone)."""
        return not self.api.stats.resumed and not self.stopped and not self.selection.titles

    def prune(self, options) -> dict:
        """Delete documents this wiki's earlier loads made whose pages are gone (only after a
        complete run: a resumed or limited run has not seen every page)."""
        from graphrag_cypher.audit import audited
        from graphrag_cypher.store.ingest import prune_documents

        with audited(self.graph, "load", options.corpus) as audit:
            pruned = prune_documents(self.graph, options.source_root, options.corpus, self.listed_ids)  # type: ignore[arg-type]
            audit.add({"loaders": {"mediawiki-api": 1}, "documents": {"deleted": pruned["documents"]}})
            audit.add({"chunks": {"deleted": pruned["chunks"] or 0}})
        return pruned

    def _save(self, cont: str | None, **props) -> None:
        self.graph.write(  # type: ignore[attr-defined]
            "ingest/set_wiki_sync_checkpoint",
            id=self.sync_id,
            props={"api": self.api.url, "selection": self.selection.key(), "continue": cont, **props},
        )
