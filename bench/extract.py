"""The LLM extractor's wall time, one request at a time against `--concurrency 8`.

    python bench/extract.py [--passages 300] [--delay 0.2] [--json]

Real passages (the first `--passages` of the shared MuSiQue corpus, one chunk and one unit
each) are loaded into a throw-away Neo4j and extracted with the generic schema against the
project's scripted OpenAI-compatible server (tests/llm_server.py), every reply held back
`--delay` seconds as a remote model would be. The run with `--concurrency 1` and the run
with `--concurrency 8` start from the same graph (the first one's extraction removed), skip
the reply cache, and must leave identical graphs (`graph_fingerprint`); a third run with the
cache must send no request. Goal: a speed-up of 6x or more.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import bench_neo4j, data_dir, graphrag_env  # noqa: E402

CORPUS = "bench-extract"
NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*\b")
TYPES = ("Person", "Place", "Organization", "Work", "Concept")


def scripted_reply(body: dict) -> str:
    """Capitalised runs of words as entities (typed by their length), RELATED_TO the next one."""
    text = body["messages"][-1]["content"].split("\n\n", 1)[-1]
    names = list(dict.fromkeys(NAME.findall(text)))[:12]
    entities = [
        {"id": f"E{n}", "type": TYPES[len(name) % len(TYPES)], "name": name, "original_name": name, "description": ""}
        for n, name in enumerate(names, 1)
    ]
    relations = [
        {"source": f"E{n}", "target": f"E{n + 1}", "type": "RELATED_TO", "description": "named together"}
        for n in range(1, len(names))
    ]
    return json.dumps({"entities": entities, "relations": relations})


def timed_run(graph, settings, schema, concurrency: int, cache=None) -> dict:
    from graphrag_cypher.kg import llm_extract

    started = time.perf_counter()
    out = llm_extract.run(
        graph, settings, schema, llm_extract.Selection(corpus=CORPUS, kinds=None), concurrency=concurrency, cache=cache
    )
    return {
        "seconds": round(time.perf_counter() - started, 2),
        "requests": out["requests"],
        "cache_hits": out["cacheHits"],
        "documents": out["documents"]["extracted"],
        "entities": sum(out["nodesByType"].values()),
        "relations": out["edgesBuilt"],
        "fingerprint": llm_extract.graph_fingerprint(graph),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passages", type=int, default=300, help="MuSiQue passages to extract (one unit each)")
    parser.add_argument("--delay", type=float, default=0.2, help="seconds the scripted server holds each reply")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    source = data_dir() / "qa" / "musique_train_corpus.json"
    if not source.is_file():
        return {"skipped": f"{source} not found (set GRAPHRAG_DATA_DIR)"}

    from graphrag_cypher.kg import llm_extract
    from graphrag_cypher.schema import load_schema
    from tests.llm_server import LLMServer

    passages = json.loads(source.read_text(encoding="utf-8"))[: args.passages]
    schema = load_schema("generic")
    server = LLMServer(reply=scripted_reply, delay=args.delay)
    try:
        with bench_neo4j() as (settings, graph), tempfile.TemporaryDirectory() as work:
            corpus = Path(work) / "passages.json"
            corpus.write_text(json.dumps(passages), encoding="utf-8")
            exe = Path(sys.executable).parent / "graphrag"
            load = [str(exe), "load", "qa-corpus", str(corpus), "--corpus", CORPUS, "--no-embed", "--json"]
            done = subprocess.run(load, env=graphrag_env(settings), capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"load failed: {done.stderr.strip()[-600:]}")
            settings = dataclasses.replace(settings, llm_base_url=server.url, llm_model="scripted-200ms")
            one = timed_run(graph, settings, schema, 1)
            llm_extract.reset(graph, settings)
            eight = timed_run(graph, settings, schema, 8)
            cache = llm_extract.ReplyCache(Path(work) / "extract.sqlite")
            timed_run(graph, settings, schema, 8, cache)  # fills the cache
            cached = timed_run(graph, settings, schema, 8, llm_extract.ReplyCache(Path(work) / "extract.sqlite"))
    finally:
        server.close()
    result = {
        "passages": len(passages),
        "delay_s": args.delay,
        "concurrency_1": one,
        "concurrency_8": eight,
        "cached_rerun": cached,
        "speedup": round(one["seconds"] / eight["seconds"], 2),
        "identical": one["fingerprint"] == eight["fingerprint"] == cached["fingerprint"],
        "most_in_flight": server.most_in_flight,
    }
    if args.json or argv is None:
        print(json.dumps(result, indent=2))
    return result


def rows(result: dict) -> list[tuple[str, str, str]]:
    if "skipped" in result:
        return [("extract llm concurrency", "skipped", result["skipped"])]
    one, eight, cached = result["concurrency_1"], result["concurrency_8"], result["cached_rerun"]
    return [
        (
            "extract llm concurrency 8 vs 1",
            f"{result['speedup']}x",
            f"{result['passages']} MuSiQue passages, {one['requests']} requests held {result['delay_s']} s each: "
            f"{one['seconds']} s one at a time, {eight['seconds']} s eight at a time; identical graphs: "
            f"{result['identical']}; a cached re-run sent {cached['requests']} requests in {cached['seconds']} s "
            f"(goal >= 6x)",
        )
    ]


if __name__ == "__main__":
    main()
