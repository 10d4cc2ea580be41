"""The docs site (docs/, mkdocs.yml) builds with `mkdocs build --strict`, and the README stays short.

Strict mode, with mkdocs.yml's `validation` settings, turns every warning into a failure: a link to
a page or an anchor that is not there, an image that is missing, a page left out of `nav`. Every
section the README had before it became this site is still a heading on some page.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"

# The README's sections before the docs site took them over: each must stay reachable there.
SECTIONS = [
    "Two commands",
    "Configuration",
    "A local Neo4j without Docker: `graphrag neo4j`",
    "A local model (llama.cpp)",
    "Schema as versioned Cypher: `graphrag apply-schema`, `graphrag schema`",
    "Loading sources: `graphrag load`, `graphrag learn`, `graphrag embed`",
    "Questions: `graphrag ask`, `graphrag chat`",
    "Questions about the graph: lookups, lists and counts",
    "Questions about the whole corpus: communities and global search",
    "In Neo4j Browser: graphrag's own procedures",
    "Gazetteers and linkers",
    "Knowledge graph: schemas and extraction",
    "At scale: learning that stays cheap",
    "Evaluation: `graphrag eval`",
    "Health check: `graphrag doctor`",
    "Ad hoc Cypher: `graphrag cypher`",
    "Serving: `graphrag serve`, `graphrag mcp`, `graphrag forget`",
    "Security model",
    "Project layout",
    "Benchmarks",
    "Sample data and attributions",
    "Development",
    "Command reference",
]
SUBSECTIONS = [
    "Requirements",
    "With Docker instead",
    "News feeds: `graphrag load feed`",
    "How a question is routed",
    "A running `graphrag serve` answers `ask`",
    "When the graph doesn't say: abstention",
    "How questions are embedded: the ONNX query model",
    "The same retrieval in Neo4j Browser",
    "How the place links are evaluated",
    "A live wiki: `graphrag load mediawiki-api`",
    "Named entities without an LLM: `extract --extractor ner`",
    "LLM extraction for any corpus",
    "Entities for what is learned: `GRAPHRAG_EXTRACT`",
    "Authors are people",
    "Entity documents: `graphrag entity-docs`",
    "Answering at scale: the graph mode's budget",
    "Incremental linking: the cost follows the change",
    "The bulk path: `graphrag export` + `graphrag import`",
    "Embedding for bulk loads: a GPU, or an endpoint in parallel",
    "The Parquet contract: vectors from Spark or Ray",
    "The Spark job: chunk and embed on a cluster",
    "Cluster and Aura",
]
README_MAX_LINES = 300


def headings(text: str) -> list[str]:
    """The Markdown headings of `text` (any level), leaving out lines inside fenced code."""
    found, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#{1,6} (.+)", line)):
            found.append(m.group(1).strip())
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built once for the module, strictly; a warning fails the build and is shown."""
    site_dir = tmp_path_factory.mktemp("site")
    warnings: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                warnings.append(record.getMessage())

    handler = Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        config = load_config(config_file=str(ROOT / "mkdocs.yml"), strict=True, site_dir=str(site_dir))
        build(config)
    except Abort as exc:
        pytest.fail(f"mkdocs build --strict: {exc}: " + " | ".join(warnings))
    finally:
        logger.removeHandler(handler)
    assert not warnings, warnings
    return site_dir


def test_the_site_builds_strictly_with_every_page(site):
    pages = {p.relative_to(DOCS).with_suffix(".html") for p in DOCS.rglob("*.md")}
    assert pages, "docs/ has no pages"
    missing = [str(p) for p in pages if not (site / p).is_file()]
    assert not missing, f"pages not built: {missing}"
    assert "graphrag --help" in (site / "reference" / "commands.html").read_text("utf-8")


def test_the_site_loads_nothing_from_outside(site):
    outside = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=\"(?:https?:)?//[^\"]*", re.I)
    found = {m for page in site.rglob("*.html") for m in outside.findall(page.read_text("utf-8"))}
    assert not found, f"fetched from outside: {sorted(found)[:5]}"


def test_every_old_readme_section_is_a_heading_in_the_docs():
    in_docs = {h for page in DOCS.rglob("*.md") for h in headings(page.read_text("utf-8"))}
    missing = [title for title in SECTIONS + SUBSECTIONS if title not in in_docs]
    assert not missing, f"sections no longer in docs/: {missing}"


def test_the_readme_is_short_and_keeps_the_two_commands():
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    assert "Two commands" in headings(text)
    assert re.search(r"^make demo\b", text, re.M) and re.search(r"^make test\b", text, re.M)


def test_the_readmes_links_into_the_docs_resolve():
    """README.md is outside the site, so strict mode does not see its links: check them here."""
    links = re.findall(r"\]\((docs/[^)\s]+)\)", README.read_text("utf-8"))
    assert len(links) >= 10, "the README links into the docs"
    for link in links:
        path, _, anchor = link.partition("#")
        target = ROOT / path
        assert target.is_file(), f"README links to {path}, which is not there"
        if anchor:
            slugs = {slugify(h.replace("`", ""), "-") for h in headings(target.read_text("utf-8"))}
            assert anchor in slugs, f"README links to {link}: no heading {anchor!r} on that page"
