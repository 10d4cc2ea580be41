"""Sentence splitting and chunking are linear in the length of a section: a long chapter,
transcript or single-page wiki export without paragraph breaks must not take quadratic time.
Ratios measured side by side in one process (16x the text within 40x the time), never an
absolute timing; the splitter's answers on tricky cases stay what they were."""

from __future__ import annotations

import random
import signal
import time

import pytest

from graphrag_cypher.chunking import chunk_text
from graphrag_cypher.text import sentence_spans, split_sentences

WORDS = (
    "the king had three daughters and the youngest was so beautiful that the sun itself which has "
    "seen so much was astonished whenever it shone in her face near the castle lay a great dark forest"
).split()
EXTRAS = ["Dr. Grimm", "e.g. a well", "St. Paul", "J. R. Tolkien", "3.5 miles", "the U.S. roads", "“Why?” she asked."]


def prose(size: int, seed: int = 0) -> str:
    """Continuous prose, no paragraph breaks: sentences with abbreviations, initials, decimals."""
    rnd = random.Random(seed)
    sentences, total = [], 0
    while total < size:
        words = [rnd.choice(WORDS) for _ in range(rnd.randint(6, 24))]
        if rnd.random() < 0.2:
            words.insert(rnd.randrange(len(words)), rnd.choice(EXTRAS))
        sentence = " ".join(words)
        sentence = sentence[0].upper() + sentence[1:] + rnd.choice(".....!?")
        sentences.append(sentence)
        total += len(sentence) + 1
    return " ".join(sentences)[:size]


class _TooSlow(Exception):
    pass


def _timed(func, text: str, budget: float | None = None) -> float:
    """CPU seconds `func(text)` took (other work on a shared machine does not count); _TooSlow
    once it has used `budget` CPU seconds (a quadratic splitter would take half an hour on 1 MB)."""

    def stop(signum, _frame):
        raise _TooSlow

    previous = signal.signal(signal.SIGVTALRM, stop)
    try:
        if budget is not None:
            signal.setitimer(signal.ITIMER_VIRTUAL, budget)
        start = time.process_time()
        func(text)
        return time.process_time() - start
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


def within_ratio(func, small: str, large: str, ratio: float = 40) -> str | None:
    """None when `func(large)` takes less than `ratio` times the CPU time of `func(small)` (best of
    three); else the figures. A busy machine gets a second try; one in bound is enough."""
    figures = []
    for _ in range(2):
        base = min(_timed(func, small) for _ in range(3))
        budget = max(ratio * base, 0.05)
        try:
            took = _timed(func, large, budget)
        except _TooSlow:
            figures.append(f"small {base:.4f} s, large over {budget:.2f} s")
            continue
        if took < ratio * base:
            return None
        figures.append(f"small {base:.4f} s, large {took:.3f} s")
    return "; ".join(figures)


@pytest.mark.parametrize("func", [sentence_spans, chunk_text], ids=["sentence_spans", "chunk_text"])
def test_sixteen_times_the_prose_takes_less_than_forty_times_as_long(func):
    slow = within_ratio(func, prose(64 * 1024), prose(1024 * 1024))
    assert slow is None, f"{func.__name__}: 1 MB of prose took more than 40x as long as 64 KB ({slow})"


@pytest.mark.parametrize(
    "text, expected",
    [
        # A word before the period longer than the look-back window: still one word.
        ("x" * 200 + "y. Next one.", ["x" * 200 + "y.", "Next one."]),
        ("Abc" + ".b" * 100 + ". Next one.", ["Abc" + ".b" * 100 + ".", "Next one."]),
        ("It was " + "u.s" * 50 + ". Then it ended.", ["It was " + "u.s" * 50 + ". Then it ended."]),
        # Initials and abbreviations after a long run of words.
        ("word " * 500 + "J. R. Tolkien. Done.", ["word " * 499 + "word J. R. Tolkien.", "Done."]),
        ("She met Dr. Who. Then Mr. X.", ["She met Dr. Who.", "Then Mr. X."]),
        # A newline right before the period: the word before the newline counts (as before).
        ("The Dr\n. Smith came. Then left.", ["The Dr\n. Smith came.", "Then left."]),
        ("The end\n. Smith came.", ["The end\n.", "Smith came."]),
        ("Ends here. “Quoted.” (Bracketed.) 3 is next.", ["Ends here.", "“Quoted.”", "(Bracketed.)", "3 is next."]),
    ],
)
def test_the_splitter_keeps_its_answers(text, expected):
    assert split_sentences(text) == expected


def test_long_prose_splits_as_its_pieces_do():
    """Splitting is local: a long text gives the sentences its sentence-aligned halves give."""
    text = prose(200_000, seed=3)
    spans = sentence_spans(text)
    cut = spans[len(spans) // 2][0]
    left = sentence_spans(text[:cut])
    right = [(s + cut, e + cut) for s, e in sentence_spans(text[cut:])]
    assert spans == left + right
