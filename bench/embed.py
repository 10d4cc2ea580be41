"""Embedding throughput of the configured document embedder, in passages/s: the batch embedder
on its device (GRAPHRAG_EMBED_DEVICE=auto|cpu|cuda, GRAPHRAG_EMBED_BATCH) or an endpoint
(GRAPHRAG_EMBEDDER=openai/..., GRAPHRAG_EMBED_BASE_URL, GRAPHRAG_EMBED_CONCURRENCY).

The passages are the real ones of the shared QA corpora, embedded as the loader embeds chunks
(title, newline, text), `--repeat` times over.

    python bench/embed.py --repeat 5
    GRAPHRAG_EMBED_DEVICE=cuda GRAPHRAG_EMBED_BATCH=512 python bench/embed.py --repeat 20
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import data_dir  # noqa: E402


def passages() -> list[str]:
    from graphrag_cypher.store.ingest import embedding_input

    qa = data_dir() / "qa"
    found = []
    for name in ("musique_train_corpus.json", "2wikimultihopqa_corpus.json"):
        found += [embedding_input(p["title"], p["text"]) for p in json.loads((qa / name).read_text())]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=1, help="times over the ~8k passages")
    parser.add_argument("--call", type=int, default=4096, help="texts per embed() call, as `graphrag export` calls it")
    args = parser.parse_args()

    from graphrag_cypher.config import load_settings
    from graphrag_cypher.embedder import embedding_plan, make_embedder

    settings = load_settings()
    plan = embedding_plan(settings)
    texts = passages() * args.repeat
    started = time.perf_counter()
    embedder = make_embedder(settings)
    embedder.embed(texts[:8])  # warm: the first call on a GPU compiles kernels
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    for start in range(0, len(texts), args.call):
        embedder.embed(texts[start : start + args.call])
    seconds = time.perf_counter() - started
    result = {"embedder": embedder.name, **plan, "passages": len(texts), "load_s": round(load_s, 1)}
    result.update(seconds=round(seconds, 1), passages_per_s=round(len(texts) / seconds))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
