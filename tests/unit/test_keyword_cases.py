"""The question's keywords and full-text query against the case file the Java `graphrag.search`
reads too (tests/fixtures/keyword_cases.tsv), and the plugin's copy of the stop words against the
Python lists: one rule, two implementations, kept equal here."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_cypher.retrieval import question
from graphrag_cypher.retrieval.base import lucene_query

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "fixtures" / "keyword_cases.tsv"
STOPWORDS = ROOT / "procedures/graphrag-procedures/src/main/resources/org/graphrag/procedures/stopwords.txt"


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
    assert question.keywords(text, max_terms) == words
    assert lucene_query(words or text.split()) == query


def test_the_plugins_stop_words_are_the_python_lists():
    sections: dict[str, list[str]] = {}
    current = None
    for line in STOPWORDS.read_text("utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), [])
        else:
            assert current is not None, line
            current.append(line)
    assert set(sections["words"]) == question._STOP
    assert sorted(sections["chinese"], key=len, reverse=True) == question._CN_STOP
