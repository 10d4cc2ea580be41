from __future__ import annotations

import json

import pytest

from graphrag_cypher.chunking import chunk_document
from graphrag_cypher.loaders.chunks_format import parse_chunks_file, parse_chunks_folder
from graphrag_cypher.loaders.qa_corpus import parse_qa_corpus, passage_id
from graphrag_cypher.model import ItemError, ParsedDocument

from .conftest import real_data


def test_chunk_file_is_normalised_prechunked_with_side_metadata(tmp_path):
    decomposed = "Cafe\u0301 on the  quay,\n\tat dawn."
    (tmp_path / "isaw-1.json").write_text(json.dumps([decomposed, "   ", "Second chunk."]), encoding="utf-8")
    (tmp_path / "isaw-1.meta.json").write_text(
        json.dumps(
            {"id": "isaw-papers-1", "title": "Terms", "year": "2011", "journal": "ISAW Papers", "url": "http://x/1"}
        )
    )
    document = parse_chunks_file(tmp_path / "isaw-1.json")
    assert document.id == "article:isaw-papers-1" and document.title == "Terms" and document.uri == "http://x/1"
    assert document.prechunked and document.labels == ("Article",) and document.kind == "article"
    assert document.metadata == {"year": 2011, "journal": "ISAW Papers"}
    assert [(s.seq, s.text) for s in document.sections] == [
        (0, "Caf\u00e9 on the quay, at dawn."),
        (2, "Second chunk."),
    ]
    assert [c.index for c in chunk_document(document)] == [0, 2]
    overridden = parse_chunks_file(tmp_path / "isaw-1.json", title="Other", article_id="a9")
    assert overridden.id == "article:a9" and overridden.title == "Other"


def test_bad_chunk_files_are_item_errors(tmp_path):
    (tmp_path / "obj.json").write_text('{"a": 1}')
    (tmp_path / "broken.json").write_text('["unterminated')
    (tmp_path / "ok.json").write_text('["fine"]')
    results = list(parse_chunks_folder(tmp_path))
    assert [type(r).__name__ for r in results] == ["ItemError", "ItemError", "ParsedDocument"]
    assert "array of strings" in results[1].error and "invalid JSON" in results[0].error


def test_passages_ids_include_text_and_duplicates_are_dropped(tmp_path):
    corpus = [
        {"title": "Lighthouse", "text": "A tower."},
        {"title": "Lighthouse", "text": "A film."},
        {"title": "Lighthouse", "text": "A tower."},
        {"title": "", "text": "No title."},
    ]
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(corpus))
    results = list(parse_qa_corpus(path))
    documents = [r for r in results if isinstance(r, ParsedDocument)]
    assert [d.sections[0].text for d in documents] == ["A tower.", "A film."]
    assert documents[0].id == passage_id("Lighthouse", "A tower.") != documents[1].id
    assert documents[0].prechunked and documents[0].labels == ("Passage",) and documents[0].kind == "passage"
    assert results[-1] == ItemError("corpus.json item 3", "missing title")


def test_passages_from_title_to_sentences_mapping(tmp_path):
    path = tmp_path / "hotpot.json"
    path.write_text(json.dumps({"Gull": ["Gulls fly.", "They nest."]}))
    (document,) = parse_qa_corpus(path)
    assert document.title == "Gull" and document.text == "Gulls fly. They nest."


@pytest.mark.real_data
def test_real_musique_corpus_has_1890_passages_and_gold_ids_match():
    results = list(parse_qa_corpus(real_data("qa/musique_train_corpus.json")))
    assert len(results) == 1890 and all(isinstance(r, ParsedDocument) for r in results)
    ids = {r.id for r in results}
    questions = json.loads(real_data("qa/musique_train.json").read_text(encoding="utf-8"))
    gold = [
        passage_id(p["title"], p["paragraph_text"]) for q in questions for p in q["paragraphs"] if p["is_supporting"]
    ]
    assert gold and all(g in ids for g in gold)
