"""Web pages: fetch URLs (optionally crawl the same site breadth-first) politely.

robots.txt is honoured per site (fetched with our user agent; a missing one allows all,
401/403 forbid all, as urllib.robotparser does). HTML and PDF are recognised by content
type and parsed like local files; anything else is an ItemError. Response bodies are
read up to `max_bytes`, so a huge download is refused without being held in memory.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Iterator
from urllib.parse import urlsplit, urlunsplit
from urllib.robotparser import RobotFileParser

from .model import ContentError, ItemError, ParsedDocument

DEFAULT_USER_AGENT = "graphrag-cypher-loader/0.1 (+https://github.com/; polite crawler)"
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
HTML_TYPES = ("text/html", "application/xhtml+xml")
PDF_TYPES = ("application/pdf",)


def normalise_url(url: str) -> str:
    """Lower-case scheme and host, no default port, no fragment, '/' for an empty path."""
    parts = urlsplit(url.strip())
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    port = parts.port
    netloc = host if port is None or (scheme, port) in (("http", 80), ("https", 443)) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def fetch_pages(urls: Iterable[str], crawl: bool = False, max_pages: int = 50, max_depth: int = 2,
                delay: float = 0.5, user_agent: str = DEFAULT_USER_AGENT, timeout: float = 20.0,
                max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[ParsedDocument | ItemError]:
    import httpx

    queue = deque((normalise_url(u), 0) for u in urls)
    seen = {url for url, _ in queue}
    robots: dict[str, RobotFileParser] = {}
    fetched = 0
    headers = {"User-Agent": user_agent}
    with httpx.Client(headers=headers, timeout=timeout, follow_redirects=True) as client:
        while queue and fetched < max_pages:
            url, depth = queue.popleft()
            if not url.startswith(("http://", "https://")):
                yield ItemError(url, "not an http(s) URL")
                continue
            if not _allowed(client, robots, url, user_agent):
                yield ItemError(url, "disallowed by robots.txt, skipped")
                continue
            if fetched and delay:
                time.sleep(delay)
            fetched += 1
            result, links = _fetch_one(client, url, max_bytes)
            yield result
            if crawl and depth < max_depth:
                for link in links:
                    link = normalise_url(link)
                    if link not in seen and _same_site(link, url):
                        seen.add(link)
                        queue.append((link, depth + 1))


def _same_site(link: str, url: str) -> bool:
    return urlsplit(link).netloc == urlsplit(url).netloc


def _allowed(client, robots: dict[str, RobotFileParser], url: str, user_agent: str) -> bool:
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    if origin not in robots:
        parser = RobotFileParser(origin + "/robots.txt")
        try:
            response = client.get(origin + "/robots.txt")
            if response.status_code in (401, 403):
                parser.disallow_all = True
            elif response.status_code >= 400:
                parser.allow_all = True
            else:
                parser.parse(response.text.splitlines())
        except Exception:  # an unreachable robots.txt does not forbid the site
            parser.allow_all = True
        robots[origin] = parser
    return robots[origin].can_fetch(user_agent, url)


def _fetch_one(client, url: str, max_bytes: int) -> tuple[ParsedDocument | ItemError, list[str]]:
    import httpx

    try:
        with client.stream("GET", url) as response:
            if response.status_code >= 400:
                return ItemError(url, f"HTTP {response.status_code}"), []
            content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            final_url = normalise_url(str(response.url))
            data = _read_bounded(response, max_bytes)
    except httpx.HTTPError as exc:
        return ItemError(url, f"fetch failed: {type(exc).__name__}: {exc}"), []
    except ContentError as exc:
        return ItemError(url, str(exc)), []
    try:
        return _document(final_url, content_type, data)
    except ContentError as exc:
        return ItemError(url, str(exc)), []


def _read_bounded(response, max_bytes: int) -> bytes:
    chunks, total = [], 0
    for chunk in response.iter_bytes():
        total += len(chunk)
        if total > max_bytes:
            raise ContentError(f"response larger than {max_bytes / 1e6:.1f} MB, skipped")
        chunks.append(chunk)
    return b"".join(chunks)


def _document(url: str, content_type: str, data: bytes) -> tuple[ParsedDocument, list[str]]:
    base = {"id": url, "kind": "web", "source": url, "uri": url, "labels": ("WebPage",)}
    if content_type in HTML_TYPES:
        from .html_content import parse_html

        page = parse_html(data, base_url=url)
        return ParsedDocument(title=page.title or url, metadata=page.metadata, sections=page.sections, **base), page.links
    if content_type in PDF_TYPES or data.startswith(b"%PDF"):
        from .pdf_content import parse_pdf

        pdf = parse_pdf(data)
        return ParsedDocument(title=pdf.title or url.rsplit("/", 1)[-1], metadata=pdf.metadata,
                              sections=pdf.sections, **base), []
    raise ContentError(f"unsupported content type {content_type or 'unknown'!r}")
