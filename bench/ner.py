"""Named entities without an LLM: quality on a hand-annotated sample, and cost beside embedding.

    python bench/ner.py [--json] [--sample | --print-set SET] [--model en_core_web_sm] [--no-cost]
                        [--cost-chunks N]

* quality: chunks drawn at random from three real corpora, chunked as `load` chunks them (1000
  characters, 100 overlap), in three sets: `sample`, 40 chunks (seed 28: 20 ISAW Papers, 10 AWOIAF
  chapter pages, 10 Grimm tales), on which graphrag's rules were written; `heldout`, 16 more
  (seed 2828) drawn after, which then showed two more failure families (line-broken lists,
  citations in capitals); `fresh`, 12 more (seed 282828), annotated last and scored once before
  three small rules. `annotations/ner-*.jsonl` hold, for each chunk, the person, organisation,
  place and work names a careful reader marks in its text (annotated from the text, not from any
  output; a name counts only with its type). The extractor's names of a chunk (read with the rest
  of its document, the generic schema's mapping) are compared by normName: precision over the
  names it gives, recall over the annotated ones. `--sample` / `--print-set` print the chunks.
* the gazetteer: the recogniser reads the graph's persons and places as patterns, so the bench
  loads a throw-away Neo4j as `load` does (Pleiades and the modern places, the ISAW articles and
  their authors; `--no-gazetteer`: without); its load and pattern build are reported apart.
* `fresh2`, 28 more (seed 454545, 20 ISAW), annotated before the gazetteer's patterns were run on
  it: `--fresh2` scores it too.
* cost: the recogniser over every ISAW chunk (3,617 with the default chunking) and the default
  embedder (all-MiniLM-L6-v2, sentence-transformers, batch 64) over the same chunks in the same
  run: chunks/s of each and the ratio (goal: NER <= 0.5x embedding's time).

Reads ../shared/data (GRAPHRAG_DATA_DIR); without it the row says so.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path

from common import bench_neo4j, data_dir

HERE = Path(__file__).resolve().parent / "annotations"
ANNOTATIONS = HERE / "ner-sample.jsonl"
# set -> (seed, chunks per corpus, annotation file); each draw leaves out the chunks of the sets before it
SETS = {
    "sample": (28, {"isaw": 20, "awoiaf": 10, "grimm": 10}, ANNOTATIONS),
    "heldout": (2828, {"isaw": 8, "awoiaf": 4, "grimm": 4}, HERE / "ner-heldout.jsonl"),
    "fresh": (282828, {"isaw": 6, "awoiaf": 3, "grimm": 3}, HERE / "ner-fresh.jsonl"),
    # annotated before the graph's gazetteer patterns were run on it (ISAW first: places are its weak spot)
    "fresh2": (454545, {"isaw": 20, "awoiaf": 4, "grimm": 4}, HERE / "ner-fresh2.jsonl"),
}
TYPES = ("Person", "Place", "Organization", "Work")


def load_gazetteer(graph, data: Path) -> dict:
    """Fill a throw-away Neo4j with what the recogniser reads as its gazetteer, as `load` does:
    the Pleiades places with the names of the name index beside them (as `load pleiades` reads it), the
    modern places, and the ISAW articles (their authors become persons); the seconds it took."""
    from graphrag_cypher.loaders.files import parse_folder
    from graphrag_cypher.loaders.gazetteers import GazetteerError, name_index_beside, parse_pleiades
    from graphrag_cypher.loaders.modern_places import modern_place_rows
    from graphrag_cypher.store.ingest import Loader, LoadOptions

    started = time.perf_counter()
    places = data / "pleiades" / "pleiades-places.geojsonl.gz"
    rows = [
        r for r in parse_pleiades(places, name_index=name_index_beside(places)) if not isinstance(r, GazetteerError)
    ]
    rows += list(modern_place_rows())
    for i in range(0, len(rows), 2000):
        graph.write("places/upsert_places", rows=rows[i : i + 2000])
    isaw = data / "isaw-papers"
    stats = Loader(graph, None, LoadOptions(loader="files", source_root=str(isaw), corpus="isaw")).run(
        parse_folder(isaw, extensions=frozenset({".xhtml"}))
    )
    return {
        "places": len(rows),
        "documents": stats.created,
        "chunks": stats.chunks_created,
        "seconds": round(time.perf_counter() - started, 1),
    }


def corpus_chunks(data: Path, corpus: str) -> list[dict]:
    """(document id, title, text) of every chunk of a corpus, as `load` chunks it."""
    from graphrag_cypher.chunking import chunk_document
    from graphrag_cypher.loaders.files import parse_folder
    from graphrag_cypher.loaders.mediawiki import parse_mediawiki
    from graphrag_cypher.loaders.stories import parse_story_book

    if corpus == "isaw":
        docs = parse_folder(data / "isaw-papers", extensions=(".xhtml",))
    elif corpus == "awoiaf":
        docs = parse_mediawiki(data / "got" / "awoiaf-chapters-export.xml")
    else:
        docs = parse_story_book(data / "tales" / "grimm-pg2591.txt", corpus="grimm")
    out = []
    for doc in docs:
        if not hasattr(doc, "sections"):
            continue
        for spec in chunk_document(doc, 1000, 100):
            out.append({"corpus": corpus, "doc": doc.id, "title": doc.title, "text": spec.text})
    return out


def draw(data: Path, which: str = "sample") -> list[dict]:
    """The chunks of one annotated set: "sample" (the rules were written on it), "heldout" (drawn
    after, then used to find two more failure families) or "fresh" (drawn last, scored once)."""
    sets = list(SETS)
    sample: list[dict] = []
    seen: set[tuple[str, str]] = set()
    for name in sets[: sets.index(which) + 1]:
        seed, counts, _ = SETS[name]
        rng, sample = random.Random(seed), []
        for corpus, n in counts.items():
            chunks = [
                c for c in corpus_chunks(data, corpus) if len(c["text"]) > 300 and (c["doc"], c["text"]) not in seen
            ]
            sample += rng.sample(chunks, n)
        seen |= {(c["doc"], c["text"]) for c in sample}
    for i, row in enumerate(sample):
        row["sample"] = i
    return sample


def found_names(pipeline, schema, sample: list[dict], data: Path) -> list[dict[str, set[str]]]:
    """Per sampled chunk: type -> normNames the ner extractor writes for it, reading the chunk
    with the rest of its document as `extract` does (a document's chunks are read together)."""
    from graphrag_cypher.kg.ner import NerStats, chunk_rows
    from graphrag_cypher.text import norm_name

    by_corpus = {corpus: corpus_chunks(data, corpus) for corpus in {s["corpus"] for s in sample}}
    out = []
    for s in sample:
        siblings = [c for c in by_corpus[s["corpus"]] if c["doc"] == s["doc"]]
        chunks = [{"id": f"{c['doc']}::{i}", "text": c["text"]} for i, c in enumerate(siblings)]
        entities, rows = chunk_rows(schema, chunks, pipeline.entities([c["text"] for c in siblings]), NerStats())
        row = rows[next(i for i, c in enumerate(siblings) if c["text"] == s["text"])]
        names: dict[str, set[str]] = {t: set() for t in TYPES}
        for m in row["mentions"]:  # a gazetteer entity is not among the rows: the name as matched
            e = entities.get(m["entityId"]) or {"type": m["type"], "normName": norm_name(m["matched"])}
            names.setdefault(e["type"], set()).add(e["normName"])
        out.append(names)
    return out


def quality(
    pipeline, schema, sample: list[dict], data: Path, annotations: Path = ANNOTATIONS, types: tuple = TYPES
) -> dict:
    """Precision (of the names found) and recall (of the annotated ones) per type, by normName.

    An annotated name is one mention's acceptable written forms ("Rochberg-Halton, Francesca",
    "Francesca Rochberg-Halton"): found when the recogniser gives any of them with that type. A
    name it gives is right when it is an acceptable form of an annotated name of that type,
    ignored when the annotation calls it neutral (a name inside a title, a type a careful
    reader cannot decide), wrong otherwise (also a right name with the wrong type)."""
    from graphrag_cypher.text import norm_name

    gold = {row["sample"]: row for row in map(json.loads, annotations.read_text("utf-8").splitlines()) if row}
    missing = [s["sample"] for s in sample if s["sample"] not in gold]
    if missing:
        return {"error": f"no annotation for samples {missing}"}
    for s in sample:  # the annotation names the chunk by its opening words: the draw must be the same
        if not " ".join(s["text"].split()).startswith(gold[s["sample"]]["opening"]):
            return {"error": f"sample {s['sample']} is not the annotated chunk (chunking or data changed)"}
    found = found_names(pipeline, schema, sample, data)
    right, given, matched, annotated = Counter(), Counter(), Counter(), Counter()
    errors = []
    for s, names in zip(sample, found, strict=True):
        row = gold[s["sample"]]
        neutral = {norm_name(n) for n in row.get("neutral", [])}
        for t in types:
            mentions = [{norm_name(f) for f in ([m] if isinstance(m, str) else m)} for m in row["names"].get(t, [])]
            acceptable = set().union(*mentions) if mentions else set()
            got = names.get(t, set()) - (neutral - acceptable)
            given[t] += len(got)
            right[t] += len(got & acceptable)
            annotated[t] += len(mentions)
            matched[t] += sum(1 for forms in mentions if forms & got)
            errors += [f"{s['sample']} {t} +{n}" for n in sorted(got - acceptable)]
            errors += [f"{s['sample']} {t} -{sorted(forms)[0]}" for forms in mentions if not forms & got]
    per_type = {}
    for t in types:
        per_type[t] = {
            "precision": round(right[t] / given[t], 3) if given[t] else None,
            "recall": round(matched[t] / annotated[t], 3) if annotated[t] else None,
            "annotated": annotated[t],
            "found": given[t],
        }
    return {"chunks": len(sample), "byType": per_type, "errors": errors}


def cost(pipeline, data: Path, limit: int | None = None) -> dict:
    import os

    from graphrag_cypher.config import load_settings
    from graphrag_cypher.embedder import make_embedder

    texts = [c["text"] for c in corpus_chunks(data, "isaw")][:limit]
    processes = min(2, os.cpu_count() or 1)  # what `extract --extractor ner` uses on this many chunks
    started = time.perf_counter()
    names: Counter = Counter()
    for _, found in pipeline.stream(({"text": t} for t in texts), processes=processes):
        names.update(name for name, *_ in found)
    ner_s = time.perf_counter() - started
    # era and numbering tokens and sigla, by a pattern of their own (not the rules that drop them)
    junk = re.compile(
        r"^(?:B\.?C\.?E?\.?|C\.?E\.?|A\.?D\.?|[IVXLCDM]{1,6}\.?|§.*|(?:IG|SEG|CIL|BGU|SB|P\.\s?Oxy|O\.\s?Claud)\b.*)$"
    )
    embedder = make_embedder(load_settings({}))
    embedder.embed(texts[:64])  # the model loaded and warm
    started = time.perf_counter()
    embedder.embed(texts)
    embed_s = time.perf_counter() - started
    return {
        "chunks": len(texts),
        "ner_s": round(ner_s, 1),
        "ner_chunks_per_s": round(len(texts) / ner_s, 1),
        "embed_s": round(embed_s, 1),
        "embed_chunks_per_s": round(len(texts) / embed_s, 1),
        "ner_over_embed": round(ner_s / embed_s, 2),
        "ner_processes": processes,
        "junk_names": sorted(n for n in names if junk.match(n)),
    }


def main(argv: list[str] | None = None) -> dict:
    """The bench's result (what --json prints); `python bench/ner.py` prints it as lines."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sample", action="store_true", help="print the drawn chunks and exit")
    parser.add_argument("--print-set", choices=list(SETS), default=None, help="print one set's chunks and exit")
    parser.add_argument("--model", default=None)
    parser.add_argument("--no-cost", action="store_true", help="quality only")
    parser.add_argument("--no-gazetteer", action="store_true", help="the recogniser and rules alone (no Neo4j)")
    parser.add_argument("--fresh2", action="store_true", help="also score the fresh2 set (scored once, after tuning)")
    parser.add_argument("--cost-chunks", type=int, default=None, help="cost over the first N ISAW chunks (default all)")
    args = parser.parse_args(argv)
    data = data_dir()
    if not (data / "isaw-papers").is_dir():
        return {"skipped": f"no real data in {data.name}/ (set GRAPHRAG_DATA_DIR)"}
    sample = draw(data)
    if args.sample or args.print_set:
        for s in draw(data, args.print_set) if args.print_set else sample:
            print(f"=== {s['sample']} {s['corpus']} {s['doc']} | {s['title']}\n{s['text']}\n")
        return {"sampled": len(sample)}
    from graphrag_cypher.kg import ner_gazetteer
    from graphrag_cypher.kg.ner import load_pipeline
    from graphrag_cypher.schema import load_schema

    pipeline = load_pipeline(args.model)
    schema = load_schema("generic")
    result: dict = {"model": pipeline.name}
    if not args.no_gazetteer:  # the recogniser reads the graph: a throw-away Neo4j with what `load` puts there
        with bench_neo4j() as (_, graph):
            result["gazetteer"] = load_gazetteer(graph, data)
            started = time.perf_counter()
            pipeline.gazetteer = ner_gazetteer.load(graph, schema, cache_dir=None)
            pipeline.gazetteer.matcher(pipeline.nlp)
            result["gazetteer"].update(
                names=len(pipeline.gazetteer.names), build_s=round(time.perf_counter() - started, 1)
            )
    result["quality"] = quality(pipeline, schema, sample, data)
    sets = ["heldout", "fresh"] + (["fresh2"] if args.fresh2 else [])
    for name in sets:
        # these sets were annotated for people and places only
        result[name] = quality(pipeline, schema, draw(data, name), data, SETS[name][2], ("Person", "Place"))
    if not args.no_cost:
        result["cost"] = cost(pipeline, data, args.cost_chunks)
    return result


def _quality_rows(q: dict, what: str, model: str) -> list[tuple[str, str, str]]:
    if q.get("error"):
        return [(f"extract ner quality{what}", "error", q["error"])]
    return [
        (
            f"extract ner {t}{what}",
            f"P {row['precision']} R {row['recall']}",
            f"{row['annotated']} names annotated in {q['chunks']} chunks, {row['found']} found ({model}"
            + ("; goal P >= 0.90, R >= 0.85)" if t in ("Person", "Place") else ")"),
        )
        for t, row in (q.get("byType") or {}).items()
    ]


def rows(result: dict) -> list[tuple[str, str, str]]:
    if "skipped" in result:
        return [("extract ner", "skipped", result["skipped"])]
    out = []
    if "gazetteer" in result:
        g = result["gazetteer"]
        out.append(
            (
                "extract ner gazetteer",
                f"{g['names']} names",
                f"{g['places']} places + ISAW authors loaded in {g['seconds']} s; patterns built in {g['build_s']} s "
                "(once per gazetteer, not in the cost below)",
            )
        )
    for key, what in (("quality", ""), ("heldout", " (held out)"), ("fresh", " (fresh)"), ("fresh2", " (fresh2)")):
        if key in result:
            out += _quality_rows(result[key], what, result["model"])
    if "cost" in result:
        c = result["cost"]
        out.append(
            (
                "extract ner / embedding",
                f"{c['ner_over_embed']}x",
                f"{c['chunks']} ISAW chunks: ner {c['ner_s']} s ({c['ner_chunks_per_s']}/s, {c['ner_processes']} processes), embedding "
                f"{c['embed_s']} s ({c['embed_chunks_per_s']}/s), same run (goal <= 0.5x)",
            )
        )
    return out


if __name__ == "__main__":
    found = main(sys.argv[1:])
    if "--json" in sys.argv:
        print(json.dumps({"ner": found}, indent=2))
    elif "sampled" not in found:
        for name, value, detail in rows(found):
            print(f"{name:<28} {value:<18} {detail}")
