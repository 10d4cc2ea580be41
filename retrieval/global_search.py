"""Global search: questions about a whole corpus, answered from every document or from the
graph's communities, with or without an LLM.

Two families, in English and Chinese, chosen only by explicit wording (or `ask --mode global`):

- **topic** — "What do the ISAW papers say about harbours?", "What is said about witches in
  the tales?", "How do the stories portray wolves?", "格林童话关于女巫说了什么？": every document
  of the scope whose stored text holds the term (or its singular/plural) on word boundaries,
  documents with two or more mentions first; one cited sentence from each, up to a budget
  (TOPIC_BUDGET documents, whatever `--k` is), then how many more mention it; grouped under
  their community's title where communities are built. Needs no community.
- **themes** — "What are the main themes of the Grimm tales?", "Give me an overview of the
  ISAW papers", "Summarize the tales", "主要主题是什么？": the communities of the scope at the
  level whose count of substantial in-scope communities is nearest THEME_TARGET (at least
  THEME_MIN where a level has that many), ranked by in-scope member chunks; a line per theme:
  its title, key phrases and a cited sentence of an in-scope member chunk nearest the
  community's centroid (a different document per line where possible). Needs communities;
  without any, the question goes to the local route and says why.

Without an LLM both are extractive and say so. With one, Microsoft GraphRAG's map-reduce: a
request per community (its report and in-scope sources → points with citations and a 0-100
score, MAP_PARALLEL in flight), then one streamed answer from the best points, its citations
checked by `answer.CitationFilter`. Everything reads in read transactions.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from ..text import fold, split_sentences
from .answer import LANGUAGES, CitationFilter, Source, build_context, neutral, sources_for
from .base import Evidence, Filters, lucene_phrase, lucene_query

TOPIC_BUDGET = 30  # documents quoted by a topic answer (then a count of the rest)
THEME_BUDGET = 10  # themes shown at most
THEME_TARGET = 8  # the level whose in-scope community count is nearest this is chosen
THEME_MIN = 5  # ... and has at least this many, where a level has
THEME_DOCUMENTS = 8  # a themes answer aims at this many distinct documents cited
GROUPS_TARGET = 6  # a topic answer's groups: the finest level with at most this many (fewer for few documents)
MAX_HITS = 20000  # chunks the full-text shortlist of a topic may give
CHUNKS_PER_DOCUMENT = 3  # chunks with the most mentions read per document
REPRESENTATIVES = 6  # in-scope documents read per theme (nearest the centroid first)
MAP_PARALLEL = 4  # map requests in flight
MAP_COMMUNITIES = 10  # communities mapped at most
MAP_SOURCES = 8  # sources given to one map request
REDUCE_POINTS = 24  # best points given to the reduce request
NO_COMMUNITIES = "no communities are built: run graphrag communities build"
EXTRACTIVE_NOTES = {
    "topic": "Answered from every document of the scope that mentions the topic (extractive; no LLM): each quoted "
    "sentence is stored text, cited to its document.",
    "themes": "Answered from the graph's communities (extractive; no LLM): each quoted sentence is stored text of a "
    "member chunk of its theme, cited to its document.",
}

# --- which questions are global -----------------------------------------------------------

_COLLECTION = (
    r"(?:fairy[\s-]*tales|folk[\s-]*tales|tales|stories|fables|legends|myths|articles|papers|documents|docs|texts"
    r"|chapters|pages|books|passages|sources|entries|posts|reports|essays|writings|volumes|publications|works"
    r"|materials|corpus|corpora|collection|archive|library|wiki|dataset|data\s+set|knowledge\s+graph|graph)"
)
_DET = r"(?:the|these|those|our|my|this|all(?:\s+(?:of\s+)?(?:the|these|those))?|each\s+of\s+the)"
_ADJ = (
    r"(?:main|major|key|central|principal|chief|common|recurring|recurrent|repeated|dominant|prevailing|prevalent"
    r"|overarching|primary|core|important|big|broad|general|leading|frequent|shared|typical|underlying|biggest"
    r"|salient|notable|significant|essential|basic|fundamental|most\s+common|most\s+important|most\s+frequent)"
)
_THEMES = r"(?:themes|motifs|topics|subjects|ideas|threads|messages|lessons|morals|tropes)"
_THEME_ANY = r"(?:themes?|motifs?|topics?|subjects?|ideas?|threads?|messages?|lessons?|morals?|tropes?|patterns?)"
_ABOUT = (
    r"(?:about|of|on|regarding|concerning|as\s+to|in\s+regard\s+to|with\s+regard\s+to|with\s+respect\s+to"
    r"|in\s+relation\s+to|when\s+it\s+comes\s+to)"
)
_SAY = (
    r"(?:(?:have|has)\s+to\s+say|say|tell(?:\s+(?:us|me|you))?|reveal|write|report|teach(?:\s+(?:us|me))?|show"
    r"|suggest|note|claim|record|convey|explain|imply|mention|relate|recount)"
)
_DESCRIBE = (
    r"(?:describe|portray|depict|present|treat|characteri[sz]e|represent|show|picture|paint|discuss|talk\s+about"
    r"|write\s+about|deal\s+with|handle|view|see|regard|cast|imagine|frame|explain|use|speak\s+of|speak\s+about)"
)
_DESCRIBED = (
    r"(?:described|portrayed|depicted|presented|treated|characteri[sz]ed|represented|shown|pictured|painted"
    r"|discussed|talked\s+about|written\s+about|dealt\s+with|handled|viewed|seen|regarded|mentioned|used|imagined"
    r"|spoken\s+of|spoken\s+about)"
)
_IN = r"(?:in|across|throughout|within|among|by|through)"
_TERM = r"(?P<term>[^?!;。？！]+?)"
_END = r"\s*[?!.。？！]*\s*$"
_TERM_CUT = re.compile(r"\s*(?:,|\band\s+(?:how|what|why|whether|where|when|who)\b|\bif\s+anything\b).*$", re.I)
_TERM_LEAD = re.compile(
    r"^(?:(?:the|a|an|any|some|all|such)\s+)*"
    r"(?:(?:role|nature|importance|significance|place|idea|concept|notion|theme|topic|subject|question|image)s?\s+of\s+"
    r"(?:(?:the|a|an)\s+)?)?",
    re.I,
)
_OBJECT_TAIL = re.compile(
    r"(?:\s*,?\s+(?:for\s+(?:me|us)|please|briefly|in\s+brief|in\s+short|in\s+a\s+few\s+(?:sentences|lines|words)"
    r"|quickly|as\s+a\s+whole|overall))+$",
    re.I,
)
_TERM_TAIL = re.compile(r"\s+(?:at\s+all|in\s+general|generally|overall|as\s+a\s+whole)$", re.I)

_ZH_SCOPE = (
    r"(?:故事|童话|童話|文章|论文|論文|文档|文檔|文献|文獻|资料|資料|章节|章節|新闻|新聞|语料|語料|文本|作品|传说|傳說)"
)
_ZH_SAY = r"(?:说了|說了|讲了|講了|写了|寫了|谈了|談了|谈到了|談到了|提到了|说|說|讲|講|写|寫|谈|談|有)"
_ZH_WHAT = r"(?:些)?(?:什么|什麼|哪些|甚麼|啥)"
_ZH_DESCRIBE = r"(?:描述|描写|描寫|描绘|描繪|刻画|刻畫|看待|讲述|講述|介绍|介紹|评价|評價|谈论|談論|呈现|呈現|表现|表現|塑造|写|寫)"
_ZH_TOPIC = [
    re.compile(
        rf"(?:关于|關於|对于|對於|有关|有關)(?P<term>[^，,？?。！!：:]+?)(?:的(?:内容|內容|事|描写|描寫|描述|说法|說法|记载|記載|看法|论述|論述))?"
        rf"(?:[，,]?[^，,？?。！!]{{0,6}}?{_ZH_SCOPE}(?:中|里|裡|内|內)?)?(?:都|又|还|還)?{_ZH_SAY}{_ZH_WHAT}"
    ),
    re.compile(
        rf"{_ZH_SCOPE}(?:中|里|裡|内|內)?(?:是)?(?:怎么|怎麼|怎样|怎樣|如何)(?:样)?{_ZH_DESCRIBE}(?P<term>[^，,？?。！!：:]+?)(?:的)?[？?。！!]*$"
    ),
    re.compile(
        rf"(?P<term>[^，,？?。！!：:在]+?)在[^，,？?。！!]*?{_ZH_SCOPE}(?:中|里|裡|内|內)(?:是)?(?:怎么|怎麼|怎样|怎樣|如何)(?:被)?{_ZH_DESCRIBE}"
    ),
    re.compile(
        rf"{_ZH_SCOPE}(?:中|里|裡|内|內)?(?:对|對|就)(?P<term>[^，,？?。！!：:]+?)(?:有|作了|做了|作出了)?(?:什么|什麼|哪些|怎样的|怎樣的)(?:描述|描写|描寫|看法|说法|說法|论述|論述|评价|評價|记载|記載)"
    ),
]
_ZH_THEMES = re.compile(
    r"主要主题|主要主題|主题是什么|主題是什麼|主题有哪些|主題有哪些|有哪些主题|有哪些主題|什么主题|什麼主題|哪些主题|哪些主題"
    r"|核心主题|核心主題|共同主题|共同主題|主要话题|主要話題|哪些话题|哪些話題|母题|母題|总结|總結|概述|概括|综述|綜述|概览|概覽"
    r"|主要内容|主要內容|大意|梗概"
)
_ZH_SCOPE_SAYS = re.compile(
    rf"{_ZH_SCOPE}(?:都|主要|大多|大都|大概)?(?:讲|講|说|說|写|寫|谈|談|讲述|講述)(?:了|的是)?{_ZH_WHAT}"
)


@dataclass
class GlobalQuestion:
    """A question about the whole corpus: its family, the term of a topic, and why."""

    family: str  # "themes" or "topic"
    term: str | None
    reason: str


def corpus_regex(name: str) -> str:
    """A corpus name as a question writes it: "isaw-papers" also as "ISAW papers"."""
    return r"[\s_-]+".join(re.escape(part) for part in re.split(r"[\s_-]+", name.strip()) if part)


def _scope(corpora: tuple[str, ...] = ()) -> str:
    names = "|".join(corpus_regex(c) for c in sorted(corpora, key=len, reverse=True) if c.strip())
    head = rf"(?:{_DET}\s+)?(?:[\w'’.-]+\s+){{0,4}}?"
    # "the chapters of A Song of Ice and Fire", "the papers in the ISAW series": a collection and what it is of
    tail = r"(?:\s+(?:of|from|in|on)\s+(?:[\w'’.-]+\s+){0,6}?[\w'’.-]+)?"
    if names:
        return rf"{head}(?:{_COLLECTION}{tail}|(?:{names})(?:['’]s)?(?:\s+[\w'’-]+){{0,2}}?)\b"
    return rf"{head}{_COLLECTION}{tail}\b"


@cache
def _patterns(corpora: tuple[str, ...]) -> dict[str, list[re.Pattern]]:
    scope = _scope(corpora)
    flags = re.I
    return {
        "scope": [re.compile(rf"\b{scope}", flags)],
        "topic": [
            re.compile(
                rf"\bwhat\s+(?:do|does|did|can|could|would|will|might)\s+{scope}\s+{_SAY}\s+{_ABOUT}\s+{_TERM}{_END}",
                flags,
            ),
            re.compile(
                rf"\bwhat\s+(?:information|details?|facts?|evidence|insights?|knowledge|data)\s+(?:do|does|did|can|could)\s+"
                rf"{scope}\s+(?:give|provide|offer|contain|have|hold|present|include|yield)\s+{_ABOUT}\s+{_TERM}{_END}",
                flags,
            ),
            re.compile(
                rf"\b(?:everything|all)\s+(?:that\s+)?{scope}\s+(?:(?:have|has)\s+to\s+say|say|said|tell|told|write|wrote"
                rf"|mention|mentioned|report|reported)\s+{_ABOUT}\s+{_TERM}{_END}",
                flags,
            ),
            re.compile(
                rf"\btell\s+(?:me|us)\s+(?:about|of)\s+{_TERM}\s+(?:in|across|throughout|within)\s+{scope}{_END}", flags
            ),
            re.compile(
                rf"\bwhat\s*(?:['’]s|\s+is|\s+was|\s+are|\s+were|\s+has\s+been|\s+have\s+been|\s+gets|\s+get|\s+can\s+be)\s+(?:said|written|told|reported"
                rf"|recorded|claimed|stated|noted|mentioned|learned|learnt)\s+{_ABOUT}\s+{_TERM}(?:\s+{_IN}\s+(?P<scope>{scope}))?{_END}",
                flags,
            ),
            re.compile(
                rf"\bwhat\s+(?:is|was|are|were)\s+known\s+{_ABOUT}\s+{_TERM}\s+{_IN}\s+(?P<scope>{scope}){_END}", flags
            ),
            re.compile(rf"\bhow\s+(?:do|does|did|can|could|would)\s+{scope}\s+{_DESCRIBE}\s+{_TERM}{_END}", flags),
            re.compile(
                rf"\b(?:tell\s+(?:me|us)|summari[sz]e|explain|describe|show\s+(?:me|us)|list)\s+(?:what|how)\s+{scope}\s+"
                rf"(?:(?:have|has|had)\s+to\s+say|say|said|tell|told|write|wrote|report|reported|reveal|revealed"
                rf"|{_DESCRIBE}|describe[sd]?|portray(?:s|ed)?|depict(?:s|ed)?)\s+(?:{_ABOUT}\s+)?{_TERM}{_END}",
                flags,
            ),
            re.compile(rf"\bhow\s+(?:is|are|was|were)\s+{_TERM}\s+{_DESCRIBED}\s+{_IN}\s+{scope}{_END}", flags),
            re.compile(
                rf"\b(?:overview|summary|survey|picture|account|synopsis)\s+of\s+{_TERM}\s+{_IN}\s+{scope}{_END}", flags
            ),
            re.compile(rf"\bsummari[sz]e\s+{_TERM}\s+{_IN}\s+{scope}{_END}", flags),
            re.compile(
                rf"\b(?:in|across|throughout|within)\s+{scope}\s*,?\s*how\s+(?:is|are|was|were)\s+{_TERM}\s+{_DESCRIBED}{_END}",
                flags,
            ),
            re.compile(
                rf"\bwhat\s+(?:roles?|parts?)\s+(?:do|does|did)\s+{_TERM}\s+play\s+{_IN}\s+{scope}{_END}", flags
            ),
            re.compile(
                rf"\bwhat\s+(?:do|can|did|could)\s+(?:we|you|i|readers|one)\s+(?:learn|find\s+out|know|read|hear|gather)\s+"
                rf"{_ABOUT}\s+{_TERM}\s+(?:from|in)\s+{scope}{_END}",
                flags,
            ),
            re.compile(
                rf"\bwhat\s+(?:picture|image|view|portrait|impression|sense)\s+of\s+{_TERM}\s+(?:emerges|do\s+we\s+get|is\s+given"
                rf"|is\s+painted|comes\s+through|do\s+(?:they|you)\s+get)\s+(?:from|in)\s+{scope}{_END}",
                flags,
            ),
            re.compile(
                rf"\b{scope}(?:['’]s?)?\s+(?:views?|perspectives?|positions?|treatment|take|portrayals?|depictions?|accounts?)"
                rf"\s+(?:on|of)\s+{_TERM}{_END}",
                flags,
            ),
        ],
        "themes": [
            re.compile(rf"\b{_ADJ}(?:\s*(?:,|and|or)\s*{_ADJ})*\s+{_THEMES}\b", flags),
            re.compile(
                rf"\b{_THEME_ANY}\s+(?:recur|recurs|appear|appears|emerge|emerges|come\s+up|dominate|run|stand\s+out"
                rf"|keep\s+coming\s+up|show\s+up)\b(?:\s+\w+){{0,2}}\s+(?:in|across|throughout|within|among|through)\s+{scope}",
                flags,
            ),
            re.compile(
                rf"\b{_THEME_ANY}\s+(?:of|in|across|throughout|within|among|running\s+through|that\s+run\s+through"
                rf"|found\s+in|shared\s+by|behind)\s+{scope}",
                flags,
            ),
            re.compile(
                rf"\bwhat\s*(?:['’]s|\s+is|\s+are|\s+were|\s+was)\s+{scope}\s+(?:(?:all|mostly|mainly|generally|really"
                rf"|chiefly|largely|usually|typically)\s+)?about{_END}",
                flags,
            ),
            re.compile(
                rf"\bwhat\s+(?:do|does|did)\s+{scope}\s+(?:(?:mostly|mainly|generally|usually|typically|chiefly|largely"
                rf"|all)\s+)?(?:cover|discuss|deal\s+with|talk\s+about|treat|address|concern|focus\s+on|explore|tell"
                rf"|describe|say|contain){_END}",
                flags,
            ),
            re.compile(rf"\bwhat\s+(?:is|are)\s+(?:in|inside)\s+{scope}{_END}", flags),
            re.compile(
                rf"\bwhat\s+(?:kinds?|sorts?|types?)\s+of\s+(?:stories|tales|things|documents|articles|papers|events|subjects"
                rf"|material|content)\s+(?:are|appear|is|do|does)\b.*?\b{scope}",
                flags,
            ),
            re.compile(rf"\bbig\s+picture\b.*?\b{scope}|\b{scope}.*?\bbig\s+picture\b", flags),
        ],
        "what_themes": [
            re.compile(rf"\b(?:what|which)\s+(?:(?:kinds?|sorts?|types?)\s+of\s+)?(?:{_ADJ}\s+)?{_THEMES}\b", flags)
        ],
        "overview": [
            re.compile(r"\b(?:overview|summary|synopsis|gist|survey)\b|\bsummari[sz](?:e|ing)\b|\bsum\s+up\b", flags)
        ],
        "overview_of": [
            re.compile(
                r"\b(?:overview|summary|synopsis|gist|survey)\s+of\s+(?P<object>[^?!;]+?)"
                + _END
                + r"|\bsummari[sz]e\s+(?P<object2>[^?!;]+?)"
                + _END,
                flags,
            )
        ],
    }


def classify(question: str, corpora: tuple[str, ...] | list[str] = ()) -> GlobalQuestion | None:
    """The global family a question asks for by its wording, or None (a local question).

    `corpora` are the corpus names of the graph: "What does isaw say about harbours?" names one."""
    text = " ".join((question or "").split())
    if not text:
        return None
    pats = _patterns(tuple(sorted(corpora)))
    if re.search(r"[\u3400-\u9fff]", text):
        return _classify_chinese(text)
    for pattern in pats["topic"]:
        m = pattern.search(text)
        if m:
            term = _clean_term(m.group("term"), pats)
            if term:
                return GlobalQuestion("topic", term, f"topic: the question asks what the corpus says about {term!r}")
    scoped = any(p.search(text) for p in pats["scope"])
    for pattern in pats["themes"]:
        if pattern.search(text):
            return GlobalQuestion("themes", None, "themes: the question asks for the corpus's themes")
    if any(p.search(text) for p in pats["what_themes"]) and (scoped or not _names_something(text)):
        return GlobalQuestion("themes", None, "themes: the question asks which themes the corpus has")
    if any(p.search(text) for p in pats["overview"]):
        m = pats["overview_of"][0].search(text)
        obj = (m.group("object") or m.group("object2")) if m else None
        if obj:
            obj = _OBJECT_TAIL.sub("", obj.strip())
        if obj and not re.fullmatch(_scope(tuple(sorted(corpora))), obj, re.I):
            term = _clean_term(obj, pats)
            if term and len(term.split()) <= 4 and not re.match(r"(?:it|this|that|them|everything|all)\b", term, re.I):
                return GlobalQuestion("topic", term, f"topic: the question asks for an overview of {term!r}")
        if obj is None and not scoped and _names_something(text):
            return None  # "a summary judgment in the Smith case": not a corpus
        return GlobalQuestion("themes", None, "themes: the question asks for an overview or summary of the corpus")
    return None


def _names_something(text: str) -> bool:
    """A capitalised word after the first: the question names a thing (a local question)."""
    words = re.findall(r"[\w'’-]+", text)
    return any(w[:1].isupper() for w in words[1:])


def _clean_term(raw: str | None, pats: dict) -> str | None:
    if not raw:
        return None
    term = _TERM_CUT.sub("", raw.strip())
    scope = pats["scope"][0]
    # "harbours in the ISAW papers": the scope after the term is not part of it
    m = re.search(rf"\s+{_IN}\s+(?={scope.pattern})", term, re.I)
    if m and scope.search(term[m.end() :]):
        term = term[: m.start()]
    term = _TERM_TAIL.sub("", _TERM_LEAD.sub("", term.strip())).strip(" \"'“”‘’`,:")
    if not term or len(term.split()) > 6 or not re.search(r"\w", term):
        return None
    if re.fullmatch(rf"{_scope()}|it|them|this|that|these|those", term, re.I):
        return None
    return term


def _classify_chinese(text: str) -> GlobalQuestion | None:
    for pattern in _ZH_TOPIC:
        m = pattern.search(text)
        if m:
            term = re.sub(r"^(?:这些|這些|所有|那些)", "", m.group("term").strip(" “”\"'「」"))
            term = re.sub(rf"^.*?{_ZH_SCOPE}(?:中|里|裡)?(?:关于|關於|对|對)?", "", term) or term
            if term and len(term) <= 12:
                return GlobalQuestion("topic", term, f"topic: the question asks what the corpus says about {term!r}")
    if _ZH_THEMES.search(text) or _ZH_SCOPE_SAYS.search(text):
        return GlobalQuestion("themes", None, "themes: the question asks for the corpus's themes or a summary")
    return None


def forced(question: str, corpora: tuple[str, ...] | list[str], keywords: list[str]) -> GlobalQuestion:
    """`ask --mode global`: the family the wording asks for, else a topic when the question has
    one content word or name left besides its scope (else themes)."""
    found = classify(question, corpora)
    if found is not None:
        return GlobalQuestion(found.family, found.term, f"--mode global; {found.reason}")
    generic = re.compile(rf"^(?:{_COLLECTION}|{_THEME_ANY}|{_ADJ}|corpus|overview|summary|say|said|about)$", re.I)
    names = {fold(c) for c in corpora}
    left = [k for k in keywords if not generic.match(k) and fold(k) not in names]
    if len(left) == 1:
        return GlobalQuestion("topic", left[0], f"--mode global: a topic, the question's one content word {left[0]!r}")
    return GlobalQuestion("themes", None, "--mode global: themes (no single topic word in the question)")


# --- the scope ------------------------------------------------------------------------------


@dataclass
class Scope:
    noun: str  # how the answer calls the documents ("tales", "documents")
    corpus: str | None
    labels: list[str] | None
    exclude: list[str]
    date_from: str | None = None
    date_to: str | None = None
    about: list[str] | None = None

    def params(self) -> dict:
        return {
            "corpus": self.corpus,
            "labels": self.labels,
            "exclude": self.exclude,
            "from": self.date_from,
            "to": self.date_to,
        }

    def to_dict(self) -> dict:
        return {"noun": self.noun, "corpus": self.corpus, "labels": self.labels}


def scope_of(question: str, cat, filters: Filters) -> Scope:
    """The documents a global question is about: a corpus the question names (else --corpus),
    and the label its noun means ("the tales" → Story, when the graph has stories)."""
    from . import structured as structure

    corpus = None
    for name in sorted(cat.corpora, key=len):  # the longest name the question holds wins
        if name.strip() and re.search(rf"(?<![\w]){corpus_regex(name)}(?![\w])", question, re.I):
            corpus = name
    corpus = corpus or filters.corpus
    noun, label = "documents", None
    m = re.search(
        r"\b(documents?|docs|pages?|passages?|tales?|stories|story|fables?|articles?|papers?|chapters?)\b",
        question,
        re.I,
    )
    zh = structure._ZH_DOC_NOUN.search(question)
    if m:
        noun = structure._plural(m.group(1).lower())
        label = structure._DOC_NOUNS.get(structure._singular(noun))
    elif zh:
        noun, label = zh.group(0), structure._ZH_DOC_NOUNS[zh.group(0)]
    exclude = list(structure._NOT_ARTICLES) if label == "Article" else list(structure._NOT_DOCUMENTS)
    if label == "Article" or (label is not None and label not in cat.document_labels):
        label = None
    return Scope(
        noun, corpus, [label] if label else None, exclude, filters.date_from, filters.date_to, filters.about or None
    )


# --- the answer -------------------------------------------------------------------------------


@dataclass
class GlobalResult:
    """A global answer, or (family None) why the question went to the local route."""

    family: str | None
    reason: str
    method: str = "extractive"
    term: str | None = None
    level: int | None = None
    text: str = ""
    titled: str = ""
    cited: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    communities: list[dict] = field(default_factory=list)
    documents_total: int = 0
    shown: int = 0
    rest: int = 0
    budget: int = 0
    scope: Scope | None = None
    scope_total: int = 0
    map_requests: int = 0
    map_points: int = 0
    map_dropped: list[str] = field(default_factory=list)
    llm_used: bool = False
    ms: float = 0.0
    quotes: dict[str, str] = field(default_factory=dict)  # chunk id -> the sentence quoted from it
    mentions: dict[str, int] = field(default_factory=dict)  # document id -> mentions of the term
    groups: dict[str | None, list[Evidence]] = field(default_factory=dict)  # community id -> its documents
    chosen: list[dict] = field(default_factory=list)  # the themes shown, ranked
    picks: dict[str, list[tuple[dict, str]]] = field(default_factory=dict)  # theme -> (chunk row, sentence)
    candidates: dict[str, list[dict]] = field(default_factory=dict)  # theme -> its nearest in-scope chunks

    def to_dict(self) -> dict:
        if self.family is None:
            return {"family": None, "reason": self.reason}
        out: dict = {
            "family": self.family,
            "method": self.method,
            "term": self.term,
            "level": self.level,
            "reason": self.reason,
            "documents_total": self.documents_total,
            "shown": self.shown,
            "rest": self.rest,
            "budget": self.budget,
            "ms": round(self.ms, 1),
            "scope": dict(self.scope.to_dict(), documents=self.scope_total) if self.scope else None,
        }
        if self.method == "map-reduce":
            out.update(map_requests=self.map_requests, map_points=self.map_points, map_dropped=self.map_dropped)
        return out


def answer(
    graph, settings, analysis, found: GlobalQuestion, use_llm: bool, on_token=None, convert=None
) -> GlobalResult:
    """The global answer to an analysed question (`found` says which family); a GlobalResult
    with family None when it cannot be answered globally (then the local route answers)."""
    from . import structured as structure

    started = time.perf_counter()
    question = analysis.search_text or analysis.question
    scope = scope_of(question, structure.catalog(graph), analysis.filters)
    total = graph.read("structured/scope_total", **{k: v for k, v in scope.params().items()})[0]["total"]
    llm = bool(use_llm and settings is not None and settings.llm_configured)
    if found.family == "topic" and found.term:
        result = _topic(graph, analysis, found, scope)
    else:
        result = _themes(graph, found, scope)
    result.scope, result.scope_total = scope, total
    if result.family is not None:
        zh = analysis.language == "zh"
        if llm and result.evidence:
            _map_reduce(graph, settings, analysis, result, on_token, convert)
        else:
            _extractive(result, zh)
    result.ms = (time.perf_counter() - started) * 1000
    return result


def _extractive(result: GlobalResult, zh: bool) -> None:
    assert result.scope is not None
    if result.family == "topic":
        lines = _topic_lines(result, result.scope, result.scope_total, zh)
    else:
        lines = _theme_lines(result, result.scope, result.scope_total, zh)
    text = "\n".join(lines)
    _check(result, lambda feed: feed(text))


def _check(result: GlobalResult, write, emit=None, convert: str | None = None) -> None:
    """Run `write(feed)` through the citation check (and the Chinese conversion, `convert`): the
    answer keeps only ids its sources gave, and `emit` sees the checked text as it comes."""
    from ..chinese import StreamConverter

    checker = CitationFilter(build_context(result.sources).cites, emit=emit)
    writer = StreamConverter(convert, checker.feed)
    write(writer.feed)
    writer.close()
    checked = checker.close()
    result.text, result.titled = checked.text, checked.titled
    result.cited, result.dropped = checked.cited, checked.dropped


# --- topic ---------------------------------------------------------------------------------------

_IRREGULAR = {
    "man": "men",
    "woman": "women",
    "child": "children",
    "mouse": "mice",
    "goose": "geese",
    "foot": "feet",
    "tooth": "teeth",
    "person": "people",
    "ox": "oxen",
    "louse": "lice",
    "die": "dice",
    "dwarf": "dwarves",
}
_IRREGULAR_BACK = {v: k for k, v in _IRREGULAR.items()}


def forms(term: str) -> list[str]:
    """The term and its singular or plural ("witch" → witch, witches; "wolves" → wolves, wolf),
    each in British and American spelling ("harbours" → harbours, harbour, harbors, harbor); a name
    (capitalised) and Chinese stay as written. Only the last word of a phrase changes."""
    term = " ".join(term.split())
    if not term:
        return []
    words = term.split()
    last = words[-1]
    if not last.isascii() or not last.isalpha() or last[:1].isupper() or len(last) < 3:
        return [term]
    lower = last.lower()
    out = [lower]
    if lower in {"dwarf", "dwarfs", "dwarves"}:
        out += ["dwarf", "dwarfs", "dwarves"]
    elif re.search(r"(?<!hu)men$", lower) and len(lower) > 5:
        out += [lower[:-3] + "man", lower + "s"]  # huntsmen, fishermen; specimens
    elif re.search(r"[^u]man$", lower) and len(lower) > 5:
        out += [lower[:-3] + "men", lower + "s"]  # huntsman, fisherman; germans (not "human")
    elif lower in _IRREGULAR:
        out.append(_IRREGULAR[lower])
    elif lower in _IRREGULAR_BACK:
        out.append(_IRREGULAR_BACK[lower])
    elif lower.endswith("ies") and len(lower) > 4:
        out.append(lower[:-3] + "y")
    elif lower.endswith("ves") and len(lower) > 4:
        out += [lower[:-3] + "f", lower[:-3] + "fe"]
    elif re.search(r"(?:ch|sh|x|z|ss|o)es$", lower):
        out += [lower[:-2], lower[:-1]]
    elif lower.endswith("is"):
        out.append(lower[:-2] + "es")  # crisis, crises
    elif re.search(r"(?:ss|us)$", lower):
        out.append(lower + "es")
    elif lower.endswith("s"):
        out.append(lower[:-1])
    elif re.search(r"[^aeiou]y$", lower):
        out.append(lower[:-1] + "ies")
    elif re.search(r"(?:ch|sh|x|z)$", lower):
        out.append(lower + "es")
    elif lower.endswith("fe"):
        out += [lower[:-2] + "ves", lower + "s"]
    elif lower.endswith("f") and not lower.endswith("ff"):
        out += [lower[:-1] + "ves", lower + "s"]
    elif lower.endswith("o"):
        out += [lower + "s", lower + "es"]
    else:
        out.append(lower + "s")
    out += [v for w in out for v in _spellings(w)]
    head = " ".join(words[:-1])
    return list(dict.fromkeys(f"{head} {w}".strip() for w in out))


_OUR = re.compile(r"^([a-z]{3,})our(s?)$")  # harbour, colour, labours
_OR = re.compile(r"^([a-z]{2,}[^aeiou])or(s?)$")  # harbor, colors
_TRE = re.compile(r"^([a-z]{2,}[tb])re(s?)$")  # centre, theatres, fibre
_TER = re.compile(r"^([a-z]{2,}[tb])er(s?)$")  # center, theaters, fiber


def _spellings(word: str) -> list[str]:
    """British and American spellings of a word: harbour ↔ harbor, centre ↔ center. A variant no
    document writes finds nothing, so a made-up one ("authour") costs nothing."""
    for pattern, ending in ((_OUR, "or"), (_OR, "our"), (_TRE, "er"), (_TER, "re")):
        found = pattern.match(word)
        if found:
            return [found.group(1) + ending + found.group(2)]
    return []


def _cjk(text: str) -> bool:
    return bool(re.search(r"[\u3400-\u9fff\uf900-\ufaff]", text))


def java_pattern(term_forms: list[str]) -> str:
    """The forms as one Java regular expression on word boundaries (Unicode word characters,
    any case), for apoc.text.regexGroups; Chinese forms match anywhere."""
    bodies = [r"\s+".join(re.escape(w) for w in f.split()) for f in term_forms]
    alternatives = "|".join(sorted(bodies, key=len, reverse=True))
    if any(_cjk(f) for f in term_forms):
        return f"(?iU)(?:{alternatives})"
    return rf"(?iU)(?<!\w)(?:{alternatives})(?!\w)"


def python_pattern(term_forms: list[str]) -> re.Pattern:
    bodies = [r"\s+".join(re.escape(w) for w in f.split()) for f in term_forms]
    alternatives = "|".join(sorted(bodies, key=len, reverse=True))
    if any(_cjk(f) for f in term_forms):
        return re.compile(f"(?:{alternatives})", re.I)
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.I)


def _fulltext(term_forms: list[str]) -> str:
    """The forms as a full-text query, with their possessives: the standard analyzer keeps
    "king's" one token, so "king" alone would not find it."""
    parts = []
    for f in term_forms:
        words = f.split()
        if not words:
            continue
        if _cjk(f):
            parts.append(lucene_phrase([f]))
            continue
        for tail in ("", "'s", "’s") if not words[-1].lower().endswith("s") else ("",):
            phrase = words[:-1] + [words[-1] + tail]
            parts.append(lucene_phrase(phrase) if len(phrase) > 1 else lucene_query(phrase))
    # a form with no searchable word ("*", "the") adds nothing: a query of none is no query
    return " OR ".join(p for p in parts if p)


def mentioning(graph, term: str, scope: Scope) -> list[dict]:
    """Every document of the scope that holds the term's forms, most mentions first."""
    term_forms = forms(term)
    query = _fulltext(term_forms)
    if not query:
        return []
    return graph.read(
        "global/mentions",
        query=query,
        pattern=java_pattern(term_forms),
        fetch=MAX_HITS,
        per=CHUNKS_PER_DOCUMENT,
        about=scope.about,
        **scope.params(),
    )


def _topic(graph, analysis, found: GlobalQuestion, scope: Scope) -> GlobalResult:
    term = found.term or ""
    rows = mentioning(graph, term, scope)
    reason = found.reason
    if not rows:
        # "harbours in Egypt": the head, when the rest only places or dates it ("history of Rome" stays whole)
        head = re.split(r"\s+(?:in|at|on|near|during|around|across|throughout|within)\s+", term, maxsplit=1)[0]
        if head != term and head:
            rows = mentioning(graph, head, scope)
            if rows:
                reason += f"; no document holds {term!r}, so its head {head!r}"
                term = head
    if not rows:
        return GlobalResult(None, f"topic {term!r}: no document of the scope mentions it; answered by the local route")
    pattern = python_pattern(forms(term))
    scope_words = re.compile(
        rf"^(?:{_COLLECTION}|{_THEME_ANY}|{re.escape(scope.corpus or '-')}|say|said|describe|portray)$", re.I
    )
    keywords = [k for k in analysis.keywords if not pattern.search(k) and not scope_words.match(k)]
    shown = rows[:TOPIC_BUDGET]
    evidence = []
    for row in shown:
        chunk, _sentence = _best_sentence(row["chunks"], pattern, keywords)
        evidence.append(
            Evidence(
                chunk["id"],
                row["documentId"],
                row["title"],
                row["uri"],
                chunk["text"],
                float(row["mentions"]),
                ["global:topic"],
            )
        )
    many = sum(1 for r in rows if r["mentions"] >= 2)
    result = GlobalResult(
        "topic",
        f"{reason}; {len(rows)} document(s) of the scope mention it ({many} more than once): the {len(shown)} with "
        f"the most mentions are quoted (budget {TOPIC_BUDGET})",
        term=term,
        documents_total=len(rows),
        shown=len(shown),
        rest=len(rows) - len(shown),
        budget=TOPIC_BUDGET,
    )
    for row, ev in zip(shown, evidence, strict=True):
        result.mentions[ev.document_id] = row["mentions"]
    for row, ev in zip(shown, evidence, strict=True):
        result.quotes[ev.chunk_id] = _best_sentence(
            [c for c in row["chunks"] if c["id"] == ev.chunk_id], pattern, keywords
        )[1]
    _group(graph, result, evidence)
    result.sources = sources_for(result.evidence)
    return result


def _best_sentence(chunks: list[dict], pattern: re.Pattern, keywords: list[str]) -> tuple[dict, str]:
    """The sentence holding the term that fits the question best (its other words, then a
    readable length), and the chunk it is in."""
    stems = {k.lower()[:5] for k in keywords if len(k) > 2}
    best, best_key = None, None
    for ci, chunk in enumerate(chunks):
        for si, sentence in enumerate(split_sentences(chunk["text"] or "")):
            hits = pattern.findall(sentence)
            if not hits:
                continue
            words = re.findall(r"\w+", sentence.lower())
            overlap = sum(1 for s in stems if any(w.startswith(s) for w in words))
            # ties: the earlier chunk (an abstract, an opening) before the one with the most mentions
            key = (
                overlap * 2 + (1.5 if len(hits) > 1 else 1) + _readable(sentence),
                -(chunk.get("index") or 0),
                -ci,
                -si,
            )
            if best_key is None or key > best_key:
                best, best_key = (chunk, sentence), key
    if best is None:  # the match spans a sentence break: the chunk's opening
        chunk = chunks[0]
        m = pattern.search(chunk["text"] or "")
        at = m.start() if m else 0
        return chunk, _excerpt(chunk["text"] or "", at)
    chunk, sentence = best
    m = pattern.search(sentence)
    return chunk, _excerpt(sentence, m.start() if m else 0)


_REFERENCE = re.compile(
    r"\(eds?\.?\)|\beds?\.\s|\bpp?\.\s*\d|https?://|\bdoi\b|\bvol\.\s*\d|\b(?:1[5-9]|20)\d\d[a-z]?\)?[.,:;]\s*\d"
    r"|^\W*(?:fig(?:ure)?|table|plate|map)\.?\s*\d|(?:;[^;]*){3,}|\bsubjects?:",
    re.I,
)


def _readable(sentence: str) -> int:
    """How well a sentence reads quoted alone: a fair length, and a start that is a start (a
    capital or an opening quote, not the middle of a dialogue the splitter cut, nor the tail of a
    sentence that began in the chunk before)."""
    text = sentence.strip()
    size = len(text)
    score = 1 if 40 <= size <= 350 else (0 if size >= 20 else -2)
    if text[:1].isupper() or text[:1] in "'\"‘“«(" or _cjk(text[:1]):
        score += 1
    elif text[:1].islower() or text[:1] in ",;:)-–—":
        score -= 2  # the tail of a sentence a chunk boundary cut ("rod, and smote the dragon")
    if _REFERENCE.search(text) or re.fullmatch(r"[“\"].*[”\"]\W*", text):  # a reference, a caption, a title
        score -= 3
    return score


def _excerpt(text: str, at: int, width: int = 360) -> str:
    """The sentence as one line; a long one cut to `width` characters around the match."""
    line = neutral(text)
    if len(line) <= width:
        return line
    at = min(at, len(line))
    start = max(0, at - width // 2)
    end = min(len(line), start + width)
    start = max(0, end - width)
    cut = line[start:end]
    return ("…" if start else "") + cut.strip() + ("…" if end < len(line) else "")


def _group(graph, result: GlobalResult, evidence: list[Evidence]) -> None:
    """Documents under the community of their quoted chunk, at the finest level with at most
    GROUPS_TARGET groups (the top level when every level has more); without communities, as
    they rank. Groups keep the rank of their best document."""
    rows = graph.read("global/chunk_communities", ids=[ev.chunk_id for ev in evidence])
    if not rows:
        result.evidence = evidence
        result.level = None
        result.reason += "; no communities are built, so the documents are not grouped"
        return
    by_level: dict[int, dict[str, dict]] = {}
    for r in rows:
        by_level.setdefault(r["level"], {})[r["chunkId"]] = r
    counts = {level: len({r["id"] for r in chunks.values()}) for level, chunks in by_level.items()}
    target = min(GROUPS_TARGET, max(2, len(evidence) // 3))  # groups of about three documents or more
    fitting = [level for level in sorted(counts) if counts[level] <= target]
    level = fitting[-1] if fitting else min(counts)
    result.level = level
    shown = ", ".join(f"level {lv}: {n}" for lv, n in sorted(counts.items()))
    result.reason += (
        f"; grouped by the communities of level {level} ({counts[level]} group(s); {shown}): the finest level with at "
        f"most {target} groups"
        if fitting
        else f"; grouped at the top level ({shown})"
    )
    chosen = by_level[level]
    groups: dict[str | None, list[Evidence]] = {}
    for ev in evidence:
        community = chosen.get(ev.chunk_id)
        groups.setdefault(community["id"] if community else None, []).append(ev)
    if len(groups) > target:  # still many: communities of one document go under "Other documents"
        others = [ev for cid, members in groups.items() if cid is None or len(members) < 2 for ev in members]
        groups = {cid: members for cid, members in groups.items() if cid is not None and len(members) >= 2}
        if others:
            groups[None] = others
        result.reason += f"; {len(others)} document(s) alone in their community are listed as other documents"
    result.evidence = [ev for members in groups.values() for ev in members]
    info = {r["id"]: r for r in chosen.values()}
    for cid, members in groups.items():
        if cid is None:
            continue
        r = info[cid]
        result.communities.append(
            _community(
                r,
                documents=len(members),
                score=sum(result.mentions.get(ev.document_id, 0) for ev in members),
                used=True,
                why=f"holds the quoted chunk of {len(members)} matching document(s)",
            )
        )
    result.groups = groups


def _community(r: dict, documents: int, score: float, used: bool, why: str) -> dict:
    return {
        "id": r["id"],
        "level": r["level"],
        "title": r.get("title"),
        "phrases": list(r.get("phrases") or []),
        "size": r.get("size"),
        "chunks": r.get("chunks"),
        "documents": documents,
        "score": score,
        "used": used,
        "why": why,
    }


def _topic_lines(result: GlobalResult, scope: Scope, total: int, zh: bool) -> list[str]:
    cite = {s.document_id: s.cite for s in result.sources}
    term = neutral(result.term)
    noun = neutral(scope.noun)
    shown_forms = " or ".join(f"“{neutral(f)}”" for f in forms(result.term or "")[:2])
    many = sum(1 for ev in result.evidence if result.mentions.get(ev.document_id, 0) >= 2)
    if zh:
        lines = [
            f"{total} 篇{noun}中有 {result.documents_total} 篇提到“{term}”（{many} 篇提到不止一次）；每篇引一句（摘录；未用 LLM）："
        ]
    else:
        lines = [
            f"{result.documents_total} of the {total} {noun} mention {shown_forms} ({many} of the quoted ones more than "
            f"once); one cited sentence from each, most mentions first (extractive; no LLM):"
        ]
    titles = {c["id"]: c for c in result.communities}
    groups = result.groups or {None: result.evidence}
    for cid, members in groups.items():
        indent = ""
        if len(groups) > 1 or cid is not None:
            head = titles[cid]["title"] if cid in titles else None
            lines.append(f"{neutral(head)}:" if head else ("其他：" if zh else "Other documents:"))
            indent = "  "
        for ev in members:
            lines.append(f"{indent}- “{result.quotes.get(ev.chunk_id, '')}” [{cite[ev.document_id]}]")
    if result.rest:
        lines.append(
            f"……另有 {result.rest} 篇{noun}提到它。"
            if zh
            else f"… and {result.rest} more {noun if result.rest > 1 else 'document'} mention it."
        )
    return lines


# --- themes -------------------------------------------------------------------------------------


def choose_level(rows: list[dict], scope_chunks: int) -> tuple[int | None, list[dict], str]:
    """(level, its substantial communities ranked, why): a community is substantial when at
    least max(2, 1 % of the scope's chunks) of its member chunks are in the scope; the level
    whose count of those is nearest THEME_TARGET, preferring levels with at least THEME_MIN."""
    floor = max(2, scope_chunks // 100) if scope_chunks >= 20 else 1
    by_level: dict[int, list[dict]] = {}
    for r in rows:
        if r["inScopeChunks"] >= floor:
            by_level.setdefault(r["level"], []).append(r)
    if not by_level:
        return None, [], "no community has member chunks in the scope"
    counts = {level: len(members) for level, members in by_level.items()}
    enough = [level for level in counts if counts[level] >= THEME_MIN]
    pool = enough or list(counts)
    level = min(pool, key=lambda lv: (abs(counts[lv] - THEME_TARGET), lv))
    ranked = sorted(by_level[level], key=lambda r: (-r["inScopeChunks"], -r["inScopeDocuments"], r["id"]))
    shown = ", ".join(f"level {lv}: {n}" for lv, n in sorted(counts.items()))
    why = (
        f"level {level}: {counts[level]} communities hold at least {floor} in-scope chunk(s) ({shown}); the nearest "
        f"to {THEME_TARGET}" + (f" with at least {THEME_MIN}" if enough else f" (no level has {THEME_MIN})")
    )
    return level, ranked, why


def _themes(graph, found: GlobalQuestion, scope: Scope) -> GlobalResult:
    levels = graph.read("global/levels")
    if not levels:
        return GlobalResult(None, NO_COMMUNITIES)
    rows = graph.read("global/scope_communities", **scope.params())
    scope_chunks = max((sum(r["inScopeChunks"] for r in rows if r["level"] == lv["level"]) for lv in levels), default=0)
    level, ranked, why = choose_level(rows, scope_chunks)
    if level is None:
        return GlobalResult(None, f"{why}: no themes to show; answered by the local route")
    chosen = ranked[:THEME_BUDGET]
    reps = graph.read("global/representatives", ids=[r["id"] for r in chosen], per=REPRESENTATIVES, **scope.params())
    by_community: dict[str, list[dict]] = {}
    for r in reps:
        by_community.setdefault(r["communityId"], []).append(r)
    used_docs: set[str] = set()
    picks: dict[str, list[tuple[dict, str]]] = {r["id"]: [] for r in chosen}

    def pick(community: dict) -> bool:
        phrases = list(community.get("phrases") or [])
        for rep in by_community.get(community["id"], []):
            if rep["documentId"] in used_docs or any(p[0]["chunkId"] == rep["chunkId"] for p in picks[community["id"]]):
                continue
            sentence = _theme_sentence(rep["text"] or "", phrases)
            if sentence:
                used_docs.add(rep["documentId"])
                picks[community["id"]].append((rep, sentence))
                return True
        return False

    for community in chosen:
        if not pick(community):  # every document of the theme quoted already: its best chunk again
            reps_here = by_community.get(community["id"], [])
            if reps_here:
                sentence = _theme_sentence(reps_here[0]["text"] or "", list(community.get("phrases") or []))
                if sentence:
                    picks[community["id"]].append((reps_here[0], sentence))
    if len(chosen) < THEME_DOCUMENTS:  # few themes: a second sentence each, from another document
        for community in chosen:
            if len(used_docs) >= THEME_DOCUMENTS:
                break
            pick(community)
    evidence = []
    seen_chunks: set[str] = set()
    for community in chosen:
        for rep, _sentence in picks[community["id"]]:
            if rep["chunkId"] not in seen_chunks:
                seen_chunks.add(rep["chunkId"])
                evidence.append(
                    Evidence(
                        rep["chunkId"],
                        rep["documentId"],
                        rep["title"],
                        rep["uri"],
                        rep["text"] or "",
                        float(rep["similarity"] or 0.0),
                        ["global:themes", community["id"]],
                    )
                )
    result = GlobalResult("themes", f"{found.reason}; {why}", level=level, budget=THEME_BUDGET)
    result.evidence = evidence
    result.sources = sources_for(evidence)
    result.picks, result.chosen, result.candidates = picks, chosen, by_community
    result.shown = len(chosen)
    result.rest = len(ranked) - len(chosen)
    result.documents_total = len({ev.document_id for ev in evidence})
    for rank, r in enumerate(ranked, 1):
        used = rank <= len(chosen)
        result.communities.append(
            _community(
                r,
                documents=r["inScopeDocuments"],
                score=r["inScopeChunks"],
                used=used,
                why=(
                    f"rank {rank} of {len(ranked)} at level {level} by in-scope member chunks ({r['inScopeChunks']})"
                    + ("" if used else f"; beyond the budget of {THEME_BUDGET} themes")
                ),
            )
        )
    return result


def _theme_sentence(text: str, phrases: list[str]) -> str | None:
    """The chunk's sentence with the most of the community's phrases (then a readable length)."""
    regexes = [re.compile(rf"(?<!\w){re.escape(fold(p))}(?!\w)") for p in phrases if p and p.strip()]
    best, best_key = None, None
    for i, sentence in enumerate(split_sentences(text)):
        folded = fold(sentence)
        hits = sum(1 for r in regexes if r.search(folded))
        key = (hits + _readable(sentence), -i)
        if best_key is None or key > best_key:
            best, best_key = sentence, key
    if best is None:
        return None
    first = next((m.start() for r in regexes for m in [r.search(fold(best))] if m), 0)
    return _excerpt(best, first)


def _theme_lines(result: GlobalResult, scope: Scope, total: int, zh: bool) -> list[str]:
    cite = {s.document_id: s.cite for s in result.sources}
    chosen, picks = result.chosen, result.picks
    noun = neutral(scope.noun)
    if zh:
        lines = [f"{total} 篇{noun}的主题，来自图的 {len(chosen)} 个社区（摘录；未用 LLM）："]
    else:
        lines = [f"Themes of the {total} {noun}, from {len(chosen)} communities of the graph (extractive; no LLM):"]
    for i, community in enumerate(chosen, 1):
        title = neutral(community.get("title")) or community["id"]
        phrases = ", ".join(neutral(p) for p in (community.get("phrases") or [])[:5])
        quotes = "; ".join(f"“{s}” [{cite[rep['documentId']]}]" for rep, s in picks.get(community["id"], []))
        key = (f"（关键词：{phrases}）" if zh else f" (key phrases: {phrases})") if phrases else ""
        colon = "：" if zh else ": "
        lines.append(f"{i}. {title}{key}{colon}{quotes}" if quotes else f"{i}. {title}{key}")
    if result.rest:
        lines.append(
            f"……另有 {result.rest} 个较小的社区。" if zh else f"… and {result.rest} smaller communities at this level."
        )
    return lines


# --- with an LLM: map-reduce -------------------------------------------------------------------


@cache
def prompt(name: str) -> str:
    """A prompt of cypher/prompts/ (global_map, global_reduce)."""
    return resources.files("graphrag_cypher.cypher").joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")


def _map_groups(result: GlobalResult) -> list[tuple[dict, list[Evidence]]]:
    """(community, its evidence) for each community to map: the chosen themes (each with its
    in-scope chunks nearest the centroid), or the groups of a topic's documents (in batches of
    MAP_SOURCES documents; where no communities are built, the documents as they rank)."""
    groups: list[tuple[dict, list[Evidence]]] = []
    if result.family == "themes":
        for community in result.chosen:
            members = [
                Evidence(
                    r["chunkId"],
                    r["documentId"],
                    r["title"],
                    r["uri"],
                    r["text"] or "",
                    float(r["similarity"] or 0.0),
                    ["global:themes", community["id"]],
                )
                for r in result.candidates.get(community["id"], [])[:MAP_SOURCES]
            ]
            groups.append((community, members))
    else:
        titles = {c["id"]: c for c in result.communities}
        for cid, members in (result.groups or {None: result.evidence}).items():
            for start in range(0, len(members), MAP_SOURCES):
                head = titles.get(cid) or {"id": None, "title": None, "phrases": []}
                groups.append((head, members[start : start + MAP_SOURCES]))
    return [(c, m) for c, m in groups[:MAP_COMMUNITIES] if m]


def _map_reduce(graph, settings, analysis, result: GlobalResult, on_token, convert) -> None:
    """Map each community (its report and in-scope sources) to scored points with citations, a
    few requests in flight; reduce the best points to one streamed answer whose citations are
    checked against every source the maps were given."""
    from concurrent.futures import ThreadPoolExecutor

    from .. import llm

    language = LANGUAGES.get(analysis.language, "the language of the question")
    question = analysis.question
    groups = _map_groups(result)
    if result.family == "themes":  # the maps read more than the quoted sentences: cite ids for all of it
        seen = {ev.chunk_id for ev in result.evidence}
        for _, members in groups:
            for ev in members:
                if ev.chunk_id not in seen:
                    seen.add(ev.chunk_id)
                    result.evidence.append(ev)
        result.sources = sources_for(result.evidence)
    by_doc = {s.document_id: s for s in result.sources}
    ids = [c["id"] for c, _ in groups if c.get("id")]
    reports = {r["id"]: r for r in graph.read("global/reports", ids=ids)} if ids else {}
    system = prompt("global_map").replace("{language}", language)

    def one(item: tuple[dict, list[Evidence]]) -> list[dict]:
        community, members = item
        sources: dict[str, Source] = {}
        for ev in members:
            s = by_doc[ev.document_id]
            sources.setdefault(s.cite, Source(s.cite, s.document_id, s.title, s.uri)).chunks.append(ev)
        context = build_context(list(sources.values()), max_chars=6000)
        report = reports.get(community.get("id"), {})
        head = [
            f"COMMUNITY: {neutral(community.get('title')) or 'documents that mention the subject'}",
            "KEY PHRASES: " + ", ".join(neutral(p) for p in community.get("phrases") or []),
        ]
        body = report.get("llmReport") or report.get("summary")
        if body:
            head.append("REPORT: " + neutral(body)[:2000])
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": "\n".join(head) + f"\n\n{context.text}\n\nQUESTION: {question}"},
        ]
        try:
            reply = llm.complete(settings, messages, {"type": "json_object"})
        except llm.LLMRequestRefused:  # an endpoint without JSON mode: plain JSON by the prompt
            reply = llm.complete(settings, messages)
        points = []
        for point in _parse_points(reply):
            checker = CitationFilter(context.cites)
            checker.feed(point["description"])
            checked = checker.close()
            result.map_dropped.extend(checked.dropped)
            if checked.text.strip() and point["score"] > 0:
                points.append({"text": checked.text, "score": point["score"], "community": community})
        return points

    workers = 1 if settings.local_model_path is not None else MAP_PARALLEL
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(groups) or 1))) as pool:
        mapped = list(pool.map(one, groups))
    result.map_requests = len(groups)
    points = sorted((p for ps in mapped for p in ps), key=lambda p: -p["score"])
    result.map_points = len(points)
    if not points:
        _extractive(result, analysis.language == "zh")
        result.reason += "; the map step found no relevant point, so the answer is extractive"
        if on_token is not None:
            on_token(result.titled)
        return
    listed = "\n".join(
        f"[score {p['score']}] ({neutral(p['community'].get('title')) or 'documents'}) {p['text']}"
        for p in points[:REDUCE_POINTS]
    )
    messages = [
        {"role": "system", "content": prompt("global_reduce").replace("{language}", language)},
        {"role": "user", "content": f"POINTS:\n{listed}\n\nQUESTION: {question}"},
    ]
    _check(
        result,
        lambda feed: llm.stream(settings, messages, feed),
        emit=on_token,
        convert=convert.applied if convert is not None else None,
    )
    result.method, result.llm_used = "map-reduce", True


def _parse_points(reply: str) -> list[dict]:
    """[{description, score}] from a map reply (JSON, perhaps in a code fence); unreadable: []."""
    text = (reply or "").strip()
    if text.startswith("```"):
        text = text.strip("`").split("\n", 1)[-1]
    try:
        start = min(i for i in (text.find("{"), text.find("[")) if i >= 0)
        data = json.loads(text[start : max(text.rfind("}"), text.rfind("]")) + 1])
    except ValueError:
        return []
    rows = data.get("points") if isinstance(data, dict) else data
    out = []
    for row in rows or []:
        if not isinstance(row, dict):
            continue
        description = row.get("description") or row.get("point") or row.get("text")
        try:
            score = max(0, min(100, int(float(row.get("score", 50)))))
        except (TypeError, ValueError):
            score = 50
        if isinstance(description, str) and description.strip():
            out.append({"description": description.strip(), "score": score})
    return out
