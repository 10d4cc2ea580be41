"""Questions about a whole corpus: theme and topic questions over the Grimm tales, the ISAW articles and
the AWOIAF chapters, scored against gold computed from the stored text.

    python bench/global_search.py [--json] [--limit N] [--questions FILE] [--home DIR]
                                  [--save-baseline FILE] [--baseline FILE] [--no-build] [--no-load]

Loads, into a throw-away Neo4j (or the one kept in --home) the way a user does (bench/corpora.py):
`load stories grimm-pg2591.txt --corpus grimm`, `load files isaw-papers --ext .xhtml --corpus isaw`,
`load mediawiki awoiaf-chapters-export.xml --corpus awoiaf`, all embedded by the configured embedder,
then `link phrases`; builds the communities (`linkers.communities.build`, no LLM) when this checkout
has them, then asks every question of bench/questions/global.yaml in-process (`qa.ask`, no LLM, the
question's corpus passed as `ask --corpus` does) with the auto route and with `--mode global`.
`--questions FILE` asks another set: its `questions:`, or its `global:` section in a file that holds
both benches' questions (bench/questions/heldout-graphwide.yaml, other phrasings and subjects).

Gold, computed here from the chunk text stored in Neo4j, never from an answer: for a topic term, the
documents of the corpus with >= 2 word-boundary, case-insensitive matches of the term or its singular /
plural (`gold`) and those with >= 1 (`mentioned`); a match inside the text a chunk repeats from the
previous one (the load's overlap) counts once.

Scores, per topic question and route:
* evidence: the distinct documents of `answer.evidence`; recall = |evidence & gold| / |gold|,
  precision = |evidence & mentioned| / |evidence| (citing the whole corpus does not pay), F1;
* citations: the same over the documents the answer text cites;
* covered: gold documents cited right after a sentence that holds the term (the answer text itself
  says something about the topic from that document);
* total: the answer's `global.documents_total` against |mentioned|.
Per theme question: distinct documents cited, distinct communities whose line cites a sentence, and
per theme line whether its cited sentence comes from a chunk of that line's community (the line is
matched to a used community by its title, the sentence to a chunk of the cited document holding it).

The baseline, main's default route before the global route existed, is the auto route of a checkout
without it; --save-baseline FILE writes this run's auto answers' scores, --baseline FILE reads them
back into the table of a later run; without one, the table shows the figures measured that way on
main 9c2a024 (BASELINE). Also counted: how many MuSiQue-100 / HotpotQA-100 questions the auto route's
wording test would send to the global route (goal 0).
Goals: topic F1 >= 0.80 (evidence); themes >= 8 documents cited from >= 5 communities.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpora  # noqa: E402
from common import data_dir  # noqa: E402

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions" / "global.yaml"
CORPORA = ("grimm", "isaw", "awoiaf")
ROUTES = ("auto", "global")
TOPIC_F1_GOAL = 0.80
THEME_DOCS_GOAL, THEME_COMMUNITIES_GOAL = 8, 5
# main's default route on these questions before the global route existed (main 9c2a024, same harness,
# `--save-baseline`): the reference of the table when no --baseline file is given
BASELINE = {
    "auto topic": {"recall": 0.184, "precision": 0.612, "f1": 0.262, "citation_recall": 0.12},
    "auto themes": {"documents_cited": 1.6, "min_documents": 1},
}
_CITATION = re.compile(r"\[([^\[\]\n]{1,200})\]")


def read_questions(path: Path = QUESTIONS) -> list[dict]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    # a file of both benches' questions keeps this bench's under `global:`
    return data.get("global") or data["questions"]


# --- the answer, read ------------------------------------------------------------------------------


def cited_segments(text: str, cites: set[str]) -> list[tuple[str, list[str]]]:
    """(the text before a citation, the ids it cites) for each citation of the answer text, in order."""
    out, start = [], 0
    for m in _CITATION.finditer(text):
        ids = [p.strip() for p in re.split(r"[,;]", m.group(1))]
        ids = [i for i in ids if i in cites]
        if ids:
            out.append((text[start : m.start()], ids))
            start = m.end()
    return out


def prf(found: set[str], gold: set[str], mentioned: set[str]) -> dict:
    recall = len(found & gold) / len(gold) if gold else 0.0
    precision = len(found & mentioned) / len(found) if found else 0.0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return {"recall": round(recall, 3), "precision": round(precision, 3), "f1": round(f1, 3), "documents": len(found)}


def score_topic(answer: dict, gold: dict, term: str) -> dict:
    evidence = {e["document_id"] for e in answer["evidence"]}
    cited = {c["document_id"] for c in answer["citations"]}
    by_cite = {s["id"]: s["document_id"] for s in answer["sources"]}
    pattern = corpora.term_pattern(term)
    covered = set()
    for segment, ids in cited_segments(answer["answer"], set(by_cite)):
        sentence = re.split(r"(?<=[.!?])\s+|\n", segment.strip())[-1] if segment.strip() else ""
        if pattern.search(sentence) or pattern.search(segment[-400:]):
            covered |= {by_cite[i] for i in ids}
    g = answer.get("global") or {}
    return {
        "gold": len(gold["gold"]),
        "mentioned": len(gold["mentioned"]),
        "evidence": prf(evidence, gold["gold"], gold["mentioned"]),
        "citations": prf(cited, gold["gold"], gold["mentioned"]),
        "covered": len(covered & gold["gold"]),
        "covered_share": round(len(covered & gold["gold"]) / len(gold["gold"]), 3) if gold["gold"] else 0.0,
        "documents_total": g.get("documents_total"),
        "missed": sorted(gold["gold"] - evidence)[:10],
    }


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[\[\]()\"'“”‘’…]", " ", text).split()).lower()


def score_themes(graph, answer: dict) -> dict:
    cited = {c["document_id"] for c in answer["citations"]}
    by_cite = {s["id"]: s["document_id"] for s in answer["sources"]}
    used = [c for c in answer.get("communities") or [] if c.get("used")]
    lines_checked, lines_ok, communities_cited = 0, 0, set()
    details = []
    for line in answer["answer"].splitlines():
        segments = cited_segments(line, set(by_cite))
        if not segments:
            continue
        community = next(
            (c for c in sorted(used, key=lambda c: -len(c["title"] or "")) if c["title"] and c["title"] in line), None
        )
        if community is None:
            continue
        lines_checked += 1
        # every quotation of the line from a chunk of the line's community (of one of the documents it cites)
        ok = all(
            any(_sentence_in_community(graph, seg, by_cite[i], community["id"]) for i in ids) for seg, ids in segments
        )
        lines_ok += ok
        if ok:
            communities_cited.add(community["id"])
        details.append({"community": community["id"], "title": community["title"], "ok": ok})
    return {
        "documents_cited": len(cited),
        "communities_used": len(used),
        "communities_cited": len(communities_cited),
        "theme_lines": lines_checked,
        "lines_from_community": lines_ok,
        "lines": details,
        "goal_met": len(cited) >= THEME_DOCS_GOAL and len(communities_cited) >= THEME_COMMUNITIES_GOAL,
    }


def quoted(segment: str) -> str:
    """The sentence a segment of an answer line quotes: its last “…” (or "…") quotation, else the segment's
    last 60 characters; of a quotation cut short with an ellipsis, its longest piece."""
    quotes = re.findall(r"“([^”]+)”", segment) or re.findall(r'"([^"]+)"', segment)
    text = quotes[-1] if quotes else segment[-60:]
    return max(re.split(r"…|\.\.\.", text), key=len)


def _sentence_in_community(graph, segment: str, document_id: str, community_id: str) -> bool:
    """Whether a chunk of `document_id` in `community_id` holds the sentence the segment quotes."""
    rows = graph.read("bench/community_document_texts", doc=document_id, community=community_id)
    probe = _norm(quoted(segment))[:60].strip(" .:;,-—·")
    return bool(probe) and any(probe in _norm(r["text"]) for r in rows)


def communities_available() -> bool:
    try:
        from graphrag_cypher.linkers import communities  # noqa: F401
    except ImportError:
        return False
    return hasattr(communities, "build")


def build_communities(graph, embedder) -> dict:
    from graphrag_cypher.linkers import communities

    started = time.perf_counter()
    result = communities.build(graph, embedder=embedder)
    seconds = round(time.perf_counter() - started, 1)
    summary = result.to_dict() if hasattr(result, "to_dict") else getattr(result, "__dict__", str(result))
    return {"seconds": seconds, "result": summary}


def ask_one(graph, embedder, settings, question: dict, route: str) -> dict:
    from graphrag_cypher.retrieval.qa import ask

    kwargs = {"corpus": question["corpus"], "use_llm": False}
    if route == "global":
        kwargs["mode"] = "global"
    started = time.perf_counter()
    answer = ask(graph, embedder, settings, question["q"], **kwargs)
    ms = round((time.perf_counter() - started) * 1000, 1)
    out = answer.to_dict()
    out["bench_ms"] = ms
    return out


def global_route_available() -> bool:
    from graphrag_cypher.retrieval import qa

    fields = getattr(qa.Answer, "__dataclass_fields__", {})
    if "global" in fields or "global_" in fields or hasattr(qa, "global_search"):
        return True
    try:  # the route registry (retrieval/routes/)
        from graphrag_cypher.retrieval.routes import route_names
    except ImportError:
        return False
    return "global" in route_names()


def run(
    limit: int | None = None,
    questions_file: Path = QUESTIONS,
    home: str | None = None,
    build: bool = True,
    echo=lambda line: None,
    load: bool = True,
) -> dict:
    from graphrag_cypher.embedder import make_embedder
    from graphrag_cypher.onnx_embedder import make_query_embedder

    data = data_dir()
    absent = corpora.missing(data, CORPORA)
    if absent:
        return {"skipped": absent}
    questions = read_questions(questions_file)
    if limit:
        questions = _slice(questions, limit)
    out: dict = {"questions": len(questions)}
    with corpora.bench_graph(home, heap="2g", keep=bool(home)) as (settings, graph):
        if load:  # --no-load: a kept instance (--home) loaded by an earlier run
            out["load"] = corpora.load(settings, CORPORA, echo=echo)
        embedder = make_query_embedder(settings)
        has_route = global_route_available()
        out["global_route"] = has_route
        if communities_available() and build:
            out["communities"] = build_communities(graph, make_embedder(settings))
            echo(f"communities build: {out['communities']['seconds']} s")
        gold_docs = {c: corpora.documents(graph, c) for c in CORPORA}
        out["corpora"] = {
            c: {"documents": len(d), "chunks": sum(len(x["texts"]) for x in d)} for c, d in gold_docs.items()
        }
        results = []
        for question in questions:
            row = {"q": question["q"], "corpus": question["corpus"], "family": question["family"]}
            if question["family"] == "topic":
                gold = corpora.gold_sets(gold_docs[question["corpus"]], question["term"])
                row.update(term=question["term"], gold=len(gold["gold"]), mentioned=len(gold["mentioned"]))
            for route in ROUTES:
                if route == "global" and not has_route:
                    row[route] = {"skipped": "the global route is not in this checkout"}
                    continue
                answer = ask_one(graph, embedder, settings, question, route)
                scored = (
                    score_topic(answer, gold, question["term"])
                    if question["family"] == "topic"
                    else score_themes(graph, answer)
                )
                g = answer.get("global") or {}
                scored.update(
                    route=answer["route"],
                    mode=answer["mode"],
                    global_family=g.get("family"),
                    level=g.get("level"),
                    ms=answer["bench_ms"],
                )
                if question["family"] == "themes" and route == "auto" and not has_route:
                    scored["communities_cited"] = None
                row[route] = scored
            echo(_line(row))
            results.append(row)
        out["results"] = results
        out["summary"] = summarise(results)
        if has_route:
            out["local_questions"] = local_questions(graph)
    return out


def local_questions(graph=None) -> dict:
    """How many MuSiQue-100 / HotpotQA-100 questions the auto route would send to the global route: the
    route's own test of the wording (`global_search.classify`, with the graph's corpus names and the sets'
    own), which every question passes through before the local route; goal 0."""
    try:
        from graphrag_cypher.retrieval import global_search
    except ImportError:
        return {"skipped": "the global route is not in this checkout"}
    names = ["musique", "hotpotqa", "eval"]
    if graph is not None:
        from graphrag_cypher.retrieval import structured

        names += list(structured.catalog(graph).corpora)
    out = {}
    for name, file in (("musique", "musique_train.json"), ("hotpotqa", "hotpotqa_train.json")):
        path = data_dir() / "qa" / file
        if not path.exists():
            out[name] = {"skipped": f"real data not found at {path}"}
            continue
        questions = [q["question"] for q in json.loads(path.read_text(encoding="utf-8"))]
        found = [(q, global_search.classify(q, names)) for q in questions]
        sent = [{"q": q, "family": g.family, "reason": g.reason} for q, g in found if g is not None]
        out[name] = {"questions": len(questions), "global": len(sent), "examples": sent[:5]}
    return out


def _slice(questions: list[dict], limit: int) -> list[dict]:
    """The first `limit` questions of each (corpus, family): a small slice still covers every kind."""
    seen: dict = {}
    kept = []
    for q in questions:
        key = (q["corpus"], q["family"])
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= limit:
            kept.append(q)
    return kept


def _line(row: dict) -> str:
    parts = [f"{row['corpus']:6} {row['family']:6} {row['q'][:60]:60}"]
    for route in ROUTES:
        r = row.get(route) or {}
        if "skipped" in r:
            parts.append(f"{route}: -")
        elif row["family"] == "topic":
            e = r["evidence"]
            parts.append(f"{route}[{r['route']}]: R {e['recall']:.2f} P {e['precision']:.2f} F1 {e['f1']:.2f}")
        else:
            parts.append(f"{route}[{r['route']}]: {r['documents_cited']} docs {r.get('communities_cited')} comms")
    return "  ".join(parts)


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return round(statistics.mean(values), 3) if values else None


def summarise(results: list[dict], baseline: dict | None = None) -> dict:
    """Per route and family (all corpora, and per corpus): the mean scores."""
    out = {}
    for route in ROUTES:
        for family in ("topic", "themes"):
            for corpus in (None, *CORPORA):
                rows = [
                    r[route]
                    for r in results
                    if r["family"] == family
                    and (corpus is None or r["corpus"] == corpus)
                    and "skipped" not in (r.get(route) or {"skipped": 1})
                ]
                if not rows:
                    continue
                key = f"{route} {family}" + (f" {corpus}" if corpus else "")
                if family == "topic":
                    out[key] = {
                        "questions": len(rows),
                        "recall": _mean(r["evidence"]["recall"] for r in rows),
                        "precision": _mean(r["evidence"]["precision"] for r in rows),
                        "f1": _mean(r["evidence"]["f1"] for r in rows),
                        "citation_recall": _mean(r["citations"]["recall"] for r in rows),
                        "citation_f1": _mean(r["citations"]["f1"] for r in rows),
                        "covered": _mean(r["covered_share"] for r in rows),
                        "global_route": sum(r["route"] == "global" for r in rows),
                    }
                else:
                    out[key] = {
                        "questions": len(rows),
                        "documents_cited": _mean(r["documents_cited"] for r in rows),
                        "min_documents": min(r["documents_cited"] for r in rows),
                        "communities_cited": _mean(r.get("communities_cited") for r in rows),
                        "lines_from_community": sum(r.get("lines_from_community") or 0 for r in rows),
                        "theme_lines": sum(r.get("theme_lines") or 0 for r in rows),
                        "goal_met": sum(bool(r.get("goal_met")) for r in rows),
                        "global_route": sum(r["route"] == "global" for r in rows),
                    }
    return out


def rows(result: dict) -> list[tuple[str, str, str]]:
    if "skipped" in result:
        return [("global search", "skipped", result["skipped"])]
    summary, table = result["summary"], []
    baseline = result.get("baseline", {}).get("summary") or BASELINE
    for key in ("auto topic", "global topic"):
        s = summary.get(key)
        if not s:
            continue
        per = ", ".join(f"{c} {summary[f'{key} {c}']['f1']:.2f}" for c in CORPORA if f"{key} {c}" in summary)
        base = baseline.get("auto topic")
        table.append(
            (
                f"global search {key} F1",
                f"{s['f1']:.2f}",
                f"evidence R {s['recall']:.2f} P {s['precision']:.2f} over {s['questions']} questions ({per}); "
                f"citations R {s['citation_recall']:.2f} F1 {s['citation_f1']:.2f}; answer text covers "
                f"{s['covered']:.0%} of the gold; {s['global_route']} took the global route"
                + (f"; baseline (main's default) R {base['recall']:.2f} F1 {base['f1']:.2f}" if base else "")
                + f" (goal F1 >= {TOPIC_F1_GOAL}: {'met' if s['f1'] >= TOPIC_F1_GOAL else 'not met'})",
            )
        )
    local = result.get("local_questions") or {}
    if local and "skipped" not in local:
        parts = [f"{n} {r['global']}/{r['questions']}" for n, r in local.items() if "skipped" not in r]
        total = sum(r["global"] for r in local.values() if "skipped" not in r)
        table.append(
            (
                "global search local questions",
                f"{total} to global",
                f"MuSiQue-100 / HotpotQA-100 questions the auto route would send to the global route: "
                f"{', '.join(parts)} (goal 0: {'met' if total == 0 else 'not met'})",
            )
        )
    for key in ("auto themes", "global themes"):
        s = summary.get(key)
        if not s:
            continue
        base = baseline.get("auto themes")
        table.append(
            (
                f"global search {key}",
                f"{s['documents_cited']:.1f} docs",
                f"min {s['min_documents']} documents cited, {s['communities_cited']} communities on average over "
                f"{s['questions']} questions; {s['lines_from_community']}/{s['theme_lines']} theme lines quote their "
                f"community; goal met by {s['goal_met']}/{s['questions']}"
                + (f"; baseline {base['documents_cited']:.1f} docs" if base else "")
                + f" (goal >= {THEME_DOCS_GOAL} documents from >= {THEME_COMMUNITIES_GOAL} communities)",
            )
        )
    return table


def main(argv: list[str] | None = None) -> dict:
    argv = sys.argv[1:] if argv is None else argv

    def value(flag, default=None):
        return argv[argv.index(flag) + 1] if flag in argv else default

    limit = int(value("--limit")) if "--limit" in argv else None
    echo = (lambda line: print(line, file=sys.stderr, flush=True)) if __name__ == "__main__" else (lambda line: None)
    result = run(
        limit=limit,
        questions_file=Path(value("--questions", QUESTIONS)),
        home=value("--home"),
        build="--no-build" not in argv,
        echo=echo,
        load="--no-load" not in argv,
    )
    if "skipped" in result:
        return result
    if "--save-baseline" in argv:
        Path(value("--save-baseline")).write_text(
            json.dumps({"results": result["results"], "summary": result["summary"]}, indent=1)
        )
    if "--baseline" in argv:
        result["baseline"] = json.loads(Path(value("--baseline")).read_text())
    return result


if __name__ == "__main__":
    if "-h" in sys.argv or "--help" in sys.argv:
        print(__doc__)
        raise SystemExit(0)
    out = main()
    if "--json" in sys.argv:
        print(json.dumps(out, indent=2))
    else:
        for row in rows(out):
            print("  ".join(row))
