"""Ingest benchmark: the whole load against `model.encode` alone, side by side in one run.

    python bench/ingest.py [--json] [--only musique,isaw,grimm]

Loads `qa/musique_train_corpus.json` into an empty database and reports passages/s and
the ratio of the load's wall time to the time `encode` alone takes on the same chunk
texts (goal: <= 1.3, i.e. parsing and the database hide behind embedding). Also times
all ISAW articles and the Grimm book. Model loading is excluded from both sides.

Each load says where its time went (`steps_s`, from `LoadStats.seconds`): read (waiting for
the next parsed item), chunk, lookup (stored hashes and vectors), encode, write (on the
writer thread, beside the rest) and write_wait (the load waiting for the writer); `other` is
the wall time none of those on the loading thread account for. The load runs no NER and no
linking (those are `graphrag link` / `graphrag kg` steps after it).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench_neo4j, data_dir  # noqa: E402


def wipe(graph) -> None:
    from graphrag_cypher.db import query

    graph.run_schema(query("admin/delete_all_data"))


def timed_load(graph, embedder, loader: str, items, corpus: str, **options):
    from graphrag_cypher.store.ingest import Loader, LoadOptions

    started = time.perf_counter()
    stats = Loader(graph, embedder, LoadOptions(loader=loader, source_root=corpus, corpus=corpus, **options)).run(items)
    return time.perf_counter() - started, stats


# the steps the loading thread runs one after another (write runs beside them on its own thread)
SERIAL_STEPS = ("read", "chunk", "lookup", "encode", "write_wait")


def steps(seconds: float, stats) -> dict:
    """Seconds per step of one load, and `other`: its wall time the serial steps leave over."""
    result = {step: round(stats.seconds.get(step, 0.0), 2) for step in (*SERIAL_STEPS, "write")}
    result["other"] = round(seconds - sum(stats.seconds.get(step, 0.0) for step in SERIAL_STEPS), 2)
    return result


def mean_steps(runs: list[dict]) -> dict:
    return {step: round(sum(r[step] for r in runs) / len(runs), 2) for step in runs[0]}


def main(only: frozenset[str] = frozenset({"musique", "isaw", "grimm"})) -> dict:
    from graphrag_cypher.chunking import chunk_document
    from graphrag_cypher.embedder import make_embedder
    from graphrag_cypher.loaders.qa_corpus import parse_qa_corpus
    from graphrag_cypher.store.ingest import embedding_input

    data = data_dir()
    musique = data / "qa" / "musique_train_corpus.json"
    if not musique.exists():
        return {"skipped": f"real data not found at {data} (set GRAPHRAG_DATA_DIR)"}
    results: dict = {}
    with bench_neo4j() as (settings, graph):
        embedder = make_embedder(settings)
        embedder.embed(["warm up the model"] * 64)

        if "musique" not in only:
            return results | others(graph, embedder, data, only)
        docs = [d for d in parse_qa_corpus(musique, corpus="musique") if hasattr(d, "sections")]
        # the same inputs the load embeds: each chunk with its document title in front
        texts = [embedding_input(d.title, c.text) for d in docs for c in chunk_document(d)]
        # Two rounds of (encode alone, whole load) side by side: a shared 2-core machine drifts
        # by several seconds between runs, so each load is compared with the encode just before it.
        rounds = []
        for _ in range(2):
            started = time.perf_counter()
            embedder.embed(texts)
            encode_s = time.perf_counter() - started
            load_s, stats = timed_load(graph, embedder, "qa-corpus", iter(docs), "musique")
            rounds.append((encode_s, load_s, stats))
            wipe(graph)
        encode_s = sum(r[0] for r in rounds) / len(rounds)
        load_s = sum(r[1] for r in rounds) / len(rounds)
        results["musique"] = {
            "passages": len(docs),
            "chunks": rounds[0][2].chunks_created,
            "encode_s": round(encode_s, 2),
            "load_s": round(load_s, 2),
            "passages_per_s": round(len(docs) / load_s, 1),
            "ratio_load_to_encode": round(load_s / encode_s, 3),
            "ratios_per_round": [round(r[1] / r[0], 3) for r in rounds],
            "steps_s": mean_steps([steps(r[1], r[2]) for r in rounds]),
        }
        results |= others(graph, embedder, data, only)
    return results


def others(graph, embedder, data, only: frozenset[str]) -> dict:
    """Load times of all ISAW articles and the Grimm book, each into an empty database."""
    from graphrag_cypher.loaders.files import parse_folder
    from graphrag_cypher.loaders.stories import parse_story_book

    results: dict = {}
    for name, loader, items in (
        ("isaw", "files", lambda: parse_folder(data / "isaw-papers", extensions=frozenset({".xhtml"}))),
        ("grimm", "stories", lambda: parse_story_book(data / "tales" / "grimm-pg2591.txt", corpus="grimm")),
    ):
        if name not in only or not (data / ("isaw-papers" if name == "isaw" else "tales")).exists():
            continue
        seconds, stats = timed_load(graph, embedder, loader, items(), name)
        results[name] = {
            "documents": stats.created,
            "chunks": stats.chunks_created,
            "load_s": round(seconds, 2),
            "chunks_per_s": round(stats.chunks_created / seconds, 1),
            "steps_s": steps(seconds, stats),
        }
        wipe(graph)
    return results


def parse_only(argv: list[str]) -> frozenset[str]:
    """The corpora `--only a,b` names (all three without it)."""
    if "--only" not in argv or argv.index("--only") + 1 >= len(argv):
        return frozenset({"musique", "isaw", "grimm"})
    return frozenset(argv[argv.index("--only") + 1].split(","))


if __name__ == "__main__":
    out = main(parse_only(sys.argv))
    if "--json" in sys.argv:
        print(json.dumps(out, indent=2))
    else:
        print(json.dumps(out))
