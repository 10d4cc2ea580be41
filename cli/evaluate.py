"""`graphrag eval retrieval|answers`: scored evaluation on multi-hop QA sets, side by side."""

from __future__ import annotations

from pathlib import Path

import click

from .output import info, print_json
from .params import json_option

ALL_MODES = "vector,fulltext,hybrid,graph,ppr"


def eval_options(func):
    decorators = [
        click.option("--questions", "questions_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="Questions: HippoRAG's MuSiQue, 2WikiMultiHopQA or HotpotQA JSON (detected)."),
        click.option("--corpus", "corpus_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="Passages: a list of {title, text} or an object title -> [sentences]."),
        click.option("-k", "--k", "k", type=click.IntRange(1, 100), default=5, show_default=True),
        click.option("--limit", type=int, default=None, help="Only the first N questions."),
        click.option("--keep", is_flag=True, help="Leave the evaluation's Neo4j running afterwards."),
        json_option,
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


class _Session:
    """The corpus loaded (and title- and phrase-linked) into a Neo4j instance of its own."""

    def __init__(self, corpus_path: Path, keep: bool, quiet: bool):
        self.corpus_path, self.keep, self.quiet = corpus_path, keep, quiet

    def __enter__(self):
        from dataclasses import replace

        from graphrag_cypher import migrations, neo4j_local
        from graphrag_cypher.db import connect
        from graphrag_cypher.embedder import make_embedder
        from graphrag_cypher.evaluation import isolated_instance
        from graphrag_cypher.ingest import LoadOptions, Loader
        from graphrag_cypher.linkers.phrases import link_phrases
        from graphrag_cypher.linkers.titles import link_titles
        from graphrag_cypher.loaders.qa_corpus import parse_qa_corpus

        from .main import settings

        say = (lambda m: None) if self.quiet else info
        base = settings()
        self.embedder = make_embedder(base)
        self.instance = isolated_instance(self.corpus_path, self.embedder.name, Path(".graphrag") / "eval")
        say(f"evaluation Neo4j in {self.instance.home} on bolt port {self.instance.bolt_port}")
        neo4j_local.start(self.instance, timeout=240, echo=say)
        try:
            config = replace(base, neo4j_uri=f"bolt://127.0.0.1:{self.instance.bolt_port}",
                             neo4j_username="neo4j", neo4j_password=self.instance.password, neo4j_database="neo4j")
            self.graph = connect(config)
            migrations.apply(self.graph, config.placeholders())
            stats = Loader(self.graph, self.embedder,
                           LoadOptions(loader="qa-corpus", source_root="eval", corpus="eval")).run(
                parse_qa_corpus(self.corpus_path, corpus="eval"))
            say(f"corpus: {stats.created} passages loaded, {stats.unchanged} unchanged, {stats.failed} failed")
            linked = link_titles(self.graph, corpus="eval")
            say(f"titles: {linked['topics']} topics, {linked['mentions_total']} title mentions")
            shared = link_phrases(self.graph)
            say(f"phrases: {shared['phrases']} shared phrases, {shared['links']} chunk-phrase links")
        except BaseException:
            if not self.keep:  # a failed set-up must not leave a server behind
                neo4j_local.stop(self.instance)
            raise
        return self

    def __exit__(self, *exc):
        from graphrag_cypher import neo4j_local

        self.graph.close()
        if not self.keep:
            neo4j_local.stop(self.instance)


@click.group("eval")
def eval_group() -> None:
    """Scored evaluation: retrieval recall and answer quality on multi-hop QA sets.

    The corpus goes into a Neo4j instance of its own (under .graphrag/eval/, reused by
    later runs of the same corpus), so user data is never touched.
    """


@eval_group.command("retrieval")
@eval_options
@click.option("--modes", default=ALL_MODES, show_default=True, help="Comma-separated retrieval modes.")
@click.option("--peers", is_flag=True, help="Also run neo4j-graphrag's VectorRetriever, HybridRetriever and HybridCypherRetriever.")
@click.option("--report", "report_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write retrieval.md and retrieval.png (recall@k by mode and peer) here.")
def eval_retrieval(questions_path, corpus_path, k, limit, keep, as_json, modes, peers, report_dir) -> None:
    """Recall@k, hit@k, MRR and latency of every mode (and the peers) in one run.

    \b
    Example:
      graphrag eval retrieval --questions musique_train.json \\
        --corpus musique_train_corpus.json --peers --report eval-report/
    """
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.evaluation import evaluate_modes, evaluate_peers, read_questions, write_report
    from graphrag_cypher.queries import query
    from graphrag_cypher.retrieval import MODES

    wanted = [m.strip() for m in modes.split(",") if m.strip()]
    unknown = [m for m in wanted if m not in MODES]
    if unknown:
        raise GraphragError(f"unknown mode(s) {', '.join(unknown)}: choose from {', '.join(MODES)}")
    fmt, questions = read_questions(questions_path)
    questions = questions[:limit] if limit else questions
    say = (lambda m: None) if as_json else info
    with _Session(corpus_path, keep, as_json) as session:
        result = {"dataset": f"{fmt} ({questions_path.name})", "questions": len(questions), "k": k,
                  "modes": evaluate_modes(session.graph, session.embedder, questions, wanted, k, "eval", say)}
        if peers:
            result["peers"] = evaluate_peers(session.graph, session.embedder, questions, k,
                                             query("evaluation/peer_expansion"), say)
    if report_dir:
        result["report"] = [str(p) for p in write_report(result, report_dir)]
    if as_json:
        print_json(result)
        return
    _print_table(result)


def _print_table(result: dict) -> None:
    from .output import print_table

    k = result["k"]
    rows = []
    for group in ("modes", "peers"):
        for name, r in result.get(group, {}).items():
            rows.append([name, f"{r[f'recall@{k}']:.2f}", f"{r[f'hit@{k}']:.2f}", f"{r['mrr']:.3f}",
                         r["latency_ms"]["p50"], r["latency_ms"]["p95"]])
    print_table(["retriever", f"recall@{k}", f"hit@{k}", "MRR", "p50 ms", "p95 ms"], rows,
                title=f"{result['dataset']}: {result['questions']} questions")


@eval_group.command("answers")
@eval_options
@click.option("--mode", default=None, help="Retrieval mode (default: graph).")
def eval_answers(questions_path, corpus_path, k, limit, keep, as_json, mode) -> None:
    """Exact match and F1 (SQuAD normalisation) of LLM answers, and citation precision.

    Needs an LLM (OPENAI_BASE_URL, GRAPHRAG_LLM_MODEL); without one it says so and exits 0.

    \b
    Example:
      graphrag eval answers --questions musique_train.json --corpus musique_train_corpus.json --limit 20
    """
    from graphrag_cypher import qa
    from graphrag_cypher.evaluation import exact_match, f1, read_questions
    from graphrag_cypher.retrieval import DEFAULT_MODE

    from .main import settings

    config = settings()
    if not config.llm_configured:
        message = "no LLM is configured (set OPENAI_BASE_URL and GRAPHRAG_LLM_MODEL): nothing to evaluate"
        print_json({"skipped": message}) if as_json else click.echo(message)
        return
    fmt, questions = read_questions(questions_path)
    questions = questions[:limit] if limit else questions
    totals = {"em": 0.0, "f1": 0.0, "cited": 0, "cited_gold": 0}
    with _Session(corpus_path, keep, as_json) as session:
        for question in questions:
            result = qa.ask(session.graph, session.embedder, config, question.text, mode=mode or DEFAULT_MODE, k=k,
                            corpus="eval")
            truths = [t for t in [question.answer, *question.aliases] if t]
            totals["em"] += exact_match(result["answer"], truths)
            totals["f1"] += f1(result["answer"], truths)
            for citation in result["citations"]:
                totals["cited"] += 1
                gold = citation["document_id"] in question.gold_ids or citation["title"] in question.gold_titles
                totals["cited_gold"] += int(gold)
    n = len(questions) or 1
    out = {"dataset": f"{fmt} ({questions_path.name})", "questions": len(questions),
           "exact_match": round(100 * totals["em"] / n, 2), "f1": round(100 * totals["f1"] / n, 2),
           "citation_precision": round(100 * totals["cited_gold"] / totals["cited"], 2) if totals["cited"] else None}
    if as_json:
        print_json(out)
    else:
        click.echo(f"EM {out['exact_match']}, F1 {out['f1']}, citation precision {out['citation_precision']} "
                   f"over {out['questions']} questions")
