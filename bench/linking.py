"""Place-linking benchmark: the fast engine against the Cypher reference, in one run.

    python bench/linking.py [--json]

Loads the 41,157 Pleiades places, GeoNames' modern countries and continents and the 77 ISAW
articles (no vectors) into a throw-away Neo4j, then times `link places` end to end (read names and chunks, match, decide, write)
with each engine, deleting the links in between, and compares the link sets. The reference
runs as the seed did, one full-text query per name, on the full name set; the same
reference batched 200 names per statement is timed too, so the ratio is not flattered by
round trips alone.

Three warm-up runs do what a timed run does (query plans, page cache, the server's JIT
compiler, which otherwise competes for the CPU during the first timed runs); the first also
builds the name cache, as a user's first run does. Both engines then read the names from
the cache, as a user's later runs do; the fast engine is timed five times (the median
counts: the machine is shared) and once more without the cache (`ratio_no_cache`).

The fast run's links are scored against the hand-annotated sample of ISAW chunks in
`bench/annotations/isaw-places.jsonl` (`precision`, `recall`; see `annotations/evaluate.py`).
"""

from __future__ import annotations

import gc
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "annotations"))

from common import bench_neo4j, data_dir  # noqa: E402


def main() -> dict:
    import evaluate

    from graphrag_cypher.linkers.mentions import iter_chunks
    from graphrag_cypher.linkers.places import PlaceLinkOptions, link_places, link_set
    from graphrag_cypher.loaders.files import parse_folder
    from graphrag_cypher.loaders.gazetteers import GazetteerError, name_index_beside, parse_pleiades
    from graphrag_cypher.loaders.modern_places import modern_place_rows
    from graphrag_cypher.store.ingest import Loader, LoadOptions

    data = data_dir()
    pleiades, isaw = data / "pleiades" / "pleiades-places.geojsonl.gz", data / "isaw-papers"
    if not pleiades.exists() or not isaw.exists():
        return {"skipped": f"real data not found at {data} (set GRAPHRAG_DATA_DIR)"}
    result: dict = {}
    with bench_neo4j() as (_, graph):
        started = time.perf_counter()
        rows = [
            r
            for r in parse_pleiades(pleiades, name_index=name_index_beside(pleiades))
            if not isinstance(r, GazetteerError)
        ] + list(modern_place_rows())
        for i in range(0, len(rows), 2000):
            graph.write("places/upsert_places", rows=rows[i : i + 2000])
        result["load_places"] = {"places": len(rows), "seconds": round(time.perf_counter() - started, 2)}
        del rows  # 41k place rows would stay in this process's heap, unlike a `graphrag link places` run
        stats = Loader(graph, None, LoadOptions(loader="files", source_root=str(isaw), corpus="isaw")).run(
            parse_folder(isaw, extensions=frozenset({".xhtml"}))
        )
        result["articles"] = {"documents": stats.created, "chunks": stats.chunks_created}

        cache = Path(tempfile.mkdtemp(prefix="graphrag-bench-cache-"))
        for _ in range(3):  # warm-up: what a timed run does (the first also builds the name cache)
            _delete_links(graph)
            link_places(graph, PlaceLinkOptions(engine="fast", cache_dir=cache))
        runs = {}
        for label, engine, batch, cache_dir in [("fast", "fast", 1, cache)] * 5 + [
            ("fast_no_cache", "fast", 1, None),
            ("cypher", "cypher", 1, cache),
            ("cypher_batched", "cypher", 200, cache),
        ]:
            _delete_links(graph)
            gc.collect()  # no garbage of the run before (as timeit)
            started = time.perf_counter()
            run = link_places(graph, PlaceLinkOptions(engine=engine, name_batch=batch, cache_dir=cache_dir))
            runs.setdefault(label, []).append((time.perf_counter() - started, run))
        sets = [link_set(run.edges) for timed in runs.values() for _, run in timed]
        for label, timed in runs.items():
            seconds, run = sorted(timed, key=lambda t: t[0])[len(timed) // 2]  # the median run
            result[label] = {
                "seconds": round(seconds, 2),
                "phases": run.seconds,
                "names": run.names,
                "names_cached": run.names_cached,
                "chunks_scanned": run.chunks_scanned,
                "mentions": run.mentions,
                "chunks_per_s": round(run.chunks_scanned / seconds, 1),
            }
            if len(timed) > 1:
                result[label]["runs"] = [round(t, 3) for t, _ in timed]
            runs[label] = (seconds, run)
        # Edges name their engine (`source`): one fast run turns the reference's edges back, the next
        # is the repeated run that must write nothing.
        link_places(graph, PlaceLinkOptions(engine="fast", cache_dir=cache))
        again = link_places(graph, PlaceLinkOptions(engine="fast", cache_dir=cache))
        shutil.rmtree(cache, ignore_errors=True)
        fast_s, fast = runs["fast"]
        result["identical"] = all(one == sets[0] for one in sets)
        result["ratio"] = round(runs["cypher"][0] / fast_s, 1)
        result["ratio_no_cache"] = round(runs["cypher"][0] / runs["fast_no_cache"][0], 1)
        result["ratio_batched"] = round(runs["cypher_batched"][0] / fast_s, 1)
        result["match_ratio"] = round(runs["cypher"][1].seconds["match"] / fast.seconds["match"], 1)
        scored = evaluate.score(evaluate.load(), list(iter_chunks(graph, None, with_text=True)), fast.edges)
        result["accuracy"] = {k: v for k, v in scored.items() if k not in ("wrong", "missed")}
        result["one_edge_per_mention"] = sum(props["mentions"] for props in fast.edges.values()) == fast.linked
        result["second_run_created"] = again.mentions_created
        result["second_run_changed"] = again.mentions_updated + again.mentions_removed
    return result


def _delete_links(graph) -> None:
    [row] = graph.read("linkers/mentions", linker="places")
    graph.write(
        "linkers/write_mentions",
        linker="places",
        create=[],
        update=[],
        remove=[{"chunkId": c, "targetId": t} for c, t in zip(row["chunkIds"], row["targetIds"], strict=True)],
    )


if __name__ == "__main__":
    out = main()
    print(json.dumps(out, indent=2) if "--json" in sys.argv else out)
