"""Communities: their agreement with structures nobody here made, and what `communities build` costs.

    python bench/communities.py [--json] [--parts quality,eval,synthetic] [--chunks N] [--heap SIZE]
    (quality is wiki,musique; each may be named alone)
                                [--wiki-from HOME] [--cheap-vectors]

--wiki-from HOME copies the wiki corpus (vectors included) from the Neo4j kept in HOME by
`bench/global_search.py --home HOME` (when it loaded the wiki too) instead of loading and embedding it
again; --cheap-vectors loads the evaluation corpus with the synthetic corpus's hashed vectors instead of
the configured embedder (the build's cost does not depend on what the vectors say).

quality, each in a throw-away Neo4j, loaded as a user does, then `communities build` (no LLM):

* wiki: the 106 articles of wiki/enwiki-sample-pages-articles.xml (`load mediawiki --corpus wiki`,
  `link phrases`). Gold: the `[[Category:…]]` links of each article's wikitext, parsed here from the
  XML (the load drops them from the text; the build never sees them). Wikipedia categories are
  fine-grained: of the 106 articles, 80 share no topical category with any other. Two scores, so a
  multi-category article is neither forced into one label nor dropped silently:
  - NMI and purity over the articles that share a category with another article, each labelled
    by its category with the most articles in the sample (ties: alphabetical; maintenance
    categories such as "Articles containing video clips" left out; a label only one article ends up
    with dropped: 23 articles, 9 labels), against the document's majority community (the community
    holding most of its chunks) per level;
  - pairwise over all 106 (multi-label, no choice needed): precision = share of article pairs in the
    same community that share a category, recall = share of category-sharing pairs put in the same
    community, F1.
* musique: the 1,890 MuSiQue passages (`load qa-corpus --corpus musique`, `link phrases`; no `link
  titles`, since the titles are the gold), grouped by title: NMI and purity over the 211 passages of
  the 85 titles that have more than one passage.

NMI and purity both grow with the number of communities (a community per document scores high), so
AMI (adjusted for chance) is reported too, and each score against random partitions with the same community sizes (the documents' community labels
shuffled; 20 seeds, mean and standard deviation).

cost: `graphrag communities build --json` as a subprocess, after a restart of Neo4j (so the heap's peaks
are the build's): wall time, the Python process's peak RSS (its rusage), the Neo4j heap (JMX
`HeapMemoryUsage.used` sampled every 0.25 s, and the sum of the G1 pools' peaks) and the Neo4j
process's peak RSS (VmHWM), with an LLM configured that answers nothing (a counting server on
127.0.0.1): the requests it got are the build's LLM calls (goal 0). On:

* eval: the union of the three shared QA corpora (MuSiQue, HotpotQA, 2WikiMultiHopQA; about 9,000
  passages after deduplication on title + text, as `load qa-corpus` does), embedded with the
  configured embedder, `link titles` and `link phrases` as `graphrag eval` prepares its corpus;
* synthetic: --chunks (default 100,000) chunks of real sentences recombined (each document draws
  from a few QA passages of its own and from the whole pool), loaded by the usual loader with cheap
  384-dimensional vectors (hashed bag of words, unit length), then `link phrases`.

Goal: 100k chunks in <= 10 min and <= 4 GB peak RSS.
"""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpora  # noqa: E402
from common import REPO, data_dir, graphrag_env  # noqa: E402

SEEDS = 20
TIME_GOAL_S, MEMORY_GOAL_GB = 600, 4.0
# categories about the page, not its subject ("Articles containing video clips"): not a grouping
MAINTENANCE = re.compile(
    r"^(Articles |All articles|All pages|Pages |Wikipedia|Use |CS1|Webarchive|Commons)|Wikidata|related$"
)
QA_FILES = ("musique_train_corpus.json", "hotpotqa_train_corpus.json", "2wikimultihopqa_corpus.json")


# --- scores ----------------------------------------------------------------------------------------


def purity(truth: list, predicted: list) -> float:
    clusters: dict = defaultdict(Counter)
    for t, p in zip(truth, predicted, strict=True):
        clusters[p][t] += 1
    return sum(c.most_common(1)[0][1] for c in clusters.values()) / len(truth) if truth else 0.0


def nmi(truth: list, predicted: list) -> float:
    from sklearn.metrics import normalized_mutual_info_score

    return float(normalized_mutual_info_score(truth, predicted))


def ami(truth: list, predicted: list) -> float:
    """Adjusted mutual information: 0 for a partition no better than chance, whatever its number of parts."""
    from sklearn.metrics import adjusted_mutual_info_score

    return float(adjusted_mutual_info_score(truth, predicted))


def pairwise(categories: dict[str, set[str]], community: dict[str, str]) -> dict:
    """Pair precision / recall / F1 of 'same community' against 'share a category' (multi-label gold)."""
    ids = sorted(set(categories) & set(community))
    same = share = both = 0
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            s = community[a] == community[b]
            c = bool(categories[a] & categories[b])
            same += s
            share += c
            both += s and c
    precision = both / same if same else 0.0
    recall = both / share if share else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "f1": round(f1, 3),
        "pairs_same": same,
        "pairs_sharing": share,
    }


def with_random(score, truth_of: dict, community: dict, subset: list[str], seeds: int = SEEDS) -> dict:
    """score(truth, predicted) over `subset`, and the same for `seeds` shuffles of the community labels
    of every document (the community sizes kept)."""
    ids = sorted(community)
    actual = score([truth_of[i] for i in subset], [community[i] for i in subset])
    randoms = []
    for seed in range(seeds):
        labels = [community[i] for i in ids]
        random.Random(seed).shuffle(labels)
        shuffled = dict(zip(ids, labels, strict=True))
        randoms.append(score([truth_of[i] for i in subset], [shuffled[i] for i in subset]))
    return {
        "actual": round(actual, 3),
        "random_mean": round(statistics.mean(randoms), 3),
        "random_sd": round(statistics.pstdev(randoms), 3),
    }


def majority_communities(graph, corpus: str) -> dict[int, dict[str, str]]:
    """level -> {document id: the community holding most of its chunks (ties: smallest id)}."""
    rows = graph.read("bench/document_communities", corpus=corpus)
    best: dict[int, dict[str, tuple[int, str]]] = defaultdict(dict)
    for r in rows:
        current = best[r["level"]].get(r["doc"])
        candidate = (-r["chunks"], r["community"])
        if current is None or candidate < current:
            best[r["level"]][r["doc"]] = candidate
    return {level: {d: c for d, (_, c) in docs.items()} for level, docs in sorted(best.items())}


def community_counts(graph) -> dict:
    """level -> communities, as the last build recorded them (communities/state)."""
    state = graph.read("communities/state")
    return dict(enumerate(state[0]["counts"])) if state else {}


# --- gold --------------------------------------------------------------------------------------------


def wiki_categories(path: Path) -> dict[str, list[str]]:
    """title -> the categories of its wikitext, for the main-namespace articles (not redirects)."""
    import xml.etree.ElementTree as ET

    out = {}
    for _, element in ET.iterparse(path):
        if not element.tag.endswith("}page"):
            continue
        ns = element.find("{*}ns")
        redirect = element.find("{*}redirect")
        title = element.find("{*}title")
        text = element.find("{*}revision/{*}text")
        if ns is not None and ns.text == "0" and redirect is None and title is not None:
            body = text.text if text is not None and text.text else ""
            cats = [c.split("|")[0].strip() for c in re.findall(r"\[\[\s*Category\s*:([^\]]+)\]\]", body, re.I)]
            out[title.text] = list(dict.fromkeys(c for c in cats if c and not MAINTENANCE.search(c)))
        element.clear()
    return out


def main_label(categories: dict[str, list[str]]) -> dict[str, str | None]:
    """Each article's category with the most articles of the sample (ties alphabetical); None when
    every one of its categories is its alone."""
    size = Counter(c for cats in categories.values() for c in set(cats))
    out = {}
    for title, cats in categories.items():
        shared = [c for c in cats if size[c] > 1]
        out[title] = min(shared, key=lambda c: (-size[c], c)) if shared else None
    return out


# --- building, measured --------------------------------------------------------------------------------


class _Counting(BaseHTTPRequestHandler):
    count = 0

    def _any(self):
        type(self).count += 1
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.send_response(503)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = _any

    def log_message(self, *args):
        pass


def counting_llm():
    """(server, url): an OpenAI-compatible address that counts requests and answers none."""
    _Counting.count = 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def _jmx_heap(graph) -> tuple[int, int]:
    rows = graph.read("bench/jmx_heap")
    heap = rows[0]["heap"]
    return int(heap["used"]), int(heap["committed"])


def _pool_peaks(graph) -> int:
    rows = graph.read("bench/jmx_pool_peaks")
    return sum(int(r["used"]) for r in rows)


def _vm_hwm(pid: int | None) -> int | None:
    if not pid:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _neo4j_pid(instance) -> int | None:
    from graphrag_cypher.admin import neo4j_local

    return neo4j_local._read_pid(instance.home)


def restart(server) -> None:
    """Stop and start the bench Neo4j: the heap's peaks and the process's VmHWM start again from zero."""
    from graphrag_cypher.admin import neo4j_local

    neo4j_local.stop(server.instance)
    neo4j_local.start(server.instance, echo=lambda *_: None)


def measured_build(settings, server, graph, extra_args: tuple[str, ...] = ()) -> dict:
    """`graphrag communities build --json` in a subprocess, its cost measured (see the docstring)."""
    exe = Path(sys.executable).parent / "graphrag"
    llm_server, url = counting_llm()
    env = dict(graphrag_env(settings), OPENAI_BASE_URL=url, GRAPHRAG_LLM_MODEL="counting", OPENAI_API_KEY="x")
    heap_max = committed_max = 0
    stop = threading.Event()

    def sample():
        nonlocal heap_max, committed_max
        while not stop.is_set():
            try:
                used, committed = _jmx_heap(graph)
                heap_max, committed_max = max(heap_max, used), max(committed_max, committed)
            except Exception:  # noqa: BLE001 - a missed sample is not a failure of the build
                pass
            stop.wait(0.25)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    proc = subprocess.Popen(
        [str(exe), "communities", "build", "--json", *extra_args],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    captured: dict[str, str] = {}
    readers = [
        threading.Thread(target=lambda n=n, f=f: captured.__setitem__(n, f.read()), daemon=True)
        for n, f in (("out", proc.stdout), ("err", proc.stderr))
    ]
    for reader in readers:
        reader.start()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, not the loads' before it
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    for reader in readers:
        reader.join()
    stdout, stderr = captured.get("out", ""), captured.get("err", "")
    rusage = usage.ru_maxrss  # KB on Linux
    stop.set()
    sampler.join(timeout=5)
    llm_server.shutdown()
    if proc.returncode != 0:
        raise RuntimeError(f"communities build failed ({proc.returncode}): {stderr.strip()[-800:]}")
    try:
        result = json.loads(stdout)
    except json.JSONDecodeError:
        result = stdout.strip()[-500:]
    neo4j_pid = _neo4j_pid(server.instance)
    return {
        "seconds": round(seconds, 1),
        "python_peak_rss_mb": round(rusage / 1024, 1) if rusage else None,
        "neo4j_heap_peak_mb": round(heap_max / 2**20, 1),
        "neo4j_heap_committed_peak_mb": round(committed_max / 2**20, 1),
        "neo4j_heap_pool_peaks_mb": round(_pool_peaks(graph) / 2**20, 1),
        "neo4j_peak_rss_mb": round((_vm_hwm(neo4j_pid) or 0) / 2**20, 1),
        "neo4j_heap_max": server.instance.heap,
        "llm_requests": _Counting.count,
        "result": result,
        "communities": community_counts(graph),
        "gds_catalog": graph.read("bench/gds_graphs")[0]["n"],
    }


# --- corpora ----------------------------------------------------------------------------------------


class HashEmbedder:
    """Cheap unit vectors: a hashed bag of words (384 dimensions, signed), the same word the same axis."""

    backend = "hashed-bag-of-words"

    def __init__(self, dimensions: int = 384):
        self.name = f"bench-hashed-bow-{dimensions}"
        self.dimensions = dimensions
        self._axes: dict[str, tuple[int, float]] = {}

    def _axis(self, word: str) -> tuple[int, float]:
        axis = self._axes.get(word)
        if axis is None:
            import zlib

            h = zlib.crc32(word.encode("utf-8"))
            axis = self._axes[word] = (h % self.dimensions, 1.0 if (h >> 16) & 1 else -1.0)
        return axis

    def embed(self, texts):
        import numpy as np

        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                i, sign = self._axis(word)
                out[row, i] += sign
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return (out / norms).tolist()

    def embed_query(self, text):
        return self.embed([text])[0]


def qa_passages(data: Path) -> list[tuple[str, str]]:
    out = []
    for name in QA_FILES:
        raw = json.loads((data / "qa" / name).read_text(encoding="utf-8"))
        if isinstance(raw, dict):  # HotpotQA: title -> sentences
            out += [(t, " ".join(s)) for t, s in raw.items()]
        else:
            out += [(p["title"], p["text"]) for p in raw]
    return out


def synthetic_documents(data: Path, chunks: int, seed: int = 7, chars: int = 9000):
    """ParsedDocuments of recombined real sentences, about chars / 900 chunks each, until `chunks`."""
    from graphrag_cypher.chunking import chunk_document
    from graphrag_cypher.model import ParsedDocument, Section
    from graphrag_cypher.text import split_sentences

    passages = qa_passages(data)
    sentences = [[s for s in split_sentences(text) if len(s) > 20] for _, text in passages]
    keep = [i for i, s in enumerate(sentences) if s]
    pool = [s for i in keep for s in sentences[i]]
    rng = random.Random(seed)
    made = n = 0
    while made < chunks:
        own = [sentences[i] for i in rng.sample(keep, 4)]
        text, size = [], 0
        while size < chars:
            s = rng.choice(rng.choice(own)) if rng.random() < 0.6 else rng.choice(pool)
            text.append(s)
            size += len(s) + 1
        title = passages[keep[n % len(keep)]][0]
        doc = ParsedDocument(
            id=f"synthetic:{n}",
            title=f"{title} ({n})",
            kind="passage",
            source=f"synthetic/{n}",
            metadata={"corpus": "synthetic"},
            sections=[Section(text=" ".join(text), title=title, seq=0)],
        )
        made += len(chunk_document(doc, size=1000, overlap=100))  # as the loader will chunk it
        n += 1
        yield doc


def load_synthetic(graph, data: Path, chunks: int) -> dict:
    from graphrag_cypher.store.ingest import Loader, LoadOptions

    started = time.perf_counter()
    embedder = HashEmbedder()
    stats = Loader(graph, embedder, LoadOptions(loader="synthetic", source_root="synthetic", corpus="synthetic")).run(
        synthetic_documents(data, chunks)
    )
    return {
        "seconds": round(time.perf_counter() - started, 1),
        "documents": stats.created,
        "chunks": graph.read("sanity/counts")[0]["labels"].get("Chunk", 0),
        "embedder": embedder.name,
    }


def load_eval_union(settings, graph, data: Path, cheap: bool = False) -> dict:
    """The three QA corpora as one corpus "eval" (`load qa-corpus`, or the loader with hashed vectors), then
    `link titles` and `link phrases` as `graphrag eval` prepares its corpus."""
    from graphrag_cypher.loaders.qa_corpus import parse_qa_corpus
    from graphrag_cypher.store.ingest import Loader, LoadOptions

    out = {}
    for name in QA_FILES:
        if cheap:
            started = time.perf_counter()
            stats = Loader(
                graph, HashEmbedder(), LoadOptions(loader="qa-corpus", source_root="eval", corpus="eval")
            ).run(parse_qa_corpus(data / "qa" / name, corpus="eval"))
            out[name] = {"seconds": round(time.perf_counter() - started, 1), "created": stats.created}
        else:
            seconds, result = corpora.graphrag(
                settings, ["load", "qa-corpus", str(data / "qa" / name), "--corpus", "eval"]
            )
            out[name] = {"seconds": seconds, "result": result}
    for step in (["link", "titles", "--corpus", "eval"], ["link", "phrases"]):
        seconds, result = corpora.graphrag(settings, step)
        out[" ".join(step[:2])] = {"seconds": seconds, "result": result}
    return out


# --- the parts --------------------------------------------------------------------------------------


def _server(heap: str, home: str | None = None):
    """A bench Neo4j (throw-away, or the one kept in `home`) with .server, .settings and .graph."""
    from graphrag_cypher.admin import migrations, neo4j_local
    from graphrag_cypher.db import connect

    class Bench:
        def __enter__(self):
            self._cm = neo4j_local.ephemeral(Path(home).resolve() if home else None, heap=heap, keep=bool(home))
            self.server = self._cm.__enter__()
            self.settings = self.server.settings()
            self.graph = connect(self.settings)
            migrations.apply(self.graph, self.settings.placeholders())
            return self

        def __exit__(self, *exc):
            self.graph.close()
            return self._cm.__exit__(*exc)

    return Bench()


def copy_corpus(source, target, corpus: str) -> dict:
    """The documents and chunks (vectors included) of `corpus` from one bench graph into another, written
    by the loader's own queries: the same graph a load makes, without embedding it again."""
    docs = source.read("bench/corpus_documents", corpus=corpus)
    chunks = defaultdict(list)
    for r in source.read("bench/corpus_chunks", corpus=corpus):
        props = dict(r["props"])
        vector = props.pop("embedding", None)
        chunks[r["doc"]].append({"id": r["id"], "props": props, "embedding": vector})
    rows = []
    for d in docs:
        props = {k: v for k, v in d["props"].items() if k not in ("id", "createdAt", "updatedAt")}
        rows.append({"id": d["id"], "labels": d["labels"], "props": props, "chunks": chunks.get(d["id"], [])})
    for start in range(0, len(rows), 20):
        part = rows[start : start + 20]
        target.write("ingest/upsert_documents", docs=part)
        target.write("ingest/create_chunks", docs=part)
    return {"documents": len(rows), "chunks": sum(len(r["chunks"]) for r in rows)}


def quality_wiki(echo, source_home: str | None = None) -> dict:
    data = data_dir()
    path = data / "wiki" / "enwiki-sample-pages-articles.xml"
    if not path.exists():
        return {"skipped": f"real data not found at {path} (set GRAPHRAG_DATA_DIR)"}
    categories = wiki_categories(path)
    labels = main_label(categories)
    with _server("1g") as b:
        if source_home:  # the wiki corpus as an earlier run loaded it (bench/global_search.py --home)
            with _server("1g", source_home) as source:
                copied = copy_corpus(source.graph, b.graph, "wiki")
            seconds, phrases = corpora.graphrag(b.settings, ["link", "phrases"])
            echo(f"wiki copied from {source_home}: {copied}, link phrases {seconds} s")
        else:
            load = corpora.load(b.settings, ("wiki",))
            echo(f"wiki loaded: {load['wiki']['seconds']} s")
        build = measured_build(b.settings, b.server, b.graph)
        echo(f"wiki communities: {build['seconds']} s, {build['communities']}")
        titles = {r["id"]: r["title"] for r in b.graph.read("bench/corpus_documents", corpus="wiki")}
        per_level = majority_communities(b.graph, "wiki")
    out = {"articles": len(categories), "documents": len(titles), "build": build, "levels": {}}
    cats_by_doc = {d: set(categories.get(t, [])) for d, t in titles.items() if t in categories}
    labelled = {d: labels[t] for d, t in titles.items() if labels.get(t)}
    held = Counter(labelled.values())
    labelled = {d: label for d, label in labelled.items() if held[label] > 1}  # a label of one article groups nothing
    out["labelled_articles"] = len(labelled)
    for level, community in per_level.items():
        subset = sorted(d for d in labelled if d in community)
        truth = {d: labelled[d] for d in subset}
        pair = pairwise(cats_by_doc, community)
        randoms = []
        ids = sorted(community)
        for seed in range(SEEDS):
            shuffled = [community[i] for i in ids]
            random.Random(seed).shuffle(shuffled)
            randoms.append(pairwise(cats_by_doc, dict(zip(ids, shuffled, strict=True)))["f1"])
        out["levels"][level] = {
            "communities": len(set(community.values())),
            "documents": len(community),
            "nmi": with_random(nmi, truth, community, subset),
            "ami": with_random(ami, truth, community, subset),
            "purity": with_random(purity, truth, community, subset),
            "pairwise": pair,
            "pairwise_f1_random_mean": round(statistics.mean(randoms), 3),
            "pairwise_f1_random_sd": round(statistics.pstdev(randoms), 3),
        }
    return out


def quality_musique(echo) -> dict:
    data = data_dir()
    path = data / "qa" / "musique_train_corpus.json"
    if not path.exists():
        return {"skipped": f"real data not found at {path} (set GRAPHRAG_DATA_DIR)"}
    with _server("1g") as b:
        seconds, load = corpora.graphrag(b.settings, ["load", "qa-corpus", str(path), "--corpus", "musique"])
        corpora.graphrag(b.settings, ["link", "phrases"])
        echo(f"musique loaded: {seconds} s")
        build = measured_build(b.settings, b.server, b.graph)
        echo(f"musique communities: {build['seconds']} s, {build['communities']}")
        titles = {r["id"]: r["title"] for r in b.graph.read("bench/corpus_documents", corpus="musique")}
        per_level = majority_communities(b.graph, "musique")
    size = Counter(titles.values())
    grouped = sorted(d for d, t in titles.items() if size[t] > 1)
    out = {
        "passages": len(titles),
        "grouped_passages": len(grouped),
        "titles": sum(1 for n in size.values() if n > 1),
        "build": build,
        "levels": {},
    }
    for level, community in per_level.items():
        subset = [d for d in grouped if d in community]
        out["levels"][level] = {
            "communities": len(set(community.values())),
            "nmi": with_random(nmi, titles, community, subset),
            "ami": with_random(ami, titles, community, subset),
            "purity": with_random(purity, titles, community, subset),
            # the share of multi-passage titles whose passages all share one community
            "titles_whole": round(
                sum(
                    1 for t in {titles[d] for d in subset} if len({community[d] for d in subset if titles[d] == t}) == 1
                )
                / max(1, len({titles[d] for d in subset})),
                3,
            ),
        }
    return out


def cost_eval(echo, heap: str, cheap: bool = False) -> dict:
    data = data_dir()
    absent = [n for n in QA_FILES if not (data / "qa" / n).exists()]
    if absent:
        return {"skipped": f"real data not found: {', '.join(absent)} (set GRAPHRAG_DATA_DIR)"}
    with _server(heap) as b:
        started = time.perf_counter()
        load = load_eval_union(b.settings, b.graph, data, cheap)
        echo(f"eval union loaded: {round(time.perf_counter() - started)} s")
        counts = _graph_counts(b.graph)
        restart(b.server)
        build = measured_build(b.settings, b.server, b.graph)
        echo(f"eval union communities: {build['seconds']} s")
    return {"load": load, "graph": counts, "build": build, "vectors": "hashed" if cheap else "embedder"}


def cost_synthetic(echo, heap: str, chunks: int) -> dict:
    data = data_dir()
    absent = [n for n in QA_FILES if not (data / "qa" / n).exists()]
    if absent:
        return {"skipped": f"real data not found: {', '.join(absent)} (set GRAPHRAG_DATA_DIR)"}
    with _server(heap) as b:
        load = load_synthetic(b.graph, data, chunks)
        echo(f"synthetic loaded: {load}")
        seconds, phrases = corpora.graphrag(b.settings, ["link", "phrases"])
        load["link_phrases_s"] = seconds
        load["phrases"] = phrases
        echo(f"synthetic phrases: {seconds} s")
        counts = _graph_counts(b.graph)
        restart(b.server)
        build = measured_build(b.settings, b.server, b.graph)
        echo(f"synthetic communities: {build['seconds']} s")
    return {"load": load, "graph": counts, "build": build}


def _graph_counts(graph) -> dict:
    """Chunks, documents, phrases, phrase links and entities, from the count store (sanity/counts)."""
    row = graph.read("sanity/counts")[0]
    labels, relationships = row["labels"], row["relationships"]
    return {
        "chunks": labels.get("Chunk", 0),
        "documents": labels.get("Document", 0),
        "phrases": labels.get("Phrase", 0),
        "phraseLinks": relationships.get("HAS_PHRASE", 0),
        "entities": labels.get("__Entity__", 0),
    }


def build_available() -> str | None:
    try:
        from graphrag_cypher.linkers import communities
    except ImportError:
        return "`communities build` is not in this checkout yet"
    return None if hasattr(communities, "build") else "`communities build` is not in this checkout yet"


def main(argv: list[str] | None = None) -> dict:
    argv = sys.argv[1:] if argv is None else argv

    def value(flag, default=None):
        return argv[argv.index(flag) + 1] if flag in argv else default

    parts = value("--parts", "quality,eval,synthetic").split(",")
    echo = (lambda line: print(line, file=sys.stderr, flush=True)) if __name__ == "__main__" else (lambda line: None)
    missing = build_available()
    if missing:
        return {"skipped": missing}
    out: dict = {}
    if "quality" in parts or "wiki" in parts:
        out["wiki"] = quality_wiki(echo, value("--wiki-from"))
    if "quality" in parts or "musique" in parts:
        out["musique"] = quality_musique(echo)
    if "eval" in parts:
        out["eval"] = cost_eval(echo, value("--heap", "2g"), "--cheap-vectors" in argv)
    if "synthetic" in parts:
        out["synthetic"] = cost_synthetic(echo, value("--heap", "3g"), int(value("--chunks", "100000")))
    return out


def rows(result: dict) -> list[tuple[str, str, str]]:
    if "skipped" in result:
        return [("communities", "skipped", result["skipped"])]
    table = []
    wiki = result.get("wiki")
    if wiki and "skipped" not in wiki:
        for level, r in wiki["levels"].items():
            table.append(
                (
                    f"communities wiki level {level}",
                    f"NMI {r['nmi']['actual']:.2f}",
                    f"random {r['nmi']['random_mean']:.2f} ± {r['nmi']['random_sd']:.2f}; AMI {r['ami']['actual']:.2f} "
                    f"(random {r['ami']['random_mean']:.2f}); purity {r['purity']['actual']:.2f} "
                    f"(random {r['purity']['random_mean']:.2f}) over {wiki['labelled_articles']} articles sharing a category; "
                    f"pairwise F1 {r['pairwise']['f1']:.2f} (P {r['pairwise']['precision']:.2f} R {r['pairwise']['recall']:.2f}; "
                    f"random {r['pairwise_f1_random_mean']:.2f}) over {r['documents']} articles, {r['communities']} communities",
                )
            )
    mus = result.get("musique")
    if mus and "skipped" not in mus:
        for level, r in mus["levels"].items():
            table.append(
                (
                    f"communities musique level {level}",
                    f"NMI {r['nmi']['actual']:.2f}",
                    f"random {r['nmi']['random_mean']:.2f} ± {r['nmi']['random_sd']:.2f}; AMI {r['ami']['actual']:.2f} "
                    f"(random {r['ami']['random_mean']:.2f}); purity {r['purity']['actual']:.2f} "
                    f"(random {r['purity']['random_mean']:.2f}); {r['titles_whole']:.0%} of the {mus['titles']} repeated titles "
                    f"in one community; {mus['grouped_passages']} passages, {r['communities']} communities",
                )
            )
    for name, label in (("eval", "eval union"), ("synthetic", "synthetic")):
        r = result.get(name)
        if not r or "skipped" in r:
            if r:
                table.append((f"communities build {label}", "skipped", r["skipped"]))
            continue
        b, g = r["build"], r["graph"]
        ok = (
            b["seconds"] <= TIME_GOAL_S
            and max(b["python_peak_rss_mb"] or 0, b["neo4j_peak_rss_mb"]) <= MEMORY_GOAL_GB * 1024
        )
        table.append(
            (
                f"communities build {label}",
                f"{b['seconds']} s",
                f"{g['chunks']} chunks, {g['phrases']} phrases, {g['phraseLinks']} phrase links; Python peak RSS "
                f"{b['python_peak_rss_mb']} MB, Neo4j heap peak {b['neo4j_heap_peak_mb']} MB (pool peaks "
                f"{b['neo4j_heap_pool_peaks_mb']} MB, -Xmx {b['neo4j_heap_max']}), Neo4j RSS {b['neo4j_peak_rss_mb']} MB; "
                f"LLM requests {b['llm_requests']}; GDS graphs left {b['gds_catalog']}; communities per level "
                f"{b['communities']}"
                + (
                    f" (goal <= {TIME_GOAL_S // 60} min, <= {MEMORY_GOAL_GB:g} GB: {'met' if ok else 'not met'})"
                    if name == "synthetic"
                    else ""
                ),
            )
        )
    return table


if __name__ == "__main__":
    if "-h" in sys.argv or "--help" in sys.argv:
        print(__doc__)
        raise SystemExit(0)
    out = main()
    if "--json" in sys.argv:
        print(json.dumps(out, indent=2, default=str))
    else:
        for row in rows(out):
            print("  ".join(row))
