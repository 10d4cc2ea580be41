"""Local files and folders: walk a tree safely and parse each file by its extension.

Decoding policy for text formats: a NUL byte or many control bytes in the first 8 KB
mean binary ("binary content, skipped"). Text must be UTF-8 (a BOM is fine, UTF-16 with
a BOM too). When under 1% of the bytes are invalid UTF-8 the file loads with U+FFFD
replacement characters and `metadata["decodeErrors"]` counts them; more than that means
the file is in another encoding, and an ItemError names the first bad byte offset.
Files over `max_bytes` (default 20 MB) are refused before reading, which bounds memory;
what a file may turn into is bounded by a `ParseBudget` (see `graphrag_cypher.budget`): a
document over it keeps the part within it, and `ParsedDocument.notes` says what was cut.
YAML front matter with aliases (`&a`, `*a`: the "billion laughs") is not read.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from graphrag_cypher.budget import ParseBudget, cut_text
from graphrag_cypher.model import ContentError, ItemError, ParsedDocument, Section
from graphrag_cypher.safe_io import loads_json
from graphrag_cypher.text import clean_paragraphs, collapse_whitespace, iso_date

from .code_content import CODE_EXTENSIONS, code_sections, python_sections

TEXT_EXTENSIONS = frozenset({".txt", ".text"})
MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown"})
HTML_EXTENSIONS = frozenset({".html", ".htm", ".xhtml"})
DATA_EXTENSIONS = frozenset({".json", ".csv"})
DEFAULT_EXTENSIONS = (
    TEXT_EXTENSIONS | MARKDOWN_EXTENSIONS | HTML_EXTENSIONS | DATA_EXTENSIONS | {".pdf"} | CODE_EXTENSIONS
)
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
SKIP_DIRS = frozenset({"__pycache__", "node_modules", "venv", "site-packages"})

BINARY_SNIFF_BYTES = 8192
MAX_CONTROL_RATIO = 0.10
MAX_INVALID_UTF8_RATIO = 0.01
PRETTY_JSON_FACTOR = 3  # pretty-printing may grow a JSON file at most this much


# --- walking -------------------------------------------------------------------------------


def iter_files(
    root: str | os.PathLike,
    max_depth: int = 10,
    extensions: Iterable[str] | None = DEFAULT_EXTENSIONS,
    follow_symlinks: bool = False,
) -> Iterator[Path | ItemError]:
    """Files under `root` (sorted, depth-first) whose extension is wanted.

    Hidden entries and cache folders are skipped. Without `follow_symlinks`, symlinks are
    not followed at all. With it, every folder is entered once by its real path, so a
    symlink loop (or a second link to the same folder) is reported instead of walked.
    """
    root = Path(root)
    wanted = None if extensions is None else {e.lower() if e.startswith(".") else "." + e.lower() for e in extensions}
    if root.is_file():
        yield root
        return
    if not root.is_dir():
        yield ItemError(str(root), "no such file or folder")
        return
    visited = {os.path.realpath(root)}
    stack: list[tuple[Path, int]] = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield ItemError(str(folder), f"cannot list folder: {exc.strerror or exc}")
            continue
        subfolders: list[Path] = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            outcome = _classify(entry, follow_symlinks)
            if isinstance(outcome, ItemError) or outcome is None:
                if outcome:
                    yield outcome
                continue
            path = Path(entry.path)
            if outcome == "file":
                if wanted is None or path.suffix.lower() in wanted:
                    yield path
                continue
            if entry.name in SKIP_DIRS:
                continue
            real = os.path.realpath(path)
            if real in visited:
                yield ItemError(str(path), f"symlink loop or second link to {real}, not entered")
                continue
            if depth + 1 > max_depth:
                yield ItemError(str(path), f"deeper than max_depth={max_depth}, not entered")
                continue
            visited.add(real)
            subfolders.append(path)
        stack.extend((sub, depth + 1) for sub in reversed(subfolders))


def _classify(entry: os.DirEntry, follow_symlinks: bool) -> str | ItemError | None:
    """'file', 'dir', None (ignore) or an ItemError for a dangling/looping link."""
    try:
        if entry.is_symlink():
            if not follow_symlinks:
                return None
            if not os.path.exists(entry.path):  # dangling, or a link that loops onto itself
                return ItemError(entry.path, "broken symlink or symlink loop, skipped")
        if entry.is_dir(follow_symlinks=follow_symlinks):
            return "dir"
        if entry.is_file(follow_symlinks=follow_symlinks):
            return "file"
    except OSError as exc:
        return ItemError(entry.path, f"cannot read: {exc.strerror or exc}")
    return None  # sockets, fifos, devices


def source_key(folder: str | os.PathLike) -> str:
    """A short key of the folder files are loaded from (a hash of its resolved path): the same
    folder gives the same key on every run, two folders holding `readme.txt` give two."""
    return hashlib.sha256(Path(folder).resolve().as_posix().encode("utf-8")).hexdigest()[:12]


def document_id(relative: str, key: str) -> str:
    """`file:<source key>:<path relative to the folder loaded>`."""
    return f"file:{key}:{relative}"


def parse_folder(
    root: str | os.PathLike, source: str | None = None, parse=None, **walk_options
) -> Iterator[ParsedDocument | ItemError]:
    """iter_files + parse_file: every document under `root`, bad ones as ItemErrors.

    Ids are `file:<source>:<relative path>`; `source` defaults to `source_key(root)` (for a
    file, its folder's), and a caller with a better stable name (the bundled sample) passes it.
    `parse` replaces `parse_file` (same arguments): the server's `isolated.parse_file` parses
    each file in a worker process."""
    parse = parse or parse_file
    max_bytes = walk_options.pop("max_bytes", DEFAULT_MAX_BYTES)
    budget = walk_options.pop("budget", None) or ParseBudget.from_env()
    root = Path(root)
    base = root if root.is_dir() else root.parent
    key = source or source_key(base)
    for item in iter_files(root, **walk_options):
        yield (
            item if isinstance(item, ItemError) else parse(item, base, max_bytes=max_bytes, source=key, budget=budget)
        )


# --- one file ------------------------------------------------------------------------------


def parse_file(
    path: str | os.PathLike,
    root: str | os.PathLike | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    source: str | None = None,
    budget: ParseBudget | None = None,
) -> ParsedDocument | ItemError:
    """One file as a document whose id is `file:<source>:<path relative to root>` (see
    `parse_folder`; without `root`, the file's folder is the root), parsed within `budget`
    (default: the environment's, `ParseBudget.from_env`)."""
    path = Path(path)
    folder, relative = _relative(path, root)
    key = source or source_key(folder)
    try:
        data = _read_bounded(path, max_bytes)
        return _parse_bytes(path, document_id(relative, key), data, budget or ParseBudget.from_env())
    except ContentError as exc:
        return ItemError(relative, str(exc))
    except OSError as exc:
        return ItemError(relative, f"cannot read: {exc.strerror or exc}")
    except Exception as exc:  # a parser bug must not stop the other files
        return ItemError(relative, f"unexpected {type(exc).__name__}: {collapse_whitespace(str(exc))}")


def _relative(path: Path, root) -> tuple[Path, str]:
    """(the folder the id is relative to, the file's path relative to it)."""
    if root is not None:
        try:
            return Path(root), path.resolve().relative_to(Path(root).resolve()).as_posix()
        except ValueError:
            pass
    return path.parent, path.name


def _read_bounded(path: Path, max_bytes: int) -> bytes:
    size = path.stat().st_size
    if size > max_bytes:
        raise ContentError(f"file too large ({size / 1e6:.1f} MB > {max_bytes / 1e6:.1f} MB limit), skipped")
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)  # the file may have grown since stat
    if len(data) > max_bytes:
        raise ContentError(f"file too large (> {max_bytes / 1e6:.1f} MB limit), skipped")
    if not data.strip():
        raise ContentError("empty file")
    return data


def _parse_bytes(path: Path, identifier: str, data: bytes, budget: ParseBudget) -> ParsedDocument:
    suffix = path.suffix.lower()
    base: dict[str, Any] = {"id": identifier, "source": str(path), "uri": path.resolve().as_uri()}
    if suffix == ".pdf":
        from .pdf_content import parse_pdf

        pdf = parse_pdf(data, budget)
        return ParsedDocument(
            title=pdf.title or path.stem,
            kind="pdf",
            metadata=pdf.metadata,
            sections=pdf.sections,
            notes=pdf.notes,
            **base,
        )
    if suffix in HTML_EXTENSIONS:
        from .html_content import parse_html

        sniff_binary(data)
        page = parse_html(data, budget=budget)
        return ParsedDocument(
            title=page.title or path.stem,
            kind="file",
            metadata=page.metadata,
            sections=page.sections,
            notes=page.notes,
            **base,
        )
    text, decode_errors = decode_text(data)
    notes: list[str] = []
    if len(text) > budget.chars:
        notes.append(
            f"text cut at character {budget.chars:,} of {len(text):,}: {budget.chars:,}-character budget reached"
        )
        text = cut_text(text, budget.chars)
    metadata = {"decodeErrors": decode_errors} if decode_errors else {}
    title, sections, kind = _text_sections(path, suffix, text, metadata, notes)
    sections = within_budget(sections, budget, notes)
    if not any(s.text.strip() for s in sections):
        raise ContentError("no text content")
    return ParsedDocument(title=title, kind=kind, metadata=metadata, sections=sections, notes=notes, **base)


def within_budget(sections: list[Section], budget: ParseBudget, notes: list[str]) -> list[Section]:
    """The sections up to `budget.chars` characters in all (the last one cut), and a note when
    that cut anything (pretty-printed JSON, say, is longer than the file it came from)."""
    total = 0
    for i, section in enumerate(sections):
        if total + len(section.text) > budget.chars:
            kept = sections[:i]
            head = cut_text(section.text, budget.chars - total)
            if head.strip():
                kept.append(Section(text=head, title=section.title, page=section.page, kind=section.kind))
            notes.append(f"cut in section {i + 1} of {len(sections)}: {budget.chars:,}-character budget reached")
            return kept
        total += len(section.text)
    return sections


def _text_sections(
    path: Path, suffix: str, text: str, metadata: dict, notes: list[str]
) -> tuple[str, list[Section], str]:
    if suffix in MARKDOWN_EXTENSIONS:
        title, sections = markdown_sections(text, metadata, notes)
        return title or path.stem, sections, "file"
    if suffix == ".py":
        return path.name, python_sections(text), "code"
    if suffix in CODE_EXTENSIONS:
        return path.name, code_sections(text), "code"
    if suffix == ".json":
        return path.name, [Section(text=pretty_json(text), kind="code")], "file"
    if suffix == ".csv":
        return path.name, code_sections(text), "file"
    body = clean_paragraphs(text)
    return path.stem, [Section(text=body)] if body else [], "file"


# --- decoding ------------------------------------------------------------------------------


def sniff_binary(data: bytes) -> None:
    head = data[:BINARY_SNIFF_BYTES]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return  # UTF-16 with a BOM is text full of NULs
    if b"\x00" in head:
        raise ContentError("binary content, skipped")
    control = sum(1 for byte in head if byte < 32 and byte not in b"\t\n\r\f\b\x1b")
    if head and control / len(head) > MAX_CONTROL_RATIO:
        raise ContentError("binary content, skipped")


def decode_text(data: bytes) -> tuple[str, int]:
    """(text, number of replaced invalid sequences); raises ContentError when not text."""
    sniff_binary(data)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), 0
        except UnicodeDecodeError as exc:
            raise ContentError(f"invalid UTF-16 at byte offset {exc.start}") from exc
    try:
        return data.decode("utf-8-sig"), 0
    except UnicodeDecodeError as exc:
        first_bad = exc.start
    text = data.decode("utf-8-sig", errors="replace")
    bad = text.count("\ufffd") - data.count(b"\xef\xbf\xbd")
    if bad / len(data) >= MAX_INVALID_UTF8_RATIO:
        raise ContentError(f"invalid UTF-8 at byte offset {first_bad} ({bad} bad sequences): not a UTF-8 text file")
    return text, bad


def pretty_json(text: str) -> str:
    """Indented JSON for readable chunks, unless indenting would blow the size up."""
    try:
        value = loads_json(text)
        pretty = json.dumps(value, indent=1, ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON, or nested too deeply to indent: kept as it is
        return text.strip()
    return pretty if len(pretty) <= PRETTY_JSON_FACTOR * len(text) else text.strip()


# --- markdown ------------------------------------------------------------------------------

# Line patterns anchored at the line start, with no two unbounded repeats that can trade
# characters: each is linear in the line (a heading's closing #s are cut by `_atx_text`).
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")


def _atx_text(line: str, opening: re.Match) -> str:
    """A '#' heading's text: the line after its opening #s, without a closing run of #s."""
    text = line[opening.end() :].rstrip(" \t")
    bare = text.rstrip("#")
    if bare != text and (not bare or bare[-1] in " \t"):
        text = bare.rstrip(" \t")
    return text


_INLINE: list = []


def link_text(text: str) -> str:
    """Markdown links and images as their text (`[the harbour](url)` -> "the harbour", `![alt](src)`
    -> "alt"), the rest of the markup kept as written. markdown-it-py's CommonMark inline parser
    finds them in time linear in the text (a backtracking regex took minutes on a run of '[')."""
    if "[" not in text:
        return text
    if not _INLINE:
        from markdown_it import MarkdownIt

        _INLINE.append(MarkdownIt("commonmark"))
    out: list[str] = []
    for block in _INLINE[0].parseInline(text):
        for token in block.children or ():
            if token.type == "text" or token.type == "html_inline":
                out.append(token.content)
            elif token.type in ("softbreak", "hardbreak"):
                out.append("\n")
            elif token.type == "image":
                out.append(token.content)
            elif token.type == "code_inline":
                out.append(f"{token.markup}{token.content}{token.markup}")
            elif token.type.endswith(("_open", "_close")) and not token.type.startswith("link_"):
                out.append(token.markup)  # emphasis keeps its * and _
    return "".join(out)


def markdown_sections(text: str, metadata: dict, notes: list[str] | None = None) -> tuple[str | None, list[Section]]:
    """Heading-aware sections ("A > B" titles); fenced code as code sections.
    Front matter fills `metadata` (why it was not read goes to `notes`); the title is front
    matter's or the first '# ' heading."""
    text = text.replace("\r\n", "\n")
    front, text = _front_matter(text, notes if notes is not None else [])
    metadata.update(front)
    builder = _MarkdownBuilder()
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            i = builder.fence(lines, i)
            continue
        atx = _ATX.match(line)
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if atx:
            builder.heading(len(atx.group(1)), _atx_text(line, atx))
        elif line.strip() and _SETEXT.match(nxt) and builder.at_paragraph_start():
            builder.heading(1 if nxt.strip().startswith("=") else 2, line)
            i += 1
        else:
            builder.lines.append(line)
        i += 1
    sections = builder.finish()
    title = front.get("title") if isinstance(front.get("title"), str) else None
    return title or builder.first_h1, sections


class _MarkdownBuilder:
    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.headings: list[tuple[int, str]] = []
        self.lines: list[str] = []
        self.first_h1: str | None = None

    def title(self) -> str | None:
        return " > ".join(t for _, t in self.headings) or None

    def at_paragraph_start(self) -> bool:
        return not self.lines or not self.lines[-1].strip()

    def flush(self) -> None:
        body = "\n".join(self.lines)
        body = clean_paragraphs(link_text(body))
        if body:
            self.sections.append(Section(text=body, title=self.title()))
        self.lines = []

    def heading(self, level: int, text: str) -> None:
        self.flush()
        text = collapse_whitespace(link_text(text))
        if level == 1 and self.first_h1 is None:
            self.first_h1 = text
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        if text:
            self.headings.append((level, text))

    def fence(self, lines: list[str], start: int) -> int:
        """Consume a fenced block; return the index after its closing fence."""
        self.flush()
        opening = _FENCE.match(lines[start])
        assert opening is not None  # the caller only calls this on a line that matches _FENCE
        marker = opening.group(1)
        end = start + 1
        while end < len(lines) and not lines[end].lstrip().startswith(marker):
            end += 1
        code = "\n".join(lines[start + 1 : end]).strip("\n")
        if code.strip():
            self.sections.append(Section(text=code, title=self.title(), kind="code"))
        return end + 1

    def finish(self) -> list[Section]:
        self.flush()
        return self.sections


MAX_FRONT_MATTER = 64 * 1024  # characters of YAML front matter read


def _front_matter(text: str, notes: list[str]) -> tuple[dict, str]:
    """YAML front matter between '---' lines, as flat Neo4j-storable values. Front matter
    with aliases (which expand without bound: 354 bytes can become 300 MB), longer than
    `MAX_FRONT_MATTER` or nested too deeply is not read, and `notes` says why."""
    if not text.startswith("---\n"):
        return {}, text
    end = re.search(r"^(---|\.\.\.)[ \t]*$", text[4:], flags=re.MULTILINE)
    if not end:
        return {}, text
    import yaml

    block, rest = text[4 : 4 + end.start()], text[4 + end.end() :]
    if len(block) > MAX_FRONT_MATTER:
        notes.append(f"YAML front matter not read: {len(block):,} characters, over the {MAX_FRONT_MATTER:,} limit")
        return {}, rest
    try:
        raw = yaml.load(block, Loader=_no_alias_loader())  # noqa: S506 - a SafeLoader, aliases refused
    except _AliasRefused:
        notes.append("YAML front matter not read: it uses aliases (*name), which can expand without bound")
        return {}, rest
    except RecursionError:
        notes.append("YAML front matter not read: nested too deeply")
        return {}, rest
    except yaml.YAMLError:
        return {}, text
    if not isinstance(raw, dict):
        return {}, rest
    return _flat_metadata(raw), rest


class _AliasRefused(Exception):
    pass


_LOADER: list = []


def _no_alias_loader():
    """yaml.SafeLoader that refuses aliases as it composes (before anything is expanded)."""
    if not _LOADER:
        import yaml

        class NoAliasLoader(yaml.SafeLoader):
            def compose_node(self, parent, index):
                if self.check_event(yaml.AliasEvent):
                    raise _AliasRefused
                return super().compose_node(parent, index)

        _LOADER.append(NoAliasLoader)
    return _LOADER[0]


def _flat_metadata(raw: dict) -> dict:
    metadata: dict = {}
    for key, value in raw.items():
        key = str(key)
        if key in ("author", "authors"):
            authors = value if isinstance(value, list) else [value]
            metadata["authors"] = [str(a) for a in authors if a]
        elif key == "date":
            metadata["date"] = iso_date(str(value))
        elif isinstance(value, (str, int, float, bool)):
            metadata[key] = value
        elif isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
            metadata[key] = [str(v) for v in value]
        elif value is not None:
            metadata[key] = json.dumps(value, ensure_ascii=False, default=str)
    return metadata
