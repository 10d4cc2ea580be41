"""`graphrag ask` and `graphrag chat`: answers from the graph that cite their sources."""

from __future__ import annotations

import sys

import click

from .output import print_json
from .params import json_option

MODE_CHOICE = click.Choice(["vector", "fulltext", "hybrid", "graph", "ppr"])


def ask_options(func):
    decorators = [
        click.option("--mode", type=MODE_CHOICE, default=None, help="Retrieval mode (default: graph)."),
        click.option("-k", "--k", "k", type=click.IntRange(1, 50), default=5, show_default=True, help="How many chunks of evidence."),
        click.option("--corpus", default=None, help="Only documents of this corpus."),
        click.option("--from", "date_from", default=None, metavar="YYYY-MM-DD", help="Only documents dated on or after."),
        click.option("--to", "date_to", default=None, metavar="YYYY-MM-DD", help="Only documents dated on or before."),
        click.option("--no-llm", is_flag=True, help="Answer extractively even when an LLM is configured."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def _session():
    from graphrag_cypher.db import connect
    from graphrag_cypher.embedder import make_embedder

    from .main import settings

    config = settings()
    graph = connect(config)
    return config, graph, make_embedder(config)


def print_answer(result: dict, explain: bool = False, show_mermaid: bool = False, streamed: bool = False) -> None:
    if not streamed:
        click.echo(result["answer_with_titles"] or "I found no evidence for this question.")
    else:
        click.echo()
    if result["dropped_citations"]:
        click.echo(f"(removed {len(result['dropped_citations'])} citation(s) to sources that were not given: "
                   f"{', '.join(result['dropped_citations'])})", err=True)
    if result["llm"]["note"]:
        click.echo(result["llm"]["note"], err=True)
    if result["sources"]:
        click.echo("\nSources:")
        cited = {c["id"] for c in result["citations"]}
        for source in result["sources"]:
            mark = "*" if source["id"] in cited else " "
            click.echo(f" {mark} [{source['id']}] {source['title'] or source['document_id']}"
                       + (f" <{source['uri']}>" if source["uri"] else ""))
    if explain:
        click.echo(f"\nRetrieval trace (mode {result['mode']}, filters {result['filters']}):")
        if result["entities"]:
            click.echo("  question entities: " + ", ".join(f"{e['name']} ({e['id']})" for e in result["entities"]))
        for ev in result["evidence"]:
            click.echo(f"  {ev['score']:.4f} [{ev['source']}] {ev['chunk_id']} via {', '.join(ev['via'][:4])}")
        click.echo("  timings: " + ", ".join(f"{k} {v} ms" for k, v in result["timings_ms"].items()))
    if show_mermaid:
        click.echo("\n```mermaid\n" + result["mermaid"] + "\n```")


@click.command("ask")
@click.argument("question")
@ask_options
@click.option("--explain", is_flag=True, help="Print the retrieval trace: which mode and entity brought which chunk.")
@click.option("--mermaid", "show_mermaid", is_flag=True, help="Print the evidence subgraph as a Mermaid diagram.")
@json_option
def ask(question, mode, k, corpus, date_from, date_to, no_llm, explain, show_mermaid, as_json) -> None:
    """Answer a question from the graph, citing the documents it rests on.

    Question analysis finds the entities it names and turns time expressions
    ("past 3 months", "last September", "2023 Q4", "去年九月") into a date filter;
    "how are A and B related" questions search paths between A and B.

    \b
    Example:
      graphrag ask "Who made the silver lantern, and who stole it?"
      graphrag ask "What stood at the harbour of Alexandria?" --mode hybrid --explain
      graphrag ask "How are Reynold and Brannock related?" --json
    """
    from graphrag_cypher import qa
    from graphrag_cypher.retrieval import DEFAULT_MODE

    config, graph, embedder = _session()
    streamed = bool(config.llm_configured and not no_llm and not as_json)
    on_token = (lambda t: (sys.stdout.write(t), sys.stdout.flush())) if streamed else None
    with graph:
        result = qa.ask(graph, embedder, config, question, mode=mode or DEFAULT_MODE, k=k, corpus=corpus,
                        date_from=date_from, date_to=date_to, use_llm=not no_llm, on_token=on_token)
    if as_json:
        result.pop("context", None)
        print_json(result)
    else:
        print_answer(result, explain, show_mermaid, streamed)


@click.command("chat")
@ask_options
@click.option("--history", "max_turns", type=click.IntRange(1, 50), default=8, show_default=True, help="Turns kept for follow-ups.")
def chat(mode, k, corpus, date_from, date_to, no_llm, max_turns) -> None:
    """A conversation with the graph: follow-ups, `learn: …`, /sources, /explain, /quit.

    Follow-up questions are rewritten into standalone ones (by the LLM when one is
    configured; otherwise the previous turn's entities and dates carry over).

    \b
    Example:
      graphrag chat --corpus sample
      > Who made the silver lantern?
      > And who stole it?
      > learn: harbours | path: ./notes
      > /sources
    """
    from graphrag_cypher import qa
    from graphrag_cypher.chat import Conversation
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.retrieval import DEFAULT_MODE

    config, graph, embedder = _session()
    conversation = Conversation(config, max_turns=max_turns, use_llm=not no_llm)
    last = None
    interactive = sys.stdin.isatty()
    with graph:
        while True:
            try:
                line = input("> " if interactive else "")
            except (EOFError, KeyboardInterrupt):
                break
            line = line.strip()
            if not line:
                continue
            if line in {"/quit", "/exit", "/q"}:
                break
            if line == "/sources":
                if last:
                    for s in last["sources"]:
                        click.echo(f"[{s['id']}] {s['title'] or s['document_id']}" + (f" <{s['uri']}>" if s["uri"] else ""))
                continue
            if line == "/explain":
                if last:
                    print_answer(last, explain=True)
                continue
            if line.lower().startswith("learn:"):
                _learn(line)
                continue
            question = conversation.standalone(line)
            if question != line:
                click.echo(f"({question})", err=True)
            streamed = bool(config.llm_configured and not no_llm)
            on_token = (lambda t: (sys.stdout.write(t), sys.stdout.flush())) if streamed else None
            try:
                last = qa.ask(graph, embedder, config, question, mode=mode or DEFAULT_MODE, k=k, corpus=corpus,
                              date_from=date_from, date_to=date_to, use_llm=not no_llm,
                              history=conversation.messages(), on_token=on_token)
            except GraphragError as exc:
                click.echo(f"error: {exc}", err=True)
                continue
            conversation.add(line, question, last)
            print_answer(last, streamed=streamed)


def _learn(line: str) -> None:
    """Run the `learn` command in-process, so a chat can ingest and go on."""
    from .load import learn

    try:
        learn.main([line], standalone_mode=False)
    except SystemExit:
        pass
    except click.ClickException as exc:
        click.echo(f"error: {exc.format_message()}", err=True)
