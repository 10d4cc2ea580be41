"""Retrieval evaluation on multi-hop QA sets, every mode and the peers side by side.

Formats are detected: HippoRAG's MuSiQue shape (`paragraphs[]` with `is_supporting`; gold
passages matched on (title, text), since titles repeat) and its 2WikiMultiHopQA / HotpotQA
shapes (`context` as `[title, [sentences]]`, `supporting_facts` as `[title, index]`; gold
passages by title). Metrics per mode: recall@k as HippoRAG defines it (the share of a
question's gold passages in the top k, averaged over questions), hit@k (all gold in the
top k), MRR (first gold passage), and p50/p95 latency of analysis + retrieval.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import GraphragError


@dataclass
class Question:
    id: str
    text: str
    answer: str | None
    aliases: list[str]
    gold_ids: set[str]  # passage document ids (MuSiQue)
    gold_titles: set[str]  # titles (2Wiki, HotpotQA)


def detect_format(records: list[dict]) -> str:
    if not records or not isinstance(records, list) or not isinstance(records[0], dict):
        raise GraphragError("the questions file must be a JSON list of question objects")
    first = records[0]
    if "paragraphs" in first:
        return "musique"
    if "context" in first and "supporting_facts" in first:
        return (
            "2wiki"
            if "evidences" in first or "type" in first and "_id" in first and "entity_ids" in first
            else "hotpotqa"
        )
    raise GraphragError(
        "unknown question format: expected MuSiQue (`paragraphs`) or 2Wiki/HotpotQA (`context`, `supporting_facts`)"
    )


def read_questions(path: Path) -> tuple[str, list[Question]]:
    from .loaders.qa_corpus import passage_id
    from .safe_io import read_json

    try:
        records = read_json(path)  # bounded, and deep nesting is a ValueError, not a RecursionError
    except (OSError, ValueError) as exc:
        raise GraphragError(f"cannot read questions from {path}: {exc}") from exc
    fmt = detect_format(records)
    questions = []
    for i, record in enumerate(records):
        qid = str(record.get("id") or record.get("_id") or i)
        aliases = list(record.get("answer_aliases") or [])
        if fmt == "musique":
            gold = {
                passage_id(p["title"].strip(), p["paragraph_text"].strip())
                for p in record["paragraphs"]
                if p.get("is_supporting")
            }
            questions.append(Question(qid, record["question"], record.get("answer"), aliases, gold, set()))
        else:
            titles = {fact[0] for fact in record["supporting_facts"]}
            questions.append(Question(qid, record["question"], record.get("answer"), aliases, set(), titles))
    return fmt, questions


def score(question: Question, ranked: list[dict], k: int) -> dict:
    """recall@k, hit@k and reciprocal rank for one question; `ranked` rows have document_id, title."""
    seen_docs, docs = set(), []
    for row in ranked:
        if row["document_id"] not in seen_docs:
            seen_docs.add(row["document_id"])
            docs.append(row)
    if question.gold_ids:
        hits = [row["document_id"] in question.gold_ids for row in docs]
        found = {row["document_id"] for row in docs[:k]} & question.gold_ids
        total = len(question.gold_ids)
    else:
        hits = [row.get("title") in question.gold_titles for row in docs]
        found = {row.get("title") for row in docs[:k]} & question.gold_titles
        total = len(question.gold_titles)
    first = next((i for i, hit in enumerate(hits) if hit), None)
    return {
        "recall": len(found) / total if total else 0.0,
        "hit": float(len(found) == total and total > 0),
        "rr": 1.0 / (first + 1) if first is not None else 0.0,
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else 0.0


def summarise(scores: list[dict], latencies: list[float], k: int) -> dict:
    n = len(scores) or 1
    return {
        f"recall@{k}": round(100 * sum(s["recall"] for s in scores) / n, 2),
        f"hit@{k}": round(100 * sum(s["hit"] for s in scores) / n, 2),
        "mrr": round(sum(s["rr"] for s in scores) / n, 4),
        "latency_ms": {
            "p50": round(statistics.median(latencies), 1) if latencies else None,
            "p95": round(percentile(latencies, 0.95), 1) if latencies else None,
        },
        "questions": len(scores),
    }


def evaluate_modes(
    graph,
    embedder,
    questions: list[Question],
    modes: list[str],
    k: int,
    corpus: str | None,
    on_progress=lambda message: None,
) -> dict:
    from .retrieval import QuestionAnalyzer, retriever

    analyzer = QuestionAnalyzer(graph)
    results = {}
    fetch = max(k, 10)
    for mode in modes:
        search = retriever(mode, graph, embedder)
        scores, latencies = [], []
        for question in questions[:3]:  # warm-up: query plans and the PPR projection
            search.retrieve(analyzer.analyze(question.text, corpus=corpus), fetch)
        for question in questions:
            started = time.perf_counter()
            evidence = search.retrieve(analyzer.analyze(question.text, corpus=corpus), fetch)
            latencies.append((time.perf_counter() - started) * 1000)
            scores.append(score(question, [{"document_id": e.document_id, "title": e.title} for e in evidence], k))
        results[mode] = summarise(scores, latencies, k)
        on_progress(f"{mode}: recall@{k} {results[mode][f'recall@{k}']}")
    return results


def evaluate_peers(
    graph,
    embedder,
    questions: list[Question],
    k: int,
    expansion_query: str | None = None,
    on_progress=lambda message: None,
) -> dict:
    """neo4j-graphrag's own retrievers on the same indexes and embeddings (our embedder is theirs too)."""
    from neo4j_graphrag.retrievers import HybridCypherRetriever, HybridRetriever, VectorRetriever

    from .db import query

    expansion_query = expansion_query or query("evaluation/peer_expansion")
    driver, database = graph.driver, graph.database
    peers = {
        "neo4j-graphrag VectorRetriever": VectorRetriever(
            driver, "chunk_embedding", embedder, return_properties=["id"], neo4j_database=database
        ),
        "neo4j-graphrag HybridRetriever": HybridRetriever(
            driver, "chunk_embedding", "chunk_text", embedder, return_properties=["id"], neo4j_database=database
        ),
        "neo4j-graphrag HybridCypherRetriever (our expansion)": HybridCypherRetriever(
            driver, "chunk_embedding", "chunk_text", expansion_query, embedder, neo4j_database=database
        ),
    }
    results = {}
    for name, retriever in peers.items():
        scores, latencies, failures = [], [], 0
        for question in questions:
            started = time.perf_counter()
            try:
                vector = embedder.embed_query(question.text)
                if isinstance(retriever, VectorRetriever):
                    raw = retriever.get_search_results(query_vector=vector, top_k=max(k, 10))
                else:
                    raw = retriever.get_search_results(query_text=question.text, query_vector=vector, top_k=max(k, 10))
                ids = [_record_id(r) for r in raw.records]
            except Exception:  # a peer failing on one question (e.g. Lucene syntax) scores zero there
                ids, failures = [], failures + 1
            latencies.append((time.perf_counter() - started) * 1000)
            rows = graph.read("evaluation/chunk_documents", ids=[i for i in ids if i])
            order = {cid: n for n, cid in enumerate(ids)}
            rows.sort(key=lambda r: order.get(r["chunkId"], 1e9))
            scores.append(score(question, [{"document_id": r["documentId"], "title": r["title"]} for r in rows], k))
        results[name] = summarise(scores, latencies, k)
        results[name]["failed_questions"] = failures
        on_progress(f"{name}: recall@{k} {results[name][f'recall@{k}']}")
    return results


def evaluate_answers(
    graph, embedder, settings, questions: list[Question], mode: str, k: int, corpus: str | None
) -> dict:
    """Exact match and F1 of the answers (SQuAD normalisation) and the share of citations to gold passages."""
    from .retrieval import qa

    totals = {"em": 0.0, "f1": 0.0, "cited": 0, "cited_gold": 0}
    for question in questions:
        answer = qa.ask(graph, embedder, settings, question.text, mode=mode, k=k, corpus=corpus)
        truths = [t for t in [question.answer, *question.aliases] if t]
        totals["em"] += exact_match(answer.text, truths)
        totals["f1"] += f1(answer.text, truths)
        for citation in answer.citations:
            totals["cited"] += 1
            gold = citation.document_id in question.gold_ids or citation.title in question.gold_titles
            totals["cited_gold"] += int(gold)
    n = len(questions) or 1
    return {
        "questions": len(questions),
        "exact_match": round(100 * totals["em"] / n, 2),
        "f1": round(100 * totals["f1"] / n, 2),
        "citation_precision": round(100 * totals["cited_gold"] / totals["cited"], 2) if totals["cited"] else None,
    }


def _record_id(record) -> str | None:
    """Our chunk id: in `node` for the built-in queries (whose `id` is the element id), else `id`."""
    node = record.get("node") if "node" in record.keys() else None
    if isinstance(node, dict):
        return node.get("id")
    return record["id"] if "id" in record.keys() else None


def write_report(result: dict, folder: Path) -> list[Path]:
    """A Markdown table and a PNG bar chart of recall@k by mode and peer."""
    folder.mkdir(parents=True, exist_ok=True)
    k = result["k"]
    rows = [(name, r) for name, r in result["modes"].items()] + [
        (name, r) for name, r in result.get("peers", {}).items()
    ]
    lines = [
        f"# Retrieval evaluation: {result['dataset']} ({result['questions']} questions, k={k})",
        "",
        f"| retriever | recall@{k} | hit@{k} | MRR | p50 ms | p95 ms |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, r in rows:
        lines.append(
            f"| {name} | {r[f'recall@{k}']:.2f} | {r[f'hit@{k}']:.2f} | {r['mrr']:.3f} | "
            f"{r['latency_ms']['p50']} | {r['latency_ms']['p95']} |"
        )
    markdown = folder / "retrieval.md"
    markdown.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 0.5 * len(rows) + 1.5))
    names = [name for name, _ in rows][::-1]
    values = [r[f"recall@{k}"] for _, r in rows][::-1]
    colours = ["#1f77b4" if name in result["modes"] else "#999999" for name in names]
    ax.barh(names, values, color=colours)
    for y, value in enumerate(values):
        ax.text(value + 0.5, y, f"{value:.1f}", va="center")
    ax.set_xlabel(f"recall@{k} (%)")
    ax.set_xlim(0, 100)
    ax.set_title(f"{result['dataset']}: recall@{k} by mode (blue) and peer (grey)")
    fig.tight_layout()
    chart = folder / "retrieval.png"
    fig.savefig(chart, dpi=120)
    plt.close(fig)
    return [markdown, chart]


# --- answers (only with an LLM) -------------------------------------------------------------


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, no punctuation, no articles, single spaces."""
    import re
    import string

    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def exact_match(prediction: str, truths: list[str]) -> float:
    return float(any(normalize_answer(prediction) == normalize_answer(t) for t in truths))


def f1(prediction: str, truths: list[str]) -> float:
    from collections import Counter

    best = 0.0
    pred = normalize_answer(prediction).split()
    for truth in truths:
        gold = normalize_answer(truth).split()
        common = Counter(pred) & Counter(gold)
        same = sum(common.values())
        if same == 0 or not pred or not gold:
            continue
        precision, recall = same / len(pred), same / len(gold)
        best = max(best, 2 * precision * recall / (precision + recall))
    return best


# --- an isolated Neo4j for the corpus ---------------------------------------------------------


def corpus_key(corpus: Path, embedder_name: str) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(corpus, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    digest.update(embedder_name.encode())
    return digest.hexdigest()[:12]


def instance_home(passages: Path, embedder_name: str, root: Path) -> Path:
    """The evaluation's Neo4j folder for these passages and embedder (reused by later runs).

    A relative root is the project's, as for every local instance: the password kept there and
    the data folder it opens must be the same folder, whatever the working directory."""
    from . import neo4j_local

    root = Path(root) if Path(root).is_absolute() else neo4j_local.project_root() / root
    return root / corpus_key(passages, embedder_name)


CORPUS = "eval"  # the corpus name the passages are loaded under in the evaluation's instance


class EvalInstance:
    """The passages loaded (and title- and phrase-linked) into a Neo4j instance of their own.

    ``with EvalInstance(settings, passages) as run:`` gives ``run.graph`` and ``run.embedder``;
    the instance (under ``.graphrag/eval/<hash of the passages and embedder>``) is reused by later
    runs of the same passages and stopped afterwards unless ``keep``. A failed set-up stops it too.
    """

    def __init__(
        self,
        settings,
        passages: Path,
        keep: bool = False,
        on_progress=lambda message: None,
        root: Path = Path(".graphrag") / "eval",
    ):
        self.settings, self.passages, self.keep, self.say, self.root = settings, passages, keep, on_progress, root

    def __enter__(self) -> EvalInstance:
        from contextlib import ExitStack

        from . import migrations, neo4j_local
        from .db import connect
        from .embedder import make_embedder
        from .ingest import Loader, LoadOptions
        from .linkers.phrases import link_phrases
        from .linkers.titles import link_titles
        from .loaders.qa_corpus import parse_qa_corpus

        say = self.say
        self.embedder = make_embedder(self.settings)
        home = instance_home(self.passages, self.embedder.name, self.root)
        with ExitStack() as stack:  # a failed set-up stops the server (unless keep) and closes the graph
            server = stack.enter_context(
                neo4j_local.ephemeral(
                    home / "neo4j", password_file=home / "eval-password", heap="1g", keep=self.keep, echo=say
                )
            )
            self.instance = server.instance
            say(f"evaluation Neo4j in {self.instance.home} on bolt port {self.instance.bolt_port}")
            config = server.settings(self.settings)
            self.graph = stack.enter_context(connect(config))
            migrations.apply(self.graph, config.placeholders())
            stats = Loader(
                self.graph, self.embedder, LoadOptions(loader="qa-corpus", source_root=CORPUS, corpus=CORPUS)
            ).run(parse_qa_corpus(self.passages, corpus=CORPUS))
            say(f"corpus: {stats.created} passages loaded, {stats.unchanged} unchanged, {stats.failed} failed")
            linked = link_titles(self.graph, corpus=CORPUS)
            say(f"titles: {linked['topics']} topics, {linked['mentions_total']} title mentions")
            shared = link_phrases(self.graph)
            say(f"phrases: {shared['phrases']} shared phrases, {shared['links']} chunk-phrase links")
            self._stack = stack.pop_all()
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()
