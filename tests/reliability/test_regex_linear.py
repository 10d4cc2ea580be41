"""Every pattern that runs on uploaded or crawled text is linear in it: each parser is fed the
worst cases of the patterns it runs (long runs of the characters a pattern repeats, brackets
that never close) at two sizes, side by side in one process. 4x the text must take under 12x
the CPU time (linear: about 4x; quadratic: 16x; these inputs took minutes before), and one run
is stopped after a few CPU seconds (a quadratic pattern would run for hours on the larger size).
The larger size's best of up to three runs counts: one run slowed by a busy machine is no
quadratic parse.
"""

from __future__ import annotations

import signal
import time

import pytest

from graphrag_cypher.loaders import feeds, files, html_content, mediawiki, stories
from graphrag_cypher.model import ContentError
from graphrag_cypher.text import clean_names, clean_paragraphs, norm_name, sentence_spans, tidy_lines

SMALL, LARGE = 25_000, 100_000
CPU_BUDGET = 8.0  # seconds of CPU for the larger size; a linear parse needs well under one


def markdown(text: str):
    return files.markdown_sections(text, {}, [])


def wiki(text: str):
    return mediawiki._tidy(text)


RSS = '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><title>a</title><description>{}'
RSS_END = "</description></item></channel></rss>"


def feed(text: str):
    """A feed's entries, or the one-line reason it is none."""
    try:
        return feeds.parse_feed(text.encode(), "http://example.org/feed")
    except ContentError as exc:
        return str(exc)


def html(text: str):
    """A page, or the one-line reason it is none ("nested too deeply", "no text")."""
    try:
        return html_content.parse_html(text.encode())
    except ContentError as exc:
        return str(exc)


CASES = {
    # Markdown: links and images (markdown-it-py), headings, setext underlines, front matter
    "markdown [": (markdown, lambda n: "[" * n),
    "markdown ![": (markdown, lambda n: "![" * (n // 2)),
    "markdown [a](": (markdown, lambda n: "[a](" * (n // 4)),
    "markdown [x](y nested": (markdown, lambda n: "[" * (n // 2) + "x](y)" + "]" * (n // 2)),
    "markdown heading spaces": (markdown, lambda n: "# a" + " " * n + "b"),
    "markdown heading #s": (markdown, lambda n: "# a" + " #" * (n // 2) + "b"),
    "markdown setext": (markdown, lambda n: "a\n" + "=" * n + "x"),
    "markdown front matter": (markdown, lambda n: "---\n" + "--- x\n" * (n // 6)),
    # the whole file path: decoding, sections, budget
    "file .md of [": (lambda t: files._text_sections(files.Path("a.md"), ".md", t, {}, []), lambda n: "[" * n),
    "file .csv of quotes": (lambda t: files._text_sections(files.Path("a.csv"), ".csv", t, {}, []), lambda n: '"' * n),
    "file .json deep": (files.pretty_json, lambda n: "[" * n),
    "file .py of (": (lambda t: files._text_sections(files.Path("a.py"), ".py", t, {}, []), lambda n: "(" * n),
    # MediaWiki leftovers and debris
    "wiki redirect spaces": (lambda t: mediawiki._REDIRECT_TEXT.match(t), lambda n: "#REDIRECT" + " " * n + "x"),
    "wiki ( spaces": (wiki, lambda n: "(" + " " * n + "x"),
    "wiki spaces before x": (wiki, lambda n: "a" + " " * n + "x"),
    "wiki <ref": (wiki, lambda n: "<ref" * (n // 4)),
    "wiki [[": (wiki, lambda n: "[[" * (n // 2)),
    "wiki {{": (wiki, lambda n: "{{" * (n // 2)),
    "wiki [[file:": (wiki, lambda n: "[[file:" + "[[a]]" * (n // 5)),
    "wiki <a": (wiki, lambda n: "<a" * (n // 2)),
    # sentences, paragraphs, names
    "sentences ....": (sentence_spans, lambda n: "." * n + "x"),
    "sentences .)))": (sentence_spans, lambda n: "." + ")" * n + "x"),
    "sentences a. spaces": (sentence_spans, lambda n: "a." + " " * n + "x"),
    "sentences newline spaces": (sentence_spans, lambda n: "\n" + " " * n + "x"),
    "paragraphs": (clean_paragraphs, lambda n: "\n" + " " * n + "x"),
    "lines": (tidy_lines, lambda n: "\n" + " \t" * (n // 2)),
    "gazetteer name spaces": (clean_names, lambda n: ["a" + " " * n + "x"]),
    "gazetteer name (((": (clean_names, lambda n: ["(" * n]),
    "name punctuation": (norm_name, lambda n: "-" * n),
    # Gutenberg story headings
    "story heading spaces": (lambda t: stories._SUBPART.match(t), lambda n: "STORY" + " " * n + "x"),
    "story start": (lambda t: stories._START.search(t), lambda n: "***\n" * (n // 4)),
    # feeds (feedparser's sanitiser and its SGML parser)
    "feed of <a": (feed, lambda n: "<a" * (n // 2)),
    "feed CDATA of <a": (feed, lambda n: RSS.format("<![CDATA[" + "<a" * (n // 2) + "]]>") + RSS_END),
    "feed escaped tags": (feed, lambda n: RSS.format("&lt;p&gt;" * (n // 9)) + RSS_END),
    # HTML attribute patterns
    "html style": (lambda t: html_content._HIDDEN_STYLE.search(t), lambda n: "display" + " " * n),
    "html page of <a": (html, lambda n: "<a" * (n // 2)),
    "html nested divs": (html, lambda n: "<div>x" * (n // 6)),
}


class _TooSlow(Exception):
    pass


def _cpu(func, text, budget: float) -> float:
    """CPU seconds `func(text)` took; _TooSlow once it has used `budget` (Python's regex engine
    checks for signals as it backtracks, so a runaway pattern is stopped too)."""

    def stop(signum, _frame):
        raise _TooSlow

    previous = signal.signal(signal.SIGVTALRM, stop)
    try:
        signal.setitimer(signal.ITIMER_VIRTUAL, budget)
        start = time.process_time()
        func(text)
        return time.process_time() - start
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


@pytest.mark.parametrize("name", list(CASES))
def test_worst_case_input_is_parsed_in_linear_time(name):
    func, make = CASES[name]
    small, large = make(SMALL), make(LARGE)
    _cpu(func, small, CPU_BUDGET)  # warm-up: imports, caches
    t_small = min(_cpu(func, small, CPU_BUDGET) for _ in range(2))
    bound = 12 * t_small + 0.05
    t_large = float("inf")
    for _ in range(3):  # the best of up to three: one run slowed by a busy machine is no quadratic parse
        try:
            t_large = min(t_large, _cpu(func, large, CPU_BUDGET))
        except _TooSlow:
            pytest.fail(f"{name}: {LARGE:,} characters not parsed within {CPU_BUDGET:g} CPU seconds")
        if t_large < bound:
            break
    assert t_large < bound, f"{name}: {t_small:.3f} s for {SMALL:,}, {t_large:.3f} s for {LARGE:,}"
