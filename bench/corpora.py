"""The real corpora of the global-search and community benchmarks, loaded the way a user does.

`graphrag load …` and `graphrag link phrases` run as subprocesses against a bench Neo4j:

* grimm: `load stories tales/grimm-pg2591.txt --corpus grimm` (62 tales),
* isaw: `load files isaw-papers --ext .xhtml --corpus isaw` (77 articles),
* awoiaf: `load mediawiki got/awoiaf-chapters-export.xml --corpus awoiaf` (the chapter pages),
* wiki: `load mediawiki wiki/enwiki-sample-pages-articles.xml --corpus wiki` (106 articles),

then `link phrases` over everything. A named `home` keeps the instance between runs (a re-run of a
load finds its documents unchanged and writes nothing), so a development loop pays the embedding once.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from common import REPO, data_dir, graphrag_env

CORPORA = ("grimm", "isaw", "awoiaf", "wiki")


def load_args(data: Path, corpus: str, no_embed: bool = False) -> list[str]:
    args = {
        "grimm": ["load", "stories", str(data / "tales" / "grimm-pg2591.txt"), "--corpus", "grimm"],
        "isaw": ["load", "files", str(data / "isaw-papers"), "--ext", ".xhtml", "--corpus", "isaw"],
        "awoiaf": ["load", "mediawiki", str(data / "got" / "awoiaf-chapters-export.xml"), "--corpus", "awoiaf"],
        "wiki": ["load", "mediawiki", str(data / "wiki" / "enwiki-sample-pages-articles.xml"), "--corpus", "wiki"],
    }[corpus]
    return [*args, "--no-embed"] if no_embed else args


def source_path(data: Path, corpus: str) -> Path:
    return {
        "grimm": data / "tales" / "grimm-pg2591.txt",
        "isaw": data / "isaw-papers",
        "awoiaf": data / "got" / "awoiaf-chapters-export.xml",
        "wiki": data / "wiki" / "enwiki-sample-pages-articles.xml",
    }[corpus]


def missing(data: Path, corpora=CORPORA) -> str | None:
    absent = [str(source_path(data, c)) for c in corpora if not source_path(data, c).exists()]
    return f"real data not found: {', '.join(absent)} (set GRAPHRAG_DATA_DIR)" if absent else None


def graphrag(settings, args: list[str], check: bool = True) -> tuple[float, dict | str]:
    """Run `graphrag ARGS --json` against the bench Neo4j: (seconds, parsed output)."""
    exe = Path(sys.executable).parent / "graphrag"
    started = time.perf_counter()
    run = subprocess.run(
        [str(exe), *args, "--json"], env=graphrag_env(settings), cwd=REPO, capture_output=True, text=True
    )
    seconds = round(time.perf_counter() - started, 1)
    if check and run.returncode != 0:
        raise RuntimeError(f"graphrag {' '.join(args[:3])} failed: {run.stderr.strip()[-800:]}")
    try:
        return seconds, json.loads(run.stdout)
    except json.JSONDecodeError:
        return seconds, run.stdout.strip()[-500:]


def load(settings, corpora=CORPORA, no_embed: bool = False, echo=lambda line: None) -> dict:
    """Every corpus's load, then `link phrases`: {step: {"seconds", "result"}}."""
    data, out = data_dir(), {}
    for corpus in corpora:
        seconds, result = graphrag(settings, load_args(data, corpus, no_embed))
        out[corpus] = {"seconds": seconds, "result": result}
        echo(f"load {corpus}: {seconds} s")
    seconds, result = graphrag(settings, ["link", "phrases"])
    out["link phrases"] = {"seconds": seconds, "result": result}
    echo(f"link phrases: {seconds} s")
    return out


@contextmanager
def bench_graph(home: str | Path | None = None, heap: str = "1g", keep: bool = False):
    """(settings, graph) of a bench Neo4j with the schema applied: a throw-away one, or the one kept in `home`."""
    from graphrag_cypher.admin import migrations, neo4j_local
    from graphrag_cypher.db import connect

    with neo4j_local.ephemeral(Path(home).resolve() if home else None, heap=heap, keep=keep) as server:
        settings = server.settings()
        with connect(settings) as graph:
            migrations.apply(graph, settings.placeholders())
            yield settings, graph


# --- the stored text, the gold's only source ------------------------------------------------------


def documents(graph, corpus: str) -> list[dict]:
    """{id, title, text, chunks} per document of `corpus`, the text its chunks' stored text joined in order."""
    rows = graph.read("bench/corpus_texts", corpus=corpus)
    return [{"id": r["id"], "title": r["title"], "texts": r["texts"], "chunk_ids": r["chunk_ids"]} for r in rows]


def term_forms(term: str) -> list[str]:
    """The term and its singular/plural: harbour/harbours, witch/witches, city/cities, wolf/wolves,
    huntsman/huntsmen (regular English plurals and -man/-men; nothing else irregular)."""
    t = term.lower()
    forms = {t}
    if t.endswith("man") and len(t) > 4:  # huntsman / huntsmen
        forms.add(t[:-3] + "men")
    elif t.endswith("men") and len(t) > 4:
        forms.add(t[:-3] + "man")
    elif t.endswith("ies") and len(t) > 4:
        forms.add(t[:-3] + "y")
    elif t.endswith("ves") and len(t) > 4:
        forms |= {t[:-3] + "f", t[:-3] + "fe"}
    elif re.search(r"(s|x|z|ch|sh)es$", t):
        forms.add(t[:-2])
    elif t.endswith("s") and not t.endswith("ss"):
        forms.add(t[:-1])
    else:
        if t.endswith("y") and len(t) > 2 and t[-2] not in "aeiou":
            forms.add(t[:-1] + "ies")
        elif re.search(r"(s|x|z|ch|sh)$", t):
            forms.add(t + "es")
        elif t.endswith("f"):
            forms |= {t + "s", t[:-1] + "ves"}
        elif t.endswith("fe"):
            forms |= {t + "s", t[:-2] + "ves"}
        else:
            forms.add(t + "s")
    return sorted(forms, key=len, reverse=True)


def term_pattern(term: str) -> re.Pattern:
    """Any form of the term on word boundaries, case-insensitive."""
    alternatives = "|".join(re.escape(f) for f in term_forms(term))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def mentions(doc: dict, pattern: re.Pattern) -> int:
    """Matches of `pattern` in the document's stored chunk text; a match that falls wholly inside the text a
    chunk repeats from the previous one (the load's overlap) is counted once."""
    total, previous = 0, ""
    for text in doc["texts"]:
        overlap = _overlap(previous, text)
        total += sum(1 for m in pattern.finditer(text) if m.start() >= overlap)
        previous = text
    return total


def _overlap(previous: str, text: str, longest: int = 600) -> int:
    """Length of the longest suffix of `previous` that `text` starts with (0 when none)."""
    if not previous:
        return 0
    for size in range(min(longest, len(previous), len(text)), 19, -1):
        if text.startswith(previous[-size:]):
            return size
    return 0


def gold_sets(docs: list[dict], term: str) -> dict:
    """{"gold": ids with >= 2 mentions, "mentioned": ids with >= 1, "counts": id -> mentions}."""
    pattern = term_pattern(term)
    counts = {d["id"]: mentions(d, pattern) for d in docs}
    return {
        "gold": {i for i, n in counts.items() if n >= 2},
        "mentioned": {i for i, n in counts.items() if n >= 1},
        "counts": {i: n for i, n in counts.items() if n},
    }
