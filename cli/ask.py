"""`graphrag ask` and `graphrag chat`: answers from the graph that cite their sources."""

from __future__ import annotations

import re
import sys
from datetime import date

import click

from graphrag_cypher.chinese import CHOICES
from graphrag_cypher.retrieval.modes import ANSWER_MODES

from .context import with_graph
from .output import print_json
from .params import json_option

# every mode of the registry: the retrieval modes and the global route
MODE_CHOICE = click.Choice(list(ANSWER_MODES))


class UsageProblem(click.ClickException):
    """A usage error in one line, exit code 2: what is wrong and what to write instead."""

    exit_code = 2


def _iso_date(ctx, param, value):
    """--from / --to: a real calendar date written YYYY-MM-DD (documents' dates compare as such)."""
    if value is None:
        return None
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise ValueError
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise UsageProblem(f"{param.opts[0]} {value!r} is not a date: write YYYY-MM-DD, e.g. 2024-05-01") from None


def _check_range(date_from, date_to) -> None:
    if date_from and date_to and date_from > date_to:
        raise UsageProblem(f"--from {date_from} is after --to {date_to}: nothing could match")


def usage_checked(callback):
    """Check the question and the date range before the graph opens (a usage error needs no Neo4j)."""
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
        _check_range(kwargs.get("date_from"), kwargs.get("date_to"))
        return callback(*args, **kwargs)

    return wrapper


def _safe(text) -> str:
    """Text from the graph or an LLM as it may reach a terminal: no escape sequences."""
    from graphrag_cypher.terminal import safe_text

    return safe_text(str(text if text is not None else ""))


def _line(text) -> str:
    from graphrag_cypher.terminal import safe_text

    return safe_text(str(text if text is not None else ""), keep_newlines=False)


def ask_options(func):
    decorators = [
        click.option(
            "--mode",
            type=MODE_CHOICE,
            default=None,
            help="Retrieval mode (default: graph). global: answer from the whole corpus (every document "
            "that mentions the question's topic, or the themes of its communities), whatever the wording.",
        ),
        click.option(
            "-k",
            "--k",
            "k",
            type=click.IntRange(1, 50),
            default=5,
            show_default=True,
            help="How many chunks of evidence.",
        ),
        click.option("--corpus", default=None, help="Only documents of this corpus."),
        click.option(
            "--about",
            default=None,
            metavar="ENTITY",
            help="Only chunks that mention this entity or place (or a story's own entity of it, or the one it "
            "is an instance of): its id, or a name or alias (accents and case aside; of several entities of "
            "that name, the one most chunks mention; --explain says which).",
        ),
        click.option(
            "--from",
            "date_from",
            default=None,
            metavar="YYYY-MM-DD",
            callback=_iso_date,
            help="Only documents dated on or after.",
        ),
        click.option(
            "--to",
            "date_to",
            default=None,
            metavar="YYYY-MM-DD",
            callback=_iso_date,
            help="Only documents dated on or before.",
        ),
        click.option("--no-llm", is_flag=True, help="Answer extractively even when an LLM is configured."),
        click.option(
            "--convert",
            type=click.Choice(CHOICES),
            default="auto",
            show_default=True,
            envvar="GRAPHRAG_CONVERT",
            help="Convert the answer between simplified and traditional Chinese (OpenCC; citations untouched). "
            "auto: to the question's script. Env: GRAPHRAG_CONVERT.",
        ),
        click.option(
            "--rerank",
            is_flag=True,
            envvar="GRAPHRAG_RERANK",
            help="Reorder the top candidates with the reranker (GRAPHRAG_RERANKER or --reranker). Env: GRAPHRAG_RERANK=1.",
        ),
        click.option(
            "--reranker",
            "reranker_spec",
            default=None,
            metavar="cross-encoder:MODEL|URL",
            help="The reranker for --rerank: a sentence-transformers CrossEncoder, or a server with a /rerank "
            "endpoint. Env: GRAPHRAG_RERANKER.",
        ),
        click.option(
            "--judge",
            is_flag=True,
            help="Let the LLM judge every piece of evidence relevant or not (by default only weak evidence).",
        ),
        click.option(
            "--no-gate",
            is_flag=True,
            help="No score gate and no judge: answer from whatever was retrieved. Env: GRAPHRAG_GATE=off.",
        ),
        click.option(
            "--web/--no-web",
            "web",
            default=None,
            help="Search the web as well as the graph (--web), or never (--no-web). By default the configured "
            "web search (GRAPHRAG_WEB_SEARCH) runs only when the graph has nothing relevant.",
        ),
        click.option(
            "--learn-web",
            is_flag=True,
            help="Store the web pages an answer used as documents (kind web), so the graph knows them next time.",
        ),
        click.option(
            "--rerank-candidates",
            type=click.IntRange(1, 200),
            default=20,
            show_default=True,
            help="How many of the mode's top chunks the reranker scores.",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def _judge(judge: bool, no_gate: bool) -> str:
    """auto (weak evidence is judged), always (--judge) or off (--no-gate); GRAPHRAG_GATE sets the default."""
    import os

    if no_gate:
        return "off"
    if judge:
        return "always"
    value = (os.environ.get("GRAPHRAG_GATE") or "auto").strip().lower()
    if value not in ("auto", "always", "off"):
        raise UsageProblem(f"GRAPHRAG_GATE={value!r}: use auto, always or off")
    return value


def _web(web: bool | None, learn_web: bool):
    """(fallback, mode): the configured web search (None: none) and auto, always (--web) or off (--no-web)."""
    from graphrag_cypher.retrieval.websearch import WebConfig, WebFallback

    mode = "auto" if web is None else ("always" if web else "off")
    config = WebConfig.from_env()
    if config.provider == "off":
        if web or learn_web:
            flag = "--web" if web else "--learn-web"
            raise UsageProblem(
                f"{flag} needs a web search: set GRAPHRAG_WEB_SEARCH=searxng and GRAPHRAG_SEARXNG_URL, "
                "or GRAPHRAG_WEB_SEARCH=brave and GRAPHRAG_BRAVE_API_KEY"
            )
        return None, mode
    from graphrag_cypher.loaders.web import PoliteClient

    return WebFallback(config, PoliteClient), mode


def _ask_options(
    mode, k, corpus, about, date_from, date_to, no_llm, convert, rerank_candidates, judge, web_mode, learn_web
):
    """The AskOptions of `graphrag ask` and `graphrag chat`, from their shared flags: made once a
    question is answered in this process (a served ask sends the flags and imports none of this)."""
    from graphrag_cypher.retrieval.modes import DEFAULT_MODE
    from graphrag_cypher.retrieval.options import AskOptions

    return AskOptions(
        mode=mode or DEFAULT_MODE,
        k=k,
        corpus=corpus,
        about=about,
        date_from=date_from,
        date_to=date_to,
        use_llm=not no_llm,
        convert=convert,
        rerank_candidates=rerank_candidates,
        judge=judge,
        web_mode=web_mode,
        learn_web=learn_web,
    )


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
    found = answer.get("global") or {}
    if found and not found.get("family"):  # it looked global: say why the answer is a local one
        click.echo(_line(f"(not answered from the whole corpus: {found.get('reason')})"), err=True)
    structured = answer.get("structured") or {}
    if structured.get("refused") or structured.get("error"):
        click.echo(_line(f"text-to-Cypher: {structured.get('refused') or structured.get('error')}"), err=True)
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
    filters = {key: value for key, value in answer["filters"].items() if key != "about"}
    click.echo(f"\nRetrieval trace (route {answer['route']}, mode {answer['mode']}, filters {_line(filters)}):")
    about = answer["filters"].get("about")
    if about:
        click.echo(_line(f"  about: {about['reason']}"))
    if answer.get("language"):
        from graphrag_cypher.retrieval.question import LANGUAGE_NAMES

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
    print_global(answer.get("global"), answer.get("communities") or [])
    print_structured(answer.get("structured"), answer.get("rows") or [])
    for number, path in enumerate(answer["paths"], 1):
        click.echo(
            _line(
                f"  path {number} ({path.get('kind', 'typed')}, {len(path['relationships'])} step(s)): "
                + _path_text(path)
            )
        )
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


def print_global(found: dict | None, communities: list[dict]) -> None:
    """The `global:` lines of --explain: the family, why the route and the level were chosen,
    the counts, and each community used (or passed over) and why; or why a question that looked
    global went to the local route."""
    if not found:
        return
    if not found.get("family"):
        click.echo(_line(f"  global: not taken ({found.get('reason')})"))
        return
    scope = found.get("scope") or {}
    click.echo(
        _line(
            f"  global: {found['family']} ({found['method']}"
            + (f", term {found['term']!r}" if found.get("term") else "")
            + (f", level {found['level']}" if found.get("level") is not None else ", no community level")
            + f"; scope {scope.get('noun')}, corpus {scope.get('corpus') or 'any'}, {scope.get('documents')} documents)"
        )
    )
    click.echo(_line(f"    why: {found.get('reason')}"))
    if found["family"] == "topic":
        counts = f"{found['documents_total']} documents mention it, {found['shown']} quoted (budget {found['budget']})"
    else:
        counts = f"{found['shown']} themes shown (budget {found['budget']}), {found['rest']} more at this level"
    click.echo(_line(f"    {counts}; {found.get('ms')} ms"))
    if found.get("method") == "map-reduce":
        click.echo(
            _line(
                f"    map-reduce: {found.get('map_requests')} map request(s), {found.get('map_points')} point(s); "
                f"dropped in the map: {', '.join(found.get('map_dropped') or []) or 'none'}"
            )
        )
    shown = [c for c in communities if c.get("used")] + [c for c in communities if not c.get("used")][:5]
    for c in shown:
        mark = "used" if c.get("used") else "not used"
        click.echo(
            _line(
                f"    community {c['id']} (level {c['level']}, {c.get('chunks')} chunks, {c.get('documents')} in-scope "
                f"documents) {c.get('title') or ''}: {mark}, {c.get('why')}"
            )
        )
    left = len(communities) - len(shown)
    if left > 0:
        click.echo(f"    … {left} more not used (--json has them all)")


def print_structured(structured: dict | None, rows: list[dict]) -> None:
    """The `structured:` lines of --explain: which relation, direction, entity and scope the
    question was matched to and why, the entities it was not, and the rows; or why it did not
    take the structured route."""
    if not structured:
        return
    if not structured.get("family"):
        click.echo(_line(f"  structured: not taken ({structured.get('reason')})"))
        return
    click.echo(_line(f"  structured: {structured['reason']}"))
    for hop in structured.get("hops") or []:
        click.echo(
            _line(
                f"    relation {hop['relation']} {hop['direction']} (matched by {hop['matched_by']} "
                f"{hop['phrase']!r}, score {hop['score']})"
            )
        )
    entity = structured.get("entity")
    if entity:
        click.echo(
            _line(
                f"    entity {entity['name']} ({entity['id']}, {entity.get('type') or 'Entity'}, {entity['chunks']} chunks)"
            )
        )
    others = structured.get("others") or []
    if others:
        shown = ", ".join(f"{o['id']} ({o['chunks']})" for o in others[:12])
        more = f" and {len(others) - 12} more" if len(others) > 12 else ""
        click.echo(_line(f"    not chosen: {shown}{more}"))
    scope = structured.get("scope") or {}
    if scope:
        click.echo(
            _line(
                f"    scope: {scope.get('noun')}, labels {scope.get('labels') or 'any'}, corpus {scope.get('corpus') or 'any'}"
            )
        )
    if structured.get("cypher"):
        click.echo(_line(f"    cypher: {structured['cypher']}"))
    click.echo(
        _line(
            f"    rows: {structured.get('count')} (method {structured.get('method')}, total {structured.get('total')})"
        )
    )
    for row in rows[:20]:
        click.echo(_line(f"      {row.get('title') or row.get('name')} [{row.get('cite') or '-'}] {row.get('id')}"))
    if len(rows) > 20:
        click.echo(f"      … {len(rows) - 20} more (--json has them all)")


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


def _path_text(path: dict) -> str:
    """Reynold (T1::E1) -[DEFEATS]-> Brannock (T1::E4), each step in its own direction."""
    nodes = {n["id"]: n for n in path["nodes"]}

    def node(node_id: str) -> str:
        return f"{(nodes.get(node_id) or {}).get('name') or node_id} ({node_id})"

    order = [n["id"] for n in path["nodes"]]
    text = node(order[0]) if order else ""
    for i, rel in enumerate(path["relationships"]):
        following = order[i + 1] if i + 1 < len(order) else rel["end"]
        arrow = f" -[{rel['type']}]-> " if rel["end"] == following else f" <-[{rel['type']}]- "
        text += arrow + node(following)
    return text


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
def ask(
    question,
    mode,
    k,
    corpus,
    about,
    date_from,
    date_to,
    no_llm,
    convert,
    rerank,
    reranker_spec,
    rerank_candidates,
    judge,
    no_gate,
    web,
    learn_web,
    explain,
    show_mermaid,
    server_url,
    direct,
    as_json,
) -> None:
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
    reranker = _reranker(rerank, reranker_spec)
    gate = _judge(judge, no_gate)
    use_llm = bool(config.llm_configured and not no_llm)
    streamed = use_llm and not as_json
    forced = bool(server_url) and server_url.strip().lower() != "none" and not direct
    try:
        server = served.choose(config, server_url, direct, __version__, note=lambda line: click.echo(line, err=True))
    except served.ServerProblem as exc:
        raise click.ClickException(str(exc)) from None
    if server is not None and not forced and not served.servable(question):
        server = None  # what /chat refuses (very long, `learn:`) is answered here as it always was
    if server is not None and (reranker or gate != "auto" or convert != "auto" or web is not None or learn_web):
        if forced:
            raise click.ClickException(
                f"{server.url} answers with the default gate, conversion, web search and no reranking: ask without "
                "--rerank, --judge, --no-gate, --convert, --web, --no-web and --learn-web, or with --direct"
            )
        server = None  # the server has no options for these: answered here
    if server is not None and use_llm and not server.health.get("llm"):
        if forced:
            raise click.ClickException(f"{server.url} answers without an LLM and this ask uses one: ask with --no-llm")
        click.echo(
            f"not using the graphrag server at {server.url}: it answers without an LLM; answering directly", err=True
        )
        server = None
    if server is not None:
        body = {
            "question": question,
            "mode": mode,
            "k": k,
            "corpus": corpus,
            "from": date_from,
            "to": date_to,
            "llm": use_llm,
        }
        if about is not None:
            body["about"] = about
        try:
            result = served.ask(server, body, on_token=_write if streamed else None)
        except served.ServerProblem as exc:
            raise click.ClickException(str(exc)) from None
        if about is not None and not (result.get("filters") or {}).get("about"):
            raise click.ClickException(f"{server.url} does not filter by --about: ask with --direct")
        answer = served.as_ask_json(result, question, server)
    else:
        # the web search is set up here only: a served ask uses the server's (and imports none of it)
        fallback, web_mode = _web(web, learn_web)
        options = _ask_options(
            mode, k, corpus, about, date_from, date_to, no_llm, convert, rerank_candidates, gate, web_mode, learn_web
        )
        answer = _ask_direct(config, question, options, reranker, fallback, streamed=streamed)
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
def chat(
    mode,
    k,
    corpus,
    about,
    date_from,
    date_to,
    no_llm,
    convert,
    rerank,
    reranker_spec,
    rerank_candidates,
    judge,
    no_gate,
    web,
    learn_web,
    max_turns,
    graph,
    config,
) -> None:
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

    if about is not None:  # an unknown one ends the chat before it starts
        from graphrag_cypher.retrieval.about import resolve_about

        click.echo(_line(f"(about: {resolve_about(graph, about, corpus).reason})"), err=True)
    embedder = _embedder(config)
    reranker = _reranker(rerank, reranker_spec)
    web_fallback, web_mode = _web(web, learn_web)
    options = _ask_options(
        mode,
        k,
        corpus,
        about,
        date_from,
        date_to,
        no_llm,
        convert,
        rerank_candidates,
        _judge(judge, no_gate),
        web_mode,
        learn_web,
    )
    conversation = Conversation(config, max_turns=max_turns, use_llm=not no_llm)
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
        streamed = bool(config.llm_configured and not no_llm)
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
