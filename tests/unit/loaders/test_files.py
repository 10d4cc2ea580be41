from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from graphrag_cypher.chunking import chunk_document
from graphrag_cypher.loaders.files import iter_files, parse_file, parse_folder, source_key
from graphrag_cypher.model import ItemError, ParsedDocument

from .conftest import real_data


def write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_txt_becomes_one_section_of_paragraphs(tmp_path):
    path = write(tmp_path, "notes/harbour.txt", "The quay is old.\nIt was built in stone.\n\n\nGulls nest there.\n")
    document = parse_file(path, tmp_path)
    assert isinstance(document, ParsedDocument)
    assert document.id == f"file:{source_key(tmp_path)}:notes/harbour.txt" and document.kind == "file"
    assert document.title == "harbour"
    assert document.sections[0].text == "The quay is old. It was built in stone.\n\nGulls nest there."
    assert document.uri.startswith("file://")


MARKDOWN = """---
title: Field Guide
author: [Ana Lima, Bo Chen]
date: 2024-03-01
tags: [birds, coast]
---
# Ignored heading for the title

Intro text with a [link](https://example.org) and ![a gull](gull.png).

## Methods

We counted birds.

### Sampling

Every morning.

```python
count = 3
```

## Results
Many gulls.
"""


def test_markdown_sections_follow_the_heading_path(tmp_path):
    document = parse_file(write(tmp_path, "guide.md", MARKDOWN), tmp_path)
    assert document.title == "Field Guide"
    assert document.metadata["authors"] == ["Ana Lima", "Bo Chen"]
    assert document.metadata["date"] == "2024-03-01"
    assert document.metadata["tags"] == ["birds", "coast"]
    sections = [(s.title, s.kind, s.text) for s in document.sections]
    assert sections == [
        ("Ignored heading for the title", "text", "Intro text with a link and a gull."),
        ("Ignored heading for the title > Methods", "text", "We counted birds."),
        ("Ignored heading for the title > Methods > Sampling", "text", "Every morning."),
        ("Ignored heading for the title > Methods > Sampling", "code", "count = 3"),
        ("Ignored heading for the title > Results", "text", "Many gulls."),
    ]
    no_front = parse_file(write(tmp_path, "plain.md", "# Real Title\n\nBody."), tmp_path)
    assert no_front.title == "Real Title"


HTML = """<!DOCTYPE html><html lang="en"><head>
<title>Site | The Lighthouse Keepers</title>
<meta name="citation_title" content="The Lighthouse Keepers">
<meta name="citation_author" content="Ana Lima"><meta name="DC.creator" content="Bo Chen">
<meta name="citation_date" content="2019/05/07">
<link rel="license" href="https://creativecommons.org/licenses/by/4.0/">
<script>var tracking = 1;</script><style>body {}</style></head>
<body>
<header><nav><a href="/">Home</a></nav>Site banner</header>
<aside>Related posts</aside>
<main>
  <h1>The Lighthouse Keepers</h1>
  <p>Keepers lived <b>on the rock</b> for months.</p>
  <form><input name="q">Search this site</form>
  <h2>Daily life</h2><p>They trimmed wicks.</p><p>They wrote logs.</p>
  <pre>09:00  wind NE
10:00  wind N</pre>
  <h3>Food</h3><ul><li>Fish</li><li>Bread</li></ul>
  <noscript>Enable JavaScript</noscript>
  <p style="display:none">hidden text</p>
</main>
<footer>Copyright footer</footer>
</body></html>"""


def test_html_keeps_main_content_with_heading_sections_and_metadata(tmp_path):
    document = parse_file(write(tmp_path, "page.html", HTML), tmp_path)
    assert document.title == "The Lighthouse Keepers"
    assert document.metadata["authors"] == ["Ana Lima", "Bo Chen"]
    assert document.metadata["date"] == "2019-05-07"
    assert document.metadata["license"] == "https://creativecommons.org/licenses/by/4.0/"
    assert document.metadata["language"] == "en"
    text = document.text
    for noise in (
        "tracking",
        "Home",
        "Site banner",
        "Related posts",
        "Search this site",
        "Copyright",
        "Enable JavaScript",
        "hidden text",
    ):
        assert noise not in text
    assert [(s.title, s.kind) for s in document.sections] == [
        ("The Lighthouse Keepers", "text"),
        ("The Lighthouse Keepers > Daily life", "text"),
        ("The Lighthouse Keepers > Daily life", "code"),
        ("The Lighthouse Keepers > Daily life > Food", "text"),
    ]
    assert document.sections[0].text == "Keepers lived on the rock for months."
    assert document.sections[2].text == "09:00  wind NE\n10:00  wind N"
    assert document.sections[3].text == "Fish\n\nBread"


def test_html_of_scripts_only_is_an_item_error(tmp_path):
    path = write(
        tmp_path,
        "app.html",
        "<html><head><script>app()</script></head><body><script>x()</script>"
        "<noscript>Please enable JS</noscript></body></html>",
    )
    assert parse_file(path, tmp_path) == ItemError("app.html", "no text content")


def make_pdf(path: Path, pages: list[str]) -> bytes:
    import pymupdf

    with pymupdf.open() as pdf:
        for text in pages:
            page = pdf.new_page()
            page.insert_text((72, 72), text)
        pdf.set_metadata({"title": "Tide Tables", "author": "Ana Lima; Bo Chen", "creationDate": "D:20240102030405"})
        data = pdf.tobytes()
    path.write_bytes(data)
    return data


@pytest.mark.process
def test_pdf_gives_one_section_per_page_with_metadata(tmp_path):
    make_pdf(tmp_path / "tides.pdf", ["High tide at noon.", "Low tide at six."])
    document = parse_file(tmp_path / "tides.pdf", tmp_path)
    assert document.kind == "pdf" and document.title == "Tide Tables"
    assert document.metadata["authors"] == ["Ana Lima", "Bo Chen"]
    assert document.metadata["date"] == "2024-01-02"
    assert [(s.page, s.text) for s in document.sections] == [(1, "High tide at noon."), (2, "Low tide at six.")]
    assert [c.page for c in chunk_document(document)] == [1, 2]


def test_truncated_pdf_is_an_item_error(tmp_path):
    data = make_pdf(tmp_path / "whole.pdf", ["Some text on a page."] * 3)
    (tmp_path / "cut.pdf").write_bytes(data[: len(data) // 2])
    error = parse_file(tmp_path / "cut.pdf", tmp_path)
    assert isinstance(error, ItemError) and "truncated" in error.error
    (tmp_path / "fake.pdf").write_bytes(b"%PDF-1.7\n garbage garbage\n%%EOF\n")
    assert isinstance(parse_file(tmp_path / "fake.pdf", tmp_path), ItemError)


PYTHON = '''"""Module doc."""
import os

CONSTANT = 1


@decorator
def helper(x):
    """Help."""
    return x


class Keeper:
    def light(self):
        return True


async def fetch():
    return None
'''


def test_python_sections_per_top_level_definition(tmp_path):
    document = parse_file(write(tmp_path, "keeper.py", PYTHON), tmp_path)
    assert document.kind == "code"
    assert [s.title for s in document.sections] == ["module", "def helper", "class Keeper", "async def fetch"]
    assert all(s.kind == "code" for s in document.sections)
    assert document.sections[0].text == '"""Module doc."""\nimport os\n\nCONSTANT = 1'
    assert document.sections[1].text.startswith('@decorator\ndef helper(x):\n    """Help."""')


def test_python_syntax_error_falls_back_to_blocks(tmp_path):
    document = parse_file(
        write(tmp_path, "broken.py", "def ok():\n    return 1\n\n\ndef broken(:\n    pass\n"), tmp_path
    )
    assert isinstance(document, ParsedDocument)
    assert document.sections[0].kind == "code" and "def broken(:" in document.sections[0].text


def test_other_code_and_json(tmp_path):
    js = parse_file(
        write(tmp_path, "app.js", "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n"), tmp_path
    )
    assert js.kind == "code" and [c.text for c in chunk_document(js, size=30)] == [
        "function a() {\n  return 1;\n}",
        "function b() {\n  return 2;\n}",
    ]
    data = parse_file(write(tmp_path, "data.json", '{"a": [1, 2], "b": "x"}'), tmp_path)
    assert data.sections[0].text == '{\n "a": [\n  1,\n  2\n ],\n "b": "x"\n}'


def test_empty_file_is_an_item_error(tmp_path):
    assert parse_file(write(tmp_path, "empty.txt", ""), tmp_path) == ItemError("empty.txt", "empty file")
    assert parse_file(write(tmp_path, "blank.md", " \n\n "), tmp_path) == ItemError("blank.md", "empty file")


def test_binary_content_with_txt_extension_is_skipped(tmp_path):
    path = write(tmp_path, "photo.txt", bytes(range(256)) * 10)
    assert parse_file(path, tmp_path) == ItemError("photo.txt", "binary content, skipped")


def test_invalid_utf8_mostly_invalid_is_an_error_naming_the_offset(tmp_path):
    latin1 = "Café crème brûlée à la carte. ".encode("latin-1") * 20
    error = parse_file(write(tmp_path, "menu.txt", latin1), tmp_path)
    assert isinstance(error, ItemError) and "invalid UTF-8 at byte offset 3" in error.error


def test_invalid_utf8_rare_bytes_are_replaced_and_counted(tmp_path):
    data = ("All fine here. " * 100).encode() + b"\xff" + b" And the end."
    document = parse_file(write(tmp_path, "mostly.txt", data), tmp_path)
    assert document.metadata["decodeErrors"] == 1 and "\ufffd" in document.text


def test_huge_single_line_file_is_refused_fast(tmp_path):
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:  # sparse: 50 MB without writing 50 MB
        handle.truncate(50 * 1024 * 1024)
    started = time.monotonic()
    error = parse_file(path, tmp_path)
    assert isinstance(error, ItemError) and "too large" in error.error
    assert time.monotonic() - started < 1
    small_limit = parse_file(write(tmp_path, "line.txt", "word " * 1000), tmp_path, max_bytes=1000)
    assert isinstance(small_limit, ItemError) and "too large" in small_limit.error


def test_walk_skips_unwanted_and_hidden_files(tmp_path):
    write(tmp_path, "a.txt", "A.")
    write(tmp_path, "b.bin", "B.")
    write(tmp_path, ".hidden/c.txt", "C.")
    write(tmp_path, "sub/d.md", "# D")
    write(tmp_path, "sub/deeper/e.txt", "E.")
    found = [p.relative_to(tmp_path).as_posix() for p in iter_files(tmp_path)]
    assert found == ["a.txt", "sub/d.md", "sub/deeper/e.txt"]
    limited = list(iter_files(tmp_path, max_depth=1))
    assert any(isinstance(x, ItemError) and "max_depth" in x.error for x in limited)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
def test_symlink_loop_neither_hangs_nor_crashes(tmp_path):
    write(tmp_path, "docs/a.txt", "A.")
    (tmp_path / "docs" / "loop").symlink_to(tmp_path / "docs", target_is_directory=True)
    (tmp_path / "docs" / "self").symlink_to(tmp_path / "docs" / "self")  # a link to itself
    assert [p.name for p in iter_files(tmp_path)] == ["a.txt"]
    followed = list(iter_files(tmp_path, follow_symlinks=True))
    assert [p.name for p in followed if isinstance(p, Path)] == ["a.txt"]
    errors = [e for e in followed if isinstance(e, ItemError)]
    assert any("symlink loop" in e.error for e in errors) and len(errors) == 2


def test_parse_folder_yields_documents_and_errors_without_stopping(tmp_path):
    write(tmp_path, "1.txt", "One.")
    write(tmp_path, "2.txt", "")
    write(tmp_path, "3.txt", "Three.")
    results = list(parse_folder(tmp_path))
    assert [type(r).__name__ for r in results] == ["ParsedDocument", "ItemError", "ParsedDocument"]


@pytest.mark.real_data
def test_real_isaw_xhtml_title_and_licence():
    path = real_data("isaw-papers/1/index.xhtml")
    document = parse_file(path, path.parents[2])
    assert document.id == f"file:{source_key(path.parents[2])}:isaw-papers/1/index.xhtml"
    assert document.title.startswith("A New Discovery of a Component of Greek Astrology in Babylonian Tablets")
    assert document.metadata["license"] == "http://creativecommons.org/licenses/by/3.0/"
    assert document.metadata["authors"] == ["Alexander Jones", "John Steele"]
    assert document.metadata["date"] == "2011-12-13"
    titles = [s.title for s in document.sections]
    assert "1. The Terms in Greco-Roman and Egyptian astrology." in titles and "Works Cited" in titles
    assert "⬈" not in document.text  # hidden anchor decorations are not content


@pytest.mark.real_data
@pytest.mark.process
def test_real_debian_reference_pdf_pages():
    document = parse_file(real_data("pdf/debian-reference.pdf"))
    assert document.title == "Debian Reference"
    pages = [s.page for s in document.sections]
    assert len(pages) >= 250 and pages == sorted(pages) and pages[-1] == 261
    assert "apt" in document.text
