"""Precision and recall of place links against the hand-annotated ISAW sample.

`isaw-places.jsonl` holds one line per sampled chunk: its article, its opening words (how
the chunk is found again: chunk ids depend on chunking), the places a careful reader links
there (`mention`, a few words of `context`, the accepted record `ids`; no ids: a place with
no record) and strings that look like places but are not (`not_places`).

An edge of an annotated chunk is right when its matched text is an annotated mention and it
points at one of that mention's ids; every other edge there is wrong. Recall is over the
annotated mentions that have a record: found when such an edge exists.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from graphrag_cypher.text import fold

ANNOTATIONS = Path(__file__).resolve().parent / "isaw-places.jsonl"


def load(path: Path = ANNOTATIONS) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def find_chunks(rows: list[dict], chunks: list[dict]) -> dict[int, str | None]:
    """Annotation line → the chunk id it describes (article and opening words), or None."""
    by_article: dict[str, list[dict]] = {}
    for chunk in chunks:
        # file:<folder key>:<path>, or file:<path> as graphs loaded before the folder key have it
        article = re.sub(r"^file:(?:[0-9a-f]{12}:)?", "", chunk["docId"]).removesuffix("/index.xhtml")
        by_article.setdefault(article, []).append(chunk)
    found = {}
    for i, row in enumerate(rows):
        found[i] = next(
            (
                c["id"]
                for c in by_article.get(row["article"], [])
                if " ".join((c["text"] or "").split()).startswith(row["opening"])
            ),
            None,
        )
    return found


def score(rows: list[dict], chunks: list[dict], edges: dict) -> dict:
    """{precision, recall, edges, right, places, found, missing_chunks, wrong: [...], missed: [...]}."""
    where = find_chunks(rows, chunks)
    by_chunk: dict[str, list[tuple[str, dict]]] = {}
    for (chunk, target), props in edges.items():
        by_chunk.setdefault(chunk, []).append((target, props))
    right = total = places = found = 0
    wrong, missed = [], []
    for i, row in enumerate(rows):
        chunk = where[i]
        if chunk is None:
            continue
        gold = {fold(p["mention"]): set(p["ids"]) for p in row["places"]}

        def means(surface: str, mention: str) -> bool:  # "ancient Egypt", "Methana-Arsinoe" for "Egypt", "Methana"
            a, b = (" " + " ".join(re.findall(r"\w+", fold(text))) + " " for text in (surface, mention))
            return a in b or b in a

        linked = by_chunk.get(chunk, [])
        for target, props in linked:
            total += 1
            ok = any(target in ids and means(s, m) for s in props["matched"] for m, ids in gold.items())
            right += ok
            if not ok:
                wrong.append((row["sample"], props["matched"], target, props["rule"], props["confidence"]))
        for place in row["places"]:
            if not place["ids"]:
                continue
            places += 1
            hit = any(t in place["ids"] and any(means(s, place["mention"]) for s in p["matched"]) for t, p in linked)
            found += hit
            if not hit:
                missed.append((row["sample"], place["mention"], place["ids"]))
    return {
        "precision": round(right / total, 3) if total else None,
        "recall": round(found / places, 3) if places else None,
        "edges": total,
        "right": right,
        "places": places,
        "found": found,
        "missing_chunks": sum(1 for c in where.values() if c is None),
        "wrong": wrong,
        "missed": missed,
    }
