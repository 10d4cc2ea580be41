"""Community reports: extractive ones built from the graph alone, LLM-written ones on request.

An extractive report says what a community is about with words from its own chunks:

* ``phrases``: its most distinctive terms by c-TF-IDF (BERTopic's class-based TF-IDF): the
  member chunks' words and word pairs (scikit-learn's ``CountVectorizer``, English stop words)
  counted per community, weighed against the other communities of the same level;
  ``title``: the top three joined with " · ";
* ``topEntities`` / ``topEntityIds``: the entities most member chunks mention;
* ``documentIds``: the documents with most member chunks, and the counts;
* ``sentences`` / ``sentenceChunks``: 2-3 representative sentences, one from each of the member
  chunks closest to the community's centroid (other documents first), the sentence that holds
  most of the community's top terms;
* ``embedding``: the normalised centroid of the member chunks' embeddings.

Chunks are read from Neo4j page by page; a text is kept only while it is counted.

With an LLM (``--llm-reports``), each community also gets a written report citing its chunks
as ``[chunk id]``, cached by the community (its id is the hash of its members) and the model:
a community whose ``llmModel`` is the current model is not asked about again.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields

from graphrag_cypher import lexicon
from graphrag_cypher.db import Graph, query
from graphrag_cypher.text import split_sentences


@dataclass
class Level:
    """One level's communities: id -> member indexes (into `Members`)."""

    level: int
    communities: dict[str, list[int]]
    parents: dict[str, str] = field(default_factory=dict)  # child id (this level) -> parent id (level above)


@dataclass
class Members:
    """The chunks and entities Leiden placed, in one order all levels index into."""

    ids: list[str]
    chunk: list[bool]
    name: list[str | None]  # an entity's name (None for a chunk)
    document: list[str | None]
    hash: list[str | None]

    def extend(self, other: Members) -> None:
        """`other`'s members after these (the runs of `communities build --by-corpus`, one by one)."""
        for column in fields(self):
            getattr(self, column.name).extend(getattr(other, column.name))


PAGE = 2000
TOP_PHRASES = 10
PHRASE_OVER_WORD = 0.6  # a word pair replaces a chosen word of it when it scores at least this share of it
TOP_ENTITIES = 10
TOP_DOCUMENTS = 20
SENTENCES = 3
MAX_SENTENCE = 400  # characters of a representative sentence
TOKEN_PATTERN = r"(?u)\b[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*\b"
LLM_CHUNKS = 6  # member chunks shown to the LLM per community
LLM_CHUNK_CHARS = 1200

REPORT_PROMPT = """You write a short report on one community of a document collection: a group of passages
that belong together. Use only the EXTRACTIVE REPORT and the PASSAGES given. Write a title line, then
3-6 sentences on what the passages are about: the main subjects, people, places and events, and
how they connect. Cite the passages you use by their id in square brackets, e.g. [doc::0]. Do not
invent facts; do not cite ids that are not given."""


_WORD = re.compile(TOKEN_PATTERN)
_POSSESSIVE = re.compile(r"['’]s$")
_CLAUSE_BREAK = re.compile(r"[^\w\s'’-]+|\s['’]|['’]\s|\s-+\s")


def terms(text: str, stop_words: frozenset[str]) -> list[str]:
    """The words of `text` (lower case, stop words left out) and each pair of adjacent words of a
    clause neither of which is a stop word: "King of the Golden Mountain" gives "king", "golden",
    "mountain" and "golden mountain", not scikit-learn's "king golden" (its bigrams are made
    after the stop words are removed)."""
    found: list[str] = []
    for clause in _CLAUSE_BREAK.split(text):  # a pair never spans a comma or a sentence end
        words = [_POSSESSIVE.sub("", w.lower()) for w in _WORD.findall(clause)]
        found += [w for w in words if w not in stop_words]
        found += [
            f"{a} {b}" for a, b in zip(words, words[1:], strict=False) if a not in stop_words and b not in stop_words
        ]
    return found


# Words of telling that every narrative repeats ("said", "went", "asked"): scikit-learn's English stop
# words leave them in, and a community of tales would be titled "said · gretel · hans".
NARRATIVE_STOP_WORDS = lexicon.words("narrative_stop_words")


def _analyzer():
    from functools import partial

    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

    stop_words = ENGLISH_STOP_WORDS | NARRATIVE_STOP_WORDS
    return CountVectorizer(analyzer=partial(terms, stop_words=stop_words), min_df=2, dtype="float32")


def extractive(
    graph: Graph,
    members: Members,
    levels: list[Level],
    wanted: set[str],
    embedder=None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, dict]:
    """Community id -> the properties of its extractive report, for the communities in `wanted`."""
    import numpy as np
    from scipy import sparse

    progress = progress or (lambda message: None)
    order: list[str] = []  # chunk ids in the order of the term matrix rows
    vectors: dict[int, np.ndarray] = {}
    documents: list[str | None] = []
    corpora: list[str | None] = []
    titles: dict[str, str] = {}

    def texts() -> Iterator[str]:
        after = ""
        while True:
            page = _read_values(graph, "communities/chunks", after=after, limit=PAGE)
            for row in page:
                if row["embedding"]:
                    vectors[len(order)] = np.asarray(row["embedding"], dtype=np.float32)
                order.append(row["id"])
                documents.append(row["document"])
                corpora.append(row["corpus"])
                if row["document"] and row["documentTitle"]:
                    titles.setdefault(row["document"], row["documentTitle"])
                yield row["text"] or ""
            progress(f"communities: {len(order)} chunks read for the reports")
            if len(page) < PAGE:
                return
            after = page[-1]["id"]

    vectorizer = _analyzer()
    try:
        X = vectorizer.fit_transform(texts()).tocsr()
        vocabulary = vectorizer.get_feature_names_out()
    except ValueError:  # no term in two chunks (a tiny or stop-word-only corpus)
        X, vocabulary = sparse.csr_matrix((len(order), 0), dtype=np.float32), np.array([], dtype=object)
    row_of = {cid: r for r, cid in enumerate(order)}
    dims = len(next(iter(vectors.values()))) if vectors else 0
    E = np.zeros((len(order), dims), dtype=np.float32)
    has_vector = np.zeros(len(order), dtype=bool)
    for r, v in vectors.items():
        if len(v) == dims:
            norm = float(np.linalg.norm(v))
            if norm > 0:
                E[r], has_vector[r] = v / norm, True
    vectors.clear()
    mentions = _mentions(graph, row_of)

    reports: dict[str, dict] = {}
    picks: dict[str, list[int]] = {}
    for level in levels:
        ids = list(level.communities)
        if not any(cid in wanted for cid in ids):
            continue
        chunk_rows = {
            cid: [
                row_of[members.ids[i]] for i in level.communities[cid] if members.chunk[i] and members.ids[i] in row_of
            ]
            for cid in ids
        }
        M = _membership(ids, chunk_rows, len(order))
        scores = _ctfidf(M @ X) if X.shape[1] else None
        for k, cid in enumerate(ids):
            if cid not in wanted:
                continue
            rows = chunk_rows[cid]
            phrases = _top_terms(scores, k, vocabulary) if scores is not None else []
            centroid = None
            embedded = [r for r in rows if has_vector[r]]
            if embedded:
                mean = E[embedded].mean(axis=0)
                norm = float(np.linalg.norm(mean))
                centroid = mean / norm if norm > 0 else None
            if centroid is not None:
                closeness = {r: float(E[r] @ centroid) if has_vector[r] else -2.0 for r in rows}
            elif scores is not None:
                weights = scores.getrow(k).T
                closeness = {r: float((X.getrow(r) @ weights).toarray()[0, 0]) for r in rows}
            else:
                closeness = dict.fromkeys(rows, 0.0)
            picks[cid] = _representatives(sorted(rows, key=lambda r: (-closeness[r], order[r])), documents)
            doc_counts = Counter(documents[r] for r in rows if documents[r])
            entity_counts = Counter(e for r in rows for e in mentions.get(r, ()))
            member_rows = level.communities[cid]
            if not rows:  # entities joined by their relations, no chunk: named by its entities
                entity_counts = Counter((members.ids[i], members.name[i] or members.ids[i]) for i in member_rows)
            top_entities = sorted(entity_counts, key=lambda e: (-entity_counts[e], e[1], e[0]))[:TOP_ENTITIES]
            if not phrases:
                phrases = [name for _, name in top_entities]
            reports[cid] = {
                "size": len(member_rows),
                "chunks": len(rows),
                "entities": sum(1 for i in member_rows if not members.chunk[i]),
                "documents": len(doc_counts),
                "corpora": sorted({corpora[r] for r in rows if corpora[r]}),
                "title": " · ".join(phrases[:3]),
                "phrases": phrases,
                "topEntities": [name for _, name in top_entities],
                "topEntityIds": [eid for eid, _ in top_entities],
                "documentIds": [d for d, _ in sorted(doc_counts.items(), key=lambda x: (-x[1], x[0]))[:TOP_DOCUMENTS]],
                "embedding": [float(x) for x in centroid] if centroid is not None else None,
            }
        del M, scores
    progress(f"communities: choosing sentences for {len(reports)} communities")
    texts_of = _chunk_texts(graph, sorted({order[r] for rows in picks.values() for r in rows}))
    no_vector = []
    for cid, report in reports.items():
        sentences, sentence_chunks = [], []
        terms = report["phrases"]
        for r in picks[cid]:
            sentence = _best_sentence(texts_of.get(order[r]) or "", terms)
            if sentence:
                sentences.append(sentence)
                sentence_chunks.append(order[r])
        report["sentences"], report["sentenceChunks"] = sentences, sentence_chunks
        report["summary"] = _summary(cid, report, titles)
        if report["embedding"] is None:
            no_vector.append(cid)
    if embedder is not None and no_vector:
        for cid, vector in zip(no_vector, embedder.embed([reports[c]["summary"] for c in no_vector]), strict=True):
            reports[cid]["embedding"] = [float(x) for x in vector]
    return reports


def _read_values(graph: Graph, name: str, **params) -> list[dict]:
    """Rows of a named read as plain dicts of the driver's values (no walk through each list of
    floats looking for nodes, as ``Graph.read`` does: a fifth of the time of a page of vectors)."""
    text = query(name)

    def work(tx):
        return [dict(record.items()) for record in tx.run(text, params)]

    with graph.session(read_only=True) as session:
        return session.execute_read(work)


def _membership(ids: list[str], chunk_rows: dict[str, list[int]], n: int):
    """Communities x chunks: 1 where the chunk is a member."""
    import numpy as np
    from scipy import sparse

    rows = [k for k, cid in enumerate(ids) for _ in chunk_rows[cid]]
    cols = [r for cid in ids for r in chunk_rows[cid]]
    return sparse.csr_matrix((np.ones(len(cols), dtype=np.float32), (rows, cols)), shape=(len(ids), n))


def _ctfidf(counts):
    """Class-based TF-IDF of communities x terms counts: tf (a community's share of each term)
    times log(1 + average words per community / the term's frequency over all communities)."""
    import numpy as np
    from scipy import sparse

    counts = sparse.csr_matrix(counts, dtype=np.float32)
    totals = np.asarray(counts.sum(axis=1)).ravel()
    tf = sparse.diags(1.0 / np.maximum(totals, 1.0)).dot(counts)
    frequency = np.asarray(counts.sum(axis=0)).ravel()
    average = float(totals.mean()) if len(totals) else 0.0
    idf = np.log1p(average / np.maximum(frequency, 1.0)).astype(np.float32)
    return sparse.csr_matrix(tf.dot(sparse.diags(idf)))


def _top_terms(scores, k: int, vocabulary) -> list[str]:
    """The community's best terms; a term whose words the terms before it already hold is left out."""
    import numpy as np

    row = scores.getrow(k)
    ranked = np.argsort(-row.data, kind="stable")
    chosen: list[str] = []
    score: dict[str, float] = {}
    words: set[str] = set()
    for j, value in zip(row.indices[ranked], row.data[ranked], strict=True):
        term = str(vocabulary[j])
        parts = set(term.split())
        if parts <= words:
            continue
        score[term] = float(value)
        inside = [t for t in chosen if " " not in t and t in parts and value >= PHRASE_OVER_WORD * score[t]]
        if inside:  # "mount caldrun" takes the place of "caldrun" when it is nearly as distinctive
            at = chosen.index(inside[0])
            chosen = [t for t in chosen[:at] if t not in inside] + [term] + [t for t in chosen[at:] if t not in inside]
        else:
            chosen.append(term)
        words |= parts
        if len(chosen) >= TOP_PHRASES:
            break
    return chosen


def _representatives(ranked: list[int], documents: list[str | None]) -> list[int]:
    """Up to SENTENCES chunks, closest first, from distinct documents where possible."""
    chosen: list[int] = []
    seen: set[str | None] = set()
    for r in ranked:
        if documents[r] not in seen:
            chosen.append(r)
            seen.add(documents[r])
        if len(chosen) == SENTENCES:
            return chosen
    for r in ranked:
        if r not in chosen:
            chosen.append(r)
        if len(chosen) == SENTENCES:
            break
    return chosen


def _best_sentence(text: str, terms: list[str]) -> str:
    """The sentence of `text` that holds most of `terms` (the first of equals); cut at MAX_SENTENCE."""
    best, best_score = "", -1
    patterns = [re.compile(r"\b" + re.escape(t) + r"\b", re.IGNORECASE) for t in terms]
    for sentence in split_sentences(text):
        sentence = " ".join(sentence.split())
        if len(sentence) < 20:
            continue
        score = sum(1 for p in patterns if p.search(sentence))
        if score > best_score:
            best, best_score = sentence, score
    if not best:
        best = " ".join(text.split())
    if len(best) > MAX_SENTENCE:
        best = best[: MAX_SENTENCE - 1].rsplit(" ", 1)[0] + "…"
    return best


def _summary(cid: str, report: dict, titles: dict[str, str]) -> str:
    lines = [
        report["title"] or cid,
        f"{report['size']} members: {report['chunks']} chunks, {report['entities']} entities, "
        f"{report['documents']} documents" + (f" ({', '.join(report['corpora'])})" if report["corpora"] else ""),
    ]
    if report["phrases"]:
        lines.append("Key phrases: " + ", ".join(report["phrases"]))
    if report["topEntities"]:
        lines.append("Entities: " + ", ".join(report["topEntities"]))
    if report["documentIds"]:
        shown = [titles.get(d) or d for d in report["documentIds"][:8]]
        rest = report["documents"] - len(shown)
        lines.append("Documents: " + "; ".join(shown) + (f"; and {rest} more" if rest > 0 else ""))
    if report["sentences"]:
        lines.append("Representative sentences:")
        lines += [f"- {s} [{c}]" for s, c in zip(report["sentences"], report["sentenceChunks"], strict=True)]
    return "\n".join(lines)


def _mentions(graph: Graph, row_of: dict[str, int]) -> dict[int, list[tuple[str, str]]]:
    """Chunk row -> the (id, name) of each entity it mentions."""
    found: dict[int, list[tuple[str, str]]] = defaultdict(list)
    after = ""
    while True:
        page = graph.read(
            "communities/mentions", after=after, limit=PAGE, minConfidence=graph.settings.entity_draw_min_confidence
        )
        for row in page:
            r = row_of.get(row["chunk"])
            if r is not None:
                found[r] = [(e["id"], e["name"]) for e in row["entities"]]
        if len(page) < PAGE:
            return found
        after = page[-1]["chunk"]


def _chunk_texts(graph: Graph, ids: list[str]) -> dict[str, str]:
    texts: dict[str, str] = {}
    for start in range(0, len(ids), PAGE):
        for row in graph.read("communities/chunk_texts", ids=ids[start : start + PAGE]):
            texts[row["id"]] = row["text"] or ""
    return texts


# --- LLM-written reports ---------------------------------------------------------------------------

_CITATION = re.compile(r"\[([^\[\]\n]{1,200})\]")


def llm_messages(summary: str, chunks: list[dict]) -> list[dict]:
    passages = "\n\n".join(f"[{c['id']}] {(c['text'] or '')[:LLM_CHUNK_CHARS]}" for c in chunks)
    user = f"EXTRACTIVE REPORT:\n{summary}\n\nPASSAGES:\n{passages}"
    return [{"role": "system", "content": REPORT_PROMPT}, {"role": "user", "content": user}]


def checked_citations(report: str, given: set[str]) -> str:
    """The report with citations of ids that were not given removed."""
    return _CITATION.sub(lambda m: m.group(0) if m.group(1).strip() in given else "", report).strip()


def require_llm(settings) -> None:
    """One actionable line when no LLM is configured for `--llm-reports`."""
    if not settings.llm_configured:
        from graphrag_cypher.errors import GraphragError

        raise GraphragError(
            "--llm-reports needs an LLM: set GRAPHRAG_LLM_MODEL and OPENAI_BASE_URL (or OPENAI_API_KEY)"
        )


def llm_reports(graph: Graph, settings, parallel: int = 4, progress: Callable[[str], None] | None = None) -> dict:
    """An LLM-written report for every community without one by the current model, `parallel`
    requests at a time (429 and 5xx are retried with backoff by the client)."""
    from concurrent.futures import ThreadPoolExecutor

    from graphrag_cypher import llm

    progress = progress or (lambda message: None)
    require_llm(settings)
    model = settings.llm_label
    total = graph.read_row("communities/llm_count", model=model)
    pending = graph.read("communities/llm_pending", model=model, chunks=LLM_CHUNKS)
    outcome = {"model": model, "requested": len(pending), "cached": total["cached"], "written": 0, "failed": 0}
    if not pending:
        return outcome
    client = None if settings.local_model_path is not None else llm.client(settings)
    workers = 1 if settings.local_model_path is not None else max(1, parallel)

    def write(community: dict) -> tuple[str, str | None, str | None]:
        messages = llm_messages(community["summary"] or "", community["chunks"])
        try:
            text = llm.complete(settings, messages, llm_client=client)
        except llm.LLMError as exc:
            return community["id"], None, str(exc)
        return community["id"], checked_citations(text, {c["id"] for c in community["chunks"]}), None

    done: list[dict] = []
    errors: list[str] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for n, (cid, report, error) in enumerate(pool.map(write, pending), start=1):
            if report:
                done.append({"id": cid, "report": report})
            else:
                errors.append(error or "empty reply")
            progress(f"communities: {n}/{len(pending)} LLM reports")
            if len(done) >= 100:
                graph.write("communities/set_llm_reports", rows=done, model=model)
                outcome["written"] += len(done)
                done = []
    if done:
        graph.write("communities/set_llm_reports", rows=done, model=model)
        outcome["written"] += len(done)
    outcome["failed"] = len(errors)
    if errors:
        outcome["error"] = errors[0]
    return outcome
