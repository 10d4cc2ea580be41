"""Hostile input on the faces of a real `graphrag serve` (embedding through the fake embedder of
tests/reliability/slow_embedder.py, no LLM): Lucene query syntax in questions never reaches the
full-text index raw (no 5xx on /chat or /v1), document titles with markup stay text in /v1's
Markdown, in the Mermaid diagram and on the page, and upload ids hold their corpus (the same
file name in two corpora is two documents; a name already in a corpus is replaced only when
asked)."""

from __future__ import annotations

import re

import pytest

from ...reliability.slow_embedder import SlowEmbedder, apply_schema, start, wait
from .conftest import sse_events, stop_server
from .test_page import drawn, page, until  # noqa: F401  (the browser fixture, on this module's server)

pytestmark = pytest.mark.e2e

IMG_TITLE = "<img src=x onerror=alert(1)>"
# closes a quoted Mermaid label, opens a node, starts an edge and a script, and breaks the line
MERMAID_TITLE = 'Break" ] --> x["pwned <script>alert(1)</script>\nnext | #quot; &amp;'
KETTLE = "Who kept the copper kettle by the gate of Vesk?"
HERONS = "Who sang to the herons of Dunmarrow?"

# Lucene's query syntax, one feature a question; a question of nothing but syntax or stop words
# leaves no word to search for
HOSTILE = [
    "Which tales mention *?",
    "Which tales mention ?",
    "Which tales mention the?",
    "Which documents mention *?",
    "Which tales mention \\?",
    'Which tales mention "?',
    "How many tales mention *?",
    "*",
    "?",
    "~",
    "\\",
    '"',
    '"unbalanced quote',
    "AND OR NOT",
    "kettle AND OR NOT",
    "NOT kettle",
    "title:kettle",
    "field:value",
    "/regex/",
    "/[a-z]+.*/",
    "[a TO z]",
    "{a TO z}",
    "(((kettle",
    "kettle)]}",
    "kettle~2",
    "ket*le",
    "kettle^10",
    "+kettle -gate",
    "&& || !",
    "_",
    "the of and",
    "Which tales mention 中文\\?",
    "What do the documents say about *?",
    "What do the documents say about \\?",
]


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    """The server, with two uploaded documents whose titles are hostile."""
    embedder = SlowEmbedder(seconds_per_text=0)
    apply_schema(neo4j_server, embedder)
    tmp = tmp_path_factory.mktemp("hostile")
    served = start(neo4j_server, tmp, embedder)
    served.tmp = tmp
    kettle = f'---\ntitle: "{IMG_TITLE}"\n---\n\nThe lamplighter of Vesk kept a copper kettle by the gate.\n'
    yaml_title = MERMAID_TITLE.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    herons = f'---\ntitle: "{yaml_title}"\n---\n\nThe ferryman of Dunmarrow sang to the herons at dusk.\n'
    with served.client() as http:
        job = upload(http, [("kettle.md", kettle.encode()), ("herons.md", herons.encode())])
        done = wait(http, job["id"])
    assert done["state"] == "done" and done["summary"]["documents"]["created"] == 2, done
    yield served
    stop_server(served)
    embedder.close()


def upload(http, files: list[tuple[str, bytes]], **form) -> dict:
    response = http.post("/documents", files=[("files", (n, d, "text/plain")) for n, d in files], data=form)
    assert response.status_code == 202, response.text
    return response.json()


def chat(served, question: str, **body) -> dict:
    with served.client() as http:
        response = http.post("/chat", json={"question": question, **body})
    assert response.status_code == 200, (question, response.status_code, response.text[:500])
    return response.json()


def v1(served, question: str, stream: bool = False):
    with served.client() as http:
        body = {"model": "graphrag", "messages": [{"role": "user", "content": question}], "stream": stream}
        if not stream:
            return http.post("/v1/chat/completions", json=body)
        with http.stream("POST", "/v1/chat/completions", json=body) as response:
            return response.status_code, sse_events(response)


def streamed_content(events) -> str:
    return "".join(
        (data["choices"][0]["delta"].get("content") or "")
        for _, data in events
        if isinstance(data, dict) and data.get("choices")
    )


# --- query syntax -------------------------------------------------------------------------


@pytest.mark.parametrize("question", HOSTILE)
def test_query_syntax_in_a_question_is_answered_on_every_face(served, question):
    answered = chat(served, question)
    assert isinstance(answered["answer"], str)
    with (
        served.client() as http,
        http.stream("POST", "/chat", json={"question": question}, headers={"Accept": "text/event-stream"}) as response,
    ):
        assert response.status_code == 200
        events = sse_events(response)
    assert [e for e, _ in events if e == "error"] == [], events
    whole = v1(served, question)
    assert whole.status_code == 200, (question, whole.text[:500])
    status, chunks = v1(served, question, stream=True)
    assert status == 200 and chunks[-1][1] == "[DONE]"
    assert not [data for _, data in chunks if isinstance(data, dict) and "error" in data], chunks


def test_the_null_query_question_takes_the_structured_route_and_finds_nothing(served):
    """ "Which tales mention *?" was a 500 (a null full-text query): it is a documents question
    whose term has no word to search for."""
    answered = chat(served, "Which documents mention *?")
    assert answered["route"] == "structured" and answered["structured"]["family"] == "documents", answered
    assert answered["rows"] == []
    # the global route's topic search, with a term of no searchable word, falls back as it should
    topic = chat(served, "What do the documents say about *?", mode="global")
    assert topic["answer"] is not None


@pytest.mark.parametrize("mode", ["fulltext", "hybrid", "graph", "global"])
def test_every_mode_takes_query_syntax(served, mode):
    for question in ("*", "AND OR NOT", "[a TO z] /x/ field:value ~ \\", "kettle*"):
        assert isinstance(chat(served, question, mode=mode)["answer"], str)


def test_a_question_past_the_bound_is_refused_in_one_line(served):
    for question in ("x" * 10_000, "kettle " * 1500, "*" * 10_000):
        with served.client() as http:
            response = http.post("/chat", json={"question": question})
        assert response.status_code == 422, response.text[:300]
        refused = v1(served, question)
        assert refused.status_code == 422, refused.text[:300]
        assert len(refused.json()["error"]["message"].splitlines()) == 1, refused.text[:300]


# --- titles -------------------------------------------------------------------------------


def test_titles_with_markup_stay_text_in_the_v1_markdown(served):
    from markdown_it import MarkdownIt

    render = MarkdownIt("commonmark")  # raw HTML in Markdown passes through, as in many chat UIs
    for question, title in ((KETTLE, IMG_TITLE), (HERONS, MERMAID_TITLE)):
        cited = {c["title"] for c in chat(served, question)["citations"]}
        assert title in cited, (question, cited)
        response = v1(served, question)
        assert response.status_code == 200
        content = response.json()["choices"][0]["message"]["content"]
        assert title in {c["title"] for c in response.json()["citations"]}, "the JSON fields keep the title as it is"
        _, chunks = v1(served, question, stream=True)
        for text in (content, streamed_content(chunks)):
            assert "<img" not in text and "<script" not in text, text
            html = render.render(text)
            assert "<img" not in html and "<script" not in html, html
        shown = " ".join(title.split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        assert shown.replace("[", "(").replace("]", ")") in content, content


def test_titles_cannot_break_out_of_a_mermaid_label(served):
    for question in (KETTLE, HERONS):
        diagram = chat(served, question)["mermaid"]
        lines = diagram.splitlines()
        assert lines[0] == "graph LR"
        node = re.compile(r'^  n\w+(\["[^"\n<>|]*"\]|\("[^"\n<>|]*"\))$')
        edge = re.compile(r'^  n\w+ -->\|(mentions|"[^"\n<>|]*")\| n\w+$')
        for line in lines[1:]:
            assert node.match(line) or edge.match(line), line
    herons = chat(served, HERONS)["mermaid"]
    assert "Break#34; ) --#62; x(#34;pwned #60;script#62;alert(1)" in herons, herons
    assert "#60;img src=x onerror=alert(1)#62;" in chat(served, KETTLE)["mermaid"]


def test_the_page_shows_hostile_titles_as_text_and_runs_no_script(served, page):  # noqa: F811
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for number, (question, title) in enumerate(((KETTLE, IMG_TITLE), (HERONS, MERMAID_TITLE)), start=1):
        page.fill("#question", question)
        page.click("#send")
        until(
            page,
            lambda n=number: (
                page.locator(".turn").count() == n
                and page.locator(".turn").last.locator("ul.sources button.citation").count()
            ),
        )
        turn = page.locator(".turn").last
        shown = turn.locator("ul.sources button.citation").all_inner_texts()
        assert " ".join(title.split()) in [" ".join(t.split()) for t in shown], shown
        turn.locator("ul.sources button.citation").first.click()
        page.wait_for_selector("#passage:not([hidden])")
        assert page.inner_text("#passage-title").strip() in {" ".join(t.split()) for t in shown}
    until(page, lambda: drawn(page)["ids"])
    assert page.locator("img").count() == 0 and page.locator("body script").count() == 0
    assert MERMAID_TITLE in drawn(page)["names"]  # a label on the graph's canvas: text, never markup
    page.wait_for_timeout(500)  # an onerror handler would have run by now
    assert dialogs == []


# --- upload ids ---------------------------------------------------------------------------


def document(served, doc_id: str) -> dict | None:
    with served.neo4j.driver() as driver:
        rows = driver.execute_query(
            "MATCH (d:Document {id: $id}) OPTIONAL MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d) "
            "WITH d, c ORDER BY c.index RETURN d.corpus AS corpus, collect(c.text) AS texts",
            id=doc_id,
        ).records
    return {"corpus": rows[0]["corpus"], "text": " ".join(rows[0]["texts"])} if rows else None


def uploaded(served, files, **form) -> dict:
    with served.client() as http:
        job = wait(http, upload(http, files, **form)["id"])
    assert job["state"] == "done", job
    return job["summary"]


def test_the_same_file_name_in_two_corpora_is_two_documents(served):
    a = uploaded(served, [("notes.txt", b"The granary of Ostia held the winter wheat.\n")], corpus="A")
    b = uploaded(served, [("notes.txt", b"The lighthouse of Portus guided the grain ships.\n")], corpus="B")
    assert a["documents"]["created"] == 1 and b["documents"]["created"] == 1, (a, b)
    assert document(served, "file:upload:A/notes.txt") == {
        "corpus": "A",
        "text": "The granary of Ostia held the winter wheat.",
    }
    assert document(served, "file:upload:B/notes.txt") == {
        "corpus": "B",
        "text": "The lighthouse of Portus guided the grain ships.",
    }
    plain = uploaded(served, [("plain.txt", b"A note in the default corpus.\n")])
    assert plain["documents"]["created"] == 1 and document(served, "file:upload:plain.txt")["corpus"] is None
    with served.client() as http:
        listed = {d["id"] for d in http.get("/documents", params={"corpus": "A"}).json()["documents"]}
    assert "file:upload:A/notes.txt" in listed and "file:upload:B/notes.txt" not in listed


def test_a_name_the_corpus_holds_is_replaced_only_when_asked(served):
    first = b"The miller of Arles ground barley for the legion.\n"
    uploaded(served, [("mill.txt", first)], corpus="C")
    changed = b"The miller of Arles ground spelt for the legion.\n"
    refused = uploaded(served, [("mill.txt", changed), ("extra.txt", b"Another file loads beside it.\n")], corpus="C")
    assert refused["documents"] == {"created": 1, "updated": 0, "unchanged": 0, "failed": 1, "pruned": 0}, refused
    assert refused["errors"] == [
        {"item": "mill.txt", "error": "exists in corpus 'C': send replace=true to replace it"}
    ], refused
    assert refused["replaced"] == []
    assert "barley" in document(served, "file:upload:C/mill.txt")["text"], "the stored document is kept"
    assert document(served, "file:upload:C/extra.txt") is not None, "the rest of the job loads"

    same = uploaded(served, [("mill.txt", first)], corpus="C")
    assert same["documents"]["unchanged"] == 1 and same["errors"] == [] and same["replaced"] == [], same

    replaced = uploaded(served, [("mill.txt", changed)], corpus="C", replace="true")
    assert replaced["documents"]["updated"] == 1 and replaced["replaced"] == ["mill.txt"], replaced
    assert "spelt" in document(served, "file:upload:C/mill.txt")["text"]

    # the default corpus too, and a file that fails replaces nothing
    uploaded(served, [("default.txt", b"The first text of the default corpus.\n")])
    again = uploaded(served, [("default.txt", b"Its second text.\n")])
    assert again["errors"] == [
        {"item": "default.txt", "error": "exists in the default corpus: send replace=true to replace it"}
    ]
    empty = uploaded(served, [("default.txt", b"   \n")], replace="true")
    assert empty["documents"]["failed"] == 1 and empty["replaced"] == [], empty
    assert "first text" in document(served, "file:upload:default.txt")["text"]


def test_an_upload_from_before_ids_held_the_corpus_is_found_by_its_old_id(served):
    uploaded(served, [("old.txt", b"The old upload of the quay at Misenum.\n")])
    with served.neo4j.driver() as driver:  # as an upload into corpus "legacy" was stored before
        driver.execute_query(
            "MATCH (d:Document {id: 'file:upload:old.txt'}) SET d.corpus = 'legacy' "
            "WITH d MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d) SET c.corpus = 'legacy'"
        )
    kept = uploaded(served, [("old.txt", b"The new text of the quay at Misenum.\n")], corpus="legacy")
    assert kept["errors"] == [
        {"item": "old.txt", "error": "exists in corpus 'legacy': send replace=true to replace it"}
    ], kept
    moved = uploaded(served, [("old.txt", b"The new text of the quay at Misenum.\n")], corpus="legacy", replace="true")
    assert moved["replaced"] == ["old.txt"] and moved["documents"]["updated"] == 1, moved
    assert document(served, "file:upload:old.txt") == {
        "corpus": "legacy",
        "text": "The new text of the quay at Misenum.",
    }
    assert document(served, "file:upload:legacy/old.txt") is None, "no second document under the new id"
    # the default corpus cannot take that id: one line says what to do
    refused = uploaded(served, [("old.txt", b"A default-corpus note.\n")], replace="true")
    assert refused["documents"]["failed"] == 1 and len(refused["errors"]) == 1, refused
    assert "earlier upload into corpus 'legacy'" in refused["errors"][0]["error"]
    assert "DELETE /documents/file:upload:old.txt" in refused["errors"][0]["error"]
    assert document(served, "file:upload:old.txt")["corpus"] == "legacy"
