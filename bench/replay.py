"""Offline replay of the graph mode: what each rule and weight does, on the graph an evaluation built.

    python bench/replay.py --questions musique_train.json --passages a.json [--passages b.json ...]
                           [--grid] [--explain] [--json]

The first run opens the evaluation's Neo4j (the instance `graphrag eval retrieval` built for the
same passages, reused), reads the passage graph (chunks, embeddings, shared phrases, title
mentions) and, per question, what the database gives the graph mode to start from (the hybrid
seeds, the vector and full-text lists, the passages about the question's entities), and caches it
under `.graphrag/replay/`. Every later run ranks in memory, so a grid of weights over 100 questions
takes seconds. The ranking is the graph mode's (retrieval/graph.py, seed_neighbours.cypher), with
its weights and the rules under study as parameters; with the shipped weights it reproduces the
mode's recall (printed as a check against a live run of the mode on the first questions).

`--set name=value` changes a weight of retrieval/base.py WEIGHTS, or turns on a rule under study
(none of them shipped; the note of each measured is in the README "Evaluation"): `phraseRule=idf`
or `sqrt` (a phrase's weight log(N/chunks)/log(N) or 1/sqrt(chunks) instead of 1/chunks),
`noComponents=1` (a word of a longer shared phrase adds nothing of its own), `backWeight=W` (a chunk
naming the seed's own topic is a neighbour too), `aboutSeeds=N` (at most N passages about the
question's entities), `firstSeedLinks=N` (N neighbours after the first seed), `secondCover=F` (the
second only when it holds F of the terms the first two lack), `refuse=1` (the hybrid seeds fused
again from the kept vector and full-text lists, with `vectorWeight`, `fulltextWeight`, `rrfK`),
`aboutShare=1` (a title link split among the passages about the same entity), `aboutPerEntity=N` (of
the passages about each question entity, the N nearest the question), `aboutAll=1` (the passages
about the question's entities taken before the perEntity cut, not among the first perEntity chunks
naming them: the mode's rule since the growth cut; `aboutAll=0`: the rule before, as recorded at
collection, or the cached list where the cache is older than the rule), `phraseRule=local` (a phrase's
chunks among the question's `nearHits` (300) nearest count 1 each, the others `farShare` each),
`topicNamers=N` (a title link divided by (chunks naming the topic in passing / N) ** `topicAlpha`
when above 1), `noCascade=1` (a seed already placed as another seed's neighbour places none of its own).

`--explain` prints, per question the graph mode misses a gold passage of, where that passage was:
not a candidate at all, a seed ranked too low, a neighbour of a seed beaten by another neighbour
(and through which link), or a neighbour of no followed seed.

`--explain --own set_corpus.json` is the growth cut: `--passages` a larger corpus holding the set's
own (the union of the shared corpora), it counts the gold passages the mode ranks in the top 5 on
the own corpus and not on the larger one, by cause (a title link that now points to several
passages, a phrase whose weight the larger corpus changed, a distractor from another set, other),
with examples; `--before weight=value` runs the cut for those weights too, side by side:

    python bench/replay.py --questions musique_train.json --passages musique_train_corpus.json \
        --passages hotpotqa_train_corpus.json --passages 2wikimultihopqa_corpus.json \
        --explain --own musique_train_corpus.json --before aboutAll=0 --set aboutAll=1
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import pickle
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from graphrag_cypher.retrieval.graph import coverage, term_weights  # the graph mode's own term rule

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".graphrag" / "replay"
FETCH = 300  # vector and full-text list lengths kept per question (the mode fuses their tops)


@dataclass
class Corpus:
    ids: list[str]
    doc: list[str]
    title: list[str]
    words: list[frozenset]
    vectors: np.ndarray  # unit rows
    phrases: dict[int, list[tuple[int, int]]]  # chunk -> [(phrase index, chunks sharing it)]
    members: list[list[int]]  # phrase index -> chunks
    phrase_names: list[str]
    mentions: dict[int, list[tuple[str, str]]]  # chunk -> [(entity id, rule)]
    about: dict[str, list[int]]  # entity id -> chunks about it (rule own-title)

    @property
    def namers(self) -> dict[str, list[int]]:
        """entity id -> chunks that name it in passing (any rule but own-title)."""
        if not hasattr(self, "_namers"):
            namers: dict[str, list[int]] = defaultdict(list)
            for chunk, found in self.mentions.items():
                for entity, rule in found:
                    if rule != "own-title":
                        namers[entity].append(chunk)
            self._namers = dict(namers)
        return self._namers

    @property
    def size(self) -> int:
        return len(self.ids)


@dataclass
class Case:
    text: str
    gold: set[str]  # gold document ids (MuSiQue) or titles (2Wiki, HotpotQA)
    keywords: list[str]
    vector: np.ndarray
    vector_list: list[tuple[int, float]]  # (chunk, cosine) best first
    fulltext_list: list[int]
    hybrid: list[int]  # the mode's hybrid seeds, as the database ranked them
    about: list[int]  # the chunks about the question's entities, in the question's order
    live: list[str] = field(default_factory=list)  # titles the live graph mode ranked (first questions)
    entities: list[str] = field(default_factory=list)  # the question's entity ids (caches before them: none)
    # the about list by the rule before the growth cut (None: not recorded; then `about` was made by it)
    about_before: list[int] | None = None
    by_title: bool = False  # gold are titles


def cache_key(questions: Path, passages: list[Path]) -> str:
    h = hashlib.sha256()
    for p in [questions, *passages]:
        h.update(str(p.resolve()).encode() + str(p.stat().st_size).encode())
    return h.hexdigest()[:12]


def collect(questions_path: Path, passages: list[Path], limit: int | None, live: int) -> tuple[Corpus, list[Case]]:
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.evaluation import CORPUS, EvalInstance, read_questions
    from graphrag_cypher.retrieval.base import ABOUT_RULES, WEIGHTS
    from graphrag_cypher.retrieval.fulltext import FulltextRetriever
    from graphrag_cypher.retrieval.graph import GraphRetriever, words
    from graphrag_cypher.retrieval.hybrid import HybridRetriever
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer
    from graphrag_cypher.retrieval.vector import VectorRetriever

    _, questions = read_questions(questions_path)
    questions = questions[:limit] if limit else questions
    settings = load_settings()
    say = lambda m: print(m, file=sys.stderr)  # noqa: E731
    with EvalInstance(settings, passages, keep=True, on_progress=say) as run:
        graph, embedder = run.graph, run.embedder
        rows = list(graph.read("bench/replay_chunks", corpus=CORPUS))
        index = {r["id"]: i for i, r in enumerate(rows)}
        vectors = np.array([r["embedding"] for r in rows], dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        phrases: dict[int, list[tuple[int, int]]] = defaultdict(list)
        members, names = [], []
        for r in graph.read("bench/replay_phrases"):
            chunk_ids = [index[c] for c in r["members"] if c in index]
            for c in chunk_ids:
                phrases[c].append((len(members), int(r["chunks"])))
            members.append(chunk_ids)
            names.append(r["phrase"])
        mentions: dict[int, list[tuple[str, str]]] = defaultdict(list)
        about: dict[str, list[int]] = defaultdict(list)
        for r in graph.read("bench/replay_mentions"):
            if r["chunk"] in index:
                mentions[index[r["chunk"]]].append((r["entity"], r["rule"]))
                if r["rule"] in ABOUT_RULES:
                    about[r["entity"]].append(index[r["chunk"]])
        corpus = Corpus(
            ids=[r["id"] for r in rows],
            doc=[r["doc"] for r in rows],
            title=[r["title"] for r in rows],
            words=[frozenset(words(r["text"] or "")) for r in rows],
            vectors=vectors,
            phrases=dict(phrases),
            members=members,
            phrase_names=names,
            mentions=dict(mentions),
            about=dict(about),
        )
        analyzer = QuestionAnalyzer(graph)
        seeds = HybridRetriever(graph, embedder)
        vector, fulltext = VectorRetriever(graph, embedder), FulltextRetriever(graph, embedder)
        mode = GraphRetriever(graph, embedder)
        cases = []
        for n, q in enumerate(questions):
            analysis = analyzer.analyze(q.text, corpus=CORPUS)
            embedding = seeds.embedding(analysis)
            ranked = seeds.rank(analysis, WEIGHTS["graphCandidates"])
            hybrid = [index[e.chunk_id] for e in ranked]
            about_rows = mode._about_entities(analysis, embedding, ranked[0]) if ranked else []
            qv = np.array(embedding, dtype=np.float32)
            cases.append(
                Case(
                    text=q.text,
                    gold=set(q.gold_ids or q.gold_titles),
                    by_title=not q.gold_ids,
                    keywords=list(analysis.keywords),
                    vector=qv / np.linalg.norm(qv),
                    vector_list=[(index[e.chunk_id], float(e.score)) for e in vector.rank(analysis, FETCH)],
                    fulltext_list=[index[e.chunk_id] for e in fulltext.rank(analysis, FETCH)],
                    hybrid=hybrid,
                    about=[index[e.chunk_id] for e in about_rows],
                    live=[e.title for e in mode.retrieve(analysis, 10)] if n < live else [],
                    entities=[e["id"] for e in analysis.entities],
                    about_before=[
                        index[r["chunkId"]]
                        for r in graph.read(
                            "bench/replay_about_before",
                            entityIds=[e["id"] for e in analysis.entities],
                            perEntity=WEIGHTS["perEntity"],
                            aboutRules=sorted(ABOUT_RULES),
                        )
                        if r["chunkId"] in index
                    ]
                    if ranked
                    else [],
                )
            )
            if n % 20 == 19:
                say(f"collected {n + 1}/{len(questions)} questions")
    return corpus, cases


def load(questions: Path, passages: list[Path], limit: int | None, live: int) -> tuple[Corpus, list[Case]]:
    path = CACHE / f"{cache_key(questions, passages)}-{limit or 'all'}.pkl"
    if path.exists():
        from graphrag_cypher.evaluation import read_questions

        with path.open("rb") as f:
            raw_corpus, raw_cases = pickle.load(f)  # plain fields: readable whatever imports this module
        corpus, cases = Corpus(**raw_corpus), [Case(**case) for case in raw_cases]
        for case, q in zip(cases, read_questions(questions)[1], strict=False):  # the gold, as the scorer reads it
            case.gold, case.by_title = set(q.gold_ids or q.gold_titles), not q.gold_ids
        return corpus, cases
    corpus, cases = collect(questions, passages, limit, live)
    CACHE.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        pickle.dump((vars(corpus), [vars(case) for case in cases]), f)
    return corpus, cases


# -- the ranking ---------------------------------------------------------------------------------------


def phrase_weight(chunks: int, w: dict, size: int) -> float:
    """One shared phrase's link weight: 1 / chunks (shipped) or a rarity scaled to the corpus."""
    rule = w.get("phraseRule", "inverse")
    if rule in ("inverse", "local"):  # local without the question's nearest chunks: inverse
        return 1.0 / chunks
    if rule == "sqrt":
        return 1.0 / math.sqrt(chunks)
    if rule == "idf":  # log(N / chunks) / log(N): 1 for a phrase of one chunk, 0 for one of all
        return math.log(size / chunks) / math.log(size)
    raise ValueError(rule)


def max_phrase_chunks(w: dict, size: int) -> float:
    cap = w["maxPhraseChunks"]
    if w.get("phraseChunksShare"):  # the cap as a share of the corpus
        return max(cap, w["phraseChunksShare"] * size)
    return cap


def neighbours(c: Corpus, seed: int, w: dict, near: set | None = None) -> dict[int, tuple[float, float, list[str]]]:
    """chunk -> (phrase weight, topic weight, vias): the seed's neighbours outside its document.
    `near`: the question's nearest chunks, for phraseRule=local (a phrase's chunks far from the
    question count farShare each)."""
    limit = max_phrase_chunks(w, c.size)
    phrase: dict[int, float] = defaultdict(float)
    topic: dict[int, float] = defaultdict(float)
    via: dict[int, list[str]] = defaultdict(list)
    shared: dict[int, list[tuple[str, float]]] = defaultdict(list)
    for p, chunks in c.phrases.get(seed, ()):
        if chunks > limit:
            continue
        if w.get("phraseRule") == "local" and near is not None:
            others = [m for m in c.members[p] if m != seed]
            close = sum(m in near for m in others)
            pw = 1.0 / (1 + close + w.get("farShare", 0.0) * (len(others) - close))
        else:
            pw = phrase_weight(chunks, w, c.size)
        for n in c.members[p]:
            if n != seed:
                shared[n].append((c.phrase_names[p], pw))
    for n, found in shared.items():
        if w.get("noComponents"):  # a word of a longer shared phrase adds nothing of its own
            names = [name.lower() for name, _ in found]
            found = [
                (name, pw)
                for name, pw in found
                if not any(o != name.lower() and f" {name.lower()} " in f" {o} " for o in names)
            ]
        for name, pw in found:
            phrase[n] += pw
            via[n].append(name)
    back = w.get("backWeight", 0)
    for entity, rule in c.mentions.get(seed, ()):
        if rule == "own-title":
            if back:
                for n in c.namers.get(entity, ()):
                    if n != seed:
                        topic[n] += back
                        via[n].append("names the seed's topic " + entity)
            continue
        about = c.about.get(entity, ())
        for n in about:
            if n != seed:
                # aboutShare: a title several passages share splits its link among them
                tw = w["aboutWeight"] / (len(about) if w.get("aboutShare") else 1)
                if w.get("topicNamers"):  # a topic many chunks name in passing links weakly
                    named = len(c.namers.get(entity, ()))
                    tw /= max(1.0, named / w["topicNamers"]) ** w.get("topicAlpha", 1.0)
                topic[n] += tw
                via[n].append("topic " + entity)
    out = {}
    for n in set(phrase) | set(topic):
        if c.doc[n] == c.doc[seed]:
            continue
        out[n] = (min(phrase.get(n, 0.0), w["phraseCap"]), topic.get(n, 0.0), via[n])
    return out


def hybrid_seeds(case: Case, w: dict, count: int) -> list[int]:
    if not w.get("refuse"):
        return case.hybrid[:count]
    scores: dict[int, float] = defaultdict(float)
    fetch = w.get("seedFetch", 600)
    for r, (chunk, _) in enumerate(case.vector_list[:fetch]):
        scores[chunk] += w["vectorWeight"] / (w["rrfK"] + r + 1)
    for r, chunk in enumerate(case.fulltext_list[:fetch]):
        scores[chunk] += w["fulltextWeight"] / (w["rrfK"] + r + 1)
    return sorted(scores, key=lambda ch: (-scores[ch], ch))[:count]


def about_per_entity(c: Corpus, case: Case, about: list[int], keep: int) -> list[int]:
    """Of the passages about each question entity, the `keep` nearest the question, in the question's order."""
    groups: dict[str, list[int]] = {}
    for n in about:
        entity = next((e for e, rule in c.mentions.get(n, ()) if rule == "own-title"), c.title[n])
        groups.setdefault(entity, []).append(n)
    kept = {
        n for chunks in groups.values() for n in sorted(chunks, key=lambda n: -float(case.vector @ c.vectors[n]))[:keep]
    }
    return [n for n in about if n in kept]


def rank(c: Corpus, case: Case, w: dict, k: int = 10, trace: dict | None = None, how: dict | None = None) -> list[int]:
    """The graph mode's top k; `trace` gets each followed seed's scored neighbours, `how` each placed
    chunk's way in: None for a seed, else (the seed it was linked from, its (phrases, topics, vias))."""
    link_seeds = min(w["linkSeeds"], k // 2 + 2)
    seeds = hybrid_seeds(case, w, max(k, w["graphCandidates"]))
    if not seeds:
        return []
    about = case.about[: w["aboutSeeds"]] if "aboutSeeds" in w else case.about
    if w.get("aboutAll"):  # every passage about each entity, however many passages mention it
        about = [n for e in case.entities for n in c.about.get(e, ())[: w["perEntity"]]]
    elif w.get("aboutAll") == 0 and case.about_before is not None:  # explicitly the rule before
        about = case.about_before
    if w.get("aboutPerEntity"):
        about = about_per_entity(c, case, about, w["aboutPerEntity"])
    order = seeds[:1] + about + seeds[1:]
    sequence: list[int] = []
    for s in order:
        if s not in sequence:
            sequence.append(s)
    q = case.vector
    leads: dict[int, list[tuple[float, int, tuple]]] = {}
    near = {n for n, _ in case.vector_list[: int(w.get("nearHits", 300))]} if w.get("phraseRule") == "local" else None
    for s in sequence[:link_seeds]:
        found = neighbours(c, s, w, near)
        if not found:
            continue
        ids = list(found)
        sv = c.vectors[s]
        qs = float(q @ sv)
        nv = c.vectors[ids]
        qn, sn = nv @ q, nv @ sv
        residual = (qn - qs * sn) / math.sqrt(max(1 - qs * qs, 0.01))
        strength = residual + w["linkWeight"] * np.array([found[n][0] + found[n][1] for n in ids])
        top = sorted(zip(-strength, ids, strict=True), key=lambda t: (t[0], c.ids[t[1]]))[: w["leadsPerSeed"]]
        leads[s] = [(-float(st), n, found[n]) for st, n in top]
    texts = {s: c.words[s] for s in sequence}
    for rows in leads.values():
        for _, n, _ in rows:
            texts.setdefault(n, c.words[n])
    weights = term_weights(case.keywords, list(texts.values()))
    ranked: list[int] = []
    placed: set[int] = set()
    for s in sequence:
        if s not in placed:
            placed.add(s)
            ranked.append(s)
            if how is not None:
                how[s] = None
        elif w.get("noCascade"):  # a seed placed earlier as a neighbour places no neighbour of its own
            continue
        rows = [r for r in leads.get(s, []) if r[1] not in placed]
        if not rows:
            continue
        scored = sorted(
            (
                (-(st + w["coverWeight"] * coverage(weights, c.words[s], c.words[n])), c.ids[n], n, via)
                for st, n, via in rows
            )
        )
        if trace is not None:
            trace[s] = scored
        per_seed = w.get("firstSeedLinks", w["linksPerSeed"]) if s == sequence[0] else w["linksPerSeed"]
        for rank_, (_, _, n, via) in enumerate(scored[:per_seed]):
            if rank_ and "secondCover" in w:
                known = c.words[s] | c.words[scored[0][2]]
                if coverage(weights, known, c.words[n]) < w["secondCover"]:
                    break
            if n not in placed:
                placed.add(n)
                ranked.append(n)
                if how is not None:
                    how[n] = (s, via)
    return ranked[:k]


def recall(c: Corpus, case: Case, ranked: list[int], k: int = 5) -> float:
    keys, seen = [], set()
    for n in ranked:
        if c.doc[n] not in seen:
            seen.add(c.doc[n])
            keys.append(c.title[n] if case.by_title else c.doc[n])
    return len(set(keys[:k]) & case.gold) / len(case.gold) if case.gold else 0.0


def evaluate(c: Corpus, cases: list[Case], w: dict, k: int = 5) -> float:
    return 100 * sum(recall(c, case, rank(c, case, w), k) for case in cases) / len(cases)


def vector_recall(c: Corpus, cases: list[Case], k: int = 5) -> float:
    return 100 * sum(recall(c, case, [n for n, _ in case.vector_list[:20]], k) for case in cases) / len(cases)


def explain(c: Corpus, cases: list[Case], w: dict) -> dict[str, int]:
    """Where each missed gold passage was, counted, with one line per miss."""
    counts: dict[str, int] = defaultdict(int)
    for case in cases:
        trace: dict = {}
        ranked = rank(c, case, w, trace=trace)
        key = c.title if case.by_title else c.doc
        docs = list(dict.fromkeys(key[n] for n in ranked))
        for gold in sorted(case.gold - set(docs[:5])):
            chunks = [i for i, t in enumerate(key) if t == gold]
            vrank = next((r for r, (n, _) in enumerate(case.vector_list) if key[n] == gold), None)
            seeds = hybrid_seeds(case, w, w["graphCandidates"])
            srank = next((r for r, n in enumerate(seeds) if key[n] == gold), None)
            where = "not a candidate"
            for s, scored in trace.items():
                pos = next((r for r, row in enumerate(scored) if key[row[2]] == gold), None)
                if pos is not None:
                    best = scored[0]
                    where = (
                        f"neighbour #{pos + 1} of seed {c.title[s]!r}, beaten by {c.title[best[2]]!r} "
                        f"(phrases {best[3][0]:.2f}, topics {best[3][1]:.2f}, via {best[3][2][:3]})"
                    )
                    break
            else:
                if srank is not None:
                    where = f"seed #{srank + 1}"
                elif any(n in chunks for s in seeds[:7] for n in neighbours(c, s, w)):
                    where = "neighbour cut by leadsPerSeed"
            counts[where.split(" #")[0].split(" of ")[0].split(";")[0]] += 1  # the kind of miss, not its place
            name = c.title[chunks[0]] if chunks else gold
            print(f"- {case.text[:90]!r}: {name!r} ({where}; vector rank {vrank})")
    return dict(counts)


GROWTH_CAUSES = (
    "title link to several passages",
    "phrase weight (document frequency)",
    "distractor from another set",
    "other",
)


def top_docs(c: Corpus, case: Case, ranked: list[int], k: int = 5) -> list[tuple[str, int]]:
    """(gold key, the chunk that placed it) of the first k documents of a ranking, as recall counts them."""
    out: list[tuple[str, int]] = []
    seen: set[str] = set()
    for n in ranked:
        if c.doc[n] not in seen:
            seen.add(c.doc[n])
            out.append((c.title[n] if case.by_title else c.doc[n], n))
    return out[:k]


def topic_entities(via: tuple) -> list[str]:
    """The entities a neighbour's topic links went through (neighbours() names them "topic <id>")."""
    return [v[len("topic ") :] for v in via[2] if v.startswith("topic ")]


def growth_cause(own: Corpus, union: Corpus, w: dict, lost: dict) -> tuple[str, str]:
    """Why a gold passage ranked in the top 5 on its own set's corpus falls out of it on the union.

    Checked in this order, the first that holds: a title link of the way in (the gold's own, or an
    intruder's: a passage now in the top 5 that was not) points to more passages on the union; the
    phrase weight of the gold's link from its seed fell (or an intruder's rose), the same phrase
    being shared by more chunks; an intruder comes from another set; other.
    """
    own_ids = set(own.ids)
    index = {cid: i for i, cid in enumerate(union.ids)}
    own_index = {cid: i for i, cid in enumerate(own.ids)}

    # entity ids differ between instances: an entity is known by the title of the passages about it
    was_by_title: dict[str, int] = {}
    for chunks in own.about.values():
        for n in chunks:
            was_by_title[own.title[n]] = max(was_by_title.get(own.title[n], 0), len(chunks))

    def grown(entity: str) -> str:
        """'now about N passages (was M)' where the union has more passages about the entity, else ''."""
        chunks = union.about.get(entity, ())
        was = max((was_by_title.get(union.title[n], 0) for n in chunks), default=0)
        return f"now about {len(chunks)} passages (was {was})" if len(chunks) > max(was, 1) else ""

    gold_way, intruders, new_about = lost["gold_way"], lost["intruders"], lost["new_about"]
    name = lost["name"]
    # a title link now pointing to several passages
    if gold_way is not None:
        for entity in topic_entities(gold_way[1]):
            if grown(entity):
                return GROWTH_CAUSES[0], f"{name!r} came by topic {entity!r}, {grown(entity)}"
    for n, way in intruders:
        if n in new_about:
            return GROWTH_CAUSES[0], f"{union.title[n]!r} is about a question entity with more passages on the union"
        for entity in topic_entities(way[1]) if way else ():
            if grown(entity):
                return GROWTH_CAUSES[0], f"{union.title[n]!r} came by topic {entity!r}, {grown(entity)}"
    # a phrase weight the larger corpus changed
    if gold_way is not None and gold_way[1][0] > 0 and own.ids[gold_way[0]] in index:
        seed = index[own.ids[gold_way[0]]]
        found = neighbours(union, seed, w).get(index[own.ids[lost["own_chunk"]]])
        now = found[0] if found else 0.0
        if now < gold_way[1][0] - 1e-9:
            return GROWTH_CAUSES[
                1
            ], f"{name!r} linked from {own.title[gold_way[0]]!r}: phrases {gold_way[1][0]:.2f} -> {now:.2f}"
    for n, way in intruders:
        if way and way[1][0] > 0 and union.ids[n] in own_index and union.ids[way[0]] in own_index:
            found = neighbours(own, own_index[union.ids[way[0]]], w).get(own_index[union.ids[n]])
            before = found[0] if found else 0.0
            if way[1][0] > before + 1e-9:
                return GROWTH_CAUSES[1], f"{union.title[n]!r}: phrases {before:.2f} -> {way[1][0]:.2f}"
    foreign = [n for n, _ in intruders if union.ids[n] not in own_ids]
    if foreign:
        return GROWTH_CAUSES[2], f"{name!r} pushed out by {', '.join(repr(union.title[n]) for n in foreign[:2])}"
    return GROWTH_CAUSES[3], f"{name!r} pushed out by {', '.join(repr(union.title[n]) for n, _ in intruders[:2])}"


def growth_cut(
    own: Corpus, own_cases: list[Case], union: Corpus, union_cases: list[Case], w: dict, examples: int = 3
) -> dict:
    """The gold passages the graph mode holds in its top 5 on their own set's corpus but not on the
    union, counted by cause, with a few examples each, and recall@5 on both corpora."""
    counts = dict.fromkeys(GROWTH_CAUSES, 0)
    shown: dict[str, list[str]] = {cause: [] for cause in GROWTH_CAUSES}
    for oc, uc in zip(own_cases, union_cases, strict=True):
        own_how: dict = {}
        union_how: dict = {}
        own_top = top_docs(own, oc, rank(own, oc, w, how=own_how))
        union_top = top_docs(union, uc, rank(union, uc, w, how=union_how))
        own_keys, union_keys = {key for key, _ in own_top}, {key for key, _ in union_top}
        for gold in sorted(oc.gold & own_keys - union_keys):
            chunk = next(n for key, n in own_top if key == gold)
            way = own_how.get(chunk)
            lost = {
                "name": own.title[chunk],
                "own_chunk": chunk,
                "gold_way": way,
                "intruders": [(n, union_how.get(n)) for key, n in union_top if key not in own_keys],
                "new_about": {n for n in uc.about if union.ids[n] not in {own.ids[m] for m in oc.about}},
            }
            cause, detail = growth_cause(own, union, w, lost)
            counts[cause] += 1
            if len(shown[cause]) < examples:
                shown[cause].append(f"{uc.text[:80]!r}: {detail}")
    return {
        "lost": counts,
        "examples": shown,
        "own_R@5": round(evaluate(own, own_cases, w), 2),
        "union_R@5": round(evaluate(union, union_cases, w), 2),
    }


def print_growth(cut: dict) -> None:
    """The growth cut as a table, cause by cause (before and after where both were run), then examples."""
    runs = list(cut)
    print(f"{'cause':40}" + "".join(f"{run:>8}" for run in runs))
    for cause in GROWTH_CAUSES:
        print(f"{cause:40}" + "".join(f"{cut[run]['lost'][cause]:>8}" for run in runs))
    print(f"{'total':40}" + "".join(f"{sum(cut[run]['lost'].values()):>8}" for run in runs))
    for measure in ("own_R@5", "union_R@5"):
        print(f"{measure:40}" + "".join(f"{cut[run][measure]:>8}" for run in runs))
    for run in runs:
        for cause, lines in cut[run]["examples"].items():
            for line in lines:
                print(f"[{run}] {cause}: {line}")


def number(value: str) -> int | float | str:
    """A --set value: an int, else a float, else the text."""
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def shipped() -> dict:
    from graphrag_cypher.retrieval.base import WEIGHTS

    return dict(WEIGHTS)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, required=True)
    ap.add_argument("--passages", type=Path, action="append", required=True)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--live", type=int, default=10, help="questions also ranked by the live mode, as a check")
    ap.add_argument("--set", action="append", default=[], help="weight=value, e.g. phraseRule=idf")
    ap.add_argument("--grid", action="store_true", help="the plateau grid of linkWeight, coverWeight, phraseCap")
    ap.add_argument("--explain", action="store_true")
    ap.add_argument(
        "--own",
        type=Path,
        action="append",
        default=[],
        help="with --explain: the questions' own corpus; the gold passages held there and lost on --passages, by cause",
    )
    ap.add_argument(
        "--before", action="append", default=[], help="with --own: weight=value of the ranking to compare against"
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    started = time.perf_counter()
    corpus, cases = load(args.questions, args.passages, args.limit, args.live)
    w = shipped()
    for item in args.set:
        key, value = item.split("=", 1)
        w[key] = number(value)
    out: dict = {"passages": corpus.size, "questions": len(cases)}
    checked = [case for case in cases if case.live]
    agree = sum([corpus.title[n] for n in rank(corpus, case, shipped())] == case.live for case in checked)
    out["live_check"] = f"{agree}/{len(checked)} rankings equal to the live mode's"
    out["vector_R@5"] = round(vector_recall(corpus, cases), 2)
    out["graph_R@5"] = round(evaluate(corpus, cases, w), 2)
    if args.grid:
        grid = {}
        for lw, cw, pc in itertools.product((0.3, 0.4, 0.5), (0.3, 0.4, 0.5), (0.75, 1.0, 1.25)):
            grid[f"{lw}/{cw}/{pc}"] = round(
                evaluate(corpus, cases, {**w, "linkWeight": lw, "coverWeight": cw, "phraseCap": pc}), 2
            )
        out["grid"] = grid
        out["grid_range"] = (min(grid.values()), max(grid.values()))
    if args.explain and args.own:
        own, own_cases = load(args.questions, args.own, args.limit, 0)
        cut = {"after": growth_cut(own, own_cases, corpus, cases, w)} if args.before else {}
        before = shipped()
        for item in args.before:
            key, value = item.split("=", 1)
            before[key] = number(value)
        cut = {"before": growth_cut(own, own_cases, corpus, cases, before if args.before else w), **cut}
        out["growth"] = cut
        if not args.json:
            print_growth(cut)
    elif args.explain:
        out["misses"] = explain(corpus, cases, w)
    out["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(out, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
