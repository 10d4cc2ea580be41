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

from graphrag_cypher.errors import GraphragError


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
    from graphrag_cypher.loaders.qa_corpus import passage_id
    from graphrag_cypher.safe_io import read_json

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


def cutoffs(k: int) -> list[int]:
    """The cut-offs reported: recall@2 and recall@5 as the multi-hop papers report them, and `k`."""
    return sorted({2, 5, k})


def score(question: Question, ranked: list[dict], k: int | list[int]) -> dict:
    """recall@k, hit@k and reciprocal rank for one question; `ranked` rows have document_id, title.

    With one `k`: {"recall", "hit", "rr"}. With a list of cut-offs: {"recall": {k: ...}, "hit": {k: ...}, "rr"}.
    """
    seen_docs, docs = set(), []
    for row in ranked:
        if row["document_id"] not in seen_docs:
            seen_docs.add(row["document_id"])
            docs.append(row)
    if question.gold_ids:
        hits = [row["document_id"] in question.gold_ids for row in docs]
        gold, key = question.gold_ids, "document_id"
    else:
        hits = [row.get("title") in question.gold_titles for row in docs]
        gold, key = question.gold_titles, "title"
    total = len(gold)
    first = next((i for i, hit in enumerate(hits) if hit), None)
    recall, hit = {}, {}
    for cut in [k] if isinstance(k, int) else k:
        found = {row.get(key) for row in docs[:cut]} & gold
        recall[cut] = len(found) / total if total else 0.0
        hit[cut] = float(len(found) == total and total > 0)
    rr = 1.0 / (first + 1) if first is not None else 0.0
    if isinstance(k, int):
        return {"recall": recall[k], "hit": hit[k], "rr": rr}
    return {"recall": recall, "hit": hit, "rr": rr}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else 0.0


def summarise(scores: list[dict], latencies: list[float], k: int) -> dict:
    """recall@c and hit@c for every cut-off of :func:`cutoffs` (scores from ``score(q, ranked, cutoffs(k))``)."""
    n = len(scores) or 1
    out: dict = {}
    for cut in cutoffs(k):
        out[f"recall@{cut}"] = round(100 * sum(s["recall"][cut] for s in scores) / n, 2)
    for cut in cutoffs(k):
        out[f"hit@{cut}"] = round(100 * sum(s["hit"][cut] for s in scores) / n, 2)
    out.update(
        {
            "mrr": round(sum(s["rr"] for s in scores) / n, 4),
            "latency_ms": {
                "p50": round(statistics.median(latencies), 1) if latencies else None,
                "p95": round(percentile(latencies, 0.95), 1) if latencies else None,
            },
            "questions": len(scores),
        }
    )
    return out


def evaluate_modes(
    graph,
    embedder,
    questions: list[Question],
    modes: list[str],
    k: int,
    corpus: str | None,
    on_progress=lambda message: None,
) -> dict:
    from graphrag_cypher.retrieval.modes import retriever
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer

    analyzer = QuestionAnalyzer(graph)
    results = {}
    fetch = max(k, 10)  # more than k chunks: chunks of one document count once
    for mode in modes:
        search = retriever(mode, graph, embedder)
        scores, latencies = [], []
        for question in questions[:3]:  # warm-up: query plans and the PPR projection
            search.retrieve(analyzer.analyze(question.text, corpus=corpus), fetch)
        for question in questions:
            started = time.perf_counter()
            evidence = search.retrieve(analyzer.analyze(question.text, corpus=corpus), fetch)
            latencies.append((time.perf_counter() - started) * 1000)
            scores.append(
                score(question, [{"document_id": e.document_id, "title": e.title} for e in evidence], cutoffs(k))
            )
        results[mode] = summarise(scores, latencies, k)
        on_progress(f"{mode}: recall@{k} {results[mode][f'recall@{k}']}")
    return results


def evaluate_reranked(
    graph,
    embedder,
    questions: list[Question],
    modes: list[str],
    k: int,
    corpus: str | None,
    reranker,
    candidates: int = 20,
    on_progress=lambda message: None,
) -> dict:
    """Each mode's top `candidates` reordered by `reranker` (as `ask --rerank` does), one row
    per mode named "<mode>+rerank"; latency includes the reranker's."""
    from graphrag_cypher.retrieval.modes import retriever
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer
    from graphrag_cypher.retrieval.rerank import rerank

    analyzer = QuestionAnalyzer(graph)
    results = {}
    fetch = max(k, 10)
    for mode in modes:
        search = retriever(mode, graph, embedder)
        scores, latencies = [], []
        for question in questions:
            started = time.perf_counter()
            analysis = analyzer.analyze(question.text, corpus=corpus)
            found = search.retrieve(analysis, max(fetch, candidates))
            evidence, _ = rerank(reranker, analysis.search_text or question.text, found, fetch)
            latencies.append((time.perf_counter() - started) * 1000)
            scores.append(
                score(question, [{"document_id": e.document_id, "title": e.title} for e in evidence], cutoffs(k))
            )
        name = f"{mode}+rerank"
        results[name] = summarise(scores, latencies, k)
        on_progress(f"{name}: recall@{k} {results[name][f'recall@{k}']}")
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

    from graphrag_cypher.db import query

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
            scores.append(
                score(question, [{"document_id": r["documentId"], "title": r["title"]} for r in rows], cutoffs(k))
            )
        results[name] = summarise(scores, latencies, k)
        results[name]["failed_questions"] = failures
        on_progress(f"{name}: recall@{k} {results[name][f'recall@{k}']}")
    return results


def evaluate_answers(
    graph, embedder, settings, questions: list[Question], mode: str, k: int, corpus: str | None
) -> dict:
    """Exact match and F1 of the answers (SQuAD normalisation) and the share of citations to gold passages."""
    from graphrag_cypher.retrieval import qa

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


def display_name(name: str, result: dict) -> str:
    """A retriever's name as tables and charts show it: the default mode says so."""
    return f"{name} (default)" if name == result.get("default_mode") else name


def report_rows(result: dict) -> list[list[str]]:
    """One row per mode and peer: name, recall@c and hit@c for each cut-off, MRR, p50 and p95 ms."""
    cuts = cutoffs(result["k"])
    rows = []
    for group in ("modes", "peers"):
        for name, r in result.get(group, {}).items():
            rows.append(
                [display_name(name, result)]
                + [f"{r[f'recall@{c}']:.2f}" for c in cuts]
                + [f"{r[f'hit@{c}']:.2f}" for c in cuts]
                + [f"{r['mrr']:.3f}", str(r["latency_ms"]["p50"]), str(r["latency_ms"]["p95"])]
            )
    return rows


def report_headers(result: dict) -> list[str]:
    cuts = cutoffs(result["k"])
    return ["retriever"] + [f"recall@{c}" for c in cuts] + [f"hit@{c}" for c in cuts] + ["MRR", "p50 ms", "p95 ms"]


def write_report(result: dict, folder: Path) -> list[Path]:
    """A Markdown table and a PNG bar chart of recall@2 and recall@k by mode and peer, the default marked."""
    folder.mkdir(parents=True, exist_ok=True)
    k = result["k"]
    headers = report_headers(result)
    lines = [
        f"# Retrieval evaluation: {result['dataset']} ({result['questions']} questions)",
        "",
        f"Default mode: `{result.get('default_mode')}` (what `graphrag ask` uses without `--mode`).",
        "",
        "| " + " | ".join(headers) + " |",
        "| --- |" + " ---: |" * (len(headers) - 1),
    ]
    lines += ["| " + " | ".join(row) + " |" for row in report_rows(result)]
    markdown = folder / "retrieval.md"
    markdown.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    entries = [(name, r, group) for group in ("modes", "peers") for name, r in result.get(group, {}).items()]
    low = min(cutoffs(k))
    fig, ax = plt.subplots(figsize=(9, 0.7 * len(entries) + 1.5))
    names = [display_name(name, result) for name, _, _ in entries][::-1]
    ys = list(range(len(entries)))
    for y, (name, r, group) in zip(ys, entries[::-1], strict=True):
        colour = "#d62728" if name == result.get("default_mode") else "#1f77b4" if group == "modes" else "#999999"
        ax.barh(y + 0.2, r[f"recall@{k}"], height=0.38, color=colour)
        ax.barh(y - 0.2, r[f"recall@{low}"], height=0.38, color=colour, alpha=0.45)
        ax.text(r[f"recall@{k}"] + 0.5, y + 0.2, f"{r[f'recall@{k}']:.1f}", va="center", fontsize=8)
        ax.text(r[f"recall@{low}"] + 0.5, y - 0.2, f"{r[f'recall@{low}']:.1f}", va="center", fontsize=8)
    ax.set_yticks(ys, names)
    for label in ax.get_yticklabels():
        if label.get_text().endswith("(default)"):
            label.set_fontweight("bold")
    ax.set_xlabel(f"recall@{k} (solid) and recall@{low} (light), %")
    ax.set_xlim(0, 105)
    ax.set_title(f"{result['dataset']}: default mode red, other modes blue, peers grey")
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


def passage_files(passages) -> tuple[Path, ...]:
    """The corpus files `passages` names (a file, a folder of ``*.json`` files, or several of
    either), in a stable order; their union is the corpus an evaluation scores against."""
    from graphrag_cypher.errors import GraphragError

    given = [Path(passages)] if isinstance(passages, str | Path) else [Path(p) for p in passages]
    files: list[Path] = []
    for path in given:
        if path.is_dir():
            found = sorted(path.glob("*.json"))
            if not found:
                raise GraphragError(f"{path} holds no .json passage files")
            files += found
        else:
            files.append(path)
    unique = tuple(dict.fromkeys(f.resolve() for f in files))
    if not unique:
        raise GraphragError("no passage files given: pass --passages FILE (or a folder), once or more")
    return unique


def corpus_key(corpus, embedder_name: str) -> str:
    """A hash of the corpus files' bytes (in their order) and the embedder's name."""
    import hashlib

    digest = hashlib.sha256()
    for n, path in enumerate(passage_files(corpus)):
        if n:
            digest.update(b"\0next file\0")
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    digest.update(embedder_name.encode())
    return digest.hexdigest()[:12]


def instance_home(passages, embedder_name: str, root: Path) -> Path:
    """The evaluation's Neo4j folder for these passages and embedder (reused by later runs).

    A relative root is the project's, as for every local instance: the password kept there and
    the data folder it opens must be the same folder, whatever the working directory."""
    from graphrag_cypher.admin import neo4j_local

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
        passages,
        keep: bool = False,
        on_progress=lambda message: None,
        root: Path = Path(".graphrag") / "eval",
    ):
        self.settings, self.keep, self.say, self.root = settings, keep, on_progress, root
        self.passages = passage_files(passages)  # one file, a folder, or several: their union

    def __enter__(self) -> EvalInstance:
        from contextlib import ExitStack

        from graphrag_cypher.admin import migrations, neo4j_local
        from graphrag_cypher.db import connect
        from graphrag_cypher.embedder import make_embedder
        from graphrag_cypher.linkers.phrases import MAX_CHUNKS, link_phrases
        from graphrag_cypher.linkers.titles import link_titles
        from graphrag_cypher.loaders.qa_corpus import parse_qa_corpora
        from graphrag_cypher.store.ingest import Loader, LoadOptions

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
            ).run(parse_qa_corpora(self.passages, corpus=CORPUS))
            self.loaded = stats.created + stats.unchanged  # the corpus's passages, each once
            files = f" from {len(self.passages)} files" if len(self.passages) > 1 else ""
            say(f"corpus: {stats.created} passages loaded{files}, {stats.unchanged} unchanged, {stats.failed} failed")
            linked = link_titles(self.graph, corpus=CORPUS)
            say(f"titles: {linked['topics']} topics, {linked['mentions_total']} title mentions")
            shared = link_phrases(self.graph, max_chunks=MAX_CHUNKS)  # an instance linked before follows the default
            say(f"phrases: {shared['phrases']} shared phrases, {shared['links']} chunk-phrase links")
            self._stack = stack.pop_all()
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()
