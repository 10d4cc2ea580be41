"""Abstention: the answer that says the graph holds no answer, instead of quoting passages about
something else.

An :class:`Abstention` is carried by an Answer (``ask --json`` key ``"abstained"``, null when
the question was answered). Its answer text is one plain sentence, it cites nothing and has no
sources; the passages nearest the question may be listed apart, in ``closest``, as "closest,
not an answer". Every face shows it the same way: the sentence, then those passages under that
heading.

Who abstains (``by``):

- ``"gate"``: the score gate or the relevance judge left no evidence;
- ``"coverage"``: without an LLM, the evidence does not cover what the question asks about
  (its named entities and content terms), or no one passage holds the subject it presupposes a
  fact about together with what it says of it (a false premise: retrieval/abstain_cover.py);
- ``"lookup"``: the question asks for a relation of an entity the graph holds, and that
  entity has no such edge ("The graph has no record of who killed Jaime Lannister.");
- ``"llm"``: the LLM answered that the sources do not say.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from graphrag_cypher import lexicon

from .abstain_cover import Together, subject, together
from .answer import NOT_IN_SOURCES, neutral
from .base import escape_lucene
from .gate import env_number
from .question import lemmas

CLOSEST_HEADING = "Closest, not an answer:"
MAX_CLOSEST = 3  # passages listed apart under CLOSEST_HEADING
CLOSEST_CHARS = 240  # of each one's text


@dataclass
class Abstention:
    """Why the answer is "the graph holds no answer", and the passages nearest the question."""

    reason: str  # one line: what the graph lacks
    by: str  # "gate", "coverage", "lookup" or "llm"
    closest: list[dict] = field(default_factory=list)  # {document_id, title, uri, text, score}
    coverage: dict | None = None  # by "coverage": what was measured against which thresholds

    @property
    def sentence(self) -> str:
        """The answer text: one plain sentence that the graph holds no answer, and why."""
        return f"The graph holds no answer to this: {self.reason}."

    def to_dict(self) -> dict:
        out: dict = {"by": self.by, "reason": self.reason, "closest": self.closest, "heading": CLOSEST_HEADING}
        if self.coverage is not None:
            out["coverage"] = self.coverage
        return out


def closest_of(evidence, limit: int = MAX_CLOSEST) -> list[dict]:
    """The first `limit` evidence chunks (best first) as "closest, not an answer" entries."""
    out: list[dict] = []
    for ev in evidence[:limit]:
        text = " ".join((ev.text or "").split())
        out.append(
            {
                "document_id": ev.document_id,
                "title": ev.title,
                "uri": ev.uri,
                "text": text[:CLOSEST_CHARS] + ("…" if len(text) > CLOSEST_CHARS else ""),
                "score": None if ev.score is None else round(float(ev.score), 4),
            }
        )
    return out


# --- coverage: does the evidence speak of what the question asks about? -----------------------

# Without an LLM the answer abstains when (1) a name or content term of the question that no
# passage found mentions is in no chunk of the graph at all, (2) more than half of its names are
# in no passage found, (3) the passages cover under `share` of its names and content terms
# and their best cosine with the question is under `cosine`. (share, cosine) per embedder,
# calibrated with bench/abstain.py on its unanswerable and answerable questions and MuSiQue-100
# (README "When the graph doesn't say: abstention"): a wrong abstention costs an answer, so
# they sit where no answerable question of those sets and at most 4 % of MuSiQue's fall; or (4):
DEFAULT_COVERAGE = {"sentence-transformers/all-MiniLM-L6-v2": (0.5, 0.45)}
FALLBACK_COVERAGE = (0.5, 0.45)  # other embedders, until calibrated: GRAPHRAG_ABSTAIN_SHARE / _COSINE
# (4) The question presupposes a fact about a subject it names ("Why did Hansel marry the
# witch?") and no passage found, with its neighbours, holds that name together with `together`
# of the question's names and terms (retrieval/abstain_cover.py). 0.7: two of three is too
# few, three of four enough; on bench/abstain.py's sets any value in (0.67, 0.75] scores the
# same, and no MuSiQue-100 question has such a subject. GRAPHRAG_ABSTAIN_TOGETHER; 0 turns it off.
DEFAULT_TOGETHER = {"sentence-transformers/all-MiniLM-L6-v2": 0.7}
FALLBACK_TOGETHER = 0.7  # the rule reads words, not vectors: the same for every embedder
_WORD = re.compile(r"\w+(?:[-'’]\w+)*")
_POSSESSIVE = re.compile(r"['’]s?$")


# A noun no chunk of the graph holds abstains at any share when the question names an entity
# ("the telephone number of Tansy Mill": an absent fact of it), as a name no chunk holds does
# ("Peru"); in a question that names none, only when the passages cover less than this share of
# it: where they cover the rest, the graph words that one thing otherwise ("the mountain above
# it" is "Mount Greyhorn").
UNKNOWN_THING_SHARE = 0.6


@dataclass
class Coverage:
    """What of the question the evidence mentions: its names (capitalised spans, numbers, the
    graph's entities it named) and its content terms, each by Snowball stem."""

    names: list[str]
    terms: list[str]
    missing_names: list[str]
    missing_terms: list[str]
    unknown: list[str]  # of those missing, the ones no chunk of the whole graph mentions
    share: float  # the share of names and terms that some passage mentions
    cosine: float | None  # the gate's best cosine of the evidence with the question
    rerank: float | None  # the reranker's best score, when one reordered the evidence
    together: Together | None = None  # the passage holding most of the question with one of its names
    unknown_things: bool = False  # `unknown` are nouns, not names: a synonym may stand for one

    @property
    def names_missing(self) -> bool:
        """More than half of the question's names are in no passage found."""
        return bool(self.names) and len(self.missing_names) > len(self.names) / 2

    def to_dict(self, thresholds: dict) -> dict:
        return {
            "names": self.names,
            "terms": self.terms,
            "missing_names": self.missing_names,
            "missing_terms": self.missing_terms,
            "in_no_chunk": self.unknown,
            "share": round(self.share, 3),
            "best_similarity": None if self.cosine is None else round(self.cosine, 4),
            "rerank_score": None if self.rerank is None else round(self.rerank, 4),
            "together": None if self.together is None else self.together.to_dict(),
            "thresholds": thresholds,
        }


def coverage_thresholds(settings) -> dict:
    """{share, cosine, rerank, together}: GRAPHRAG_ABSTAIN_SHARE, GRAPHRAG_ABSTAIN_COSINE,
    GRAPHRAG_ABSTAIN_RERANK (the reranker's score under which the evidence is no answer: its scale
    is the reranker's own, so there is no default) and GRAPHRAG_ABSTAIN_TOGETHER (the share one
    passage must hold with the subject), else the values calibrated for the embedder."""
    share, cosine = DEFAULT_COVERAGE.get(settings.embedder, FALLBACK_COVERAGE)
    return {
        "share": env_number("GRAPHRAG_ABSTAIN_SHARE", share),
        "cosine": env_number("GRAPHRAG_ABSTAIN_COSINE", cosine),
        "rerank": env_number("GRAPHRAG_ABSTAIN_RERANK", None),
        "together": env_number("GRAPHRAG_ABSTAIN_TOGETHER", DEFAULT_TOGETHER.get(settings.embedder, FALLBACK_TOGETHER)),
    }


def uncovered(asked, found, evidence: list, gate) -> Abstention | None:
    """The shared tail's abstention when, without an LLM, the gated `evidence` does not cover
    what the question asks about (None: it does, or an LLM writes the answer and says so itself,
    or there is no evidence left to judge). GRAPHRAG_ABSTAIN=off turns it off."""
    if asked.llm_ready or (os.environ.get("GRAPHRAG_ABSTAIN") or "").strip().lower() == "off":
        return None
    if not found.evidence:
        return Abstention("no passage was found for it", "coverage")
    if not evidence:
        return None  # the gate left nothing: its own abstention
    thresholds = coverage_thresholds(asked.settings)
    rerank = None
    if found.reranked is not None and found.reranked.moves:
        rerank = max(m["score"] for m in found.reranked.moves)
    # the question without its time expression: "the past 2 months" names nothing to cover
    measured = measure(asked.text, asked.analysis, evidence, gate.best if gate else None, rerank)
    measured.unknown = in_no_chunk(asked.graph, measured.missing_names)
    names, terms = presupposed(asked.text, measured)
    measured.together = together(asked.graph, names, terms, evidence, _mentions, _passage)
    if not measured.unknown and not measured.names_missing:  # else decided without the tagger
        measured.unknown = in_no_chunk(asked.graph, things(asked.text, measured.missing_terms))
        measured.unknown_things = bool(measured.unknown)
    reason = verdict(measured, thresholds)
    if reason is None:
        return None
    return Abstention(reason, "coverage", closest_of(evidence), measured.to_dict(thresholds))


def verdict(measured: Coverage, thresholds: dict) -> str | None:
    """Why the evidence is no answer (the abstention's reason), or None when it covers the question."""
    things = measured.unknown_things and not measured.names  # about a named entity: an absent fact of it
    if measured.unknown and (not things or measured.share < UNKNOWN_THING_SHARE):
        return f"no passage mentions {_listing(measured.unknown)}"
    if measured.names_missing:
        return f"the passages found do not mention {_listing(measured.missing_names)}"
    apart = measured.together
    if apart is not None and apart.share < (thresholds.get("together") or 0.0):
        return _apart(apart)
    floor = thresholds.get("rerank")
    if floor is not None and measured.rerank is not None and measured.rerank < floor:
        return f"the reranker scores no passage as an answer (best {measured.rerank:.3g} < {floor:g})"
    weak = measured.cosine is not None and measured.cosine < thresholds["cosine"]
    if measured.share < thresholds["share"] and weak:
        if not measured.missing_terms:
            return f"the passages found cover {measured.share:.0%} of what it asks about"
        return f"the passages found do not mention {_listing(measured.missing_terms)}"
    return None


def _apart(apart: Together) -> str:
    terms = [neutral(t) for t in apart.missing[:3]]
    quoted = ", ".join(f"'{t}'" for t in terms[:-1]) + (" or " if len(terms) > 1 else "") + f"'{terms[-1]}'"
    if not apart.names:
        return f"no passage found says {quoted} together"
    return f"no passage says {_listing(apart.names)} and {quoted} together"


def _listing(items: list[str]) -> str:
    shown = [neutral(i) for i in items[:3]]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def measure(question: str, analysis, evidence: list, cosine: float | None, rerank: float | None) -> Coverage:
    """The question's names and content terms, and which of them the evidence's text mentions."""
    names = question_names(question, analysis)
    named = {_stem(w) for n in names for w in _words(n)}
    terms = [
        t for t in dict.fromkeys(analysis.keywords or []) if _content(t) and not {_stem(w) for w in _words(t)} <= named
    ]
    passages = [_passage(f"{ev.title or ''}\n{ev.text or ''}") for ev in evidence]
    missing_names = [n for n in names if not any(_mentions(p, n) for p in passages)]
    missing_terms = [t for t in terms if not any(_mentions(p, t) for p in passages)]
    asked = len(names) + len(terms)
    share = 1.0 if not asked else 1 - (len(missing_names) + len(missing_terms)) / asked
    return Coverage(names, terms, missing_names, missing_terms, [], share, cosine, rerank)


def presupposed(question: str, measured: Coverage) -> tuple[list[str], list[str]]:
    """The names and terms one passage must hold together: all of them, when the question
    presupposes a fact about a subject it names (abstain_cover.subject); else none."""
    if subject(_words(question), [_words(n) for n in measured.names]) is None:
        return [], []
    return measured.names, measured.terms


def things(question: str, terms: list[str]) -> list[str]:
    """The terms that name things (nouns, numbers: spaCy's tagger, where it is installed), not
    actions: a verb of the question is often worded otherwise in the answer ("stop" / "stood
    still"), a thing seldom is. Without spaCy, none."""
    if not terms:
        return []  # spaCy is not loaded for nothing
    nouns = lemmas.nouns(question)
    framing = lexicon.words("abstain_framing_nouns")  # "what news of …": not what it is about
    return [
        t
        for t in terms
        if nouns is not None and all(w in nouns for w in t.lower().split()) and t.lower() not in framing
    ]


def in_no_chunk(graph, terms: list[str]) -> list[str]:
    """The terms no chunk of the graph mentions (every word of a term in one chunk, as written
    or as a word its stem starts: "marry" finds "married"), by the full-text index."""
    queries = [{"term": t, "query": _lucene(t)} for t in terms]
    queries = [q for q in queries if q["query"]]
    if not queries:
        return []
    found = {row["term"] for row in graph.read("retrieval/terms_in_graph", terms=queries)}
    return [q["term"] for q in queries if q["term"] not in found]


def _lucene(term: str) -> str:
    parts = []
    for word in _words(term):
        stem = _stem(word)
        forms = [escape_lucene(word)]
        if word.isascii() and word.isalnum() and len(stem) >= 3:
            forms.append(escape_lucene(stem) + "*")
        parts.append("(" + " OR ".join(forms) + ")")
    return " AND ".join(parts)


def question_names(question: str, analysis) -> list[str]:
    """What the question names: the graph's entities it matched, runs of capitalised words (a
    first word that is a question word aside; "of", "the" inside a run kept), numbers; a
    possessive ends a name ("Arya Stark's" → Arya Stark)."""
    stop = lexicon.function_words() | lexicon.stop_words(analysis.language or "en")
    connectors = lexicon.words("question_name_connectors")
    runs: list[list[str]] = []
    run: list[str] = []
    pending: list[str] = []
    for i, match in enumerate(_WORD.finditer(question)):
        token = match.group(0)
        word = _POSSESSIVE.sub("", token)
        if (word[:1].isupper() and not (i == 0 and word.lower() in stop)) or word.isdigit():
            run, pending = [*run, *pending, word], []
            if word != token:
                runs.append(run)
                run = []
        elif run and word.lower() in connectors:
            pending.append(word)
        else:
            runs.append(run)
            run, pending = [], []
    runs.append(run)
    names = [e.get("matched") or e.get("name") or "" for e in analysis.entities or []]
    first = next(iter(_WORD.findall(question)), "")
    # one capitalised word opening the question is as likely a word as a name ("Besides, …")
    names += [" ".join(r) for r in runs if r and r != [first] and not all(w.lower() in stop for w in r)]
    keys: dict[str, str] = {}  # stems -> the name as the question (or the graph) writes it
    for name in names:
        keys.setdefault(" ".join(_stem(w) for w in _words(name)), name)
    return [n for k, n in keys.items() if k and not any(o != k and f" {k} " in f" {o} " for o in keys)]


def _content(term: str) -> bool:
    words = _words(term)
    stop = lexicon.function_words()
    return bool(words) and not all(w in stop for w in words)


def _words(text: str) -> list[str]:
    """The words of `text`, lower case, accents folded ("Tekezé" and "Tekeze" are one word)."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text or "") if not unicodedata.combining(c))
    return [w.lower() for w in re.findall(r"\w+", folded)]


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return lexicon.stem(lexicon.singular(word) if word.isascii() else word)


@dataclass
class _Passage:
    lower: str
    stems: set[str]


def _passage(text: str) -> _Passage:
    words = _words(text)
    return _Passage(" ".join(words), {_stem(w) for w in words})


def _mentions(passage: _Passage, term: str) -> bool:
    """Every word of `term` is in the passage, by stem; a word of a script without spaces
    (Chinese), as a substring."""
    words = _words(term)
    return bool(words) and all((_stem(w) in passage.stems) if w.isascii() else (w in passage.lower) for w in words)


# --- with an LLM: the model says the sources do not hold the answer -----------------------------

# What models write instead of answer.NOT_IN_SOURCES when they word it their own way
_NOT_IN_SOURCES = re.compile(
    r"\b(?:sources?|context|passages?|documents?|graph|information provided)\b[^.]{0,40}?"
    r"\b(?:do|does|did)\s*(?:not|n't)\s+(?:contain|say|mention|include|provide|state|answer|give|hold)"
    r"|\bnot\s+(?:in|mentioned in|stated in|covered by|found in)\s+the\s+(?:sources?|context|passages?)"
    r"|\bno\s+(?:information|answer|mention)\s+(?:about|of|on|to|in)\b",
    re.IGNORECASE,
)


def not_in_sources(checked, llm_used: bool, evidence: list) -> Abstention | None:
    """The LLM's answer as an abstention when it cites nothing and says the sources do not hold
    the answer (NOT_IN_SOURCES, or a sentence of that kind); None for any other answer."""
    if not llm_used or checked.cited:
        return None
    text = " ".join(checked.text.split())
    if NOT_IN_SOURCES.lower().rstrip(".") not in text.lower() and not _NOT_IN_SOURCES.search(text):
        return None
    reason = f"the LLM found no answer in the {len(evidence)} passage(s) it was given"
    return Abstention(reason, "llm", closest_of(evidence))
