"""Chunking throughput on continuous prose: is `chunk_text` linear in a section's length?

    python bench/chunking.py [--json]

Generated prose without paragraph breaks (one section, as a long book chapter, a transcript,
a PDF without blank lines or a single-page wiki export gives): 64 KB, 1 MB and 20 MB chunked
side by side in one run with the default size and overlap, interleaved, best of four runs
each, in this process's CPU time (on a machine shared with other work, wall time slows the long
runs most). The goal is a flat throughput: the slowest size within 2x of the fastest (a
quadratic splitter loses 16x from 64 KB to 1 MB). No Neo4j, no data files.
"""

from __future__ import annotations

import json
import random
import sys
import time

SIZES = {"64 KB": 64 * 1024, "1 MB": 1024 * 1024, "20 MB": 20 * 1024 * 1024}
WORDS = (
    "the king had three daughters and the youngest was so beautiful that the sun itself which has "
    "seen so much was astonished whenever it shone in her face near the castle lay a great dark forest"
).split()
EXTRAS = ["Dr. Grimm", "e.g. a well", "St. Paul", "J. R. Tolkien", "3.5 miles", "the U.S. roads", "“Why?” she asked."]


def prose(size: int, seed: int = 0) -> str:
    """Continuous prose: sentences of 6-24 words, some with abbreviations, initials, decimals."""
    rnd = random.Random(seed)
    sentences, total = [], 0
    while total < size:
        words = [rnd.choice(WORDS) for _ in range(rnd.randint(6, 24))]
        if rnd.random() < 0.2:
            words.insert(rnd.randrange(len(words)), rnd.choice(EXTRAS))
        sentence = " ".join(words)
        sentence = sentence[0].upper() + sentence[1:] + rnd.choice(".....!?")
        sentences.append(sentence)
        total += len(sentence) + 1
    return " ".join(sentences)[:size]


def main(rounds: int = 4) -> dict:
    from graphrag_cypher.chunking import chunk_text

    texts = {name: prose(size) for name, size in SIZES.items()}
    best = dict.fromkeys(SIZES, float("inf"))
    chunks = dict.fromkeys(SIZES, 0)
    for _ in range(rounds):  # sizes interleaved, so a busy machine slows them alike
        for name, text in texts.items():
            start = time.process_time()
            chunks[name] = len(chunk_text(text))
            best[name] = min(best[name], time.process_time() - start)
    out: dict = {
        name: {
            "bytes": size,
            "seconds": round(best[name], 4),
            "mb_per_s": round(size / best[name] / 1e6, 2),
            "chunks": chunks[name],
        }
        for name, size in SIZES.items()
    }
    rates = [r["mb_per_s"] for r in out.values()]
    out["spread"] = round(max(rates) / min(rates), 2)
    return out


def rows(result: dict) -> list[tuple[str, str, str]]:
    sizes = [name for name in SIZES if name in result]
    detail = ", ".join(f"{n} {result[n]['mb_per_s']} MB/s ({result[n]['seconds']} s)" for n in sizes)
    spread = result["spread"]
    return [
        (
            "chunking prose throughput",
            f"{result['20 MB']['mb_per_s']} MB/s",
            f"{detail}; fastest / slowest {spread}x (goal <= 2: {'met' if spread <= 2 else 'not met'})",
        )
    ]


if __name__ == "__main__":
    result = main()
    if "--json" in sys.argv:
        print(json.dumps(result, indent=2))
    else:
        for name, value, detail in rows(result):
            print(f"{name}: {value}; {detail}")
