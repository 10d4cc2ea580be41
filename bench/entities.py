"""Entities a reader would trust, scored like a reviewer: the place linker, NER, and a junk audit.

    python bench/entities.py [--json] [--skip-links] [--skip-ner] [--skip-audit] [--model en_core_web_sm]

Loads the Pleiades places with the names of `name_index.json.gz` (as `load pleiades` reads it),
GeoNames' modern countries and continents and the ISAW articles (no vectors) into a throw-away
Neo4j, then:

* links: `link places` (fast engine) over every ISAW chunk, scored with `annotations/evaluate.py`
  against each `annotations/isaw-places*.jsonl` present (the first 50-chunk sample; the fresh
  samples annotated from the text, outside reference lists). Per file: the annotated chunks found,
  the edges in them, precision, recall, the misses counted by the annotation's `kind` (plain,
  region, shared-name, adjectival, modern-language, inside-name, spelling; "-" where the file has
  none) and the wrong edges by the rule that made them. A second `link places` must change nothing.
* ner: bench/ner.py's `draw` and `quality` on each annotated set (sample, heldout, fresh, fresh2
  when `ner-fresh2.jsonl` exists), with the recogniser reading its gazetteer from this graph
  where kg/ner offers one: precision and recall per type, with the number of annotated names.
* audit: `extract --extractor ner` over all ISAW chunks in the graph, then every entity an ISAW
  chunk MENTIONS whose name is an era or number token (BCE, AD 79, 1998), a roman numeral (IV),
  holds a section sign (§ 12) or is a siglum of an inscription or papyrus corpus or a
  bibliography abbreviation (IG, SEG, P.Oxy., ed.), by the regular expressions below (this
  bench's own, not NER's lists). The goal is 0; each one is listed. A second extract must write nothing.

Reads ../shared/data (GRAPHRAG_DATA_DIR); a part that cannot run says why and the rest runs.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "annotations"))

from common import bench_neo4j, data_dir  # noqa: E402

# The junk audit's own patterns (whole entity names). Era tokens are matched as written (AD, not "Ad");
# a number is digits or a well-formed roman numeral; papyrus and ostraca sigla name their collection
# (P. Oxy., O. Claud., P. Cairo), so "P. Garnsey" (a scholar's initial) is no siglum.
ERA = re.compile(r"(?:BCE|BC|CE|AD|BP|B\.C\.(?:E\.?)?|C\.E\.?|A\.D\.?|B\.C)")
ROMAN = re.compile(r"(?=[MDCLXVI])M{0,4}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})\.?")
_NUMBER = r"(?:\d+[a-z]?|(?=[MDCLXVI])M{0,4}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3}))"
NUMBERING = re.compile(
    rf"(?:(?:c\.|ca\.)\s*)?(?:{ERA.pattern}\s*(?=\d)|{ERA.pattern}\s+)?{_NUMBER}(?:\s*[.,:/–-]\s*{_NUMBER}|\s+{_NUMBER})*"
    rf"\.?(?:(?<=\d)\s*{ERA.pattern}|\s+{ERA.pattern})?"
)
SECTION = re.compile(r"[§¶]")
_COLLECTIONS = (
    r"Oxy|Cair(?:o)?|Leid(?:en)?|Lond|Mich|Tebt|Hib(?:eh)?|Ryl|Giss|Amh|Flor|Fay|Princ(?:eton)?|Carl?s?l?berg|Kellis|"
    r"Louvre|Brooklyn|Berl(?:in)?|Berol|Dem|Duk(?:e)?|Paris|Par|Petr|Col|Yale|Harr|Bodl|Heid|Vind(?:ob)?|Lips|Herc|"
    r"Hamb|Stras(?:b)?|Cornell|Mil|Vogl|Claud|Eleph|Enteux|Zen|Ant|Sorb|Bad|Mert|Wisc|Graux|Lund|Genova|Tor"
)
SIGLUM = re.compile(
    r"(?:IG|SEG|CIL|ILS|AE|OGIS|SIG|Syll|CIG|IGRR?|ILLRP|TAM|BGU|SB|PSI|CPR|CPJ|SGDI|IK|ID|FD|MAMA|IGBulg|IGUR|"
    rf"ILAlg|IRT|RIB|BE|[POT]\.\s?(?:{_COLLECTIONS})\.?(?:\s?[A-Z][a-z]+\.?)?|Tab\.?\s?Vindol)"
    r"(?:\s*[\dIVXLCM]+(?:[.,:/ ]+\d+)*)?\.?"
)
BIBLIOGRAPHY = re.compile(
    r"(?:eds?|trans|cf|ibid|id|vol|vols|pl|pls|fig|figs|op\.?\s?cit|ca|nn?|pp?|no|nos|col|cols|fr|frr|ll?)\.?", re.I
)


def junk_kind(name: str) -> str | None:
    """Why an entity's name is junk (era/number, roman numeral, section sign, siglum, bibliography), or None."""
    text = " ".join((name or "").split())
    if SECTION.search(text):
        return "section sign"
    if SIGLUM.fullmatch(text):
        return "siglum"
    if ROMAN.fullmatch(text):
        return "roman numeral"
    if ERA.fullmatch(text) or NUMBERING.fullmatch(text):
        return "era/number"
    if BIBLIOGRAPHY.fullmatch(text):
        return "bibliography"
    return None


def load_graph(graph, data: Path) -> dict:
    """Places with the name index, the modern places and the ISAW articles, as `load` does (bench/ner.py's)."""
    from ner import load_gazetteer

    return load_gazetteer(graph, data)


def score_file(evaluate, path: Path, chunks: list[dict], edges: dict) -> dict:
    """One annotation file's scores, with the misses by kind and the wrong edges by rule."""
    rows = evaluate.load(path)
    scored = evaluate.score(rows, chunks, edges)
    kinds = {(row["sample"], p["mention"]): p.get("kind", "-") for row in rows for p in row["places"]}
    return {
        "chunks": len(rows) - scored["missing_chunks"],
        "missing_chunks": scored["missing_chunks"],
        "edges": scored["edges"],
        "precision": scored["precision"],
        "recall": scored["recall"],
        "places": scored["places"],
        "found": scored["found"],
        "missed_by_kind": dict(Counter(kinds.get((s, m), "-") for s, m, _ in scored["missed"]).most_common()),
        "wrong_by_rule": dict(Counter(w[3] for w in scored["wrong"]).most_common()),
        "missed": [f"{s} {m} ({kinds.get((s, m), '-')})" for s, m, _ in scored["missed"]],
        "wrong": [f"{s} {'/'.join(matched)} -> {target} ({rule})" for s, matched, target, rule, _ in scored["wrong"]],
    }


def links(graph) -> dict:
    import evaluate

    from graphrag_cypher.linkers.mentions import iter_chunks
    from graphrag_cypher.linkers.places import PlaceLinkOptions, link_places

    started = time.perf_counter()
    run = link_places(graph, PlaceLinkOptions(engine="fast", cache_dir=None))
    seconds = time.perf_counter() - started
    again = link_places(graph, PlaceLinkOptions(engine="fast", cache_dir=None))
    chunks = list(iter_chunks(graph, None, with_text=True))
    files = sorted((HERE / "annotations").glob("isaw-places*.jsonl"))
    return {
        "seconds": round(seconds, 1),
        "mentions": run.mentions,
        "second_run_changed": again.mentions_created + again.mentions_updated + again.mentions_removed,
        "files": {path.name: score_file(evaluate, path, chunks, run.edges) for path in files},
    }


def ner_quality(graph, data: Path, model: str | None) -> dict:
    """bench/ner.py's quality per annotated set, the recogniser reading this graph as its gazetteer."""
    import ner as ner_bench

    from graphrag_cypher.kg.ner import load_pipeline
    from graphrag_cypher.schema import load_schema

    pipeline = load_pipeline(model)
    schema = load_schema("generic")
    try:
        from graphrag_cypher.kg import ner_gazetteer

        pipeline.gazetteer = ner_gazetteer.load(graph, schema, cache_dir=None)
        gazetteer = f"{len(pipeline.gazetteer.names)} names from the graph"
    except (ImportError, AttributeError, TypeError) as exc:
        gazetteer = f"none (kg/ner reads no gazetteer here: {exc})"
    out: dict = {"model": pipeline.name, "gazetteer": gazetteer, "sets": {}}
    for name, (_, _, path) in ner_bench.SETS.items():
        if not path.exists():
            out["sets"][name] = {"skipped": f"{path.name} is not there"}
            continue
        types = ner_bench.TYPES if name == "sample" else ("Person", "Place")  # the later sets: persons and places
        if name == "fresh2":
            types = ner_bench.TYPES
        try:
            out["sets"][name] = ner_bench.quality(pipeline, schema, ner_bench.draw(data, name), data, path, types)
        except Exception as exc:  # a set the NER bench cannot score yet: said, the others run
            out["sets"][name] = {"error": f"{type(exc).__name__}: {exc}"}
    return out


def audit(graph) -> dict:
    """`extract --extractor ner` over the ISAW corpus, then the junk among the entities ISAW chunks mention."""
    from graphrag_cypher.kg import ner
    from graphrag_cypher.schema import load_schema

    schema = load_schema("generic")
    started = time.perf_counter()
    first = ner.run(graph, schema, ner.Selection(corpus="isaw"))
    seconds = time.perf_counter() - started
    again = ner.run(graph, schema, ner.Selection(corpus="isaw"))
    rows = graph.read("bench/corpus_entities", corpus="isaw")
    junk = []
    for row in rows:
        kind = junk_kind(row["name"])
        if kind:
            junk.append({**row, "kind": kind})
    junk.sort(key=lambda r: (r["kind"], -r["mentions"], r["name"]))
    return {
        "seconds": round(seconds, 1),
        "chunks": first.get("chunks"),
        "entities_mentioned": len(rows),
        "second_run_mentions_created": again.get("mentionsCreated"),
        "junk": len(junk),
        "junk_by_kind": dict(Counter(r["kind"] for r in junk).most_common()),
        "junk_entities": junk,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--skip-links", action="store_true", help="no place-linker scores")
    parser.add_argument("--skip-ner", action="store_true", help="no NER scores and no junk audit")
    parser.add_argument("--skip-audit", action="store_true", help="NER scores without the audit over all ISAW")
    parser.add_argument("--model", default=None, help="the spaCy pipeline (default en_core_web_sm)")
    args = parser.parse_args(argv)
    data = data_dir()
    if not (data / "isaw-papers").is_dir() or not (data / "pleiades").is_dir():
        return {"skipped": f"real data not found in {data.name}/ (set GRAPHRAG_DATA_DIR)"}
    result: dict = {}
    started = time.perf_counter()
    with bench_neo4j() as (_, graph):
        result["load"] = load_graph(graph, data)
        parts = [("links", lambda: links(graph), args.skip_links)]
        parts += [("ner", lambda: ner_quality(graph, data, args.model), args.skip_ner)]
        parts += [("audit", lambda: audit(graph), args.skip_ner or args.skip_audit)]
        for name, part, skipped in parts:
            if skipped:
                continue
            try:
                result[name] = part()
            except Exception as exc:  # one part failing (another part of the work unfinished) leaves the rest
                result[name] = {"error": f"{type(exc).__name__}: {exc}"}
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def lines(result: dict) -> list[str]:
    """The result as a reviewer reads it."""
    if "skipped" in result:
        return [f"entities: skipped ({result['skipped']})"]
    load = result["load"]
    out = [
        f"graph: {load['places']} places (with the name index), "
        f"{load['documents']} ISAW articles, {load['chunks']} chunks ({load['seconds']} s)"
    ]
    if "links" in result:
        lk = result["links"]
        if "error" in lk:
            out.append(f"links: error {lk['error']}")
        else:
            out.append(
                f"links: {lk['mentions']} mentions in {lk['seconds']} s; a second run changed {lk['second_run_changed']}"
            )
            for name, f in lk["files"].items():
                out.append(
                    f"  {name}: {f['chunks']} chunks ({f['missing_chunks']} not found), {f['edges']} edges, "
                    f"P {f['precision']} R {f['recall']} ({f['found']}/{f['places']} places)"
                )
                if f["missed_by_kind"]:
                    out.append("    missed by kind: " + ", ".join(f"{k} {n}" for k, n in f["missed_by_kind"].items()))
                if f["wrong_by_rule"]:
                    out.append("    wrong by rule: " + ", ".join(f"{k} {n}" for k, n in f["wrong_by_rule"].items()))
    if "ner" in result:
        nr = result["ner"]
        if "error" in nr:
            out.append(f"ner: error {nr['error']}")
        else:
            out.append(f"ner: {nr['model']}, gazetteer: {nr['gazetteer']}")
            for name, q in nr["sets"].items():
                if "byType" not in q:
                    out.append(f"  {name}: {q.get('skipped') or q.get('error')}")
                    continue
                scores = "; ".join(
                    f"{t} P {r['precision']} R {r['recall']} (n={r['annotated']})" for t, r in q["byType"].items()
                )
                out.append(f"  {name} ({q['chunks']} chunks): {scores}")
    if "audit" in result:
        au = result["audit"]
        if "error" in au:
            out.append(f"audit: error {au['error']}")
        else:
            out.append(
                f"audit: NER over {au['chunks']} ISAW chunks in {au['seconds']} s; {au['entities_mentioned']} entities "
                f"mentioned, junk {au['junk']} (goal 0) {au['junk_by_kind']}; a second extract created "
                f"{au['second_run_mentions_created']}"
            )
            out += [
                f"    {j['kind']}: {j['name']!r} ({j['type']}, {j['mentions']} mentions, {'/'.join(j['rules'])})"
                for j in au["junk_entities"]
            ]
    out.append(f"total {result['seconds']} s")
    return out


if __name__ == "__main__":
    found = main(sys.argv[1:])
    if "--json" in sys.argv:
        print(json.dumps({"entities": found}, indent=2, ensure_ascii=False))
    else:
        print("\n".join(lines(found)))
