from __future__ import annotations

import re
from itertools import pairwise

import pytest

from graphrag_cypher.chunking import chunk_code, chunk_document, chunk_text, semantic_split
from graphrag_cypher.model import ParsedDocument, Section
from graphrag_cypher.text import iso_date, split_sentences, title_case


def doc(*sections: Section, prechunked: bool = False) -> ParsedDocument:
    return ParsedDocument(id="t", title="T", kind="file", source="mem", sections=list(sections), prechunked=prechunked)


def test_content_hash_is_stable_and_tracks_stored_fields():
    a = doc(Section("Hello there.", title="A"))
    b = doc(Section("Hello there.", title="A"))
    assert a.content_hash == b.content_hash
    assert doc(Section("Hello there.", title="B")).content_hash != a.content_hash
    assert doc(Section("Hello there.", title="A", page=2)).content_hash != a.content_hash
    b.metadata["date"] = "2020-01-01"
    assert b.content_hash != a.content_hash


def test_labels_outside_the_allowlist_are_refused():
    with pytest.raises(ValueError, match="allowlist"):
        ParsedDocument(id="x", title="x", kind="file", source="x", labels=("Person`) DETACH DELETE n //",))


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "Dr. Smith went to St. Albans, e.g. by train. He paid 3.50 pounds.",
            ["Dr. Smith went to St. Albans, e.g. by train.", "He paid 3.50 pounds."],
        ),
        ("J. R. R. Tolkien wrote books. They sold well!", ["J. R. R. Tolkien wrote books.", "They sold well!"]),
        (
            'Wait... what happened? "Nothing," she said. (It was late.) Then...\n\nNew paragraph',
            ["Wait... what happened?", '"Nothing," she said.', "(It was late.)", "Then...", "New paragraph"],
        ),
        (
            "The U.S. Army arrived. Pi is approx. 3.14159 in value.",
            ["The U.S. Army arrived.", "Pi is approx. 3.14159 in value."],
        ),
    ],
)
def test_sentence_splitter_handles_abbreviations_decimals_and_ellipses(text, expected):
    assert split_sentences(text) == expected


def test_title_case_and_dates():
    assert title_case("THE STRAW, THE COAL, AND THE BEAN") == "The Straw, the Coal, and the Bean"
    assert title_case("KING GRISLY-BEARD") == "King Grisly-Beard"
    assert iso_date("2011-12-13T10:00:00Z") == "2011-12-13"
    assert iso_date("D:20230204120000+09'00'") == "2023-02-04"
    assert iso_date("March 5, 2021") == "2021-03-05"
    assert iso_date("Tue, 02 Jan 2024 10:00:00 GMT") == "2024-01-02"
    assert iso_date("sometime in spring") == "sometime in spring"


PROSE = " ".join(f"Sentence number {i} talks about the harbour, the lighthouse and the gulls." for i in range(60))


def test_chunks_are_bounded_sentence_aligned_and_overlap():
    chunks = chunk_document(doc(Section(PROSE, title="Intro")), size=300, overlap=100)
    assert len(chunks) > 5
    for chunk in chunks:
        assert len(chunk.text) <= 300
        assert chunk.text.startswith("Sentence") and chunk.text.endswith("gulls.")
        assert PROSE[chunk.start : chunk.end] == chunk.text
        assert chunk.section == "Intro"
    assert [c.index for c in chunks] == list(range(len(chunks)))
    # each chunk after the first repeats the previous chunk's last sentence
    for previous, current in pairwise(chunks):
        assert current.start < previous.end
        assert previous.text.endswith(PROSE[current.start : previous.end])


def test_long_sentence_is_split_at_whitespace_never_mid_word():
    words = [f"word{i}" for i in range(500)]
    text = " ".join(words)  # one sentence of ~4000 chars
    chunks = chunk_document(doc(Section(text)), size=200, overlap=50)
    assert all(len(c.text) <= 200 for c in chunks)
    vocabulary = set(words)
    for chunk in chunks:
        assert set(chunk.text.split()) <= vocabulary  # every token is a whole word
    covered = set(" ".join(c.text for c in chunks).split())
    assert covered == vocabulary


def test_a_word_longer_than_size_is_cut_because_it_has_no_boundary():
    spans = chunk_text("x" * 2500, size=1000, overlap=0)
    assert [e - s for s, e in spans] == [1000, 1000, 500]


def test_chunks_never_span_sections_and_keep_titles_and_pages():
    chunks = chunk_document(doc(Section("One. Two.", title="A", page=1), Section("Three.", title="A > B", page=2)))
    assert [(c.text, c.section, c.page) for c in chunks] == [("One. Two.", "A", 1), ("Three.", "A > B", 2)]


CODE = '''import os


def first():
    x = 1

    return x


def second():
    return 2


class Third:
    """Doc."""

    def method(self):
        return 3
'''


def test_code_is_split_at_top_level_blocks_and_line_ends():
    spans = chunk_code(CODE, size=40)
    texts = [CODE[s:e] for s, e in spans]
    assert texts[0].startswith("import os")
    assert any(t.startswith("def first():") and t.endswith("return x") for t in texts)
    assert any(t.startswith("class Third:") or t.startswith('    """Doc."""') for t in texts)
    for s, e in spans:  # whole lines only
        assert s == 0 or CODE[s - 1] == "\n"
        assert e == len(CODE) or CODE[e] == "\n"
    chunks = chunk_document(doc(Section(CODE, kind="code")), size=1000)
    assert len(chunks) == 1 and chunks[0].text == CODE.strip()


def test_a_long_code_line_stays_whole():
    line = "x = [" + ", ".join(str(i) for i in range(400)) + "]"
    spans = chunk_code(f"a = 1\n{line}\nb = 2", size=100)
    assert any(e - s == len(line) for s, e in spans)


def test_prechunked_docs_give_one_chunk_per_section_in_seq_order():
    sections = [Section("second", seq=2), Section("first", seq=0), Section("   ", seq=1)]
    chunks = chunk_document(doc(*sections, prechunked=True), size=3)
    assert [(c.index, c.text) for c in chunks] == [(0, "first"), (2, "second")]


def fake_embed(sentences):
    """Deterministic: sentences about cats point one way, about ships another."""
    vectors = []
    for sentence in sentences:
        words = re.findall(r"\w+", sentence.lower())
        vectors.append(
            [
                sum(w in ("cat", "cats", "purr", "whiskers") for w in words) + 0.1,
                sum(w in ("ship", "ships", "sail", "harbour") for w in words) + 0.1,
            ]
        )
    return vectors


def test_semantic_split_breaks_where_the_topic_changes():
    sentences = [
        "Cats purr.",
        "A cat has whiskers.",
        "Cats purr at night.",
        "Ships sail.",
        "The harbour holds ships.",
        "A ship can sail far.",
    ]
    assert semantic_split(sentences, fake_embed, threshold_percentile=80) == [
        "Cats purr. A cat has whiskers. Cats purr at night.",
        "Ships sail. The harbour holds ships. A ship can sail far.",
    ]
    groups = semantic_split(sentences, fake_embed, threshold_percentile=100, size=30)
    assert all(len(g) <= 30 or " " not in g for g in groups) and len(groups) > 2
    assert semantic_split([], fake_embed) == []
