"""The bulk path against the online loader, in chunks/s, on one corpus; the two graphs compared.

The corpus is a passage corpus (one chunk a passage) recombined from the real passages of the
shared QA corpora (MuSiQue, HotpotQA, 2Wiki): each passage again with one sentence of another
appended, `--variants` times. Vectors are precomputed (a hash of the text: no model time on
either side), so what is measured is writing the graph:

- online: `ingest.load` (what `graphrag load qa-corpus` runs) into a fresh Neo4j (schema and
  indexes in place), then `link_phrases`; with --no-embed-run also `graphrag load qa-corpus
  --no-embed` on an emptied one
- bulk: `bulk.export` (what `graphrag export qa-corpus` runs: documents, chunks, and the derived
  words, phrases and authors), then `graphrag import --overwrite` into another Neo4j home, each
  step timed (derive, convert, neo4j-admin, start, schema, indexes, vector index)

and the graphs are compared: nodes per label, relationships per type, every property of an even
sample of chunks and their documents, and what linking wrote for them (`bulk.graph_summary`).
The result is the ratio of the two paths' chunks/s, end to end.

    python bench/bulk.py --chunks 20k
    python bench/bulk.py --chunks 100k --out bulk-100k.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import data_dir, graphrag_env  # noqa: E402

MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class PrecomputedEmbedder:
    """Vectors that cost nothing to make: 384 floats from a hash of the text (the same text, the
    same vector on both paths), named as the default model so the import's checks pass."""

    name = MODEL
    dimensions = 384

    def embed(self, texts):
        import numpy as np

        vectors = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(self.dimensions).astype(np.float32)
            vectors.append((vector / np.linalg.norm(vector)).tolist())
        return vectors


def parse_count(text: str) -> int:
    """ "100k", "1.5M", "54000" as a number."""
    text = text.strip().lower().replace("_", "").replace(",", "")
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    try:
        return int(float(text[:-1] if scale > 1 else text) * scale)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a count: {text!r} (e.g. 20000, 20k, 1M)") from None


def build_corpus(path: Path, chunks: int) -> int:
    """A qa-corpus JSON file of `chunks` recombined real passages; returns how many it holds."""
    from graphrag_cypher.text import split_sentences

    qa = data_dir() / "qa"
    passages: list[tuple[str, str]] = []
    for name in ("musique_train_corpus.json", "2wikimultihopqa_corpus.json"):
        passages += [(p["title"], p["text"]) for p in json.loads((qa / name).read_text())]
    hotpot = json.loads((qa / "hotpotqa_train_corpus.json").read_text())
    passages += [(title, " ".join(sentences)) for title, sentences in hotpot.items()]
    pool = [s for _, text in passages for s in split_sentences(text)]
    rng = random.Random(27)
    records = []
    while len(records) < chunks:
        for title, text in passages[: chunks - len(records)]:
            records.append({"title": title, "text": f"{text} {rng.choice(pool)}"})
    path.write_text(json.dumps(records), encoding="utf-8")
    return len(records)


def run_graphrag(env: dict, *args: str) -> tuple[float, dict]:
    exe = Path(sys.executable).parent / "graphrag"
    started = time.perf_counter()
    done = subprocess.run([str(exe), *args, "--json"], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"graphrag {' '.join(args)} failed: {done.stderr.strip()[-600:]}")
    return elapsed, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--chunks", type=parse_count, default=parse_count("20k"), help="passages (one chunk each): 20k, 100k, 1M"
    )
    parser.add_argument("--sample", type=int, default=1000, help="chunks whose every property is compared")
    parser.add_argument("--no-embed-run", action="store_true", help="also time `graphrag load --no-embed`")
    parser.add_argument("--work", type=Path, default=None, help="working folder (default: a temporary one)")
    parser.add_argument("--out", type=Path, default=None, help="write the result as JSON here")
    args = parser.parse_args()

    from graphrag_cypher.admin import migrations, neo4j_local
    from graphrag_cypher.db import connect
    from graphrag_cypher.linkers.bulk_derived import derive_export
    from graphrag_cypher.linkers.phrases import link_phrases
    from graphrag_cypher.loaders.qa_corpus import parse_qa_corpus
    from graphrag_cypher.store import bulk
    from graphrag_cypher.store.ingest import LoadOptions, common_root, load

    work = args.work or Path(tempfile.mkdtemp(prefix="graphrag-bulk-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / "corpus.json"
    passages = build_corpus(corpus, args.chunks)
    options = LoadOptions(loader="qa-corpus", source_root=common_root([corpus]), corpus="scale")
    embedder = PrecomputedEmbedder()
    result: dict = {"passages": passages}
    print(f"corpus: {passages:,} passages in {corpus}", flush=True)

    # online
    with neo4j_local.ephemeral(heap="1g") as server:
        settings = server.settings()
        with connect(settings) as graph:
            migrations.apply(graph, settings.placeholders())
            started = time.perf_counter()
            stats = load(graph, embedder, options, parse_qa_corpus(corpus, corpus="scale"))
            seconds = time.perf_counter() - started
            chunks = stats.chunks_created
            result["online"] = {"chunks": chunks, "load_s": round(seconds, 1), "chunks_per_s": round(chunks / seconds)}
            print(f"online load: {chunks:,} chunks in {seconds:.1f} s ({chunks / seconds:,.0f} chunks/s)", flush=True)
            started = time.perf_counter()
            link_phrases(graph)
            result["online"]["link_s"] = round(time.perf_counter() - started, 1)
            online = bulk.graph_summary(graph, sample=args.sample)
            if args.no_embed_run:
                migrations.clean(graph)
                migrations.apply(graph, settings.placeholders())
                seconds, _ = run_graphrag(
                    graphrag_env(settings), "load", "qa-corpus", str(corpus), "--corpus", "scale", "--no-embed"
                )
                result["online"]["no_embed_cli_s"] = round(seconds, 1)
                result["online"]["no_embed_cli_chunks_per_s"] = round(chunks / seconds)
                print(f"online `load --no-embed`: {seconds:.1f} s ({chunks / seconds:,.0f} chunks/s)", flush=True)

    # bulk
    out = work / "export"
    started = time.perf_counter()
    exported = bulk.export(parse_qa_corpus(corpus, corpus="scale"), out, options, embedder, overwrite=True)
    derive_export(out, exported)  # what `graphrag export` runs at its end
    export_s = time.perf_counter() - started
    home = work / "import-neo4j"
    port = neo4j_local.free_port()
    env = dict(
        graphrag_env(settings),
        NEO4J_URI=f"bolt://127.0.0.1:{port}",
        NEO4J_PASSWORD="bulk-bench-password",
        GRAPHRAG_NEO4J_HOME=str(home),
        GRAPHRAG_NEO4J_HTTP_PORT="0",
    )
    try:
        # the import replaces the database of a Neo4j that runs already (as the online loader's
        # does): started once before the clock, as a user's local Neo4j is
        from graphrag_cypher.config import load_settings

        neo4j_local.start(
            neo4j_local.LocalInstance(home=home, bolt_port=port, http_port=None, password=env["NEO4J_PASSWORD"]),
            echo=lambda line: None,
        )
        _, imported = run_graphrag(env, "import", str(out), "--overwrite")
        t = imported["timings"]
        # end to end, both sides: the graph written, phrases linked and every index ONLINE
        total_s = export_s + t["total_s"]
        online_total = result["online"]["load_s"] + result["online"]["link_s"]
        result["online"]["total_s"] = round(online_total, 1)
        result["online"]["total_chunks_per_s"] = round(chunks / online_total)
        steps = {
            "export_s": exported.to_dict()["timings"]["export_s"],
            "export_derive_s": exported.to_dict()["timings"]["derive_s"],
            **{f"import_{k}" if k == "total_s" else k: v for k, v in t.items()},
        }
        result["bulk"] = {
            "chunks": exported.chunks,
            "steps": steps,
            "total_s": round(total_s, 1),
            "total_chunks_per_s": round(exported.chunks / total_s),
        }
        print(
            "bulk: "
            + ", ".join(f"{k[:-2].replace('_', ' ')} {v} s" for k, v in steps.items())
            + f" = {total_s:.1f} s ({exported.chunks / total_s:,.0f} chunks/s); online load "
            f"{result['online']['load_s']} s + phrases {result['online']['link_s']} s = {online_total:.1f} s "
            f"({chunks / online_total:,.0f} chunks/s)",
            flush=True,
        )
        with connect(load_settings({k: v for k, v in env.items() if isinstance(v, str)})) as graph:
            imported_summary = bulk.graph_summary(graph, sample=args.sample)
    finally:
        neo4j_local.stop(neo4j_local.LocalInstance(home=home, bolt_port=port, http_port=None))
    differences = bulk.summary_differences(online, imported_summary)
    result["same_graph"] = not differences
    result["differences"] = differences[:20]
    result["labels"] = online["labels"]
    result["relationships"] = online["relationships"]
    result["sampled_chunks"] = len(online["chunks"])
    result["speedup"] = round(result["bulk"]["total_chunks_per_s"] / result["online"]["total_chunks_per_s"], 2)
    print(
        f"same graph: {not differences} ({len(online['chunks'])} chunks sampled; labels {online['labels']}; "
        f"relationships {online['relationships']}); bulk/online chunks/s {result['speedup']}x",
        flush=True,
    )
    for line in differences[:20]:
        print("  " + line)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    sys.exit(0 if not differences else 1)


if __name__ == "__main__":
    main()
