"""The XHTML loader keeps a document's italic spans (what the place linker reads as titles)."""

from graphrag_cypher.loaders.html_content import parse_html


def test_italic_spans_are_kept_once_in_page_order():
    page = parse_html(b"""<html><body><main><h1>T</h1>
        <p>The journal <i>Libya Antiqua</i> and <em>Libya   Antiqua</em> again; the game <cite>Thebes</cite>;
        a term <i>polis</i>; and <span>Rome</span>.</p></main></body></html>""")
    assert page.metadata["emphasis"] == ["Libya Antiqua", "Thebes"], "capitalised spans, whitespace collapsed"
    assert "Libya Antiqua" in page.sections[0].text


def test_a_page_without_italics_has_no_emphasis():
    assert "emphasis" not in parse_html(b"<html><body><p>Plain text about Rome.</p></body></html>").metadata
