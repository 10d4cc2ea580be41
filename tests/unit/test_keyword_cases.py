"""The question's keywords and full-text query against the case file the Java `graphrag.search`
reads too (tests/fixtures/keyword_cases.tsv): one rule, two implementations, kept equal here (both
read the stop words from the lexicon's files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_cypher.retrieval.base import lucene_query
from graphrag_cypher.retrieval.question.keywords import keywords

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "fixtures" / "keyword_cases.tsv"


def keyword_cases() -> list[tuple[str, int, list[str], str]]:
    rows = []
    for line in CASES.read_text("utf-8").splitlines():
        if line.startswith("#") or not line:
            continue
        text, max_terms, words, query = line.split("\t")
        rows.append((text, int(max_terms), words.split(" | ") if words else [], query))
    return rows


@pytest.mark.parametrize("text,max_terms,words,query", keyword_cases())
def test_keywords_and_query_are_the_cases(text, max_terms, words, query):
    assert keywords(text, max_terms) == words
    assert lucene_query(words or text.split()) == query
