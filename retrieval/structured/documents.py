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
from .words import _CJK, _DOC_NOUNS, _ZH_DOC_NOUNS, _plural_of

MAX_DOCUMENT_HITS = 20000  # chunks the full-text shortlist of a documents question may give

# the noun must be what the question asks for: "which tales", "how many of the ISAW articles",
# "in which documents", "every story", "list the papers" ("which book features X?" is not one)
_DOC_NOUN = re.compile(
    r"(?:\b(?:which|what|how\s+many|every|all|each|any|list|name|show|find|count)\b(?:\s+of)?(?:\s+(?:the|our|these|those|my))?"
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
    if noun_m and verb:
        noun, label = noun_m.group(1), _DOC_NOUNS.get(lexicon.singular(noun_m.group(1).lower()))
        term = _english_term(question, verb, noun_m)
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
    if verb.start() > noun.end() and not tail.strip(" ?!."):
        # "In which articles is Alexandria mentioned?": the term sits before the verb
        head = question[noun.end() : verb.start()]
        head = re.sub(r"^\s*(?:(?:in|of|at|on)\s+)?(?:which|that|where|whom?)\b", "", head, flags=re.I)
        head = re.sub(r"^\s*(?:is|are|was|were|does|do|did|has|have)\b", "", head, flags=re.I)
        tail = head
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
    any case, any run of spaces between its words."""
    words = [re.escape(w) for w in term.split()]
    body = r"\s+".join(words)
    if re.search(f"[{_CJK}]", term):
        return f"(?su).*{body}.*"
    return rf"(?isu).*(?<![\w]){body}(?![\w]).*"


def _documents(graph, p: Plan, filters: Filters) -> tuple[list[Row], int]:
    corpus = p.scope.get("corpus") or filters.corpus
    labels = p.scope.get("labels")
    exclude = p.scope.get("exclude") or []
    words = p.term.split() if p.term else []
    # "" when no word of the term is searchable ("*", "the"): the text branch then finds nothing
    query = lucene_phrase(words) if len(words) > 1 else lucene_query(words)
    params = {
        "corpus": corpus,
        "labels": labels,
        "exclude": exclude,
        "from": filters.date_from,
        "to": filters.date_to,
        "about": getattr(filters, "about", None),
    }
    found = graph.read(
        "structured/mentioning",
        query=query,
        pattern=word_pattern(p.term or ""),
        ids=p.entity_ids,
        fetch=MAX_DOCUMENT_HITS,
        **params,
    )
    scope = {key: value for key, value in params.items() if key != "about"}
    total = graph.read("structured/scope_total", **scope)[0]["total"]
    rows = [_document_row(r, via="+".join(r["via"])) for r in found]
    plural = _plural_of(p.term or "")
    if plural:
        others = graph.read(
            "structured/mentioning",
            query=lucene_query([plural]),
            pattern=word_pattern(plural),
            ids=[],
            fetch=MAX_DOCUMENT_HITS,
            **params,
        )
        have = {r.document_id for r in rows}
        extra = [r for r in others if r["documentId"] not in have]
        if extra:
            p.scope["plural"] = {"term": plural, "documents": len(extra)}
    return rows, total


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
