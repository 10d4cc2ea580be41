"""`graphrag ask` and `graphrag chat`: answers from the graph that cite their sources."""

from __future__ import annotations

import sys

import click

from .context import with_graph
from .output import print_json
from .params import UsageProblem, ask_options, json_option


def usage_checked(callback):
    """Check the question before the graph opens (a usage error needs no Neo4j; the ask options,
    dates included, are checked by `ask_options`)."""
    import functools

    @functools.wraps(callback)
    def wrapper(*args, **kwargs):
        if "question" in kwargs and not kwargs["question"].strip():
            raise UsageProblem('the question is empty: write one, e.g. graphrag ask "Who made the silver lantern?"')
        if "question" in kwargs:
            from graphrag_cypher.config import question_too_long

            too_long = question_too_long(kwargs["question"])
            if too_long:
                raise UsageProblem(too_long)
        return callback(*args, **kwargs)

    return wrapper


def _safe(text) -> str:
    """Text from the graph or an LLM as it may reach a terminal: no escape sequences."""
    from graphrag_cypher.terminal import safe_text

    return safe_text(str(text if text is not None else ""))


def _line(text) -> str:
    from graphrag_cypher.terminal import safe_text

    return safe_text(str(text if text is not None else ""), keep_newlines=False)


def _web(options):
    """The configured web search for these options (None: none); --web or --learn-web without one
    is a usage error."""
    from graphrag_cypher.retrieval.web import WebConfig, WebFallback

    config = WebConfig.from_env()
    if config.provider == "off":
        if options.web_mode == "always" or options.learn_web:
            flag = "--web" if options.web_mode == "always" else "--learn-web"
            raise UsageProblem(
                f"{flag} needs a web search: set GRAPHRAG_WEB_SEARCH=searxng and GRAPHRAG_SEARXNG_URL, "
                "or GRAPHRAG_WEB_SEARCH=brave and GRAPHRAG_BRAVE_API_KEY"
            )
        return None
    from graphrag_cypher.loaders.web import PoliteClient

    return WebFallback(config, PoliteClient)


def _reranker(rerank: bool, spec: str | None):
    """The reranker --rerank asks for, or None (a missing or unknown one is a one-line error)."""
    if not rerank:
        return None
    from graphrag_cypher.retrieval.rerank import make_reranker

    return make_reranker(spec)


def _embedder(config):
    """The question embedder: ONNX Runtime for the default model when exported, no torch."""
    from graphrag_cypher.onnx_embedder import make_query_embedder

    return make_query_embedder(config)


def print_answer(answer: dict, explain: bool = False, show_mermaid: bool = False, streamed: bool = False) -> None:
    """The answer (already written when streamed), then its sources; with `explain` the analysis,
    the route and the retrieval trace. `answer` is the `ask --json` dict, whether it was made here
    or by a server. Everything from documents is printed as plain text."""
    if not streamed:
        click.echo(_safe(answer["answer_with_titles"]) or "I found no evidence for this question.")
    else:
        click.echo()
    dropped = answer.get("dropped_citations") or []
    if dropped:
        click.echo(
            f"(removed {len(dropped)} citation(s) to ids that were not given: {_line(', '.join(dropped))})",
            err=True,
        )
    note = (answer.get("llm") or {}).get("note")
    if note:
        click.echo(note, err=True)
    from graphrag_cypher.retrieval.routes import note_lines

    for line in note_lines(answer):  # e.g. why a question that looked global was answered locally
        click.echo(_line(line), err=True)
    print_closest(answer.get("abstained"))
    if answer["sources"]:
        click.echo("\nSources:")
        cited = {c["id"] for c in answer["citations"]}
        for source in answer["sources"]:
            mark = "*" if source["id"] in cited else " "
            click.echo(f" {mark} {_source_line(source)}")
    if explain:
        print_explain(answer)
    if show_mermaid:
        click.echo("\n```mermaid\n" + _safe(answer["mermaid"]) + "\n```")


def print_closest(abstained: dict | None) -> None:
    """An abstention's closest passages, apart from the sentence: the heading, then each one's
    title and a snippet (nothing when the question was answered or nothing came close)."""
    from graphrag_cypher.retrieval.abstain_text import closest_lines

    lines = closest_lines(abstained)
    if lines:
        click.echo("\n" + _line(lines[0]))
        for line in lines[1:]:
            click.echo("  " + _line(line))


def _source_line(source: dict) -> str:
    return _line(
        f"[{source['id']}] {source['title'] or source['document_id']}"
        + (f" <{source['uri']}>" if source["uri"] else "")
        + (" (web)" if source.get("web") else "")
        + _also_in(source.get("also_in"))
    )


def _also_in(copies) -> str:
    """The other documents that hold the same text (one chunk per content hash), as " (also in: A; B)"."""
    names = [f"{c['title']} ({c['document_id']})" if c.get("title") else c["document_id"] for c in copies or []]
    return f" (also in: {'; '.join(names)})" if names else ""


def print_explain(answer: dict) -> None:
    from graphrag_cypher.retrieval.abstain_text import explain_line
    from graphrag_cypher.retrieval.routes import explain_lines

    filters = {key: value for key, value in answer["filters"].items() if key != "about"}
    click.echo(f"\nRetrieval trace (route {answer['route']}, mode {answer['mode']}, filters {_line(filters)}):")
    about = answer["filters"].get("about")
    if about:
        click.echo(_line(f"  about: {about['reason']}"))
    if answer.get("language"):
        from graphrag_cypher.retrieval.question.language import LANGUAGE_NAMES

        code = answer["language"]
        click.echo(_line(f"  question language: {LANGUAGE_NAMES.get(code, code)} ({code})"))
    if answer["entities"]:
        click.echo("  question entities:")
        for e in answer["entities"]:
            click.echo(
                _line(
                    f"    {e['name']} ({e['id']}, {e.get('type') or 'Entity'}) found by "
                    f'"{e.get("matched") or e["name"]}"'
                )
            )
    ambiguous = answer.get("ambiguous") or []
    if ambiguous:
        chosen: dict[tuple[str, str], list[dict]] = {}
        for e in ambiguous:
            chosen.setdefault((e["matched"], e["chosen"]), []).append(e)
        for (matched, pick), others in chosen.items():
            shown = ", ".join(f"{o['id']} ({o['chunks']})" for o in others[:12])
            more = f" and {len(others) - 12} more" if len(others) > 12 else ""
            click.echo(
                _line(
                    f'  "{matched}" names {len(others) + 1} entities: kept {pick} (most chunks link to it); '
                    f"set aside {shown}{more}"
                )
            )
    for line in explain_lines(answer):  # the answering route's lines, and why others left the question
        click.echo(_line(line))
    abstained = explain_line(answer.get("abstained"))
    if abstained:
        click.echo(_line("  " + abstained))
    for ev in answer["evidence"]:
        click.echo(
            _line(
                f"  {round(float(ev['score']), 6):.4f} [{ev['source']}] {ev['chunk_id']} via {', '.join(ev['via'][:4])}"
            )
        )
    gate = answer.get("gate")
    if gate is not None:
        best = (
            "no vectors to compare"
            if gate.get("best_similarity") is None
            else f"best similarity {gate['best_similarity']:.3f}"
        )
        state = "weak" if gate.get("weak") else "strong enough"
        judged = (
            f"; judged by {gate['judged_by']} ({gate.get('judge_requests', 0)} request(s), "
            f"{gate.get('judge_cached', 0)} cached)"
            if gate.get("judged_by")
            else ""
        )
        click.echo(
            _line(
                f"  gate: {best}, judge under {gate['threshold']:g}, drop under {gate['drop_threshold']:g}: "
                f"{state}{judged}" + (f"; {gate['note']}" if gate.get("note") else "")
            )
        )
        for v in gate.get("verdicts") or []:
            if not v.get("relevant"):
                click.echo(_line(f"    dropped {v['chunk_id']} ({v['by']}): {v['reason']}"))
    print_web(answer.get("web"))
    reranked = answer.get("rerank")
    if reranked is not None:
        click.echo(
            _line(
                f"  rerank: {reranked['reranker']} scored {reranked['candidates']} candidate(s), kept {reranked['kept']}: "
                + ", ".join(f"{m['before']}→{m['after']}" for m in reranked.get("order") or [])
            )
        )
    conversion = answer.get("convert")
    if conversion is not None:
        click.echo(f"  convert: {conversion.get('applied') or 'none'} ({conversion.get('reason')})")
    click.echo(_line("  llm: " + _llm_line(answer.get("llm") or {})))
    click.echo("  timings: " + ", ".join(f"{k} {v} ms" for k, v in answer["timings_ms"].items()))


def print_web(web: dict | None) -> None:
    """The `web:` line of --explain (was the web searched, and why), then one line per result."""
    if not web:
        click.echo("  web: not searched (no web-search fallback is configured)")
        return
    if not web.get("searched"):
        click.echo(_line(f"  web: not searched ({web.get('reason')})"))
        return
    results = web.get("results") or []
    if web.get("error"):
        click.echo(_line(f"  web: searched {web['provider']} ({web['reason']}), but the search failed: {web['error']}"))
        return
    used = [r for r in results if r.get("id")]
    dates = web.get("dates")
    dated = f" dated {dates['from'] or '…'} to {dates['to'] or '…'}" if dates else ""
    judged = f", judged by {web['judged_by']}" if web.get("judged_by") else ""
    click.echo(
        _line(
            f'  web: searched {web["provider"]} for "{web["query"]}"{dated} ({web["reason"]}): {len(results)} result(s), '
            f"{sum(1 for r in results if r['fetched'])} fetched, {sum(1 for r in results if r['blocked'])} blocked, "
            f"{len(used)} used{judged}"
        )
    )
    for r in results:
        click.echo(_line(f"    {r['id'] or '--'} {r['title']} <{r['url']}>: {_result_state(r)}"))
    learned = web.get("learned")
    if learned is not None:
        click.echo(_line(f"  web: {_learned_text(learned)}"))


def _result_state(r: dict) -> str:
    if r.get("blocked"):
        return f"blocked ({r.get('blocked_by')} is on the web blocklist), not fetched"
    if r.get("fetched"):
        state = "fetched" + (f" (redirected to {r['final_url']})" if r.get("final_url") else "")
        state += f", {r['chunks']} chunk(s)"
    else:
        state = f"not fetched: {r.get('error')}"
        if r.get("snippet_used"):
            state += "; its search snippet is used instead"
    if r.get("best_similarity") is not None:
        state += f", best similarity {r['best_similarity']:.3f}"
    if r.get("note"):
        state += f"; {r['note']}"
    dropped = r.get("dropped")
    if dropped and not dropped.startswith("not fetched:") and dropped != r.get("note"):
        state += f"; dropped: {dropped}"  # under the gate, judged off-topic, outranked, no text
    return state


def _learned_text(learned: dict) -> str:
    if learned.get("error"):
        return f"learning the pages failed: {learned['error']}"
    if not learned.get("documents"):
        return f"learned nothing ({learned.get('note') or 'no page to store'})"
    return (
        f"learned {learned['documents']} page(s): {learned['created']} created, {learned['updated']} updated, "
        f"{learned['unchanged']} unchanged, {learned['chunks']} chunk(s) written"
    )


def _llm_line(llm: dict) -> str:
    """Which model wrote the answer, and for a local one where it ran."""
    if not llm.get("used"):
        return "none (the answer quotes the evidence)"
    where = ""
    if llm.get("device"):
        from graphrag_cypher.local_llm import device_text

        where = ", " + device_text(llm["device"], llm.get("gpu_layers"), llm.get("device_reason"))
    return f"{llm.get('model')} ({llm.get('backend') or 'openai-compatible'}{where})"


@click.command("ask")
@click.argument("question")
@ask_options
@click.option(
    "--explain",
    is_flag=True,
    help="Print the question's entities (type, and the name that found each), the path of a relation "
    "question and which mode and entity brought which chunk.",
)
@click.option("--mermaid", "show_mermaid", is_flag=True, help="Print the evidence subgraph as a Mermaid diagram.")
@click.option(
    "--server",
    "server_url",
    envvar="GRAPHRAG_SERVER",
    metavar="URL",
    default=None,
    help="Ask this running `graphrag serve` (an error if it does not answer); `none` answers directly. "
    "Env: GRAPHRAG_SERVER. Default: the server in .graphrag/serve.json when it serves this graph.",
)
@click.option("--direct", is_flag=True, help="Answer in this process, even when a server for this graph is running.")
@json_option
@usage_checked
def ask(question, options, reranker_spec, explain, show_mermaid, server_url, direct, as_json) -> None:
    """Answer a question from the graph, citing the documents it rests on.

    Question analysis finds the entities it names (by name or alias, accent- and
    case-folded) and turns time expressions ("past 3 months", "last September",
    "2023 Q4", "去年九月") into a date filter; "how are A and B related" questions
    answer from the typed relations that join A and B, citing the stories they came from.
    Questions about the graph itself take the structured route: "Who killed X?", "Which
    characters belong to House Y?" and "How many …?" read the edges (each name once, cited
    to its record or document), and "Which tales mention a fox?" lists every document of
    the scope that mentions it, not the top k (--json: `rows`; --explain: why).
    Questions about the whole corpus take the global route: "What do the tales say about
    witches?" quotes a cited sentence from every document that mentions the term (the most
    mentions first, up to 30 documents whatever --k is, then how many more), and "What are
    the main themes of the tales?" gives a line per community of the graph (title, key
    phrases, a cited sentence; after `graphrag communities build`); without an LLM they are
    extractive and say so, with one a map-reduce over the communities. --mode global forces
    the route (--json: `global`, `communities`; --explain: which communities and why).
    With an LLM the answer streams; each citation is checked before it is shown, and
    shown as its source's title (--json keeps the ids). The LLM is an OpenAI-compatible
    endpoint (OPENAI_BASE_URL, GRAPHRAG_LLM_MODEL) or a GGUF file run here by llama.cpp
    (GRAPHRAG_LLM_MODEL=local:/path/model.gguf, the `local` extra; on the GPU when the build
    can offload); --json's `llm` and --explain name the model and where it ran.

    When the graph holds no answer, the answer is one sentence that says so and cites
    nothing; the passages nearest the question follow apart, under "Closest, not an
    answer:" (--json: `abstained`, who abstained and why; --explain: an `abstained:` line).

    With a web search configured (GRAPHRAG_WEB_SEARCH=searxng or brave), a question the
    graph has nothing relevant for is searched on the web (--web: always, --no-web: never);
    the pages are fetched with the crawler's rules (robots.txt, the GRAPHRAG_WEB_BLOCKLIST
    domains never), cited as [W1] with title and URL, and stored with --learn-web.

    When a `graphrag serve` for the same Neo4j URI and database runs from this folder
    (it leaves .graphrag/serve.json), the question goes to it: the answer and output are
    the same, without loading the driver and the model here (--json adds `served_by`).

    \b
    Example:
      graphrag ask "Who made the silver lantern, and who stole it?"
      graphrag ask "What stood at the harbour of Alexandria?" --mode hybrid --explain
      graphrag ask "What did the kings build?" --about Babylon --explain
      graphrag ask "What stood at the harbour?" --about pleiades:727070
      graphrag ask "How are Reynold and Brannock related?" --json
      graphrag ask "Who killed Eddard Stark?" --explain
      graphrag ask "How many of the tales mention a witch?" --json
      graphrag ask "What are the main themes of the Grimm tales?" --corpus grimm
      graphrag ask "What do the ISAW papers say about harbours?" --explain
      graphrag ask "wolves" --mode global --corpus grimm
      graphrag ask "Who stole the lantern?" --server http://127.0.0.1:8000
      graphrag ask "誰做了銀燈籠?" --convert s2t
      graphrag ask "What did the harbour board decide?" --judge --explain
      graphrag ask "Who stole the lantern?" --rerank --reranker http://127.0.0.1:8080/v1 --explain
      GRAPHRAG_WEB_SEARCH=searxng GRAPHRAG_SEARXNG_URL=http://127.0.0.1:8888 \\
        graphrag ask "When did the harbour of Ostia silt up?" --explain --learn-web
      GRAPHRAG_LLM_MODEL=local:models/qwen2.5-1.5b-instruct-q4_k_m.gguf graphrag ask "Who stole the lantern?"
    """
    from graphrag_cypher import __version__

    from . import served
    from .context import settings

    config = settings()
    reranker = _reranker(options.rerank, reranker_spec)
    use_llm = bool(config.llm_configured and options.use_llm)
    streamed = use_llm and not as_json
    forced = bool(server_url) and server_url.strip().lower() != "none" and not direct
    try:
        server = served.choose(config, server_url, direct, __version__, note=lambda line: click.echo(line, err=True))
    except served.ServerProblem as exc:
        raise click.ClickException(str(exc)) from None
    if server is not None and not forced and not served.servable(question):
        server = None  # what /chat refuses (very long, `learn:`) is answered here as it always was
    if server is not None and (reranker or options.web_mode != "auto" or options.learn_web):
        if forced:
            raise click.ClickException(
                f"{server.url} answers with its own reranker and web search: ask without --rerank, --web, "
                "--no-web and --learn-web, or with --direct"
            )
        server = None  # the reranker and the web search are this process's services: answered here
    if server is not None and use_llm and not server.health.get("llm"):
        if forced:
            raise click.ClickException(f"{server.url} answers without an LLM and this ask uses one: ask with --no-llm")
        click.echo(
            f"not using the graphrag server at {server.url}: it answers without an LLM; answering directly", err=True
        )
        server = None
    if server is not None:
        # the options as /chat's body names them (the gate and the conversion too); the server's
        # LLM answers only when this ask would use one here
        from graphrag_cypher.retrieval.options import request_body

        body = {"question": question, **request_body(options.but(use_llm=use_llm))}
        try:
            result = served.ask(server, body, on_token=_write if streamed else None)
        except served.ServerProblem as exc:
            raise click.ClickException(str(exc)) from None
        if options.about is not None and not (result.get("filters") or {}).get("about"):
            raise click.ClickException(f"{server.url} does not filter by --about: ask with --direct")
        answer = served.as_ask_json(result, question, server)
    else:
        # the web search is set up here only: a served ask uses the server's (and imports none of it)
        answer = _ask_direct(config, question, options, reranker, _web(options), streamed=streamed)
    if as_json:
        print_json(answer)
    else:
        print_answer(answer, explain, show_mermaid, streamed)


def _ask_direct(config, question: str, options, reranker, web, streamed: bool) -> dict:
    """The question answered in this process: the graph opened here, the query model loaded here."""
    from graphrag_cypher.db import connect
    from graphrag_cypher.retrieval import qa

    with connect(config) as graph:
        embedder = _embedder(config)
        answer = qa.ask(
            graph,
            embedder,
            config,
            question,
            options,
            on_token=_write if streamed else None,
            reranker=reranker,
            web=web,
        )
        _warn_web(answer.web)
        # what the command did before the question: opening the connection and loading the model
        # (imports not counted); total_ms stays the question's own work
        answer.timings_ms.update(
            connect_ms=round(getattr(graph, "connect_ms", 0.0), 1), embedder_load_ms=round(embedder.load_ms, 1)
        )
        return dict(answer.to_dict(), query_embedder=embedder.backend)


@click.command("chat")
@ask_options
@click.option(
    "--history",
    "max_turns",
    type=click.IntRange(1, 50),
    default=8,
    show_default=True,
    help="Turns kept for follow-ups.",
)
@usage_checked
@with_graph(config=True)
def chat(options, reranker_spec, max_turns, graph, config) -> None:
    """A conversation with the graph: follow-ups, `learn: …`, /sources, /explain, /quit.

    Follow-up questions are rewritten into standalone ones (by the LLM when one is
    configured; otherwise the previous turn's entities and dates carry over). What
    `learn:` loads goes into the chat's --corpus, so the next questions find it.

    \b
    Example:
      graphrag chat --corpus sample
      graphrag chat --corpus notes       # `learn: … | path: ./notes` loads into the corpus notes
      graphrag chat --about Babylon      # every answer from chunks that mention Babylon
      > Who made the silver lantern?
      > And who stole it?
      > learn: harbours | path: ./notes
      > /sources
      graphrag chat --web --learn-web     # search the web too, and keep the pages used
    """
    from graphrag_cypher.config import question_too_long
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.retrieval import qa
    from graphrag_cypher.retrieval.chat import Conversation

    corpus = options.corpus
    if options.about is not None:  # an unknown one ends the chat before it starts
        from graphrag_cypher.retrieval.about import resolve_about

        click.echo(_line(f"(about: {resolve_about(graph, options.about, corpus).reason})"), err=True)
    embedder = _embedder(config)
    reranker = _reranker(options.rerank, reranker_spec)
    web_fallback = _web(options)
    conversation = Conversation(config, max_turns=max_turns, use_llm=options.use_llm)
    last = None
    interactive = sys.stdin.isatty()
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
                for source in last.sources:
                    click.echo(_source_line(source.to_dict()))
            continue
        if line == "/explain":
            if last:
                print_explain(last.to_dict())
            continue
        if line.lower().startswith("learn:"):
            _learn(graph, config, line, corpus)
            continue
        too_long = question_too_long(line)
        if too_long:
            click.echo(f"error: {too_long}", err=True)
            continue
        question = conversation.standalone(line)
        if question != line:
            click.echo(f"({_line(question)})", err=True)
        streamed = bool(config.llm_configured and options.use_llm)
        on_token = _write if streamed else None
        try:
            last = qa.ask(
                graph,
                embedder,
                config,
                question,
                options,
                history=conversation.messages(),
                on_token=on_token,
                reranker=reranker,
                web=web_fallback,
            )
        except GraphragError as exc:
            click.echo(f"error: {exc}", err=True)
            continue
        conversation.add(line, question, last)
        _warn_web(last.web)
        print_answer(last.to_dict(), streamed=streamed)


def _warn_web(trace) -> None:
    """A failed web search or a failed --learn-web, one line on stderr (the answer still stands)."""
    if trace is None:
        return
    if trace.error:
        click.echo(f"web search failed: {_line(trace.error)}", err=True)
    if trace.learned and trace.learned.get("error"):
        click.echo(f"--learn-web failed: {_line(trace.learned['error'])}", err=True)


def _write(text: str) -> None:
    """A checked piece of a streamed answer, on the screen at once."""
    sys.stdout.write(text)
    sys.stdout.flush()


def _learn(graph, config, line: str, corpus: str | None = None) -> None:
    """Learn what `learn: …` names on the chat's own connection, into the chat's --corpus (so the
    next questions, which search only that corpus, find it), then go on chatting."""
    from graphrag_cypher.errors import GraphragError
    from graphrag_cypher.store.ingest import LoadOptions

    from .load import run_learn

    try:
        run_learn(graph, config, line, LoadOptions(loader="learn", source_root="", corpus=corpus))
    except SystemExit:  # some items failed: their lines are printed, the chat goes on
        pass
    except (GraphragError, ValueError, click.ClickException) as exc:
        message = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
        click.echo(f"error: {_safe(message)}", err=True)
