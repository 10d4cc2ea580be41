"""Author names to people (no database): name forms, lists, initials, and the RDFa byline of
scholarly XHTML; and the wording of who-wrote-what questions."""

import pytest

from graphrag_cypher.loaders.html_content import parse_html
from graphrag_cypher.retrieval.structured import _authored_question
from graphrag_cypher.store.authors import Resolver, authored_rows, split_names


@pytest.mark.parametrize(
    ("raw", "names"),
    [
        ("Heath, Sebastian", ["Sebastian Heath"]),
        ("Ana Lima; Bo Chen", ["Ana Lima", "Bo Chen"]),
        ("Ana Lima and Bo Chen", ["Ana Lima", "Bo Chen"]),
        ("Ana Lima, Bo Chen", ["Ana Lima", "Bo Chen"]),
        ("Smith, John, Jr.", ["John Smith Jr"]),
        ("https://orcid.org/0000-0002-0114-9144", []),
        ("Sample Corpus Authors", []),  # a collective byline is no person
        ("The Editors; Ana Lima", ["Ana Lima"]),
        ("Wikipedia contributors", []),
        ("", []),
    ],
)
def test_split_names(raw, names):
    assert split_names(raw) == names


def test_initials_resolve_to_the_one_known_full_name():
    resolver = Resolver([("person:sebastian heath", "Sebastian Heath"), ("person:eric c kansa", "Eric C. Kansa")])
    assert resolver.person("S. Heath")["id"] == "person:sebastian heath"
    assert resolver.person("E. Kansa")["id"] == "person:eric c kansa"
    assert resolver.person("T. Heath")["id"] == "person:t heath"  # no Heath with that initial
    two = Resolver([("person:ana lima", "Ana Lima"), ("person:alba lima", "Alba Lima")])
    assert two.person("A. Lima")["id"] == "person:a lima"  # two candidates: not guessed


def test_a_batch_resolves_initials_against_full_names_in_it():
    rows = authored_rows([], [{"id": "a", "authors": ["A. Lima"]}, {"id": "b", "authors": ["Lima, Ana"]}])
    assert [[p["id"] for p in r["persons"]] for r in rows] == [["person:ana lima"], ["person:ana lima"]]


def test_rdfa_creators_when_no_meta_tags_and_not_from_works_cited():
    page = """<html><head><title>T</title></head><body><h1>T</h1>
    <h2><span rel="dcterms:creator"><a property="foaf:name" href="x">Tom Elliott</a></span> and
    <span rel="dcterms:creator"><span property="foaf:name">John Muccigrosso</span></span></h2>
    <p>Text of the article, long enough to be a section of its own.</p>
    <p class="work-cited" rel="dcterms:references"><span property="dcterms:creator">Heath, S.</span> 2012.</p>
    <h2><span rel="dcterms:creator">Claire Hall, Oxford and Liam Shaw, Oxford</span></h2>
    </body></html>"""
    assert parse_html(page).metadata["authors"] == ["Tom Elliott", "John Muccigrosso"]


@pytest.mark.parametrize(
    ("question", "kind", "text"),
    [
        ("Which articles did Sebastian Heath write?", "by_author", "Sebastian Heath"),
        ("How many papers has S. Heath written in 2015?", "by_author", "S. Heath"),
        ("What did Sebastian Heath write?", "by_author", "Sebastian Heath"),
        ("Which papers were written by Heath, Sebastian?", "by_author", "Heath, Sebastian"),
        ("What are Ana Lima's papers?", "by_author", "Ana Lima"),
        ("Which ISAW papers did Paul Dilley co-author?", "by_author", "Paul Dilley"),
        ("Who wrote “Linked Coins”?", "of_document", "Linked Coins"),
        ("Who are the authors of Linked Coins?", "of_document", "Linked Coins"),
        ("Who was Linked Coins written by?", "of_document", "Linked Coins"),
    ],
)
def test_who_wrote_what_questions(question, kind, text):
    found = _authored_question(question)
    assert found is not None and (found.kind, found.text) == (kind, text)


@pytest.mark.parametrize(
    "question", ["Which articles mention papers by Heath?", "Who killed Eddard Stark?", "Which tales mention a fox?"]
)
def test_not_who_wrote_what(question):
    assert _authored_question(question) is None
