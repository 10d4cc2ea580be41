"""`graphrag eval retrieval|answers`: scored evaluation on multi-hop QA sets, side by side."""

from __future__ import annotations

from pathlib import Path

import click

from graphrag_cypher.retrieval.modes import MODES

from .context import with_settings
from .output import info, print_json
from .params import json_option

ALL_MODES = ",".join(MODES)  # every retrieval mode of the registry


def eval_options(func):
    decorators = [
        click.option(
            "--questions",
            "questions_path",
            required=True,
            type=click.Path(exists=True, dir_okay=False, path_type=Path),
            help="Questions: HippoRAG's MuSiQue, 2WikiMultiHopQA or HotpotQA JSON (detected).",
        ),
        click.option(
            "--passages",
            "passages_path",
            required=True,
            multiple=True,
            type=click.Path(exists=True, path_type=Path),
            help="Passages file: a list of {title, text} or an object title -> [sentences]; a folder is "
            "its *.json files. Repeat it to score against the union of several corpora (a passage in "
            "more than one is loaded once).",
        ),
        click.option("-k", "--k", "k", type=click.IntRange(1, 100), default=5, show_default=True),
        click.option("--limit", type=int, default=None, help="Only the first N questions."),
        click.option("--keep", is_flag=True, help="Leave the evaluation's Neo4j running afterwards."),
        json_option,
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


@click.group("eval")
def eval_group() -> None:
    """Scored evaluation: retrieval recall and answer quality on multi-hop QA sets.

    The passages go into a Neo4j instance of their own (under .graphrag/eval/, reused by
    later runs of the same passages), so user data is never touched.
    """


@eval_group.command("retrieval")
@eval_options
@click.option("--modes", default=ALL_MODES, show_default=True, help="Comma-separated retrieval modes.")
@click.option(
    "--peers",
    is_flag=True,
    help="Also run neo4j-graphrag's VectorRetriever, HybridRetriever and HybridCypherRetriever.",
)
@click.option(
    "--report",
    "report_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write retrieval.md and retrieval.png (recall@k by mode and peer) here.",
)
@click.option(
    "--rerank",
    is_flag=True,
    help="Also each mode with its top candidates reranked (GRAPHRAG_RERANKER or --reranker), as rows <mode>+rerank.",
)
@click.option(
    "--reranker", "reranker_spec", default=None, metavar="cross-encoder:MODEL|URL", help="The reranker for --rerank."
)
@click.option("--rerank-candidates", type=click.IntRange(1, 200), default=20, show_default=True)
@with_settings
def eval_retrieval(
    questions_path,
    passages_path,
    k,
    limit,
    keep,
    as_json,
    modes,
    peers,
    report_dir,
    rerank,
    reranker_spec,
    rerank_candidates,
    config,
) -> None:
    """Recall@2, recall@5 (and @k), hit@k, MRR and latency of every mode (and the peers) in one run.

    The default mode (what `ask` uses without --mode) is named in the JSON (`default_mode`) and
    marked in the table, the Markdown report and the chart.

    \b
    Example:
      graphrag eval retrieval --questions musique_train.json \\
        --passages musique_train_corpus.json --peers --report eval-report/
      graphrag eval retrieval --questions musique_train.json --passages musique_train_corpus.json \\
        --modes vector,graph --rerank --reranker http://127.0.0.1:8081/v1
      graphrag eval retrieval --questions musique_train.json --passages musique_train_corpus.json \\
        --passages hotpotqa_train_corpus.json --passages 2wikimultihopqa_corpus.json
    """
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.evaluation import (
        CORPUS,
        EvalInstance,
        evaluate_modes,
        evaluate_peers,
        evaluate_reranked,
        read_questions,
        write_report,
    )
    from graphrag_cypher.retrieval.modes import DEFAULT_MODE, MODES

    wanted = [m.strip() for m in modes.split(",") if m.strip()]
    unknown = [m for m in wanted if m not in MODES]
    if unknown:
        raise GraphragError(f"unknown mode(s) {', '.join(unknown)}: choose from {', '.join(MODES)}")
    reranker = None
    if rerank:
        from graphrag_cypher.retrieval.rerank import make_reranker

        reranker = make_reranker(reranker_spec)
    fmt, questions = read_questions(questions_path)
    questions = questions[:limit] if limit else questions
    say = (lambda m: None) if as_json else info
    with EvalInstance(config, passages_path, keep, say) as run:
        result = {
            "dataset": f"{fmt} ({questions_path.name})",
            "questions": len(questions),
            "corpus_files": [path.name for path in run.passages],  # the corpus scored against: their union
            "corpus_passages": run.loaded,
            "k": k,
            "default_mode": DEFAULT_MODE,
            "modes": evaluate_modes(run.graph, run.embedder, questions, wanted, k, CORPUS, say),
        }
        if reranker is not None:
            result["modes"].update(
                evaluate_reranked(
                    run.graph, run.embedder, questions, wanted, k, CORPUS, reranker, rerank_candidates, say
                )
            )
            result["reranker"] = reranker.name
        if peers:
            result["peers"] = evaluate_peers(run.graph, run.embedder, questions, k, on_progress=say)
    if report_dir:
        result["report"] = [str(p) for p in write_report(result, report_dir)]
    if as_json:
        print_json(result)
        return
    _print_table(result)


def _print_table(result: dict) -> None:
    from graphrag_cypher.evaluation import report_headers, report_rows

    from .output import print_table

    print_table(
        report_headers(result),
        report_rows(result),
        title=f"{result['dataset']}: {result['questions']} questions; default mode {result['default_mode']}",
    )


@eval_group.command("answers")
@eval_options
@click.option("--mode", default=None, help="Retrieval mode (default: graph).")
@with_settings
def eval_answers(questions_path, passages_path, k, limit, keep, as_json, mode, config) -> None:
    """Exact match and F1 (SQuAD normalisation) of LLM answers, and citation precision.

    Needs an LLM (OPENAI_BASE_URL, GRAPHRAG_LLM_MODEL); without one it says so and exits 0.

    \b
    Example:
      graphrag eval answers --questions musique_train.json --passages musique_train_corpus.json --limit 20
    """
    from graphrag_cypher.evaluation import CORPUS, EvalInstance, evaluate_answers, read_questions
    from graphrag_cypher.retrieval.modes import DEFAULT_MODE

    if not config.llm_configured:
        message = "no LLM is configured (set OPENAI_BASE_URL and GRAPHRAG_LLM_MODEL): nothing to evaluate"
        print_json({"skipped": message}) if as_json else click.echo(message)
        return
    fmt, questions = read_questions(questions_path)
    questions = questions[:limit] if limit else questions
    with EvalInstance(config, passages_path, keep, (lambda m: None) if as_json else info) as run:
        scores = evaluate_answers(run.graph, run.embedder, config, questions, mode or DEFAULT_MODE, k, CORPUS)
    out = {"dataset": f"{fmt} ({questions_path.name})", **scores}
    if as_json:
        print_json(out)
    else:
        click.echo(
            f"EM {out['exact_match']}, F1 {out['f1']}, citation precision {out['citation_precision']} "
            f"over {out['questions']} questions"
        )
