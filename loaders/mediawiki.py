"""MediaWiki XML exports (schema 0.9-0.11, plain or .bz2) to wiki page documents.

The XML is streamed with defusedxml, so entity-expansion bombs and external entities are
refused instead of expanded, and memory stays flat however large the export is. Redirect
pages are not documents: they become `metadata["aliases"]` of their target. Because a
redirect can come after its target, the file is read twice: once for the redirects (no
wikitext parsing, so it is quick), once for the pages.

WikiText becomes plain text with mwparserfromhell: templates, <ref>s, files/images,
categories, interlanguage links and comments are dropped, link text is kept, headings
become section titles ("History > Early years"). Trailing apparatus sections (References,
External links, See also, ...) are left out. The first "Infobox ..." template becomes
`infoboxType`, `infobox` (a JSON object of cleaned parameter values, a list's lines joined
by "; "), flat `infobox_<param>` strings and `infoboxLinks` (the pages a value links under
other words: {"pov": {"Jon": "Jon Snow"}}).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from graphrag_cypher.model import ContentError, ItemError, ParsedDocument, Section
from graphrag_cypher.safe_io import open_bytes
from graphrag_cypher.text import collapse_whitespace, slugify, tidy_lines

SKIP_SECTIONS = re.compile(
    r"^(references|external links|see also|further reading|notes|bibliography|sources"
    r"|citations|footnotes)\b",
    re.IGNORECASE,
)
DROP_TAGS = frozenset(
    {
        "ref",
        "references",
        "gallery",
        "timeline",
        "imagemap",
        "score",
        "templatedata",
        "graph",
        "mapframe",
        "maplink",
        "syntaxhighlight",
        "source",
        "math",
        "chem",
    }
)
FILE_NAMESPACES = {"file", "image", "media"}
CATEGORY_NAMESPACES = {"category"}
_INTERWIKI = re.compile(r"^:?[a-z]{2,3}(-[a-z]+)?:", re.IGNORECASE)
# No two unbounded repeats of the same characters side by side in the patterns below (`\s*:?\s*`
# tried every split of a run of spaces: quadratic): each is linear in the text it scans.
_REDIRECT_TEXT = re.compile(r"^\s*#REDIRECT\s*(?::\s*)?\[\[([^\]|#]+)", re.IGNORECASE)
MAX_INFOBOX_VALUE = 1000


@dataclass
class SiteInfo:
    sitename: str = ""
    dbname: str = ""
    base: str = ""
    file_prefixes: set[str] = field(default_factory=lambda: set(FILE_NAMESPACES))
    category_prefixes: set[str] = field(default_factory=lambda: set(CATEGORY_NAMESPACES))

    def page_url(self, title: str) -> str | None:
        if not self.base or "/" not in self.base:
            return None
        article_path = self.base.rsplit("/", 1)[0] + "/"
        return article_path + quote(title.replace(" ", "_"), safe="/:@!$'()*+,;=-._~")


@dataclass
class RawPage:
    title: str
    ns: int
    page_id: int | None
    revision_id: int | None
    timestamp: str | None
    redirect: str | None
    text: str


def parse_mediawiki(
    path: str | os.PathLike, namespaces: tuple[int, ...] = (0,), site: str | None = None
) -> Iterator[ParsedDocument | ItemError]:
    """Pages of the wanted namespaces (main namespace by default) with aliases filled in."""
    path = Path(path)
    try:
        aliases = collect_redirects(path, namespaces)
    except Exception as exc:  # defusedxml's refusals and XML syntax errors end the file
        yield ItemError(str(path), _xml_error(exc))
        return
    pages = _iter_pages(path)
    while True:
        try:
            info, page = next(pages)
        except StopIteration:
            return
        except Exception as exc:  # the file changed since the first pass, or a cap was reached
            yield ItemError(str(path), _xml_error(exc))
            return
        if page.redirect or page.ns not in namespaces:
            continue
        try:
            yield page_document(page, info, str(path), aliases.get(normal_title(page.title), []), site)
        except Exception as exc:  # one odd page must not stop the export
            yield ItemError(
                f"{path.name} page {page.title!r}", f"{type(exc).__name__}: {collapse_whitespace(str(exc))}"
            )


def collect_redirects(path: str | os.PathLike, namespaces: tuple[int, ...] = (0,)) -> dict[str, list[str]]:
    """normalised target title -> titles of the redirects to it (targets may be absent)."""
    aliases: dict[str, list[str]] = {}
    for _, page in _iter_pages(Path(path)):
        if page.redirect and page.ns in namespaces:
            aliases.setdefault(normal_title(page.redirect), []).append(page.title)
    return aliases


def _xml_error(exc: Exception) -> str:
    name = type(exc).__name__
    if isinstance(exc, ContentError):
        return str(exc)
    if name in ("EntitiesForbidden", "DTDForbidden", "ExternalReferenceForbidden"):
        return f"unsafe XML refused ({name}: entity declarations are not allowed)"
    return f"cannot read XML export: {name}: {collapse_whitespace(str(exc))}"


def _open(path: Path):
    """The export's bytes; a .bz2 that is not bzip2, corrupt, or a decompression bomb ends
    the file with a ContentError (see safe_io)."""
    return open_bytes(path)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _iter_pages(path: Path) -> Iterator[tuple[SiteInfo, RawPage]]:
    from defusedxml.ElementTree import iterparse

    info = SiteInfo()
    root = None
    with _open(path) as handle:
        for event, elem in iterparse(
            handle, events=("start", "end"), forbid_dtd=False, forbid_entities=True, forbid_external=True
        ):
            if root is None:
                root = elem
            if event != "end":
                continue
            name = _local(elem.tag)
            if name == "siteinfo":
                info = _siteinfo(elem)
                root.clear()
            elif name == "page":
                page = _raw_page(elem)
                root.clear()  # keeps memory flat on multi-gigabyte dumps
                if page is not None:
                    yield info, page


def _child(elem, name: str):
    for child in elem:
        if _local(child.tag) == name:
            return child
    return None


def _child_text(elem, name: str) -> str | None:
    child = _child(elem, name) if elem is not None else None
    return child.text if child is not None else None


def _siteinfo(elem) -> SiteInfo:
    info = SiteInfo(
        sitename=_child_text(elem, "sitename") or "",
        dbname=_child_text(elem, "dbname") or "",
        base=_child_text(elem, "base") or "",
    )
    spaces = _child(elem, "namespaces")
    for ns in spaces if spaces is not None else []:
        key, prefix = ns.get("key"), (ns.text or "").strip().lower()
        if key in ("6", "-2") and prefix:
            info.file_prefixes.add(prefix)
        elif key == "14" and prefix:
            info.category_prefixes.add(prefix)
    return info


def _raw_page(elem) -> RawPage | None:
    title = _child_text(elem, "title")
    if not title:
        return None
    revision = _child(elem, "revision")
    text = _child_text(revision, "text") or ""
    redirect_elem = _child(elem, "redirect")
    redirect = redirect_elem.get("title") if redirect_elem is not None else None
    if redirect is None:
        match = _REDIRECT_TEXT.match(text)
        redirect = match.group(1) if match else None
    return RawPage(
        title=title.strip(),
        ns=int(_child_text(elem, "ns") or 0),
        page_id=_int(_child_text(elem, "id")),
        revision_id=_int(_child_text(revision, "id")),
        timestamp=_child_text(revision, "timestamp"),
        redirect=redirect.strip() if redirect else None,
        text=text,
    )


def _int(value: str | None) -> int | None:
    return int(value) if value and value.strip().isdigit() else None


def normal_title(title: str) -> str:
    """MediaWiki's title identity: underscores are spaces, no fragment, first letter capital."""
    title = collapse_whitespace(title.split("#", 1)[0].replace("_", " "))
    return title[:1].upper() + title[1:]


# --- one page --------------------------------------------------------------------------------


def page_document(
    page: RawPage,
    info: SiteInfo,
    source: str,
    aliases: list[str],
    site: str | None = None,
    categories: Sequence[str] = (),
) -> ParsedDocument | ItemError:
    """One page as a document. `source` is the export's path or the API's URL; the id depends
    only on the site key and the title, so a page read from a dump and from the API is one node.
    `categories` are those the source reports beyond the page's own links (from templates)."""
    import mwparserfromhell

    where = Path(source).name if "://" not in source else source

    code = mwparserfromhell.parse(page.text)
    cleaner = _Cleaner(info)
    metadata: dict = {"site": info.sitename} if info.sitename else {}
    infobox = _infobox(code, cleaner)
    if infobox:
        metadata.update(infobox)
    sections = _sections(code, cleaner)
    if not sections and not infobox:
        return ItemError(f"{where} page {page.title!r}", "no text content")
    metadata.update(_page_metadata(page, aliases, [*cleaner.categories, *categories]))
    site_key = site or info.dbname or slugify(info.sitename or Path(source).stem)
    return ParsedDocument(
        id=f"wiki:{site_key}:{page.title}",
        title=page.title,
        kind="wiki",
        source=source,
        uri=info.page_url(page.title),
        labels=("WikiPage",),
        metadata=metadata,
        sections=sections,
    )


def _page_metadata(page: RawPage, aliases: list[str], categories: list[str]) -> dict:
    metadata: dict = {"namespace": page.ns}
    if page.page_id is not None:
        metadata["pageId"] = page.page_id
    if page.revision_id is not None:
        metadata["revisionId"] = page.revision_id
    if page.timestamp:
        metadata["date"] = page.timestamp[:10]
    if aliases:
        metadata["aliases"] = sorted(set(aliases))
    if categories:
        metadata["categories"] = list(dict.fromkeys(categories))
    return metadata


def _infobox(code, cleaner: _Cleaner) -> dict:
    for template in code.filter_templates(recursive=True):
        name = collapse_whitespace(str(template.name).replace("_", " "))
        if not name.lower().startswith("infobox"):
            continue
        values: dict[str, str] = {}
        links: dict[str, dict[str, str]] = {}
        for param in template.params:
            key = collapse_whitespace(str(param.name))
            value = _infobox_value(cleaner.text(param.value))[:MAX_INFOBOX_VALUE]
            if key and value:
                values[key] = value
                named = _piped_links(param.value, cleaner)
                if named:
                    links[key] = named
        result: dict = {"infoboxType": name, "infobox": json.dumps(values, ensure_ascii=False, sort_keys=True)}
        if links:
            result["infoboxLinks"] = json.dumps(links, ensure_ascii=False, sort_keys=True)
        for key, value in values.items():
            flat = re.sub(r"[^a-z0-9]+", "_", key.lower()).strip("_")
            if flat:
                result.setdefault(f"infobox_{flat}", value)
        return result
    return {}


def _infobox_value(text: str) -> str:
    """One infobox value on one line: the lines of a list (``<br>``, ``*`` items) joined by "; "."""
    lines = (collapse_whitespace(line).lstrip("*#: ").strip() for line in text.splitlines())
    return "; ".join(line for line in lines if line)


def _piped_links(code, cleaner: _Cleaner) -> dict[str, str]:
    """The pages an infobox value links under other words: {"Jon": "Jon Snow"} for [[Jon Snow|Jon]]."""
    named: dict[str, str] = {}
    for link in code.filter_wikilinks(recursive=True):
        if link.text is None:
            continue
        shown = collapse_whitespace(cleaner.text(link.text))
        target = collapse_whitespace(str(link.title)).lstrip(":")
        prefix = target.split(":", 1)[0].strip().lower() if ":" in target else ""
        if not shown or not target or target.startswith("#") or _INTERWIKI.match(target):
            continue
        if prefix in cleaner.info.category_prefixes or prefix in cleaner.info.file_prefixes:
            continue
        target = normal_title(target)
        if target and target != shown:
            named[shown] = target
    return named


def _sections(code, cleaner: _Cleaner) -> list[Section]:
    from mwparserfromhell.nodes import Heading

    sections: list[Section] = []
    headings: list[tuple[int, str]] = []
    parts: list[str] = []

    def flush() -> None:
        text = _tidy("".join(parts))
        skipped = headings and SKIP_SECTIONS.match(headings[0][1])
        if text and not skipped:
            sections.append(Section(text=text, title=" > ".join(t for _, t in headings) or None))
        parts.clear()

    for node in code.nodes:
        if isinstance(node, Heading):
            flush()
            title = collapse_whitespace(cleaner.text(node.title))
            while headings and headings[-1][0] >= node.level:
                headings.pop()
            if title:
                headings.append((node.level, title))
        else:
            parts.append(cleaner.node(node))
    flush()
    return sections


_EMPTY_BRACKETS = re.compile(r"\(\s*(?:[,;:]\s*)?\)|\[\s*\]")
# only from the start of a run of spaces: a start inside it would scan the same run again
_SPACE_BEFORE_PUNCT = re.compile(r"(?<![ \t])[ \t]+([,.;:!?])")
_LEADING_PUNCT = re.compile(r"\(\s*[,;:]\s*")


# a tag ends at the next "<" too: `[^>]*` scanned to the end of the text from every "<ref" (quadratic)
_REF_OPEN = re.compile(r"<ref[^<>]*>", re.IGNORECASE)
_REF_CLOSE = re.compile(r"</ref>", re.IGNORECASE)
_REF_SELF_CLOSED = re.compile(r"<ref[^<>]*/>", re.IGNORECASE)
_LEFTOVER_TEMPLATE = re.compile(r"\{\{[^{}]*\}\}")
_LEFTOVER_FILE = re.compile(r"\[\[(?:file|image|media):(?:[^\[\]]|\[\[[^\[\]]*\]\])*\]\]", re.IGNORECASE)
_LEFTOVER_LINK = re.compile(r"\[\[(?:[^\[\]|]*\|)?([^\[\]]*)\]\]")
_LEFTOVER_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")
_MAGIC_WORD = re.compile(r"__[A-Z]{3,20}__")  # __NOTOC__, __FORCETOC__, __NOEDITSECTION__ ...


def _scrub_leftovers(text: str) -> str:
    """Markup mwparserfromhell kept as plain text (unbalanced or unclosed constructs in
    real pages): remove refs, templates and file links, keep link text."""
    if "{{" not in text and "[[" not in text and "<" not in text:
        return text
    text = _strip_refs(text)
    previous = None
    while previous != text:  # innermost templates first, so nesting unwinds
        previous, text = text, _LEFTOVER_TEMPLATE.sub("", text)
    text = _LEFTOVER_FILE.sub("", text)
    text = _LEFTOVER_LINK.sub(r"\1", text)
    text = _LEFTOVER_TAG.sub("", text)
    return text.replace("{{", "").replace("}}", "").replace("[[", "").replace("]]", "")


def _strip_refs(text: str) -> str:
    """`<ref …/>` and `<ref …>…</ref>` removed, as `re.sub(r"<ref[^>]*/>|<ref[^>]*>.*?</ref>",
    "", text, flags=re.I | re.S)` removes them, in one pass: that regex looks for a closing tag
    from every unclosed `<ref>` to the end of the text (4,000 of them in 144 KB: 3.8 s)."""
    out: list[str] = []
    at = 0
    while True:
        opened = _REF_OPEN.search(text, at)
        if opened is None:
            break
        out.append(text[at : opened.start()])
        if opened.group().endswith("/>"):
            at = opened.end()
            continue
        closed = _REF_CLOSE.search(text, opened.end())
        if closed is None:  # no closing tag after this one: none after any later one either
            out.append(_REF_SELF_CLOSED.sub("", text[opened.start() :]))
            return "".join(out)
        at = closed.end()
    out.append(text[at:])
    return "".join(out)


def _tidy(text: str) -> str:
    """Removes the debris templates leave behind: '( ; born 1809)', 'word ,'; and behaviour switches."""
    text = _MAGIC_WORD.sub("", _scrub_leftovers(text))
    text = _LEADING_PUNCT.sub("(", text)
    text = _EMPTY_BRACKETS.sub("", text)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    return tidy_lines(text)


class _Cleaner:
    """WikiText nodes to plain text; records category links as it goes."""

    def __init__(self, info: SiteInfo) -> None:
        self.info = info
        self.categories: list[str] = []

    def text(self, code) -> str:
        return "".join(self.node(node) for node in code.nodes) if code is not None else ""

    def node(self, node) -> str:
        from mwparserfromhell.nodes import ExternalLink, Heading, HTMLEntity, Tag, Text, Wikilink

        if isinstance(node, Text):
            return node.value
        if isinstance(node, HTMLEntity):
            return node.normalize()
        if isinstance(node, Wikilink):
            return self._wikilink(node)
        if isinstance(node, ExternalLink):
            return self.text(node.title) if node.title else ""
        if isinstance(node, Tag):
            return self._tag(node)
        if isinstance(node, Heading):
            return "\n\n" + self.text(node.title) + "\n\n"
        return ""  # templates, comments, template arguments

    def _wikilink(self, link) -> str:
        target = collapse_whitespace(str(link.title))
        prefix = target.lstrip(":").split(":", 1)[0].strip().lower() if ":" in target else ""
        if prefix in self.info.category_prefixes:
            if not target.startswith(":"):
                self.categories.append(target.split(":", 1)[1].split("|")[0].strip())
                return ""
        elif prefix in self.info.file_prefixes or _INTERWIKI.match(target):
            return ""
        if link.text is not None:
            return self.text(link.text)
        return target.lstrip(":").split("#", 1)[0] or target.lstrip("#")

    def _tag(self, tag) -> str:
        name = str(tag.tag).strip().lower()
        if name in DROP_TAGS:
            return ""
        if name == "br":
            return "\n"
        if name in ("li", "dt", "dd"):
            inner = self.text(tag.contents) if tag.contents else ""
            return "\n" + inner
        inner = self.text(tag.contents) if tag.contents else ""
        if name in ("td", "th"):
            return " " + inner + " "
        if name in ("tr", "p", "div", "blockquote", "table", "ul", "ol", "dl", "center", "poem"):
            return "\n" + inner + "\n"
        return inner
