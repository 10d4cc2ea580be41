"""Co-occurrence: does one passage say what the question presupposes about the subject it names?

Coverage over the union of the evidence misses a false premise whose words are each somewhere:
"Why did Hansel marry the witch?" finds Hansel in one tale, a witch in it too, and "married" in
another. A fact about a named subject is said in one place, so for a question that names one
and asks something of it, some passage found (with the chunks just before and after it in its
document, for a fact cut by a chunk boundary) must hold the name together with enough of the
question's other content terms. Terms are compared by stem, and where a term is not there by
stem, by the passage's lemmas (spaCy, where installed: "sold" is "sell", "became" is "become")
or as a derivation ("service" / "served").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphrag_cypher import lexicon

from .question import lemmas

# a relative or subordinate word: the question chains facts ("the city where X was born"), which
# multi-hop questions spread over several passages
_CLAUSE = frozenset({"where", "which", "that", "who", "whose", "whom", "when"})


@dataclass
class Together:
    """The passage (with its neighbours) that holds the most of the question together with one
    of its names: what it holds and lacks, and the share of the question's names and terms."""

    share: float
    names: list[str] = field(default_factory=list)  # the names that passage mentions
    missing: list[str] = field(default_factory=list)  # the names and terms it does not
    title: str | None = None
    score: float | None = None  # that passage's retrieval score

    def to_dict(self) -> dict:
        return {
            "share": round(self.share, 3),
            "names": self.names,
            "missing": self.missing,
            "title": self.title,
            "score": None if self.score is None else round(float(self.score), 4),
        }


def together(graph, names: list[str], terms: list[str], evidence: list, mentions, passage) -> Together | None:
    """The best passage for the question's `names` and `terms` together (None: the question
    names nothing or asks nothing of it). `mentions(passage, term)` and `passage(text)` are
    the coverage's own tests, so the two agree on what "mentions" means."""
    if not names or not terms or not evidence:
        return None
    around = neighbours(graph, [ev.chunk_id for ev in evidence])
    best: Together | None = None
    for ev in evidence:
        before, after = around.get(ev.chunk_id, (None, None))
        text = "\n".join(t for t in (ev.title, before, ev.text, after) if t)
        window = passage(text)
        held = [n for n in names if mentions(window, n)]
        if not held:
            continue
        missing = [n for n in names if n not in held]
        lacking = [t for t in terms if not mentions(window, t)]
        if lacking:
            said = lemmas.lemma_set(text)
            lacking = [t for t in lacking if not _said(t, said) and not _derived(t, window.stems)]
        missing += lacking
        share = 1 - len(missing) / (len(names) + len(terms))
        if best is None or share > best.share:
            best = Together(share, held, missing, ev.title, ev.score)
    return best or Together(0.0, [], list(names) + list(terms))


def subject(words: list[str], names: list[list[str]]) -> int | None:
    """The index in `names` of the question's subject, where the question presupposes a fact
    about it: it opens with a question word, chains no clause, and the name stands right after
    an auxiliary ("the" and one title between: "the giant Brannock"; not "the author of X",
    a hop to someone else), not as a possessive, with a content word after it (an apposition
    "the fox" between): "Why did Hansel marry …", "When did Reynold the fox become …". `words`
    and `names` are lower case and accent-folded. None: no such subject."""
    if not words or words[0] not in lexicon.words("abstain_openers"):
        return None
    if any(w in _CLAUSE for w in words[1:]):
        return None
    aux, function = lexicon.words("abstain_auxiliaries"), lexicon.function_words()
    for n, name in enumerate(names):
        for i in range(1, len(words) - len(name) + 1):
            if not name or words[i : i + len(name)] != name:
                continue
            j = i - 1
            if j > 1 and words[j] not in function and words[j - 1] == "the":
                j -= 1  # a title: "the giant Brannock"
            if j > 1 and words[j] == "the":
                j -= 1
            if words[j] not in aux:
                continue
            k = i + len(name)
            if k + 1 < len(words) and words[k] == "the":
                k += 2  # an apposition: "Reynold the fox"
            if k < len(words) and words[k] != "s" and words[k] not in function:
                return n
    return None


def _said(term: str, said: frozenset[str]) -> bool:
    words = lemmas.lemmas(term)
    return bool(words) and all(w in said for w in words)


def _derived(term: str, stems: set[str]) -> bool:
    """Every word of `term` is in the passage as a derivation of one stem: one stem starts the
    other, of 4 letters at least ("service" / "served", "marriage" / "married")."""
    words = [lexicon.stem(w.lower()) for w in term.split()]
    return bool(words) and all(
        any(min(len(w), len(s)) >= 4 and (s.startswith(w) or w.startswith(s)) for s in stems) for w in words
    )


def neighbours(graph, ids: list[str]) -> dict[str, tuple[str | None, str | None]]:
    """{chunk id: (text before, text after)} in its document, by NEXT_CHUNK."""
    if not ids:
        return {}
    rows = graph.read("retrieval/chunk_neighbours", ids=list(dict.fromkeys(ids)))
    return {row["chunkId"]: (row["before"], row["after"]) for row in rows}
