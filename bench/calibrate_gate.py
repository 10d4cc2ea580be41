"""Calibrate the score gate (`retrieval/gate.py`): the cosine between a question and its best
passage, for questions the corpus can answer and for the same questions asked of a corpus that
cannot (MuSiQue questions over the HotpotQA corpus and the other way round).

    .venv/bin/python bench/calibrate_gate.py [--data ../shared/data] [--json]

Passages are embedded as `load` embeds chunks (title, newline, text) with the default embedder;
prints percentiles of both distributions and, for candidate thresholds, the share of answerable
questions the gate would let through and of unanswerable ones it would stop.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np


def corpus(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    if isinstance(data, dict):  # HotpotQA: title -> sentences
        return [f"{t}\n{''.join(s)}" for t, s in data.items()]
    return [f"{p['title']}\n{p['text']}" for p in data]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=os.environ.get("GRAPHRAG_DATA_DIR") or "../shared/data")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    qa = Path(args.data) / "qa"
    from graphrag_cypher.config import load_settings
    from graphrag_cypher.embedder import make_embedder

    embed = make_embedder(load_settings()).embed
    sets = {
        "musique": (
            [q["question"] for q in json.loads((qa / "musique_train.json").read_text())],
            corpus(qa / "musique_train_corpus.json"),
        ),
        "hotpotqa": (
            [q["question"] for q in json.loads((qa / "hotpotqa_train.json").read_text())],
            corpus(qa / "hotpotqa_train_corpus.json"),
        ),
    }
    vectors = {name: (np.array(embed(qs)), np.array(embed(ps))) for name, (qs, ps) in sets.items()}
    answerable, unanswerable = [], []
    for name, (q, p) in vectors.items():
        answerable += list((q @ p.T).max(axis=1))
        for other, (_, p2) in vectors.items():
            if other != name:
                unanswerable += list((q @ p2.T).max(axis=1))
    a, u = np.array(answerable), np.array(unanswerable)
    result = {
        "answerable": {f"p{q}": round(float(np.percentile(a, q)), 3) for q in (1, 5, 10, 25, 50)},
        "unanswerable": {f"p{q}": round(float(np.percentile(u, q)), 3) for q in (50, 75, 90, 95, 99)},
        "thresholds": {
            f"{t:.2f}": {
                "answerable_passed": round(float((a >= t).mean() * 100), 1),
                "unanswerable_stopped": round(float((u < t).mean() * 100), 1),
            }
            for t in np.arange(0.20, 0.62, 0.05)
        },
        "questions": len(a),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
