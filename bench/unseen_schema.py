"""Structured questions on a schema of the user's own: a library catalogue whose schema gives no phrases.

    python bench/unseen_schema.py [--json] [--questions FILE] [--baseline REV]
                                  [--data DIR [--records A,B,...]] [--explain]

Loads, into a throw-away Neo4j and the way a user does (`graphrag` run as a subprocess against it):

* `load sample` (the bundled tales, articles and wiki: a question the structured route leaves
  falls to passage search and quotes them, as it would for a user),
* the catalogue of bench/data/catalogue: `load records publishers.json`, `authors.json` and
  `books.json`, each `--mapping <its>.yaml --schema schema.yaml` (types and relations with a short
  description each, no `phrases`),

then asks every question of bench/questions/catalogue.yaml in-process (`qa.ask`, no LLM, no
corpus) and scores each family as bench/structured.py does:

* names, chain: F1 of the gold names found in the answer text (case-insensitive, on word
  boundaries); precision over the `name`/`title` of the answer's `rows` when it has them, else
  over the catalogue's names written in the text (a name the question names is left out unless
  it is gold).
* count: right when the first number of the answer equals the size of the gold.

Gold is computed at run time from the records, read through the same mappings the load uses
(a record's field becomes its relation, `reverse` turns it round): a question's gold names a
relation, an entity and a direction (`out`: the far ends of the entity's edges, as a book's
AUTHOR; `in`: the entities whose edges end at it, as the books whose AUTHOR is a person), or a
`path` of such hops.

--baseline REV runs the same again with the code of an earlier revision (its files from `git
archive`, linked as scripts/typecheck.py's `build_tree` links a checkout, first on the path of a
worker process, loads included) and prints both side by side. Reports per family, the p50 of the
questions the structured route answered, and each question's route, answer and hit or miss.

--data DIR loads and scores another folder of records made the same way: every `<name>.json` with
its mapping `<name>.yaml` and one `schema.yaml` (in `--records` order, else by name), e.g.
bench/data/heldout-clubs with bench/questions/heldout-clubs.yaml. --explain prints, under each
missed question, the `--explain` lines of `graphrag ask "<q>" --no-llm --explain` run against the
bench's Neo4j before it goes (this checkout only).

The file is not named catalogue.py: spaCy imports a package called `catalogue`, and a script's
own folder comes first on the path.

A count answered by the search route scores as any other: its first number (a quoted passage's
"two" can match by chance; the route column says so).

Not part of `make bench`: the sample's load (embedding it) takes about a minute on a quiet
2-core machine; the questions a few seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, bench_neo4j, graphrag_env  # noqa: E402
from structured import percentile, score_count, score_names  # noqa: E402

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "catalogue"
QUESTIONS = HERE / "questions" / "catalogue.yaml"
RECORDS = ("publishers", "authors", "books")  # load order: the records before the names they use
FAMILIES = ("names", "count", "chain")
COUNT_FAMILIES = {"count"}
HEAD = 110  # characters of an answer shown per question


# --- loading, as a user does ----------------------------------------------------------------


def record_names(folder: Path, records: str | None = None) -> tuple[str, ...]:
    """The record files of a data folder, in load order: `records` (comma-separated names) when
    given, the catalogue's own order for the catalogue, else every `<name>.json` with a
    `<name>.yaml` mapping beside it, by name."""
    if records:
        return tuple(n.strip() for n in records.split(",") if n.strip())
    if folder.resolve() == DATA.resolve():
        return RECORDS
    return tuple(sorted(p.stem for p in folder.glob("*.json") if (folder / f"{p.stem}.yaml").is_file()))


def load_steps(folder: Path = DATA, records: tuple[str, ...] = RECORDS) -> list[tuple[str, list[str]]]:
    """(name, `graphrag` arguments) of every load, in order."""
    steps = [("sample", ["load", "sample"])]
    for name in records:
        steps.append(
            (
                name,
                ["load", "records", str(folder / f"{name}.json"), "--mapping", str(folder / f"{name}.yaml")]
                + ["--schema", str(folder / "schema.yaml")],
            )
        )
    return steps


def load_all(settings, echo, folder: Path = DATA, records: tuple[str, ...] = RECORDS) -> dict:
    """Every load step as a `graphrag` subprocess; {step: seconds}."""
    exe = Path(sys.executable).parent / "graphrag"
    env = graphrag_env(settings)
    out = {}
    for name, args in load_steps(folder, records):
        started = time.perf_counter()
        run = subprocess.run([str(exe), *args, "--json"], env=env, cwd=REPO, capture_output=True, text=True)
        out[name] = round(time.perf_counter() - started, 1)
        if run.returncode != 0:
            raise RuntimeError(f"graphrag {' '.join(args[:2])} ({name}) failed: {run.stderr.strip()[-500:]}")
        echo(f"load {name}: {out[name]} s")
    return out


# --- gold ------------------------------------------------------------------------------------


def _listed(value) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [v.strip() for v in values if isinstance(v, str) and v.strip()]


class Catalogue:
    """The edges the records make through their mappings, and the names they hold."""

    def __init__(self, folder: Path = DATA, records: tuple[str, ...] = RECORDS):
        import yaml

        self.edges: set[tuple[str, str, str]] = set()  # (source name, RELATION, target name)
        names: set[str] = set()
        for name in records:
            mapping = yaml.safe_load((folder / f"{name}.yaml").read_text(encoding="utf-8"))
            records = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
            key = mapping["entity"]["name"]
            for record in records:
                subject = record[key]
                names.add(subject)
                for rel in mapping.get("relations") or []:
                    for value in _listed(record.get(rel["field"])):
                        target = rel.get("name", "{value}").replace("{value}", value)
                        names.add(target)
                        edge = (
                            (target, rel["relation"], subject)
                            if rel.get("reverse")
                            else (subject, rel["relation"], target)
                        )
                        self.edges.add(edge)
        self.names = sorted(names)
        self.relations = {r for _, r, _ in self.edges}

    def hop(self, entities: set[str], relation: str, direction: str) -> set[str]:
        if relation not in self.relations:
            raise KeyError(f"no relation {relation!r} in the catalogue's records")
        if direction == "out":
            return {t for s, r, t in self.edges if r == relation and s in entities}
        if direction == "in":
            return {s for s, r, t in self.edges if r == relation and t in entities}
        raise ValueError(f"direction must be in or out, not {direction!r}")

    def answer(self, gold: dict) -> set[str]:
        """The names a question's gold (`relation`, `entity`, `direction`, or `entity` and `path`) gives."""
        if gold["entity"] not in self.names:
            raise KeyError(f"no entity {gold['entity']!r} in the catalogue's records")
        found = {gold["entity"]}
        for step in gold.get("path") or [gold]:
            found = self.hop(found, step["relation"], step["direction"])
        return found


# --- asking ----------------------------------------------------------------------------------


def read_questions(path: Path) -> list[dict]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    questions = data["questions"] if isinstance(data, dict) else data
    for q in questions:
        if q.get("family") not in FAMILIES or not isinstance(q.get("gold"), dict) or not q.get("q"):
            raise ValueError(f"{path.name}: every question needs q, a family of {', '.join(FAMILIES)} and gold: {q}")
    return questions


def head(text: str) -> str:
    line = " ".join(str(text).split())
    return line[:HEAD] + ("…" if len(line) > HEAD else "")


def ask_all(graph, embedder, settings, questions: list[dict], catalogue: Catalogue, echo) -> list[dict]:
    from graphrag_cypher.retrieval.qa import ask

    results = []
    for q in questions:
        gold = catalogue.answer(q["gold"])
        row = {"q": q["q"], "family": q["family"], "gold": sorted(gold)}
        started = time.perf_counter()
        try:
            answer = ask(graph, embedder, settings, q["q"], use_llm=False, corpus=None)
        except Exception as exc:  # a failing question scores 0 and says why; the others go on
            row.update(score=0.0, precision=0.0, recall=0.0, route=None, answer=f"{type(exc).__name__}: {exc}"[:300])
            row["ms"] = round((time.perf_counter() - started) * 1000, 1)
            results.append(row)
            echo(f"  error  {q['q']}: {row['answer']}")
            continue
        row["ms"] = round((time.perf_counter() - started) * 1000, 1)
        out = answer.to_dict()
        rows = out.get("rows") if isinstance(out.get("rows"), list) else None
        rows = [r for r in rows if isinstance(r, dict)] if rows is not None else None
        if q["family"] in COUNT_FAMILIES:
            row.update(score_count(answer.text, gold))
        else:
            row.update(score_names(q["q"], answer.text, rows, gold, catalogue.names))
        row.update(route=out.get("route"), answer=head(answer.text))
        results.append(row)
        echo(f"  {row['score']:.2f}  {row['route']:<10}  {q['q']}")
    return results


def summarise(results: list[dict]) -> dict:
    families = {}
    for family in FAMILIES:
        mine = [r for r in results if r["family"] == family]
        if not mine:
            continue
        row = {
            "n": len(mine),
            "metric": "share right" if family in COUNT_FAMILIES else "F1",
            "score": round(statistics.mean(r["score"] for r in mine), 3),
            "structured_route": sum(r["route"] == "structured" for r in mine),
            "search_route": sum(r["route"] == "search" for r in mine),
        }
        if family not in COUNT_FAMILIES:
            row["precision"] = round(statistics.mean(r["precision"] for r in mine), 3)
            row["recall"] = round(statistics.mean(r["recall"] for r in mine), 3)
        families[family] = row
    return families


def explain_misses(settings, results: list[dict], echo) -> None:
    """Each missed question's `graphrag ask --no-llm --explain` lines (its answer left out), as
    `explain` of its row."""
    exe = Path(sys.executable).parent / "graphrag"
    env = graphrag_env(settings)
    for row in results:
        if row["score"] >= 1.0:
            continue
        run = subprocess.run(
            [str(exe), "ask", row["q"], "--no-llm", "--explain"], env=env, cwd=REPO, capture_output=True, text=True
        )
        lines = [line.rstrip() for line in (run.stdout + run.stderr).splitlines() if line.strip()]
        row["explain"] = lines
        echo(f"  explained: {row['q']}")


def run_side(
    questions_file: Path, echo, folder: Path = DATA, records: tuple[str, ...] = RECORDS, explain: bool = False
) -> dict:
    """Load, ask and score with the code this process imports."""
    from graphrag_cypher.onnx_embedder import make_query_embedder

    questions = read_questions(questions_file)
    catalogue = Catalogue(folder, records)
    for q in questions:  # every question's gold, before anything is loaded: a typo fails here
        if not catalogue.answer(q["gold"]):
            raise ValueError(f"empty gold for {q['q']!r}: {q['gold']}")
    started = time.perf_counter()
    out: dict = {"questions": len(questions)}
    with bench_neo4j() as (settings, graph):
        out["loads_s"] = load_all(settings, echo, folder, records)
        embedder = make_query_embedder(settings)
        asked = time.perf_counter()
        results = ask_all(graph, embedder, settings, questions, catalogue, echo)
        out["ask_s"] = round(time.perf_counter() - asked, 1)
        if explain:
            explain_misses(settings, results, echo)
    structured_ms = [r["ms"] for r in results if r["route"] == "structured"]
    out["structured_p50_ms"] = round(statistics.median(structured_ms), 1) if structured_ms else None
    out["structured_p95_ms"] = round(percentile(structured_ms, 0.95), 1) if structured_ms else None
    out["families"] = summarise(results)
    out["total_s"] = round(time.perf_counter() - started, 1)
    out["results"] = results
    return out


# --- an earlier revision's code ----------------------------------------------------------------


def baseline_tree(rev: str, into: Path) -> Path:
    """A path entry that imports the code of revision `rev`: its files (`git archive`), linked into
    the package as scripts/typecheck.py's build_tree links a checkout."""
    source = into / "src"
    source.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=REPO, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
    sys.path.insert(0, str(REPO / "scripts"))
    from typecheck import build_tree

    build_tree(source, into / "tree")
    return into / "tree"


def run_baseline(rev: str, questions_file: Path, echo, folder: Path = DATA, records: tuple[str, ...] = RECORDS) -> dict:
    """run_side in a worker process whose path starts with revision `rev`'s code (its loads too:
    the `graphrag` subprocesses inherit the path)."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = baseline_tree(rev, Path(tmp))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]))
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--worker",
            "--questions",
            str(questions_file.resolve()),
        ]
        command += ["--data", str(folder.resolve()), "--records", ",".join(records)]
        run = subprocess.run(command, env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=None, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"the baseline ({rev}) worker failed with exit status {run.returncode}")
    out = json.loads(run.stdout)
    out["revision"] = rev
    return out


# --- report ------------------------------------------------------------------------------------


def print_side(name: str, result: dict) -> None:
    print(
        f"{name}: {result['questions']} questions; loads {sum(result['loads_s'].values()):.1f} s, "
        f"questions {result['ask_s']} s; structured route p50 {result['structured_p50_ms']} ms"
    )
    print(f"  {'family':<7} {'n':>3}  {'metric':<11} {'score':>5}  {'P':>5} {'R':>5}  structured  search")
    for family, r in result["families"].items():
        p = f"{r['precision']:.2f}" if "precision" in r else "-"
        rr = f"{r['recall']:.2f}" if "recall" in r else "-"
        print(
            f"  {family:<7} {r['n']:>3}  {r['metric']:<11} {r['score']:>5.2f}  {p:>5} {rr:>5}  "
            f"{r['structured_route']:>6}/{r['n']:<3}  {r['search_route']:>4}"
        )


def print_questions(result: dict, baseline: dict | None) -> None:
    before = {r["q"]: r for r in baseline["results"]} if baseline else {}
    print("\nper question (this checkout" + (f"; before: {baseline['revision']}" if baseline else "") + "):")
    for r in result["results"]:
        mark = "hit " if r["score"] >= 1.0 else "miss"
        was = before.get(r["q"])
        was_text = f"  [before {was['score']:.2f} {was['route']}]" if was else ""
        print(f"  {mark} {r['score']:.2f}  {r['family']:<5} {str(r['route']):<10} {r['q']}{was_text}")
        if mark == "miss":
            print(f"       gold: {', '.join(r['gold'])}")
            print(f"       answer: {r['answer']}")
            for line in r.get("explain") or []:
                print(f"       | {line}")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument(
        "--questions", type=Path, default=QUESTIONS, help="the questions YAML (default: bench/questions/catalogue.yaml)"
    )
    parser.add_argument("--baseline", metavar="REV", help="also run an earlier revision's code, side by side")
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help="the folder of records, mappings and schema.yaml (default: the catalogue)",
    )
    parser.add_argument(
        "--records", help="the record names of --data in load order, comma-separated (default: by name)"
    )
    parser.add_argument(
        "--explain", action="store_true", help="print `graphrag ask --explain` of every missed question"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    records = record_names(args.data, args.records)

    def echo(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    if args.worker:  # one side for run_baseline: the JSON on stdout, progress on stderr
        print(json.dumps(run_side(args.questions, echo, args.data, records)))
        return {}
    out: dict = {"this": run_side(args.questions, echo, args.data, records, args.explain)}
    if args.baseline:
        out["baseline"] = run_baseline(args.baseline, args.questions, echo, args.data, records)
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return out
    print_side("this checkout", out["this"])
    if "baseline" in out:
        print_side(f"baseline {args.baseline}", out["baseline"])
    print_questions(out["this"], out.get("baseline"))
    return out


if __name__ == "__main__":
    main()
