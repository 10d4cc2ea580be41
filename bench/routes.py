"""The latency of each question route, this checkout beside an earlier revision, in one run.

    python bench/routes.py [--baseline REV] [--rounds N] [--json]

Builds one throw-away Neo4j the way a user does (`load sample`, `extract --schema got` (the
wiki's infoboxes), `extract --extractor ner --corpus sample` (the named entities of the tales, no
LLM), `link phrases`, `communities build`), then asks every question of QUESTIONS (a few per
route: global, relation, structured, search) in-process with no LLM, `rounds` times, once with
this checkout's code and once with `--baseline`'s (a git worktree of that revision, run by the
same Python with its folders first on the path), alternating pass by pass (each side first in
every other pass) so that both see the same machine. Reports, per route, the p50 of each and their ratio (goal: within 10 %), and
whether every question took the same route and gave the same answer text under both.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import REPO, graphrag_env

QUESTIONS = {
    "global": ["What are the main themes of the tales?", "What do the tales say about wolves?"],
    "relation": ["How are Reynold and Brannock related?", "What happened between Reynold and Brannock?"],
    "structured": [
        "Who are the children of Osgar Varn?",
        "Which tales mention the silver lantern?",
        "Who is sworn to House Varn?",
    ],
    "search": [
        "Who made the silver lantern, and who stole it?",
        "What linked the Pharos island of Alexandria to the mainland?",
        "How many tales are there?",
    ],
}

# The worker: asks every question `rounds` times in this process (the first round warms caches
# and is not timed), prints {question: {"route", "answer", "ms": [...]}} as JSON.
WORKER = """
import json, sys, time
from graphrag_cypher.config import load_settings
from graphrag_cypher.db import connect
from graphrag_cypher.embedder import make_embedder
from graphrag_cypher.retrieval.qa import ask
questions, rounds = json.loads(sys.argv[1]), int(sys.argv[2])
settings = load_settings()
out = {}
with connect(settings) as graph:
    embedder = make_embedder(settings)
    for q in questions:
        ask(graph, embedder, settings, q, use_llm=False)
    for _ in range(rounds):
        for q in questions:
            started = time.perf_counter()
            answer = ask(graph, embedder, settings, q, use_llm=False)
            ms = (time.perf_counter() - started) * 1000
            row = out.setdefault(q, {"route": answer.route, "answer": answer.text, "ms": []})
            row["ms"].append(round(ms, 1))
print(json.dumps(out))
"""


def linked(tree: Path, into: Path) -> Path:
    """A path entry that imports the code of the checkout at `tree` (scripts/typecheck.py's tree of
    links, as pyproject's package-dir maps the folders). Both sides import the same way, so
    neither pays for an import mechanism the other does not."""
    sys.path.insert(0, str(REPO / "scripts"))
    from typecheck import build_tree

    build_tree(tree, into)
    return into


def worktree(rev: str, into: Path) -> Path:
    subprocess.run(["git", "worktree", "add", "--detach", "-q", str(into), rev], cwd=REPO, check=True)
    return into


def build(settings) -> None:
    env = graphrag_env(settings)
    exe = str(Path(sys.executable).parent / "graphrag")
    for args in (
        ["load", "sample"],
        ["extract", "--schema", "got"],
        ["extract", "--extractor", "ner", "--corpus", "sample"],
        ["link", "phrases"],
        ["communities", "build"],
    ):
        subprocess.run([exe, *args], env=env, cwd=REPO, check=True, capture_output=True, text=True)


def ask_all(settings, path: Path, rounds: int) -> dict:
    env = dict(graphrag_env(settings), GRAPHRAG_TODAY="2026-12-04")
    env["PYTHONPATH"] = os.pathsep.join([str(path), env.get("PYTHONPATH", "")])
    questions = [q for qs in QUESTIONS.values() for q in qs]
    run = subprocess.run(
        [sys.executable, "-c", WORKER, json.dumps(questions), str(rounds)],
        env=env,
        cwd=tempfile.gettempdir(),  # not the checkout: its folders must not shadow the path
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-2000:])
    return json.loads(run.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default="HEAD", help="the revision to compare with (default HEAD)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per side and pass (default 5)")
    parser.add_argument("--passes", type=int, default=3, help="alternating passes per side (default 3)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO / "bench"))
    from corpora import bench_graph

    with tempfile.TemporaryDirectory() as tmp, bench_graph(heap="1g") as (settings, _graph):
        this = linked(REPO, Path(tmp) / "this")
        baseline = linked(worktree(args.baseline, Path(tmp) / "tree"), Path(tmp) / "baseline")
        try:
            build(settings)
            runs: dict[str, list[dict]] = {"this": [], "baseline": []}
            sides = [("this", this), ("baseline", baseline)]
            for n in range(args.passes):  # each side goes first in every other pass
                for side, path in sides if n % 2 == 0 else sides[::-1]:
                    runs[side].append(ask_all(settings, path, args.rounds))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / "tree")], cwd=REPO, check=False)
    out: dict = {"baseline": args.baseline, "rounds": args.rounds, "passes": args.passes, "routes": {}, "changed": []}
    for route, questions in QUESTIONS.items():
        p50 = {}
        for side, passes in runs.items():
            p50[side] = statistics.median(ms for run in passes for q in questions for ms in run[q]["ms"])
        out["routes"][route] = {
            "this_ms": round(p50["this"], 1),
            "baseline_ms": round(p50["baseline"], 1),
            "ratio": round(p50["this"] / p50["baseline"], 3),
        }
        for q in questions:
            this, base = runs["this"][0][q], runs["baseline"][0][q]
            if (this["route"], this["answer"]) != (base["route"], base["answer"]):
                out["changed"].append({"q": q, "this": this["route"], "baseline": base["route"]})
            if this["route"] != route:
                out["changed"].append({"q": q, "expected_route": route, "took": this["route"]})
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"p50 per route, this checkout against {args.baseline} ({args.passes} x {args.rounds} rounds each):")
        for route, row in out["routes"].items():
            print(
                f"  {route:<11} {row['this_ms']:>8.1f} ms  vs {row['baseline_ms']:>8.1f} ms  ratio {row['ratio']:.3f}"
            )
        print(f"questions whose route or answer differ: {len(out['changed'])}")
        for row in out["changed"]:
            print(f"  {row}")
    return out


if __name__ == "__main__":
    main()
