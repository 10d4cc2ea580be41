"""The extractive answer embeds little: each sentence once, at most `max_embedded` of them
(those sharing the most question keywords), and not the question when its vector is given."""

from __future__ import annotations

from types import SimpleNamespace

from graphrag_cypher.retrieval.answer import Source, extractive_answer

LANTERN = (
    "With her own hands Old Maren made the silver lantern, and she gave it to Pell. "
    "Pell walked home through the Birch Wood singing. "
    "The heron below Tansy Mill watched him pass. "
)
TROLL = (
    "One moonless night Grumhold crept down into Hollowmere and stole the silver lantern. "
    "The villagers searched the hills for a week. "
    "Nobody in Hollowmere slept well that winter. "
)
FILLER = " ".join(f"Sentence number {n} says nothing about the matter at hand." for n in range(30))


def sources() -> list[Source]:
    def chunk(text):
        return SimpleNamespace(text=text)

    return [
        Source("T2", "story:sample:T2", "The Silver Lantern", None, [chunk(LANTERN + FILLER), chunk(LANTERN)]),
        Source("T5", "story:sample:T5", "The Troll Who Stole the Light", None, [chunk(TROLL + FILLER)]),
    ]


class Recorder:
    """A real embedder stand-in: a bag-of-words vector per text, and every call recorded."""

    def __init__(self):
        self.calls: list[list[str]] = []

    def vector(self, text: str) -> list[float]:
        words = text.lower().replace(",", " ").replace(".", " ").replace("?", " ").split()
        v = [float(sum(w.startswith(k) for w in words)) for k in ("made", "silver", "lantern", "stole", "who")]
        norm = sum(x * x for x in v) ** 0.5 or 1.0
        return [x / norm for x in v]

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [self.vector(t) for t in texts]


def test_few_sentences_are_embedded_and_the_answer_cites_both_sources():
    embed = Recorder()
    question = "Who made the silver lantern, and who stole it?"
    answer = extractive_answer(
        question,
        sources(),
        embed,
        question_vector=embed.vector(question),
        keywords=["made", "silver", "lantern", "stole"],
        max_embedded=8,
    )
    assert len(embed.calls) == 1, "one batch"
    (texts,) = embed.calls
    assert question not in texts, "the question's vector is reused"
    assert len(texts) == 8 and len(set(texts)) == len(texts), "each sentence once, at most max_embedded"
    assert "Old Maren made the silver lantern" in answer and "[T2]" in answer
    assert "stole the silver lantern" in answer and "[T5]" in answer
    assert "Sentence number" not in answer


def test_without_a_question_vector_the_question_is_embedded_with_the_sentences():
    embed = Recorder()
    extractive_answer("Who stole the silver lantern?", sources(), embed, max_embedded=5)
    assert len(embed.calls) == 1 and embed.calls[0][0] == "Who stole the silver lantern?"
    assert len(embed.calls[0]) == 6


def test_without_an_embedder_word_overlap_chooses():
    answer = extractive_answer("Who stole the silver lantern?", sources(), None)
    assert "stole the silver lantern. [T5]" in answer
