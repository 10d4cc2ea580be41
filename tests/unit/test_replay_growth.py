"""bench/replay.py --explain --own: the gold passages the graph mode holds on their own set's corpus
and loses on a larger one, by cause, on small passage graphs built by hand."""

from __future__ import annotations

import importlib.util
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[2] / "bench" / "replay.py"
_SPEC = importlib.util.spec_from_file_location("bench_replay", _PATH)
replay = importlib.util.module_from_spec(_SPEC)
sys.modules["bench_replay"] = replay  # dataclasses resolve their module by name
_SPEC.loader.exec_module(replay)

DIM = 16


def vector(name: str) -> np.ndarray:
    v = np.random.default_rng(zlib.crc32(name.encode())).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def corpus(names: list[str], phrases: dict[str, list[str]] | None = None, about: dict | None = None, vectors=None):
    """A passage graph: one chunk per document, the chunk id its name, shared phrases by name."""
    index = {n: i for i, n in enumerate(names)}
    members = [[index[n] for n in chunks] for chunks in (phrases or {}).values()]
    by_chunk: dict[int, list[tuple[int, int]]] = {}
    for p, chunks in enumerate(members):
        for c in chunks:
            by_chunk.setdefault(c, []).append((p, len(chunks)))
    about = about or {}
    mentions: dict[int, list[tuple[str, str]]] = {}
    for entity, chunks in about.items():
        for n in chunks:
            mentions.setdefault(index[n], []).append((entity, "own-title"))
    return replay.Corpus(
        ids=list(names),
        doc=list(names),
        title=[n.upper() for n in names],
        words=[frozenset() for _ in names],
        vectors=np.array([(vectors or {}).get(n, vector(n)) for n in names]),
        phrases=by_chunk,
        members=members,
        phrase_names=list((phrases or {}).keys()),
        mentions=mentions,
        about={e: [index[n] for n in chunks] for e, chunks in about.items()},
    )


def case(c, question: np.ndarray, gold: str, hybrid: list[str], about: list[str] = ()):
    index = {n: i for i, n in enumerate(c.ids)}
    return replay.Case(
        text=f"which {gold}?",
        gold={gold},
        keywords=[],
        vector=question,
        vector_list=[],
        fulltext_list=[],
        hybrid=[index[n] for n in hybrid],
        about=[index[n] for n in about],
    )


@pytest.fixture
def weights():
    return replay.shipped()


OWN = ["a", "b", "c", "d", "e", "f", "g"]


def test_a_seed_pushed_down_by_another_sets_passage_is_a_distractor(weights):
    q = vector("question")
    own, union = corpus(OWN), corpus([*OWN, "x"])
    cut = replay.growth_cut(
        own,
        [case(own, q, "e", ["a", "b", "c", "d", "e", "f"])],
        union,
        [case(union, q, "e", ["x", "a", "b", "c", "d", "e", "f"])],
        weights,
    )
    assert cut["lost"] == {**dict.fromkeys(replay.GROWTH_CAUSES, 0), "distractor from another set": 1}
    assert "'X'" in cut["examples"]["distractor from another set"][0]
    assert (cut["own_R@5"], cut["union_R@5"]) == (100.0, 0.0)


def test_a_link_whose_phrase_more_passages_share_is_a_phrase_weight_cause(weights):
    q = vector("question")
    # the gold g is a's only neighbour on its own corpus; on the union the phrase is shared by two
    # passages of another set, one nearer the question, and g falls behind the seeds
    near = q * 0.9 + vector("y") * 0.1
    vectors = {"y": near / np.linalg.norm(near)}
    own = corpus(OWN, {"blue river": ["a", "g"]})
    union = corpus([*OWN, "y", "z"], {"blue river": ["a", "g", "y", "z"]}, vectors=vectors)
    seeds = ["a", "b", "c", "d", "e", "f"]
    cut = replay.growth_cut(own, [case(own, q, "g", seeds)], union, [case(union, q, "g", seeds)], weights)
    assert cut["lost"]["phrase weight (document frequency)"] == 1
    assert "0.50 -> 0.25" in cut["examples"]["phrase weight (document frequency)"][0]


def test_a_question_entity_about_more_passages_is_a_title_link_cause(weights):
    q = vector("question")
    own = corpus(OWN, about={"E": ["g"]})
    extra = ["x1", "x2", "x3", "x4"]
    union = corpus([*OWN, *extra], about={"E": [*extra, "g"]})
    cut = replay.growth_cut(
        own,
        [case(own, q, "g", ["a", "b", "c"], about=["g"])],
        union,
        [case(union, q, "g", ["a", "b", "c"], about=[*extra, "g"])],
        weights,
    )
    assert cut["lost"]["title link to several passages"] == 1
    assert cut["lost"]["distractor from another set"] == 0


def test_nothing_lost_when_the_union_ranks_the_same(weights):
    q = vector("question")
    own, union = corpus(OWN), corpus([*OWN, "x"])
    seeds = ["a", "b", "c", "d", "e"]
    cut = replay.growth_cut(own, [case(own, q, "e", seeds)], union, [case(union, q, "e", seeds)], weights)
    assert sum(cut["lost"].values()) == 0
    assert cut["union_R@5"] == 100.0
