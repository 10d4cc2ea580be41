"""HTML/XHTML to sections and metadata: main content only, headings as section titles.

Used for .html files and for fetched web pages. BeautifulSoup with the lxml parser copes
with broken markup and with XHTML (namespaced attributes are ignored).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urljoin

from graphrag_cypher.budget import ParseBudget, cut_text
from graphrag_cypher.model import ContentError, Section
from graphrag_cypher.text import clean_paragraphs, collapse_whitespace, iso_date

# Never content, wherever they are.
ALWAYS_NOISE = (
    "script",
    "style",
    "noscript",
    "template",
    "form",
    "nav",
    "aside",
    "iframe",
    "svg",
    "button",
    "select",
    "textarea",
    "object",
    "embed",
    "canvas",
    "dialog",
)
# Page chrome; inside a chosen <main>/<article> a <header> holds the title and byline, so keep it there.
PAGE_CHROME = ("header", "footer")
NOISE_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"}
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
BLOCKS = frozenset(
    """p div section article main li ul ol dl dt dd blockquote table thead tbody tfoot tr
    caption figure figcaption address details summary hr br center fieldset legend body html""".split()
)
CELLS = frozenset({"td", "th"})
# Italic markup: titles of books, journals and games, foreign words. Kept (as the document's
# `emphasis` list) so that a linker can tell the journal *Libya Antiqua* from Libya.
EMPHASIS = frozenset({"em", "i", "cite"})
MAX_EMPHASIS = 2000  # distinct italic spans kept per document

AUTHOR_NAMES = ("author", "citation_author", "dc.creator", "dcterms.creator", "article:author")
DATE_NAMES = (
    "citation_publication_date",
    "citation_date",
    "date",
    "dc.date",
    "dcterms.date",
    "dcterms.issued",
    "dcterms.created",
    "article:published_time",
    "og:published_time",
    "pubdate",
)
LICENSE_NAMES = ("dcterms.license", "dc.rights", "dcterms.rights", "license")
TITLE_NAMES = ("citation_title", "dc.title", "dcterms.title", "og:title")


@dataclass
class HtmlContent:
    title: str | None
    metadata: dict
    sections: list[Section]
    links: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the budget cut, one line each


def parse_html(data: bytes | str, base_url: str | None = None, budget: ParseBudget | None = None) -> HtmlContent:
    """Title, metadata, sections and (absolute, fragment-free) links of an HTML page; the text
    collected stops at `budget.chars` characters or `budget.seconds` (a note says so)."""
    import warnings

    budget = budget or ParseBudget.from_env()
    deadline = time.monotonic() + budget.seconds
    notes: list[str] = []

    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():
        # XHTML read as HTML is what we want: lxml's HTML parser forgives broken pages.
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(data, "lxml")
    metas = _meta_values(soup)
    metadata = _metadata(soup, metas)
    links = _links(soup, base_url) if base_url else []
    container = _main_container(soup)
    # Inside a chosen <main>/<article>, a <header> holds the title and byline, so it stays.
    in_main = container.name in ("main", "article") or _is_role_main(container)
    sections = _sections(container, _noise(container, chrome=not in_main), budget, deadline, notes)
    if not sections and not in_main:
        # Some pages put everything in <header> (an issue's table of contents): keep the
        # chrome rather than lose the page.
        notes.clear()
        sections = _sections(container, _noise(container, chrome=False), budget, deadline, notes)
    if not sections:
        raise ContentError("no text content")
    emphasis = _emphasis(container)
    if emphasis:
        metadata["emphasis"] = emphasis
    return HtmlContent(_title(soup, metas), metadata, sections, links, notes)


# --- metadata ------------------------------------------------------------------------------


def _meta_values(soup) -> dict[str, list[str]]:
    """<meta name|property=... content=...> as lower-case name -> values in page order."""
    values: dict[str, list[str]] = {}
    for meta in soup.find_all("meta"):
        name = meta.get("name") or meta.get("property")
        content = meta.get("content")
        if name and content and content.strip():
            values.setdefault(name.strip().lower(), []).append(collapse_whitespace(content))
    return values


def _first(metas: dict[str, list[str]], names) -> str | None:
    for name in names:
        if metas.get(name):
            return metas[name][0]
    return None


def _title(soup, metas) -> str | None:
    # Scholarly pages put a whole citation in <title>; their citation/DC title is the real one.
    title = _first(metas, TITLE_NAMES)
    if not title and soup.title and soup.title.get_text(strip=True):
        title = soup.title.get_text(" ", strip=True)
    if not title:
        h1 = soup.find("h1")
        title = h1.get_text(" ", strip=True) if h1 else None
    return collapse_whitespace(title) if title else None


_CREATOR = re.compile(r"(?:^|\s)(?:dcterms|dc):creator(?:\s|$)")
_NAME_PROPERTY = re.compile(r"(?:^|\s)(?:foaf:name|(?:dcterms|dc):creator)(?:\s|$)")
_CITED = re.compile(r"references|citation|bibliograph|work-cited", re.I)


def _attr(element, name: str) -> str:
    value = element.get(name)
    return " ".join(value) if isinstance(value, list) else (value or "")


def _is_creator(element) -> bool:
    return bool(getattr(element, "get", None)) and bool(
        _CREATOR.search(_attr(element, "rel")) or _CREATOR.search(_attr(element, "property"))
    )


def _in_citation(element) -> bool:
    """Inside a work cited (RDFa `dcterms:references`, a bibliography entry): its creators are
    the cited work's, not this page's."""
    return any(
        _CITED.search(" ".join(_attr(a, k) for k in ("rel", "property", "typeof", "class"))) for a in element.parents
    )


def _rdfa_creators(soup) -> list[str]:
    """The page's authors from RDFa (`rel="dcterms:creator"` around a `foaf:name`, or
    `property="dcterms:creator"`), as scholarly XHTML without author meta tags writes them; a
    creator element holding more than a name (an affiliation after a comma) is left out."""
    names: list[str] = []
    for element in soup.find_all(_is_creator):
        if _in_citation(element) or any(_is_creator(a) for a in element.parents):
            continue
        named = element.find(attrs={"property": _NAME_PROPERTY}) if _CREATOR.search(_attr(element, "rel")) else None
        source = named or element
        name = collapse_whitespace(source.get("content") or source.get_text(" ", strip=True))
        if named is None and not _CREATOR.search(_attr(element, "property")):
            continue  # a bare rel="dcterms:creator" around a whole byline ("A, Oxford and B, Leeds")
        if name and name not in names:
            names.append(name)
    return names


def _metadata(soup, metas) -> dict:
    metadata: dict = {}
    authors: list[str] = []
    for name in AUTHOR_NAMES:
        for author in metas.get(name, []):
            if author not in authors:
                authors.append(author)
    authors = authors or _rdfa_creators(soup)
    if authors:
        metadata["authors"] = authors
    date = iso_date(_first(metas, DATE_NAMES))
    if date:
        metadata["date"] = date
    license_link = soup.find(["link", "a"], rel=lambda rel: rel and "license" in rel)
    license_text = _first(metas, LICENSE_NAMES)
    if license_link and license_link.get("href"):
        metadata["license"] = license_link["href"].strip()
    elif license_text:
        metadata["license"] = license_text
    cc_link = soup.find("a", href=lambda h: h and "creativecommons.org/licenses/" in h)
    if cc_link and metadata.get("license") != cc_link["href"].strip():
        metadata["licenseUrl"] = cc_link["href"].strip()
    html = soup.find("html")
    language = (html.get("lang") or html.get("xml:lang")) if html else None
    language = language or _first(metas, ("dc.language", "language", "og:locale"))
    if language:
        metadata["language"] = language.strip()
    description = _first(metas, ("description", "dc.description", "og:description", "dc.abstract"))
    if description:
        metadata["description"] = description
    return metadata


def _links(soup, base_url: str) -> list[str]:
    links: list[str] = []
    for anchor in soup.find_all("a", href=True):
        url = urldefrag(urljoin(base_url, anchor["href"].strip()))[0]
        if url.startswith(("http://", "https://")) and url not in links:
            links.append(url)
    return links


def _emphasis(container) -> list[str]:
    """The distinct italic spans (<em>, <i>, <cite>) that hold a capital letter, in page order."""
    spans: dict[str, None] = {}
    for tag in container.find_all(EMPHASIS):
        text = collapse_whitespace(tag.get_text(" "))
        if text and len(text) <= 300 and any(c.isupper() for c in text):
            spans.setdefault(text, None)
            if len(spans) >= MAX_EMPHASIS:
                break
    return list(spans)


# --- main content --------------------------------------------------------------------------


def _is_role_main(tag) -> bool:
    return (tag.get("role") or "").lower() == "main" if hasattr(tag, "get") else False


def _main_container(soup):
    main = soup.find("main") or soup.find(attrs={"role": "main"})
    if main is not None:
        return main
    articles = soup.find_all("article")
    if len(articles) == 1:  # several articles are a listing page: keep them all
        return articles[0]
    return soup.body or soup


def _noise(container, chrome: bool) -> set[int]:
    """ids of the tags whose subtrees are not content (marked, not removed, so a second
    walk with other rules stays possible)."""
    names = ALWAYS_NOISE + PAGE_CHROME if chrome else ALWAYS_NOISE
    doomed = list(container.find_all(names))
    doomed += container.find_all(attrs={"role": lambda r: r and r.lower() in NOISE_ROLES})
    doomed += container.find_all(attrs={"aria-hidden": "true"})
    doomed += container.find_all(attrs={"hidden": True})
    doomed += container.find_all(style=lambda v: bool(v and _HIDDEN_STYLE.search(v)))
    return {id(tag) for tag in doomed}


_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


def _sections(container, skip: set[int], budget: ParseBudget, deadline: float, notes: list[str]) -> list[Section]:
    collector = _Collector(skip, budget, deadline)
    try:
        sections = collector.collect(container)
    except RecursionError as exc:
        raise ContentError("HTML nested too deeply to read") from exc
    if collector.cut:
        notes.append(f"HTML cut after {len(sections):,} section(s): {collector.cut}")
    return [s for s in sections if s.text.strip()]


class _BudgetSpent(Exception):
    pass


class _Collector:
    """Walks the container in document order, cutting sections at headings, until the
    character or time budget is spent (`cut` then says which)."""

    CLOCK_EVERY = 1000  # tags between two looks at the clock

    def __init__(self, skip: set[int], budget: ParseBudget, deadline: float) -> None:
        self.skip = skip
        self.budget, self.deadline = budget, deadline
        self.sections: list[Section] = []
        self.headings: list[tuple[int, str]] = []
        self.parts: list[str] = []
        self.chars = self.pending = self.tags = 0
        self.cut: str | None = None

    def collect(self, node) -> list[Section]:
        try:
            self._walk(node)
            self._flush()
        except _BudgetSpent:
            pass
        return self.sections

    def _add(self, section: Section) -> None:
        room = self.budget.chars - self.chars
        if len(section.text) > room:
            head = cut_text(section.text, room)
            if head.strip():
                self.sections.append(Section(text=head, title=section.title, kind=section.kind))
            self.cut = f"{self.budget.chars:,}-character budget reached"
            raise _BudgetSpent
        self.chars += len(section.text)
        self.sections.append(section)

    def _tick(self) -> None:
        self.tags += 1
        if self.tags % self.CLOCK_EVERY == 0 and time.monotonic() > self.deadline:
            self.parts = []
            self.cut = f"{self.budget.seconds:g}-second budget reached"
            raise _BudgetSpent
        if self.pending > 2 * self.budget.chars:  # raw text far over the budget: flush it now
            self._flush()

    def _title(self) -> str | None:
        return " > ".join(text for _, text in self.headings) or None

    def _flush(self) -> None:
        text = clean_paragraphs("".join(self.parts))
        self.parts, self.pending = [], 0
        if text:
            self._add(Section(text=text, title=self._title()))

    def _walk(self, node) -> None:
        from bs4 import CData, NavigableString, Tag

        for child in node.children:
            if isinstance(child, NavigableString):
                if type(child) in (NavigableString, CData):
                    self.parts.append(str(child))
                    self.pending += len(child)
                continue
            if not isinstance(child, Tag) or id(child) in self.skip:
                continue
            self._tick()
            name = child.name.lower()
            if name in HEADINGS:
                self._heading(HEADINGS[name], child.get_text(" ", strip=True))
            elif name == "pre":
                self._pre(child.get_text())
            elif name in BLOCKS:
                self.parts.append("\n\n")
                self._walk(child)
                self.parts.append("\n\n")
            elif name in CELLS:
                self.parts.append(" ")
                self._walk(child)
                self.parts.append(" ")
            else:
                self._walk(child)

    def _heading(self, level: int, text: str) -> None:
        self._flush()
        text = collapse_whitespace(text)
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        if text:
            self.headings.append((level, text))

    def _pre(self, text: str) -> None:
        # Preformatted text keeps its lines; as its own code section it is chunked by lines.
        text = "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")
        if text.strip():
            self._flush()
            self._add(Section(text=text, title=self._title(), kind="code"))
