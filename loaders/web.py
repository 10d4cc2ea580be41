"""Web pages: fetch URLs (optionally crawl the same site breadth-first) politely and within bounds.

What is fetched, and what is not:

- only http(s) URLs; redirects are followed by hand, at most `max_redirects` hops, and every
  hop is checked as the first URL was: http(s) only, allowed by that site's robots.txt, on the
  same site when crawling, and never from a public host to a local or private address;
- loopback, private, link-local and other non-public addresses are refused unless
  GRAPHRAG_CRAWL_ALLOW_LOCAL=1 (or `allow_local=True`): checked on the URL's host before
  anything is sent (robots.txt included), and again at connect time on every address the name
  resolves to, the connection going to the address that was checked (no second lookup for a
  rebinding DNS server to answer differently). Through an HTTP proxy from the environment only
  the first check applies: the proxy resolves the name;
- every request has one deadline (`timeout` seconds for connecting, headers and body
  together), so a server that trickles bytes is cut off; a whole run has another
  (`crawl_timeout`), after which the URLs still queued are reported, not fetched;
- bodies are streamed and refused past `max_bytes`; robots.txt is streamed too and only
  its first `MAX_ROBOTS_BYTES` are read (as Google does, the rest is ignored).

robots.txt is honoured per site (fetched with our user agent; a missing one allows all,
401/403 forbid all, as urllib.robotparser does). HTML and PDF are recognised by content
type and parsed like local files; anything else is an ItemError.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit
from urllib.robotparser import RobotFileParser

from graphrag_cypher.budget import ParseBudget
from graphrag_cypher.model import ContentError, ItemError, ParsedDocument

DEFAULT_USER_AGENT = "graphrag-cypher-loader/0.1 (+https://github.com/; polite crawler)"
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
DEFAULT_TIMEOUT = 30.0  # seconds for one request: connect, headers and body together
DEFAULT_CRAWL_TIMEOUT = 600.0  # seconds for all requests of one run
MAX_REDIRECTS = 5
MAX_ROBOTS_BYTES = 512 * 1024
HTML_TYPES = ("text/html", "application/xhtml+xml")
PDF_TYPES = ("application/pdf",)
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
ALLOW_LOCAL_ENV = "GRAPHRAG_CRAWL_ALLOW_LOCAL"


def crawl_allows_local(environ: dict | None = None) -> bool:
    """Whether crawls may fetch loopback, private and link-local addresses (a local wiki, an intranet)."""
    value = (environ if environ is not None else os.environ).get(ALLOW_LOCAL_ENV) or ""
    return value.strip().lower() in ("1", "true", "yes", "on")


def normalise_url(url: str) -> str:
    """Lower-case scheme and host, no default port, no fragment, '/' for an empty path."""
    parts = urlsplit(url.strip())
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    port = parts.port
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    netloc = host if port is None or (scheme, port) in (("http", 80), ("https", 443)) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


class FetchError(Exception):
    """A request that produced no usable response; the message is one line."""


def fetch_pages(
    urls: Iterable[str],
    crawl: bool = False,
    max_pages: int = 50,
    max_depth: int = 2,
    delay: float = 0.5,
    user_agent: str = DEFAULT_USER_AGENT,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    crawl_timeout: float | None = DEFAULT_CRAWL_TIMEOUT,
    max_redirects: int = MAX_REDIRECTS,
    allow_local: bool | None = None,
    parse: Callable[..., tuple[ParsedDocument, list[str]]] | None = None,
) -> Iterator[ParsedDocument | ItemError]:
    """Pages of `urls` (and, with `crawl`, of the same-site links they lead to). `allow_local`
    None: as GRAPHRAG_CRAWL_ALLOW_LOCAL says (off by default: local and private addresses are refused).
    `parse` turns a body into (document, links) as `page_document` does (the server's
    `isolated.page_document` does it in a worker process)."""
    if allow_local is None:
        allow_local = crawl_allows_local()
    queue: deque[tuple[str, int]] = deque()
    for raw in urls:
        try:
            queue.append((normalise_url(raw), 0))
        except ValueError:  # e.g. a port that is not a number
            yield ItemError(raw, "not a valid URL")
    seen = {url for url, _ in queue}
    stop_at = time.monotonic() + crawl_timeout if crawl_timeout else float("inf")
    fetched = 0
    with _client(user_agent, allow_local) as client:
        fetcher = _Fetcher(
            client, user_agent, timeout, stop_at, max_bytes, max_redirects, crawl, allow_local=allow_local, parse=parse
        )
        while queue and fetched < max_pages:
            if time.monotonic() >= stop_at:
                yield ItemError(
                    queue[0][0],
                    f"crawl time limit of {crawl_timeout:g} s reached: {len(queue)} queued URL(s) not fetched",
                )
                return
            url, depth = queue.popleft()
            if not url.startswith(("http://", "https://")):
                yield ItemError(url, "not an http(s) URL")
                continue
            local = None if allow_local else _local_address(urlsplit(url).hostname or "")
            if local:
                yield ItemError(url, _local_refusal(local))
                continue
            if not fetcher.robots_allow(url):
                yield ItemError(url, "disallowed by robots.txt, skipped")
                continue
            if fetched and delay:
                time.sleep(max(0.0, min(delay, stop_at - time.monotonic())))
            fetched += 1
            result, links = fetcher.page(url)
            yield result
            if crawl and depth < max_depth:
                for link in links:
                    try:
                        link = normalise_url(link)
                    except ValueError:
                        continue
                    if link not in seen and _same_site(link, url):
                        seen.add(link)
                        queue.append((link, depth + 1))


class PoliteClient:
    """One URL at a time under the crawler's rules (robots.txt, redirects checked hop by hop,
    byte caps, deadlines, `delay` seconds between requests), for loaders that fetch what a
    source names (a feed, its article pages) rather than crawl. Use it as a context manager."""

    def __init__(
        self,
        delay: float = 0.5,
        user_agent: str = DEFAULT_USER_AGENT,
        timeout: float = DEFAULT_TIMEOUT,
        max_bytes: int = DEFAULT_MAX_BYTES,
        crawl_timeout: float | None = DEFAULT_CRAWL_TIMEOUT,
        max_redirects: int = MAX_REDIRECTS,
        blocked: Callable[[str], str | None] | None = None,
        allow_local: bool = True,
        budget: ParseBudget | None = None,
        parse: Callable[..., tuple[ParsedDocument, list[str]]] | None = None,
    ):
        self.budget = budget  # the parse budget of a page (None: the environment's)
        self.parse = parse  # how a body becomes (document, links), as in `fetch_pages` (None: page_document)
        self.delay, self.user_agent, self.timeout = delay, user_agent, timeout
        self.allow_local = allow_local  # False: no loopback, private or link-local address, nor a hop to one
        self.max_bytes, self.crawl_timeout, self.max_redirects = max_bytes, crawl_timeout, max_redirects
        self.blocked = blocked  # why a URL may not be fetched at all (a blocklist), or None
        self.requests = 0

    def __enter__(self) -> PoliteClient:
        self._client = _client(self.user_agent, self.allow_local)
        self._stop_at = time.monotonic() + self.crawl_timeout if self.crawl_timeout else float("inf")
        self._fetcher = _Fetcher(
            self._client,
            self.user_agent,
            self.timeout,
            self._stop_at,
            self.max_bytes,
            self.max_redirects,
            False,
            blocked=self.blocked,
            allow_local=self.allow_local,
            budget=self.budget,
            parse=self.parse,
        )
        return self

    def __exit__(self, *exc) -> None:
        self._client.close()

    def _admit(self, url: str) -> ItemError | None:
        if not url.startswith(("http://", "https://")):
            return ItemError(url, "not an http(s) URL")
        why = self.blocked(url) if self.blocked else None
        if why:
            return ItemError(url, f"{why}, not fetched")
        local = None if self.allow_local else _local_address(urlsplit(url).hostname or "")
        if local:
            return ItemError(url, _local_refusal(local))
        if time.monotonic() >= self._stop_at:
            return ItemError(url, f"time limit of {self.crawl_timeout:g} s for all requests reached, not fetched")
        if not self._fetcher.robots_allow(url):
            return ItemError(url, "disallowed by robots.txt, skipped")
        if self.requests and self.delay:
            time.sleep(max(0.0, min(self.delay, self._stop_at - time.monotonic())))
        self.requests += 1
        return None

    def get(self, url: str) -> tuple[str, str, bytes] | ItemError:
        """(final URL, content type, body) of `url`, or why it could not be fetched."""
        try:
            url = normalise_url(url)
        except ValueError:
            return ItemError(url, "not a valid URL")
        refused = self._admit(url)
        if refused:
            return refused
        response = self._fetcher.get(url)
        if isinstance(response, ItemError):
            return response
        return response.url, response.content_type, response.data

    def page(self, url: str) -> ParsedDocument | ItemError:
        """`url` parsed as `load url` parses a page (HTML or PDF)."""
        try:
            url = normalise_url(url)
        except ValueError:
            return ItemError(url, "not a valid URL")
        refused = self._admit(url)
        return refused or self._fetcher.page(url)[0]


def _same_site(link: str, url: str) -> bool:
    return urlsplit(link).netloc == urlsplit(url).netloc


def _client(user_agent: str, allow_local: bool):
    """The httpx client of a run. No keep-alive: every request opens its own connection, which
    the deadline can cut. Without `allow_local`, connections go only to public addresses."""
    import httpx

    return httpx.Client(
        headers={"User-Agent": user_agent},
        follow_redirects=False,
        limits=httpx.Limits(max_keepalive_connections=0),
        transport=None if allow_local else _public_only_transport(),
    )


def _local_refusal(address: str) -> str:
    return f"a local or private address ({address}), not fetched ({ALLOW_LOCAL_ENV}=1 allows it)"


def _non_public(address: str) -> bool:
    """Loopback, private, link-local, unspecified (0.0.0.0, ::), reserved or multicast; an IPv4
    address inside IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it carries."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


def _shown(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return f"::ffff:{ip.ipv4_mapped}"
    return str(ip)


def _local_address(host: str) -> str | None:
    """The loopback, private or link-local address `host` is or resolves to (the first one),
    or None when every address is public. Decimal and short forms (2130706433, 127.1) are
    resolved as the connection would resolve them; a name that cannot be resolved is None
    (the request itself will fail)."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return host
    try:
        addresses = [_shown(ipaddress.ip_address(host))]
    except ValueError:
        try:
            # str(): an address is a str for TCP; typeshed also allows an int (AF_INET6 without IPv6 support)
            addresses = [str(info[4][0]) for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)]
        except (OSError, UnicodeError):
            return None
    for address in addresses:
        try:
            if _non_public(address):
                return address
        except ValueError:
            return address  # not an address ipaddress knows: not one to trust
    return None


def _is_local(host: str) -> bool:
    """A loopback, private, link-local or otherwise non-public address (names are resolved)."""
    return _local_address(host) is not None


@lru_cache(maxsize=1)
def _public_only_classes():
    """(backend, transport) classes that connect only to public addresses, made on first use
    (httpx and httpcore are imported late, as everywhere in this module)."""
    import httpcore
    import httpx

    class LocalAddressRefused(httpcore.ConnectError):
        """The name resolved to a local or private address: nothing was sent."""

    class PublicOnlyBackend(httpcore.SyncBackend):
        """Resolves the host once, refuses the connection when any of its addresses is not
        public, and connects to one of the addresses it checked (never a second lookup)."""

        def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
        ) -> httpcore.NetworkStream:
            name = host.strip("[]").lower()
            if name == "localhost" or name.endswith(".localhost"):
                raise LocalAddressRefused(_local_refusal(name))
            try:
                infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except OSError as exc:
                raise httpcore.ConnectError(f"{type(exc).__name__}: {exc}") from exc
            addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
            for address in addresses:
                try:
                    local = _non_public(address)
                except ValueError:
                    local = True
                if local:
                    raise LocalAddressRefused(_local_refusal(address))
            failure: Exception = httpcore.ConnectError(f"no address for {host}")
            for address in addresses:
                try:
                    return super().connect_tcp(address, port, timeout, local_address, socket_options)
                except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                    failure = exc
            raise failure

    class PublicOnlyTransport(httpx.HTTPTransport):
        """httpx's transport, its connection pool given the backend above (httpx has no
        argument for a network backend; httpcore's pool takes one)."""

        def __init__(self) -> None:
            super().__init__()
            self._pool = httpcore.ConnectionPool(
                ssl_context=httpx.create_ssl_context(),
                max_keepalive_connections=0,
                network_backend=PublicOnlyBackend(),
            )

    return LocalAddressRefused, PublicOnlyTransport


def _public_only_transport():
    return _public_only_classes()[1]()


def _refused_locally(exc: BaseException) -> str | None:
    """The refusal line when `exc` is (caused by) a connection refused for a local address."""
    refused = _public_only_classes()[0]
    current: BaseException | None = exc
    while current is not None:
        if isinstance(current, refused):
            return str(current)
        current = current.__cause__ or current.__context__
    return None


@dataclass
class _Response:
    status: int
    url: str
    content_type: str = ""
    location: str | None = None
    data: bytes = b""

    def is_redirect(self) -> bool:
        return self.status in REDIRECT_CODES and bool(self.location)


class _DeadlinePassed(Exception):
    """The deadline passed between two chunks of a body."""


class _Watchdog:
    """Cuts a request's socket at its deadline, even while httpx is inside one read
    (a server that sends a header byte every few seconds never trips a read timeout)."""

    def __init__(self, seconds: float):
        self.fired = False
        self._sock = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, event: str, info: dict) -> None:  # httpx's "trace" request extension
        if event.endswith(("connect_tcp.complete", "start_tls.complete")):
            stream = info.get("return_value")
            with self._lock:
                self._sock = stream.get_extra_info("socket") if stream is not None else None
                if self.fired:
                    self._cut()

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            self._cut()

    def _cut(self) -> None:
        if self._sock is not None:
            try:
                socket.socket.shutdown(self._sock, socket.SHUT_RDWR)
            except OSError:
                pass

    def cancel(self) -> None:
        self._timer.cancel()


class _Fetcher:
    def __init__(
        self,
        client,
        user_agent: str,
        timeout: float,
        stop_at: float,
        max_bytes: int,
        max_redirects: int,
        crawl: bool,
        blocked: Callable[[str], str | None] | None = None,
        allow_local: bool = True,
        budget: ParseBudget | None = None,
        parse: Callable[..., tuple[ParsedDocument, list[str]]] | None = None,
    ):
        self.parse = parse or page_document
        self.client, self.user_agent, self.timeout, self.stop_at = client, user_agent, timeout, stop_at
        self.max_bytes, self.max_redirects, self.crawl = max_bytes, max_redirects, crawl
        self.blocked, self.allow_local, self.budget = blocked, allow_local, budget
        self.robots: dict[str, RobotFileParser] = {}

    # -- one request --------------------------------------------------------------------------
    def request(self, url: str, max_bytes: int, truncate: bool = False) -> _Response:
        """GET without following redirects; the body (of a 2xx) read within the deadline."""
        import httpx

        deadline = min(time.monotonic() + self.timeout, self.stop_at)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise FetchError("no time left before the crawl time limit")
        watchdog = _Watchdog(remaining)
        try:
            with self.client.stream(
                "GET", url, timeout=httpx.Timeout(remaining), extensions={"trace": watchdog.trace}
            ) as response:
                result = _Response(
                    response.status_code,
                    url,
                    response.headers.get("content-type", "").split(";")[0].strip().lower(),
                    response.headers.get("location"),
                )
                if 200 <= response.status_code < 300:
                    result.data = _read_bounded(response, max_bytes, deadline, truncate)
                return result
        except (httpx.HTTPError, OSError) as exc:
            if watchdog.fired or time.monotonic() >= deadline:
                raise FetchError(f"no complete response within {self.timeout:g} s, gave up") from None
            refusal = None if self.allow_local else _refused_locally(exc)
            if refusal:
                raise FetchError(refusal) from None
            raise FetchError(f"fetch failed: {type(exc).__name__}: {exc}") from None
        except _DeadlinePassed:
            raise FetchError(f"no complete response within {self.timeout:g} s, gave up") from None
        finally:
            watchdog.cancel()

    # -- robots.txt ---------------------------------------------------------------------------
    def robots_allow(self, url: str) -> bool:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self.robots:
            self.robots[origin] = self._robots(origin)
        return self.robots[origin].can_fetch(self.user_agent, url)

    def _robots(self, origin: str) -> RobotFileParser:
        parser = RobotFileParser(origin + "/robots.txt")
        target = origin + "/robots.txt"
        try:
            for _ in range(self.max_redirects + 1):
                response = self.request(target, MAX_ROBOTS_BYTES, truncate=True)
                if response.is_redirect():
                    nxt = normalise_url(urljoin(target, response.location))
                    # robots.txt may move within its host (http -> https, /robots.txt -> /en/robots.txt)
                    if urlsplit(nxt).hostname != urlsplit(target).hostname or not nxt.startswith(
                        ("http://", "https://")
                    ):
                        break
                    target = nxt
                    continue
                # allow_all/disallow_all: RobotFileParser's attributes, missing from typeshed's stub
                if response.status in (401, 403):
                    parser.disallow_all = True  # type: ignore[attr-defined]
                elif response.status >= 300:
                    parser.allow_all = True  # type: ignore[attr-defined]
                else:
                    text = response.data.decode("utf-8", errors="replace")
                    lines = text.splitlines()
                    if len(response.data) >= MAX_ROBOTS_BYTES and lines:
                        lines = lines[:-1]  # the last line may be cut in half
                    parser.parse(lines)
                return parser
        except (FetchError, ValueError):
            pass  # an unreachable robots.txt does not forbid the site
        parser.allow_all = True  # type: ignore[attr-defined]  # missing from typeshed's stub
        return parser

    # -- a page, redirects checked hop by hop ------------------------------------------------
    def page(self, url: str) -> tuple[ParsedDocument | ItemError, list[str]]:
        response = self.get(url)
        if isinstance(response, ItemError):
            return response, []
        try:
            return self.parse(response.url, response.content_type, response.data, self.budget)
        except ContentError as exc:
            return ItemError(url, str(exc)), []

    def get(self, url: str) -> _Response | ItemError:
        """The final 2xx response for `url` (its `url` the last hop), or why there is none."""
        current = url
        try:
            for _ in range(self.max_redirects + 1):
                response = self.request(current, self.max_bytes)
                if not response.is_redirect():
                    break
                target = normalise_url(urljoin(current, response.location))
                refusal = self._refuse_hop(url, current, target)
                if refusal:
                    return ItemError(url, f"redirect to {target} refused: {refusal}")
                current = target
            else:
                return ItemError(url, f"more than {self.max_redirects} redirects, gave up")
        except (FetchError, ContentError) as exc:
            return ItemError(url, str(exc))
        except ValueError:
            return ItemError(url, "redirect to an invalid URL refused")
        if response.status >= 300:
            return ItemError(url, f"HTTP {response.status}")
        return response

    def _refuse_hop(self, start: str, source: str, target: str) -> str | None:
        """Why a redirect from `source` to `target` may not be followed (None: it may)."""
        if not target.startswith(("http://", "https://")):
            return "not an http(s) URL"
        why = self.blocked(target) if self.blocked else None
        if why:
            return why
        if self.crawl and not _same_site(target, start):
            return "it leaves the site being crawled"
        source_host, target_host = urlsplit(source).hostname or "", urlsplit(target).hostname or ""
        local = None if self.allow_local else _local_address(target_host)
        if local:
            return f"a local or private address ({local})"
        if target_host != source_host and _is_local(target_host) and not _is_local(source_host):
            return "a public site may not send the crawler to a local or private address"
        if not self.robots_allow(target):
            return "disallowed by robots.txt"
        return None


def _read_bounded(response, max_bytes: int, deadline: float, truncate: bool = False) -> bytes:
    """The body, checked against the byte cap and the deadline after every chunk; with
    `truncate`, the first `max_bytes` are kept and the rest is never read."""
    chunks, total = [], 0
    for chunk in response.iter_bytes():
        if time.monotonic() > deadline:
            raise _DeadlinePassed
        if total + len(chunk) > max_bytes:
            if truncate:
                chunks.append(chunk[: max_bytes - total])
                break
            raise ContentError(f"response larger than {max_bytes / 1e6:.1f} MB, skipped")
        total += len(chunk)
        chunks.append(chunk)
    return b"".join(chunks)


def page_document(
    url: str, content_type: str, data: bytes, budget: ParseBudget | None = None
) -> tuple[ParsedDocument, list[str]]:
    """A fetched body as a document, parsed within `budget` (default: the environment's
    `ParseBudget`, as a local file is); what the budget cut is in the document's `notes`."""
    budget = budget or ParseBudget.from_env()
    base: dict[str, Any] = {"id": url, "kind": "web", "source": url, "uri": url, "labels": ("WebPage",)}
    if content_type in HTML_TYPES:
        from .html_content import parse_html

        page = parse_html(data, base_url=url, budget=budget)
        return ParsedDocument(
            title=page.title or url, metadata=page.metadata, sections=page.sections, notes=page.notes, **base
        ), page.links
    if content_type in PDF_TYPES or data.startswith(b"%PDF"):
        from .pdf_content import parse_pdf

        pdf = parse_pdf(data, budget)
        return ParsedDocument(
            title=pdf.title or url.rsplit("/", 1)[-1],
            metadata=pdf.metadata,
            sections=pdf.sections,
            notes=pdf.notes,
            **base,
        ), []
    raise ContentError(f"unsupported content type {content_type or 'unknown'!r}")
