"""The wording of global questions, as data: the regular-expression pieces of English and Chinese
questions about a whole corpus, and the table of patterns `detect` reads (each compiled once per
set of corpus names)."""

from __future__ import annotations

import re
from functools import cache

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


_S = "\u27e8scope\u27e9"  # where a pattern names the corpus: `_scope(corpora)` takes its place

# group → patterns, in the order they are tried; every one is compiled case-insensitive
PATTERNS: dict[str, tuple[str, ...]] = {
    "scope": (rf"\b{_S}",),
    "topic": (
        rf"\bwhat\s+(?:do|does|did|can|could|would|will|might)\s+{_S}\s+{_SAY}\s+{_ABOUT}\s+{_TERM}{_END}",
        rf"\bwhat\s+(?:information|details?|facts?|evidence|insights?|knowledge|data)\s+(?:do|does|did|can|could)\s+"
        rf"{_S}\s+(?:give|provide|offer|contain|have|hold|present|include|yield)\s+{_ABOUT}\s+{_TERM}{_END}",
        rf"\b(?:everything|all)\s+(?:that\s+)?{_S}\s+(?:(?:have|has)\s+to\s+say|say|said|tell|told|write|wrote"
        rf"|mention|mentioned|report|reported)\s+{_ABOUT}\s+{_TERM}{_END}",
        rf"\btell\s+(?:me|us)\s+(?:about|of)\s+{_TERM}\s+(?:in|across|throughout|within)\s+{_S}{_END}",
        rf"\bwhat\s*(?:['’]s|\s+is|\s+was|\s+are|\s+were|\s+has\s+been|\s+have\s+been|\s+gets|\s+get|\s+can\s+be)\s+(?:said|written|told|reported"
        rf"|recorded|claimed|stated|noted|mentioned|learned|learnt)\s+{_ABOUT}\s+{_TERM}(?:\s+{_IN}\s+(?P<scope>{_S}))?{_END}",
        rf"\bwhat\s+(?:is|was|are|were)\s+known\s+{_ABOUT}\s+{_TERM}\s+{_IN}\s+(?P<scope>{_S}){_END}",
        rf"\bhow\s+(?:do|does|did|can|could|would)\s+{_S}\s+{_DESCRIBE}\s+{_TERM}{_END}",
        rf"\b(?:tell\s+(?:me|us)|summari[sz]e|explain|describe|show\s+(?:me|us)|list)\s+(?:what|how)\s+{_S}\s+"
        rf"(?:(?:have|has|had)\s+to\s+say|say|said|tell|told|write|wrote|report|reported|reveal|revealed"
        rf"|{_DESCRIBE}|describe[sd]?|portray(?:s|ed)?|depict(?:s|ed)?)\s+(?:{_ABOUT}\s+)?{_TERM}{_END}",
        rf"\bhow\s+(?:is|are|was|were)\s+{_TERM}\s+{_DESCRIBED}\s+{_IN}\s+{_S}{_END}",
        rf"\b(?:overview|summary|survey|picture|account|synopsis)\s+of\s+{_TERM}\s+{_IN}\s+{_S}{_END}",
        rf"\bsummari[sz]e\s+{_TERM}\s+{_IN}\s+{_S}{_END}",
        rf"\b(?:in|across|throughout|within)\s+{_S}\s*,?\s*how\s+(?:is|are|was|were)\s+{_TERM}\s+{_DESCRIBED}{_END}",
        rf"\bwhat\s+(?:roles?|parts?)\s+(?:do|does|did)\s+{_TERM}\s+play\s+{_IN}\s+{_S}{_END}",
        rf"\bwhat\s+(?:do|can|did|could)\s+(?:we|you|i|readers|one)\s+(?:learn|find\s+out|know|read|hear|gather)\s+"
        rf"{_ABOUT}\s+{_TERM}\s+(?:from|in)\s+{_S}{_END}",
        rf"\bwhat\s+(?:picture|image|view|portrait|impression|sense)\s+of\s+{_TERM}\s+(?:emerges|do\s+we\s+get|is\s+given"
        rf"|is\s+painted|comes\s+through|do\s+(?:they|you)\s+get)\s+(?:from|in)\s+{_S}{_END}",
        rf"\b{_S}(?:['’]s?)?\s+(?:views?|perspectives?|positions?|treatment|take|portrayals?|depictions?|accounts?)"
        rf"\s+(?:on|of)\s+{_TERM}{_END}",
    ),
    "themes": (
        rf"\b{_ADJ}(?:\s*(?:,|and|or)\s*{_ADJ})*\s+{_THEMES}\b",
        rf"\b{_THEME_ANY}\s+(?:recur|recurs|appear|appears|emerge|emerges|come\s+up|dominate|run|stand\s+out"
        rf"|keep\s+coming\s+up|show\s+up)\b(?:\s+\w+){{0,2}}\s+(?:in|across|throughout|within|among|through)\s+{_S}",
        rf"\b{_THEME_ANY}\s+(?:of|in|across|throughout|within|among|running\s+through|that\s+run\s+through"
        rf"|found\s+in|shared\s+by|behind)\s+{_S}",
        rf"\bwhat\s*(?:['’]s|\s+is|\s+are|\s+were|\s+was)\s+{_S}\s+(?:(?:all|mostly|mainly|generally|really"
        rf"|chiefly|largely|usually|typically)\s+)?about{_END}",
        rf"\bwhat\s+(?:do|does|did)\s+{_S}\s+(?:(?:mostly|mainly|generally|usually|typically|chiefly|largely"
        rf"|all)\s+)?(?:cover|discuss|deal\s+with|talk\s+about|treat|address|concern|focus\s+on|explore|tell"
        rf"|describe|say|contain){_END}",
        rf"\bwhat\s+(?:is|are)\s+(?:in|inside)\s+{_S}{_END}",
        rf"\bwhat\s+(?:kinds?|sorts?|types?)\s+of\s+(?:stories|tales|things|documents|articles|papers|events|subjects"
        rf"|material|content)\s+(?:are|appear|is|do|does)\b.*?\b{_S}",
        rf"\bbig\s+picture\b.*?\b{_S}|\b{_S}.*?\bbig\s+picture\b",
    ),
    "what_themes": (rf"\b(?:what|which)\s+(?:(?:kinds?|sorts?|types?)\s+of\s+)?(?:{_ADJ}\s+)?{_THEMES}\b",),
    "overview": (r"\b(?:overview|summary|synopsis|gist|survey)\b|\bsummari[sz](?:e|ing)\b|\bsum\s+up\b",),
    "overview_of": (
        r"\b(?:overview|summary|synopsis|gist|survey)\s+of\s+(?P<object>[^?!;]+?)"
        + _END
        + r"|\bsummari[sz]e\s+(?P<object2>[^?!;]+?)"
        + _END,
    ),
}


@cache
def patterns(corpora: tuple[str, ...]) -> dict[str, list[re.Pattern]]:
    """The table compiled for these corpus names (sorted): each group's patterns, in order."""
    scope = _scope(corpora)
    return {group: [re.compile(p.replace(_S, scope), re.I) for p in table] for group, table in PATTERNS.items()}
