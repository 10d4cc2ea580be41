"""Place-linking benchmark: the fast engine against the Cypher reference, in one run.

    python bench/linking.py [--json]

Loads the 41,157 Pleiades places and the 77 ISAW articles (no vectors) into a throw-away
Neo4j, then times `link places` end to end (read names and chunks, match, decide, write)
with each engine, deleting the links in between, and compares the two link sets. The
reference runs as the seed did, one full-text query per name, on the full name set; the
same reference batched 200 names per statement is timed too, so the ratio is not flattered
by round trips alone.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench_neo4j, data_dir  # noqa: E402


def main() -> dict:
    from graphrag_cypher.ingest import LoadOptions, Loader
    from graphrag_cypher.linkers.places import PlaceLinkOptions, link_places, link_set
    from graphrag_cypher.loaders.files import parse_folder
    from graphrag_cypher.loaders.gazetteers import GazetteerError, parse_pleiades

    data = data_dir()
    pleiades, isaw = data / "pleiades" / "pleiades-places.geojsonl.gz", data / "isaw-papers"
    if not pleiades.exists() or not isaw.exists():
        return {"skipped": f"real data not found at {data} (set GRAPHRAG_DATA_DIR)"}
    result: dict = {}
    with bench_neo4j() as (_, graph):
        started = time.perf_counter()
        rows = [r for r in parse_pleiades(pleiades) if not isinstance(r, GazetteerError)]
        for i in range(0, len(rows), 2000):
            graph.write("places/upsert_places", rows=rows[i:i + 2000])
        result["load_places"] = {"places": len(rows), "seconds": round(time.perf_counter() - started, 2)}
        stats = Loader(graph, None, LoadOptions(loader="files", source_root=str(isaw), corpus="isaw")).run(
            parse_folder(isaw, extensions=frozenset({".xhtml"})))
        result["articles"] = {"documents": stats.created, "chunks": stats.chunks_created}

        link_places(graph, PlaceLinkOptions(engine="fast"))  # warm-up: query plans, page cache, the name read
        runs = {}
        for label, engine, batch in (("fast", "fast", 1), ("cypher", "cypher", 1), ("cypher_batched", "cypher", 200)):
            _delete_links(graph)
            started = time.perf_counter()
            run = link_places(graph, PlaceLinkOptions(engine=engine, name_batch=batch))
            seconds = time.perf_counter() - started
            runs[label] = (seconds, link_set(run.edges), run)
            result[label] = {"seconds": round(seconds, 2), "phases": run.seconds, "names": run.names,
                             "chunks_scanned": run.chunks_scanned, "mentions": run.mentions,
                             "chunks_per_s": round(run.chunks_scanned / seconds, 1)}
        again = link_places(graph, PlaceLinkOptions(engine="fast"))
        fast_s, fast_set, _ = runs["fast"]
        result["identical"] = all(runs[k][1] == fast_set for k in ("cypher", "cypher_batched"))
        result["ratio"] = round(runs["cypher"][0] / fast_s, 1)
        result["ratio_batched"] = round(runs["cypher_batched"][0] / fast_s, 1)
        result["match_ratio"] = round(runs["cypher"][2].seconds["match"] / runs["fast"][2].seconds["match"], 1)
        result["second_run_created"] = again.mentions_created
    return result


def _delete_links(graph) -> None:
    [row] = graph.read("linkers/mentions", linker="places")
    graph.write("linkers/write_mentions", linker="places", create=[], update=[],
                remove=[{"chunkId": c, "targetId": t} for c, t in zip(row["chunkIds"], row["targetIds"])])


if __name__ == "__main__":
    out = main()
    print(json.dumps(out, indent=2) if "--json" in sys.argv else out)
