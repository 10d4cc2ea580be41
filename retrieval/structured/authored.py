"""Documents by author, authors of a document: "Which articles did Sebastian Heath write?", "Who
wrote Linked Coins?", read from ``(:Person)-[:AUTHORED]->(:Document)`` (the documents' metadata),
each document cited."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag_cypher import lexicon

from ..base import Filters
from .documents import _NOT_DOCUMENTS, _document_row
from .plans import MAX_CANDIDATES, Plan, Row

AUTHORED_FAMILIES = ("authored", "count_authored", "authors_of")

_WORKS = (
    r"(?:documents?|docs|articles?|papers?|works?|pieces?|publications?|essays?|chapters?|books?|texts?"
    r"|contributions?|studies|study|reports?|pages?)"
)

_WRITE = r"(?:write|wrote|written|writing|(?:co-?)?author(?:ed)?|publish(?:ed)?|pen(?:ned)?|contribute[d]?|produce[d]?)"

_ASK = r"^\s*(?:(?:in|of)\s+)?(?:which|what|list|name|show(?:\s+me)?|find|give\s+me|tell\s+me|how\s+many|count)\b"

_FILL = r"(?:\s+(?!(?:mention|mentions|mentioned|cite|cites|cited|refer|refers|about|on)\b)[\w-]+){0,3}?"

_NAME = r"(?P<name>(?:[^?!.;:]|(?<=\b[A-Z])\.)+?)"  # stops at punctuation, but not at an initial's dot

_END = r"\s*[?!.]*\s*$"

_BY_AUTHOR = [
    # "Which articles did Sebastian Heath write?", "How many papers has Heath written?"
    re.compile(
        _ASK
        + r"(?:\s+of)?(?:\s+(?:the|his|her|their))?"
        + _FILL
        + r"\s+"
        + _WORKS
        + r"\s+(?:did|does|do|has|have|had|will)\s+"
        + _NAME
        + r"\s+"
        + _WRITE
        + r"\b(?:\s+(?:in\s+total|altogether))?"
        + _END,
        re.I,
    ),
    # "Which papers were written by Sebastian Heath?", "List the articles by Heath, Sebastian"
    re.compile(
        _ASK
        + r"(?:\s+(?:are|were|of))?(?:\s+(?:the|all))?"
        + _FILL
        + r"\s+"
        + _WORKS
        + r"(?:\s+(?:that|which))?(?:\s+(?:is|are|was|were|has\s+been|have\s+been|did))?(?:\s+"
        + _WRITE
        + r")?\s+by\s+"
        + _NAME
        + _END,
        re.I,
    ),
    # "What did Sebastian Heath write?", "What has Heath published?"
    re.compile(r"^\s*what\s+(?:else\s+)?(?:did|does|has|have|had)\s+" + _NAME + r"\s+" + _WRITE + r"\b" + _END, re.I),
    # "What are Sebastian Heath's papers?", "Show me Heath's articles"
    re.compile(
        _ASK
        + r"(?:\s+(?:are|were|is))?(?:\s+all(?:\s+of)?)?\s+"
        + _NAME
        + r"['’]s?(?:\s+[\w-]+){0,2}?\s+"
        + _WORKS
        + _END,
        re.I,
    ),
]

_OF_DOCUMENT = [
    # "Who wrote Linked Coins?", "Who are the authors of 'Linked Coins'?", "Which author wrote the paper X?"
    re.compile(
        r"^\s*(?:who|which\s+(?:authors?|persons?|people|scholars?))\s+(?:(?:co-?)?wrote|(?:co-?)?authored|penned|(?:is|was|are|were)\s+(?:the\s+)?(?:co-?)?authors?\s+of|(?:has|have)\s+written)"
        r"\s+(?:the\s+" + _WORKS + r"\s+)?(?P<title>.+?)" + _END,
        re.I,
    ),
    # "Who was Linked Coins written by?"
    re.compile(
        r"^\s*who\s+(?:is|was|were)\s+(?:the\s+" + _WORKS + r"\s+)?(?P<title>.+?)\s+(?:written|authored)\s+by" + _END,
        re.I,
    ),
]

_QUOTES = " \"'“”‘’«»`"

_QUESTION_TAIL = re.compile(r"\s+(?:in|during|between|before|after|since|for|about|on)\s+[^?!.]*[?!.]?\s*$", re.I)

_NAME_TAIL = re.compile(r"\s+(?:in|during|between|before|after|since|for|at)\s+.*$", re.I)


@dataclass
class _AuthorQuestion:
    kind: str  # "by_author" or "of_document"
    text: str  # the author's name or the document's title, as the question writes it
    noun: str = "documents"
    ignored: str = ""  # words after the name the answer does not filter on ("in 2015")


def _authored_question(question: str) -> _AuthorQuestion | None:
    """ "Which articles did Sebastian Heath write?" → (by_author, Sebastian Heath, articles);
    "Who wrote Linked Coins?" → (of_document, Linked Coins); None when it is neither."""
    for pattern in _OF_DOCUMENT:
        m = pattern.search(question)
        if m:
            title = m.group("title").strip(_QUOTES)
            if title and title.lower() not in ("it", "this", "that", "them", "these", "those"):
                return _AuthorQuestion("of_document", title)
    tail_m = _QUESTION_TAIL.search(question)
    tries = [(question, "")] + ([(question[: tail_m.start()] + "?", tail_m.group(0).strip(" ?"))] if tail_m else [])
    for text, cut in tries:
        found = _by_author(text)
        if found is not None:
            found.ignored = found.ignored or cut
            return found
    return None


def _by_author(question: str) -> _AuthorQuestion | None:
    for pattern in _BY_AUTHOR:
        m = pattern.search(question)
        if m:
            name = m.group("name").strip(_QUOTES + ",")
            noun_m = re.search(r"\b" + _WORKS + r"\b", question, re.I)
            noun = lexicon.plural(noun_m.group(0).lower()) if noun_m else "documents"
            tail = _NAME_TAIL.search(name)
            ignored = ""
            if tail:
                ignored, name = tail.group(0).strip(), name[: tail.start()]
            name = re.sub(r"^(?:the\s+(?:author|scholar|writer)\s+)", "", name.strip(), flags=re.I)
            if name and len(name.split()) <= 6:
                return _AuthorQuestion("by_author", name, noun, ignored)
    return None


def _authored_plan(graph, q: _AuthorQuestion, counting: bool) -> Plan | None:
    """The plan for a question of who wrote what, or None when the graph has no author by that
    name (or no document by that title): the question goes on to the other families."""
    if q.kind == "of_document":
        title = " ".join(q.text.split()).lower()
        if not graph.read("structured/document_authors", title=title, limit=1):
            return None  # no authored document has that title: perhaps a relation ("who wrote the letter")
        reason = f"authors_of: the AUTHORED edges into the document titled {q.text!r}"
        return Plan("authors_of", reason, term=q.text, scope={"noun": "documents", "title": q.text})
    from graphrag_cypher.store.authors import split_names

    from ...text import norm_name

    names = split_names(q.text) or [q.text]
    key = norm_name(names[0])
    words = key.split()
    if not words:
        return None
    candidates = graph.read("structured/authors_named", normName=key, surname=words[-1])
    exact = [c for c in candidates if c["normName"] == key]
    why = ""
    if exact:
        chosen = exact
    elif len(words) == 1 and len(words[0]) > 1:
        chosen = candidates  # a surname alone: every author of that surname
        why = f"; {q.text!r} is the surname of {len(chosen)} author(s)" if chosen else ""
    else:
        from graphrag_cypher.store.authors import Resolver

        resolver = Resolver((c["id"], c["name"]) for c in candidates)
        pid = resolver.person(names[0])
        chosen = [c for c in candidates if pid and c["id"] == pid["id"]]
        why = f"; {q.text!r} read as {chosen[0]['name']!r}" if chosen else ""
    if not chosen:
        return None
    if len(chosen) > 3:
        return None  # a common surname: not one author
    family = "count_authored" if counting else "authored"
    who = " / ".join(c["name"] for c in chosen)
    reason = f"{family}: {q.noun} authored by {who} (AUTHORED edges, from the documents' metadata){why}"
    if q.ignored:
        reason += f"; {q.ignored!r} is not a filter of this route"
    entity = {"id": chosen[0]["id"], "name": who, "type": "Person"}
    return Plan(
        family,
        reason,
        entity,
        [{"id": c["id"], "name": c["name"]} for c in chosen[1:]],
        term=q.text,
        scope={"noun": q.noun},
        entity_ids=[c["id"] for c in chosen],
    )


def _authored(graph, p: Plan, filters: Filters) -> tuple[list[Row], int]:
    if p.family == "authors_of":
        title = " ".join((p.term or "").split()).lower()
        found = graph.read("structured/document_authors", title=title, limit=MAX_CANDIDATES)
        exact = [r for r in found if r["exact"]]
        found = exact or found[:3]
        rows = [
            Row(
                a["name"] or a["id"],
                a["id"],
                ["Person"],
                relation="AUTHORED",
                document_id=r["documentId"],
                chunk_id=r["chunkId"],
                title=r["title"],
                uri=r["uri"],
                text=r["text"] or "",
            )
            for r in found
            for a in r["authors"]
        ]
        return rows, len({r.document_id for r in rows})
    found = graph.read(
        "structured/authored_documents",
        ids=p.entity_ids,
        corpus=filters.corpus,
        exclude=_NOT_DOCUMENTS,
        **{"from": filters.date_from, "to": filters.date_to},
    )
    rows = [_document_row(r, relation="AUTHORED") for r in found]
    return rows, len(rows)


def _authored_text(p: Plan, rows: list[Row], cites: list[str | None]) -> str:
    """ "Sebastian Heath wrote 2 articles: A [D1]; B [D2]." / "“A” [D1] was written by X and Y."."""
    from ..answer import neutral

    def cited(text: str, cite: str | None) -> str:
        return f"{text} [{cite}]" if cite else text

    if p.family == "authors_of":
        by_doc: dict[str, list[int]] = {}
        for i, row in enumerate(rows):
            by_doc.setdefault(row.document_id or "", []).append(i)
        parts = []
        for indexes in by_doc.values():
            names = [neutral(rows[i].name) for i in indexes]
            who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            first = rows[indexes[0]]
            parts.append(
                f"{cited('“' + neutral(first.title or first.document_id or '') + '”', cites[indexes[0]])} was written by {who}"
            )
        return "; ".join(parts) + "."
    who = neutral(p.entity["name"]) if p.entity else "?"
    noun = neutral(p.scope.get("noun") or "documents")
    if len(rows) == 1:
        noun = lexicon.singular(noun)
    listed = "; ".join(cited(neutral(r.title or r.name), c) for r, c in zip(rows, cites, strict=True))
    return f"{who} wrote {len(rows)} {noun}: {listed}."
