"""`make bench`: every benchmark in one run, printed as one table (and JSON with --json)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def rows_for_ingest(result: dict) -> list[tuple[str, str, str]]:
    if "skipped" in result:
        return [("ingest", "skipped", result["skipped"])]
    rows = []
    m = result.get("musique")
    if m:
        rows.append(
            (
                "ingest musique (1,890 passages)",
                f"{m['ratio_load_to_encode']:.2f}x encode",
                f"load {m['load_s']} s vs encode {m['encode_s']} s, {m['passages_per_s']} passages/s, "
                f"rounds {m['ratios_per_round']} (goal <= 1.3)",
            )
        )
    for name in ("isaw", "grimm"):
        if name in result:
            r = result[name]
            rows.append(
                (
                    f"ingest {name}",
                    f"{r['load_s']} s",
                    f"{r['documents']} documents, {r['chunks']} chunks, {r['chunks_per_s']} chunks/s",
                )
            )
    return rows


def rows_for_linking(result: dict) -> list[tuple[str, str, str]]:
    if "skipped" in result:
        return [("link places", "skipped", result["skipped"])]
    fast, cypher = result["fast"], result["cypher"]
    return [
        (
            "link places fast vs cypher",
            f"{result['ratio']}x",
            f"fast {fast['seconds']} s, cypher {cypher['seconds']} s (one query per name), "
            f"batched cypher {result['cypher_batched']['seconds']} s ({result['ratio_batched']}x), matching alone "
            f"{result['match_ratio']}x; identical link sets: {result['identical']} (goal >= 50x, fast < 30 s)",
        ),
        (
            "link places fast, no name cache",
            f"{result['ratio_no_cache']}x",
            f"fast {result['fast_no_cache']['seconds']} s building the name table (goal >= 50x)",
        ),
        (
            "link places accuracy",
            f"P {result['accuracy']['precision']:.1%} R {result['accuracy']['recall']:.1%}",
            f"{result['accuracy']['right']}/{result['accuracy']['edges']} edges right, "
            f"{result['accuracy']['found']}/{result['accuracy']['places']} annotated places found in "
            f"bench/annotations/isaw-places.jsonl (goal P >= 90 %, R >= 70 %)",
        ),
        (
            "link places fast",
            f"{fast['chunks_per_s']} chunks/s",
            f"{fast['mentions']} links from {fast['names']} names over {fast['chunks_scanned']} chunks; "
            f"second run created {result['second_run_created']}, changed {result['second_run_changed']}; "
            f"one edge per mention: {result.get('one_edge_per_mention')}",
        ),
    ]


def rows_for_query(result: dict) -> list[tuple[str, str, str]]:
    if "skipped" in result:
        return [("query latency", "skipped", result["skipped"])]
    structured = result.get("structured")
    extra = []
    if structured:
        extra.append(
            (
                "query structured",
                f"p50 {structured['p50_ms']} ms",
                f"p95 {structured['p95_ms']} ms, qa.ask without an LLM: {structured['structured']}/{structured['questions']} "
                f"questions about the GoT records and Grimm tales answered from the structure ({structured['rows']} rows); "
                f"MuSiQue questions leaving the search route: {structured['musique_structured']} (goal p50 <= 100 ms: "
                f"{'met' if structured['p50_ms'] <= 100 else 'not met'})",
            )
        )
    for mode, r in (result.get("union") or {}).items():
        extra.append(
            (
                f"query {mode} at {r['passages']} passages",
                f"p50 {r['p50_ms']} ms",
                f"p95 {r['p95_ms']} ms over {r['questions']} MuSiQue questions against the union of the three "
                f"shared corpora, questions embedded by {r.get('query_embedder', '?')}"
                + (f" (goal p50 <= 50 ms: {'met' if r['p50_ms'] <= 50 else 'not met'})" if mode != "vector" else ""),
            )
        )
    return extra + [
        (
            f"query {mode}",
            f"p50 {r['p50_ms']} ms",
            f"p95 {r['p95_ms']} ms over {r['questions']} MuSiQue questions, questions embedded by "
            f"{r.get('query_embedder', '?')}, phrase and title links in place"
            + (
                f" (goal p50 <= 50 ms: {'met' if r['p50_ms'] <= 50 else 'not met'})"
                if mode in ("hybrid", "graph")
                else ""
            ),
        )
        for mode, r in result.items()
        if mode not in ("structured", "union")
    ]


def main() -> None:
    import chunking
    import cold_ask
    import communities
    import extract
    import global_search
    import ingest
    import linking
    import ner
    import query
    import scale
    import search_procedure
    import serve

    import evaluation
    import procedures

    results = {
        "ingest": ingest.main(),
        "chunking": chunking.main(),
        "linking": linking.main(),
        "query": query.main(),
        "eval": evaluation.main(),
        "serve": serve.main(),
        "serve_hostile": serve.main_hostile(),
        "procedures": procedures.main(),
        "search_procedure": search_procedure.main(),
        "cold_ask": cold_ask.main(),
        "global_search": global_search.main([]),
        "communities": communities.main([]),
        "scale": scale.main(["--sizes", "100k"]),  # the 100k row of bench/scale.py
        "extract": extract.main([]),
        "ner": ner.main([]),
    }
    if "--json" in sys.argv:
        print(json.dumps(results, indent=2))
        return
    rows = (
        rows_for_ingest(results["ingest"])
        + chunking.rows(results["chunking"])
        + rows_for_linking(results["linking"])
        + rows_for_query(results["query"])
        + evaluation.rows(results["eval"])
        + serve.rows(results["serve"])
        + serve.hostile_rows(results["serve_hostile"])
        + procedures.rows(results["procedures"])
        + search_procedure.rows(results["search_procedure"])
        + cold_ask.rows(results["cold_ask"])
        + global_search.rows(results["global_search"])
        + communities.rows(results["communities"])
        + scale.rows(results["scale"])
        + extract.rows(results["extract"])
        + ner.rows(results["ner"])
    )
    width = max(len(r[0]) for r in rows)
    value_width = max(14, *(len(r[1]) for r in rows))
    print(f"{'benchmark':<{width}}  {'result':<{value_width}}  detail")
    for name, value, detail in rows:
        print(f"{name:<{width}}  {value:<{value_width}}  {detail}")


if __name__ == "__main__":
    main()
