"""Abstention: unanswerable questions abstain, answerable ones are answered, this checkout beside an
earlier revision, with no LLM.

    python bench/abstain.py [--baseline REV] [--no-musique] [--keep DIR] [--json]

Builds one throw-away Neo4j the way a user does (`load sample`; `load records got/characters.json
--mapping got-characters`; `load stories tales/grimm-pg2591.txt`; `load files` of a few ISAW
articles, `--isaw` (the short ones by default: embedding all 77 takes many minutes)), then asks
every question of bench/questions/abstain.yaml in-process (`qa.ask`, no LLM), once with this
checkout's code and once with `--baseline`'s (a git worktree of that revision, run by the same
Python with its folders first on the path, as bench/routes.py does):

* unanswerable (out of domain, absent facts about present entities, false premises): the share
  that abstain with no sources;
* answerable (controls over the same data): the share answered (not abstained, with sources).

The thresholds are calibrated on the questions with no `set`; those of a named `set` (`check`:
other wordings and subjects, written before the co-occurrence rule was measured) are scored
apart, as a check that the calibration does not merely fit the first set.

An answer abstains when its ``abstained`` is set; a revision without that field (before
abstention was part of an answer) abstains when it cites nothing. Then MuSiQue-100 (every
question answerable) is asked the same way over its own corpus, in the instance `graphrag eval`
keeps (`evaluation.EvalInstance`, reused when it is there): the share that abstain.

Goals (no LLM): >= 90 % of the unanswerable abstain, >= 90 % of the answerable are answered,
MuSiQue-100 abstains on <= 5 %. Abstention runs after retrieval: recall@k is `graphrag eval
retrieval`'s and does not move with it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, data_dir, graphrag_env  # noqa: E402

QUESTIONS = Path(__file__).resolve().parent / "questions" / "abstain.yaml"
# short ISAW articles (a few minutes of embedding on 2 cores for all 77 is not worth it here)
ISAW_ARTICLES = ("20", "18-9", "18-8", "20-1", "18-11", "19", "20-4", "20-8")
GOALS = {"unanswerable_abstained": 90.0, "answerable_answered": 90.0, "musique_abstained": 5.0}

# The worker: asks every question in this process with no LLM; prints one JSON object,
# {question: {"route", "abstained", "sources", "answer"}}. `abstained` is the answer's
# `abstained.by`; before that field existed, "uncited" when the answer cites nothing.
WORKER = """
import json, sys
from graphrag_cypher.config import load_settings
from graphrag_cypher.db import connect
from graphrag_cypher.embedder import make_embedder
from graphrag_cypher.retrieval.qa import ask

def row(answer):
    if hasattr(answer, "abstained"):
        by = answer.abstained.by if answer.abstained is not None else None
    else:
        by = None if answer.citations else "uncited"
    return {"route": answer.route, "abstained": by, "sources": len(answer.sources), "answer": answer.text[:300]}

questions, musique = json.loads(sys.argv[1]), sys.argv[2]
settings = load_settings()
out = {"questions": {}, "musique": {}}
with connect(settings) as graph:
    embedder = make_embedder(settings)
    for q in questions:
        out["questions"][q] = row(ask(graph, embedder, settings, q, use_llm=False))
if musique != "-":
    from graphrag_cypher.evaluation import CORPUS, EvalInstance, read_questions
    questions_file, passages, root = musique.split("|")
    _, asked = read_questions(questions_file)
    from pathlib import Path
    with EvalInstance(settings, passages, root=Path(root)) as run:
        for q in asked:
            out["musique"][q.text] = row(ask(run.graph, run.embedder, settings, q.text, use_llm=False, corpus=CORPUS))
print(json.dumps(out))
"""


def read_questions(path: Path = QUESTIONS) -> dict[str, list[dict]]:
    """{"unanswerable": [{q, kind}], "answerable": [{q, data}]} from the question file."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {part: list(data[part]) for part in ("unanswerable", "answerable")}


def load_steps(data: Path, isaw: Path) -> list[list[str]]:
    """The `graphrag` arguments of every load, in order."""
    return [
        ["load", "sample"],
        ["load", "records", str(data / "got" / "characters.json"), "--mapping", "got-characters"],
        ["load", "stories", str(data / "tales" / "grimm-pg2591.txt")],
        ["load", "files", str(isaw), "--ext", ".xhtml", "--corpus", "isaw"],
    ]


def build(settings, data: Path, articles: list[str], tmp: Path, echo) -> None:
    """Every load as a `graphrag` subprocess against the bench Neo4j (the ISAW articles copied apart)."""
    isaw = tmp / "isaw"
    for name in articles:
        shutil.copytree(data / "isaw-papers" / name, isaw / name)
    env = graphrag_env(settings)
    exe = str(Path(sys.executable).parent / "graphrag")
    for args in load_steps(data, isaw):
        echo(f"graphrag {' '.join(args[:2])} …")
        run = subprocess.run([exe, *args], env=env, cwd=REPO, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"graphrag {' '.join(args[:2])} failed: {run.stderr.strip()[-500:]}")


def ask_all(settings, path: Path, questions: list[str], musique: str) -> dict:
    """The worker run with the code at `path` first on the path."""
    env = dict(graphrag_env(settings), GRAPHRAG_TODAY="2026-12-04")
    env["PYTHONPATH"] = os.pathsep.join([str(path), env.get("PYTHONPATH", "")])
    run = subprocess.run(
        [sys.executable, "-c", WORKER, json.dumps(questions), musique],
        env=env,
        cwd=tempfile.gettempdir(),  # not the checkout: its folders must not shadow the path
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-3000:])
    return json.loads(run.stdout.strip().splitlines()[-1])


def score(questions: dict[str, list[dict]], run: dict) -> dict:
    """The rates of one side: abstained (with no sources) on the unanswerable, answered on the
    rest; over the calibration questions (no `set`), and apart for each named `set`."""
    asked = run["questions"]

    def right(part: str, q: dict) -> bool:
        row = asked[q["q"]]
        if part == "unanswerable":
            return bool(row["abstained"]) and not row["sources"]
        return not row["abstained"] and bool(row["sources"])

    sets = sorted({q["set"] for part in questions.values() for q in part if q.get("set")})
    out: dict = {}
    for name in [None, *sets]:
        rates = {
            f"{part}_{'abstained' if part == 'unanswerable' else 'answered'}": _share(
                right(part, q) for q in questions[part] if q.get("set") == name
            )
            for part in ("unanswerable", "answerable")
        }
        if name is None:
            out.update(rates)
        else:
            out.setdefault("sets", {})[name] = rates
    out["wrong"] = [q["q"] for part in ("unanswerable", "answerable") for q in questions[part] if not right(part, q)]
    if run["musique"]:
        rows = list(run["musique"].values())
        out["musique_abstained"] = _share(bool(r["abstained"]) for r in rows)
        out["musique_abstained_questions"] = [q for q, r in run["musique"].items() if r["abstained"]]
    return out


def _share(flags) -> float:
    flags = [bool(f) for f in flags]
    return round(100 * sum(flags) / len(flags), 1) if flags else 0.0


def linked(tree: Path, into: Path) -> Path:
    """A path entry that imports the code of the checkout at `tree` (scripts/typecheck.py's tree of links)."""
    sys.path.insert(0, str(REPO / "scripts"))
    from typecheck import build_tree

    build_tree(tree, into)
    return into


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--baseline", help="a revision to measure beside this checkout (a git worktree of it)")
    parser.add_argument(
        "--questions", type=Path, default=QUESTIONS, help="the question file (default bench/questions/abstain.yaml)"
    )
    parser.add_argument("--isaw", default=",".join(ISAW_ARTICLES), help="ISAW article folders to load, or 'all'")
    parser.add_argument("--no-musique", action="store_true", help="skip MuSiQue-100")
    parser.add_argument(
        "--eval-root",
        type=Path,
        default=REPO / ".graphrag" / "eval",
        help="where `graphrag eval` keeps its instances (MuSiQue's is reused from there; default .graphrag/eval)",
    )
    parser.add_argument("--keep", type=Path, help="keep the bench Neo4j in this folder and reuse it (loaded once)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from corpora import bench_graph

    data = data_dir()
    if not (data / "got" / "characters.json").exists():
        out = {"skipped": f"real data not found at {data} (set GRAPHRAG_DATA_DIR)"}
        print(json.dumps(out))
        return out
    questions = read_questions(args.questions)
    texts = [q["q"] for part in questions.values() for q in part]
    articles = sorted(os.listdir(data / "isaw-papers")) if args.isaw == "all" else args.isaw.split(",")
    qa = data / "qa"
    musique = "-" if args.no_musique else f"{qa / 'musique_train.json'}|{qa / 'musique_train_corpus.json'}|"
    musique += "" if args.no_musique else str(args.eval_root.resolve())
    echo = (lambda line: None) if args.json else (lambda line: print(line, file=sys.stderr))
    out: dict = {"baseline": args.baseline, "questions": {k: len(v) for k, v in questions.items()}, "sides": {}}
    with tempfile.TemporaryDirectory() as tmp, bench_graph(home=args.keep, keep=bool(args.keep)) as (settings, _g):
        marker = args.keep / "abstain-bench-loaded" if args.keep else None
        if marker is None or not marker.exists():
            build(settings, data, articles, Path(tmp), echo)
            if marker is not None:
                marker.write_text("loaded\n")
        sides = [("this", linked(REPO, Path(tmp) / "this"))]
        if args.baseline:
            tree = Path(tmp) / "tree"
            subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), args.baseline], cwd=REPO, check=True)
            sides.append(("baseline", linked(tree, Path(tmp) / "baseline")))
        try:
            for side, path in sides:
                echo(f"asking ({side}) …")
                run = ask_all(settings, path, texts, musique)
                out["sides"][side] = dict(score(questions, run), answers=run["questions"])
        finally:
            if args.baseline:
                subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / "tree")], cwd=REPO, check=False)
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        report(out)
    return out


def report(out: dict) -> None:
    names = list(out["sides"])
    print(f"{'':32}" + "".join(f"{n:>12}" for n in names) + "      goal")
    for key, goal in GOALS.items():
        cells = "".join(f"{out['sides'][n].get(key, float('nan')):>11.1f}%" for n in names)
        sign = "<=" if key.startswith("musique") else ">="
        print(f"{key:32}{cells}   {sign} {goal:g} %")
    for name in sorted({k for n in names for k in out["sides"][n].get("sets", {})}):
        for key in ("unanswerable_abstained", "answerable_answered"):
            cells = "".join(
                f"{out['sides'][n].get('sets', {}).get(name, {}).get(key, float('nan')):>11.1f}%" for n in names
            )
            print(f"{f'  set {name}: {key}':32}{cells}")
    for name in names:
        for q in out["sides"][name]["wrong"]:
            print(f"  {name}: wrong on {q!r}: {out['sides'][name]['answers'][q]['answer'][:120]!r}")
        for q in out["sides"][name].get("musique_abstained_questions", []):
            print(f"  {name}: MuSiQue abstained on {q!r}")


if __name__ == "__main__":
    main()
