"""Documents that mention something: "Which tales mention a fox?", "How many of the ISAW articles
mention Alexandria?". Every document of the scope that mentions the term (on word boundaries,
over the whole corpus, and through MENTIONS links to the entity it names), not the top k."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphrag_cypher import lexicon

from ...text import fold, word_regex
from ..base import Filters, lucene_phrase, lucene_query
from .entities import _entity_spans, choose_entity
from .graph_catalog import Catalog
from .plans import Plan, Row
from .words import _CJK, _DOC_NOUNS, _ZH_DOC_NOUNS, mention_forms

MAX_DOCUMENT_HITS = 20000  # chunks the full-text shortlist of a documents question may give

# the noun must be what the question asks for: "which tales", "how many of the ISAW articles",
# "in which documents", "every story", "list the papers", "the number of tales" ("which book
# features X?" is not one)
_DOC_NOUN = re.compile(
    r"(?:\b(?:which|what|how\s+many|every|all|each|any|list|name|show|find|count|number)\b(?:\s+of)?(?:\s+(?:the|our|these|those|my))?"
    r"(?:\s+(?!(?:mention|mentions|mentioned|that|which|who)\b)[\w-]+){0,2}?\s+)"
    r"(documents?|docs|pages?|passages?|tales?|stories|story|fables?|articles?|papers?)\b",
    re.I,
)

_ZH_DOC_NOUN = re.compile("|".join(sorted(_ZH_DOC_NOUNS, key=len, reverse=True)))

_MENTION = re.compile(
    r"\b(?:mention(?:s|ed|ing)?|refer(?:s|red|ring)?\s+to|talk(?:s|ed|ing)?\s+about|speak(?:s|ing)?\s+(?:of|about)"
    r"|discuss(?:es|ed|ing)?|name[sd]?|naming|cite[sd]?|citing|feature[sd]?|featuring|contain(?:s|ed|ing)?"
    r"|include[sd]?|including|(?:is|are|was|were)\s+about|deal(?:s|t)?\s+with|appear(?:s|ed|ing)?(?:\s+in)?"
    r"|occur(?:s|red|ring)?(?:\s+in)?|show(?:s|ed)?\s+up(?:\s+in)?)\b",
    re.I,
)

_ZH_MENTION = re.compile(r"提到|提及|提起|涉及|谈到|談到|说到|說到|讲到|講到|包含|出现|出現|有关|有關|关于|關於")

# "Which tales have a dragon in them?": the term between "have" and "in them"
_HAVE_IN = re.compile(
    r"\b(?:have|has|had)\s+(?P<term>(?:(?!\bin\s+(?:them|it)\b)[^?!;.])+?)\s+in\s+(?:them|it)\b", re.I
)

_FILLER_TAIL = re.compile(
    r"(?:\s+(?:at\s+all|in\s+them|anywhere|in\s+(?:the|this|our)\s+(?:corpus|graph|collection)|in\s+total|altogether))+$",
    re.I,
)

# documents that are never what "which documents mention X" counts (generated from the graph),
# and, for articles and papers, documents that are plainly something else
_NOT_DOCUMENTS = ["EntityDocument"]

_NOT_ARTICLES = ["EntityDocument", "Story", "WikiPage", "Passage", "FeedEntry"]


@dataclass
class _DocsQuestion:
    noun: str
    label: str | None
    corpus: str | None
    term: str
    exclude: list[str] = field(default_factory=lambda: list(_NOT_DOCUMENTS))


def _documents_question(question: str, cat: Catalog) -> _DocsQuestion | None:
    """ "Which tales mention a fox?" → (tales, Story, fox); None when it is not that kind."""
    noun_m = _DOC_NOUN.search(question)
    zh_noun = _ZH_DOC_NOUN.search(question)
    verb = (_MENTION.search(question, noun_m.end()) or _MENTION.search(question)) if noun_m else None
    zh_verb = _ZH_MENTION.search(question)
    have = _HAVE_IN.search(question, noun_m.end()) if noun_m and not verb else None
    if noun_m and (verb or have):
        noun, label = noun_m.group(1), _DOC_NOUNS.get(lexicon.singular(noun_m.group(1).lower()))
        term = _english_term(question, verb, noun_m) if verb else _clean_term(have.group("term") if have else "")
    elif zh_noun and zh_verb:
        noun, label = zh_noun.group(0), _ZH_DOC_NOUNS[zh_noun.group(0)]
        term = _chinese_term(question, zh_verb, zh_noun)
    else:
        return None
    if not term:
        return None
    corpus = None
    for name in cat.corpora:
        if re.search(word_regex(name), question, re.I):
            corpus = name
            term = re.sub(word_regex(name), "", term, flags=re.I).strip() or term
    exclude = list(_NOT_ARTICLES) if label == "Article" else list(_NOT_DOCUMENTS)
    if label == "Article" or (label is not None and label not in cat.document_labels):
        # "articles" are whatever is not plainly something else: files of papers are articles too
        label = None
    return _DocsQuestion(lexicon.plural(noun), label, corpus, term, exclude)


def _english_term(question: str, verb: re.Match, noun: re.Match) -> str | None:
    tail = question[verb.end() :]
    if verb.start() > noun.end() and re.fullmatch(
        r"(?:\s*\b(?:in|within|inside)\b)?(?:\s*\b(?:them|it)\b)?", tail.strip(" ?!.")
    ):
        # "In which articles is Alexandria mentioned?", "How many tales is the devil mentioned in?":
        # the term sits before the verb
        head = question[noun.end() : verb.start()]
        head = re.sub(r"^\s*(?:(?:in|of|at|on)\s+)?(?:which|that|where|whom?)\b", "", head, flags=re.I)
        head = re.sub(r"^\s*(?:is|are|was|were|does|do|did|has|have)\b", "", head, flags=re.I)
        tail = head
    return _clean_term(tail)


def _clean_term(tail: str) -> str | None:
    """The term of a documents question from the words around it: up to the end of the
    sentence, without "the word", fillers ("at all", "in total"), articles and quotes."""
    tail = re.split(r"[?!;]|\.(?:\s|$)", tail)[0]
    tail = re.sub(r"^\s*(?:the\s+word|the\s+name|the\s+term)\s+", "", tail, flags=re.I)
    tail = _FILLER_TAIL.sub("", tail.strip())
    tail = re.sub(r"^(?:(?:a|an|the|any|some)\s+)+", "", tail.strip(), flags=re.I)
    tail = tail.strip(" \"'“”‘’`,:")
    if not tail or len(tail.split()) > 6:
        return None
    return tail


def _chinese_term(question: str, verb: re.Match, noun: re.Match) -> str | None:
    """ "哪些文章提到了深圳" → 深圳 (after the verb); "提到深圳的文章" → 深圳; "深圳在哪些新闻里被提到过" →
    深圳 (before the question word)."""
    after = re.sub(r"^[了过過]+", "", question[verb.end() :])
    term = re.split(r"[的？?。！!，,]|有哪|有多少|是哪", after)[0].strip(" “”\"'「」")
    if not term and verb.start() > 0:
        before = question[: verb.start()]
        before = re.split(r"(?:在|被|于|於)?(?:哪些|哪几|哪幾|多少|几|幾|哪)", before)[0]
        before = re.sub(r"(?:被|在|于|於)$", "", before)
        term = re.split(r"[，,。？?]", before)[-1].strip(" “”\"'「」")
        term = re.sub("^有", "", term)
    return term or None


def _documents_plan(graph, analysis, cat: Catalog, docs: _DocsQuestion, counting: bool) -> Plan:
    found = [
        e for e in analysis.entities if fold(docs.term) in fold(e["matched"]) or fold(e["matched"]) in fold(docs.term)
    ]
    spans = _entity_spans(found, docs.term)
    term = docs.term
    entity, others, why, ids = None, [], "", []
    if spans:
        name, candidates = max(spans, key=lambda s: len(s[0]))
        if fold(docs.term) == name or len(name) >= len(fold(docs.term)) - 4:
            entity, others, why = choose_entity(
                graph, candidates, cat, None, Filters(corpus=docs.corpus or analysis.filters.corpus)
            )
            ids = [r["id"] for r in graph.read("structured/family", ids=[entity["id"]])]
    scope = {
        "noun": docs.noun,
        "labels": [docs.label] if docs.label else None,
        "exclude": docs.exclude,
        "corpus": docs.corpus,
    }
    family = "count_documents" if counting else "documents"
    reason = f"{family}: {docs.noun} that mention {term!r}"
    forms = mention_forms(term)
    if len(forms) > 1:
        reason += f" in any of its forms ({', '.join(forms)})"
    if docs.label:
        reason += f" (documents labelled {docs.label})"
    if docs.corpus:
        reason += f" (corpus {docs.corpus!r}, named in the question)"
    if entity is not None:
        reason += f"; also chunks linked to {entity['id']}"
    if why:
        reason += f"; {why}"
    return Plan(family, reason, entity, others, [], term, None, scope, ids)


def word_pattern(term: str) -> str:
    """A Java regular expression: the term on word boundaries (a plain substring for Chinese),
    any case, any run of spaces between its words, either apostrophe."""
    return forms_pattern([term])


def forms_pattern(forms: list[str]) -> str:
    """A Java regular expression: any of the forms on word boundaries (a plain substring for
    Chinese), any case, any run of spaces between words, either apostrophe."""
    body = "|".join(sorted((_form_body(f) for f in forms), key=len, reverse=True))
    if any(re.search(f"[{_CJK}]", f) for f in forms):
        return f"(?su).*(?:{body}).*"
    return rf"(?isu).*(?<![\w])(?:{body})(?![\w]).*"


def _form_body(form: str) -> str:
    return r"\s+".join("['’]".join(map(re.escape, re.split("['’]", w))) for w in form.split())


def _fulltext(forms: list[str]) -> str:
    """The forms as one full-text query ("" when no word of any is searchable: the text branch then
    finds nothing). The index's analyzer folds ’ into ' and keeps "Egypt's" one token, so a name's
    possessive is searched too (a noun's possessives are forms of their own already)."""
    parts = []
    for form in forms:
        words = form.split()
        if len(forms) == 1 and words and words[-1].isascii() and words[-1].isalpha():
            parts.append(
                lucene_phrase([*words[:-1], f"{words[-1]}'s"]) if len(words) > 1 else lucene_query([f"{words[-1]}'s"])
            )
        parts.append(lucene_phrase(words) if len(words) > 1 else lucene_query(words))
    return " OR ".join(dict.fromkeys(p for p in parts if p))


def _documents(graph, p: Plan, filters: Filters) -> tuple[list[Row], int]:
    """Every document of the scope that writes any form of the term (or links its entity), and the
    scope's total; when the forms found differ, how many write the term as asked (`scope["forms"]`)."""
    corpus = p.scope.get("corpus") or filters.corpus
    labels = p.scope.get("labels")
    exclude = p.scope.get("exclude") or []
    forms = mention_forms(p.term or "")
    params = {
        "corpus": corpus,
        "labels": labels,
        "exclude": exclude,
        "from": filters.date_from,
        "to": filters.date_to,
        "about": getattr(filters, "about", None),
        "fetch": MAX_DOCUMENT_HITS,
    }
    found = graph.read(
        "structured/mentioning", query=_fulltext(forms), pattern=forms_pattern(forms), ids=p.entity_ids, **params
    )
    scope = {key: value for key, value in params.items() if key not in ("about", "fetch")}
    total = graph.read("structured/scope_total", **scope)[0]["total"]
    rows = [_document_row(r, via="+".join(r["via"])) for r in found]
    if len(forms) > 1 and rows:
        _as_written(graph, p, forms, rows, params)
    return rows, total


def _as_written(graph, p: Plan, forms: list[str], rows: list[Row], params: dict) -> None:
    """How many of the documents write the term as asked (its possessive too: "giant's" is
    "giant"), and the other forms the rest write, most documents first: the answer's breakdown
    ("3 “giant”, 2 only “giants”"), kept in `p.scope["forms"]` when some document has only another."""
    term = forms[0]
    own = [f for f in forms if f in (term, f"{term}'s", f"{term}'")]
    written = graph.read("structured/mentioning", query=_fulltext(own), pattern=forms_pattern(own), ids=[], **params)
    have = {r["documentId"] for r in written}
    others = [r for r in rows if r.document_id not in have and "text" in r.via.split("+")]
    bodies = sorted((_form_body(f) for f in forms if f not in own), key=len, reverse=True)
    if not others or not bodies:
        return
    other = re.compile(rf"(?<!\w)(?:{'|'.join(bodies)})(?!\w)", re.I)
    seen: dict[str, int] = {}
    for row in others:
        for shown in {re.sub(r"['’]s?$", "", m.group(0).lower().replace("’", "'")) for m in other.finditer(row.text)}:
            seen[shown] = seen.get(shown, 0) + 1
    p.scope["forms"] = {
        "term": term,
        "forms": forms,
        "as_written": sum(1 for r in rows if r.document_id in have),
        "others": sorted(seen, key=lambda f: (-seen[f], f))[:3],
        "other_documents": len(others),
    }


def _document_row(r: dict, **extra) -> Row:
    """A document answering a documents question, cited by its title and best chunk."""
    return Row(
        r["title"] or r["documentId"],
        r["documentId"],
        [],
        document_id=r["documentId"],
        chunk_id=r["chunkId"],
        title=r["title"],
        uri=r["uri"],
        text=r["text"] or "",
        chunks=r["chunks"],
        **extra,
    )
