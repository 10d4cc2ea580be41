"""The bounds that keep one hostile input from poisoning a graph, and the work a load does in
proportion to what is new: words and phrases within their index bounds, a document's text
within its budget, a repeated sentence embedded once by the semantic chunker."""

from graphrag_cypher.budget import MAX_KEY_CHARS, MAX_PHRASE_CHARS, MAX_TOKEN_CHARS
from graphrag_cypher.chunking import semantic_split
from graphrag_cypher.linkers.phrases import chunk_words, extract_phrases, lowercase_vocabulary
from graphrag_cypher.model import ParsedDocument, Section
from graphrag_cypher.store.ingest import refused_id, within_text_budget

HEX = "a0" * 4500  # a 9 KB "word"


def test_a_word_past_the_bound_is_no_word_and_breaks_a_phrase():
    text = f"Quillon {HEX.upper()} Bay sent {HEX} to Perrow. {HEX} Harbour wrote back."
    lower, leads = chunk_words(text)
    assert all(len(w) <= MAX_TOKEN_CHARS for w in [*lower, *leads])
    assert lower == ["back", "sent", "to", "wrote"] and leads == ["quillon"]
    assert all(len(w) <= MAX_TOKEN_CHARS for w in lowercase_vocabulary([text]))
    found = extract_phrases(text)
    assert "quillon bay" not in found, "a long token ends the run, as a comma does"
    assert {"quillon", "bay", "perrow", "harbour"} <= set(found)
    assert all(len(key) <= MAX_PHRASE_CHARS for key in found)


def test_a_phrase_past_the_bound_is_not_kept_but_its_words_are():
    names = " ".join(f"Name{i}" for i in range(60))  # a run of 60 capitalised words, ~400 characters
    found = extract_phrases(f"The list said {names} and stopped.")
    assert all(len(key) <= MAX_PHRASE_CHARS for key in found)
    assert "name0" in found and "name59" in found


def test_a_word_at_the_bound_is_still_a_word():
    word = "k" * MAX_TOKEN_CHARS
    assert chunk_words(f"the {word} here")[0] == ["here", word, "the"]


def _doc(*texts: str, doc_id: str = "doc:1") -> ParsedDocument:
    return ParsedDocument(id=doc_id, title="T", kind="file", source="t.txt", sections=[Section(t) for t in texts])


def test_a_document_past_the_budget_is_cut_with_a_note():
    doc = _doc("a" * 600, "b " * 400, "c" * 500)
    note = within_text_budget(doc, 1000)
    assert note is not None and note.startswith("text cut at character ") and "1,000-character budget" in note
    assert sum(len(s.text) for s in doc.sections) <= 1000 and len(doc.sections) == 2
    assert within_text_budget(doc, 1000) is None, "within the budget now: nothing more to say"


def test_an_id_too_long_to_index_is_refused_not_cut():
    assert refused_id(_doc("x", doc_id="d" * MAX_KEY_CHARS)) is None
    reason = refused_id(_doc("x", doc_id="d" * (MAX_KEY_CHARS + 1)))
    assert reason is not None and "id too long" in reason


def test_the_semantic_chunker_embeds_a_repeated_sentence_once():
    calls: list[list[str]] = []

    def embed(texts):
        calls.append(list(texts))
        return [[1.0, float(len(t))] for t in texts]

    sentences = ["The tide came in."] * 500 + ["A ship left.", "The tide came in."]
    groups = semantic_split(sentences, embed, size=200)
    assert calls == [["The tide came in.", "A ship left."]]
    assert sum(g.count("The tide came in.") for g in groups) == 501
