"""Named entities without an LLM: quality on a hand-annotated sample, and cost beside embedding.

    python bench/ner.py [--json] [--sample] [--model en_core_web_sm] [--no-cost] [--cost-chunks N]

* quality: 40 chunks drawn at random (seed 28) from three real corpora, chunked as `load` chunks
  them (1000 characters, 100 overlap): 20 of the ISAW Papers articles, 10 AWOIAF chapter pages,
  10 Grimm tales. `annotations/ner-sample.jsonl` holds, for each, the person, organisation,
  place and work names a careful reader marks in the chunk's text (annotated from the text, not
  from any output). The recogniser's names of a chunk (after graphrag's name rules and the
  generic schema's label mapping) are compared with them per type by normName: precision over
  the names it gives, recall over the annotated ones. `--sample` prints the drawn chunks (what
  was annotated) and exits.
* cost: the recogniser over every ISAW chunk (3,617 with the default chunking) and the default
  embedder (all-MiniLM-L6-v2, sentence-transformers, batch 64) over the same chunks in the same
  run: chunks/s of each and the ratio (goal: NER <= 0.5x embedding's time).

Reads ../shared/data (GRAPHRAG_DATA_DIR); without it the row says so.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

from common import data_dir

ANNOTATIONS = Path(__file__).resolve().parent / "annotations" / "ner-sample.jsonl"
HELD_OUT = Path(__file__).resolve().parent / "annotations" / "ner-heldout.jsonl"
SEED = 28
DRAW = {"isaw": 20, "awoiaf": 10, "grimm": 10}
# a second draw, annotated after the rules were written and never used to tune them
HELD_OUT_SEED = 2828
HELD_OUT_DRAW = {"isaw": 8, "awoiaf": 4, "grimm": 4}
TYPES = ("Person", "Place", "Organization", "Work")


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


def draw(data: Path, held_out: bool = False) -> list[dict]:
    rng = random.Random(SEED)
    sample = []
    for corpus, n in DRAW.items():
        chunks = [c for c in corpus_chunks(data, corpus) if len(c["text"]) > 300]
        sample += rng.sample(chunks, n)
    if held_out:
        first = {(s["doc"], s["text"]) for s in sample}
        rng, sample = random.Random(HELD_OUT_SEED), []
        for corpus, n in HELD_OUT_DRAW.items():
            chunks = [
                c for c in corpus_chunks(data, corpus) if len(c["text"]) > 300 and (c["doc"], c["text"]) not in first
            ]
            sample += rng.sample(chunks, n)
    for i, row in enumerate(sample):
        row["sample"] = i
    return sample


def found_names(pipeline, schema, sample: list[dict], data: Path) -> list[dict[str, set[str]]]:
    """Per sampled chunk: type -> normNames the ner extractor writes for it, reading the chunk
    with the rest of its document as `extract` does (a document's chunks are read together)."""
    from graphrag_cypher.kg.ner import NerStats, chunk_rows

    by_corpus = {corpus: corpus_chunks(data, corpus) for corpus in {s["corpus"] for s in sample}}
    out = []
    for s in sample:
        siblings = [c for c in by_corpus[s["corpus"]] if c["doc"] == s["doc"]]
        chunks = [{"id": f"{c['doc']}::{i}", "text": c["text"]} for i, c in enumerate(siblings)]
        entities, rows = chunk_rows(schema, chunks, pipeline.entities([c["text"] for c in siblings]), NerStats())
        row = rows[next(i for i, c in enumerate(siblings) if c["text"] == s["text"])]
        names: dict[str, set[str]] = {t: set() for t in TYPES}
        for m in row["mentions"]:
            e = entities[m["entityId"]]
            names.setdefault(e["type"], set()).add(e["normName"])
        out.append(names)
    return out


def quality(pipeline, schema, sample: list[dict], data: Path, annotations: Path = ANNOTATIONS) -> dict:
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
        for t in TYPES:
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
    for t in TYPES:
        per_type[t] = {
            "precision": round(right[t] / given[t], 3) if given[t] else None,
            "recall": round(matched[t] / annotated[t], 3) if annotated[t] else None,
            "annotated": annotated[t],
            "found": given[t],
        }
    return {"chunks": len(sample), "byType": per_type, "errors": errors}


def cost(pipeline, data: Path, limit: int | None = None) -> dict:
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.embedder import make_embedder

    texts = [c["text"] for c in corpus_chunks(data, "isaw")][:limit]
    started = time.perf_counter()
    for _ in pipeline.entities(texts):
        pass
    ner_s = time.perf_counter() - started
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
    }


def main(argv: list[str] | None = None) -> dict:
    """The bench's result (what --json prints); `python bench/ner.py` prints it as lines."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sample", action="store_true", help="print the drawn chunks and exit")
    parser.add_argument("--held-out-sample", action="store_true", help="print the held-out chunks and exit")
    parser.add_argument("--model", default=None)
    parser.add_argument("--no-cost", action="store_true", help="quality only")
    parser.add_argument("--cost-chunks", type=int, default=None, help="cost over the first N ISAW chunks (default all)")
    args = parser.parse_args(argv)
    data = data_dir()
    if not (data / "isaw-papers").is_dir():
        return {"skipped": f"no real data in {data.name}/ (set GRAPHRAG_DATA_DIR)"}
    sample = draw(data)
    if args.sample or args.held_out_sample:
        for s in draw(data, held_out=True) if args.held_out_sample else sample:
            print(f"=== {s['sample']} {s['corpus']} {s['doc']} | {s['title']}\n{s['text']}\n")
        return {"sampled": len(sample)}
    from graphrag_cypher.kg.ner import load_pipeline
    from graphrag_cypher.schema import load_schema

    pipeline = load_pipeline(args.model)
    schema = load_schema("generic")
    result = {
        "model": pipeline.name,
        "quality": quality(pipeline, schema, sample, data),
        "heldOut": quality(pipeline, schema, draw(data, held_out=True), data, HELD_OUT),
    }
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
            + ("; goal P >= 0.85, R >= 0.70)" if t in ("Person", "Place") else ")"),
        )
        for t, row in (q.get("byType") or {}).items()
    ]


def rows(result: dict) -> list[tuple[str, str, str]]:
    if "skipped" in result:
        return [("extract ner", "skipped", result["skipped"])]
    out = []
    for key, what in (("quality", ""), ("heldOut", " (held out)")):
        out += _quality_rows(result[key], what, result["model"])
    if "cost" in result:
        c = result["cost"]
        out.append(
            (
                "extract ner / embedding",
                f"{c['ner_over_embed']}x",
                f"{c['chunks']} ISAW chunks: ner {c['ner_s']} s ({c['ner_chunks_per_s']}/s), embedding "
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
