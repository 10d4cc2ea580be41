"""Learning at scale: load, `link phrases`, retrieval, `learn` and `forget` on 10k / 100k / 1M chunks.

    python bench/scale.py [--sizes 10k,100k,1m] [--json] [--heap SIZE] [--pagecache SIZE] [--seed 7]
                          [--questions 100] [--home DIR] [--out FILE] [--no-forget]

For each size, in a fresh bench Neo4j (heap --heap, default 3g, 4g from 300k chunks; page cache
--pagecache, default what holds the store: 1g at 10k, 2g at 100k, 6g at 1M; --home DIR puts its
throw-away folder under DIR instead of the temporary folder, for a disk with room: the store is about
1.2 GB per 100k chunks with the phrase terms, 0.7 GB without; --out FILE rewrites
the JSON of the rows so far after every step, so a long run keeps what it measured; a step that fails
is recorded as {"error": ...} and the row goes on):

* load: a synthetic corpus of real sentences recombined (below), written by the online loader with
  cheap vectors (the hashed bag of words of bench/communities.py, 384 dimensions): no embedding model.
* `link phrases` full (`PhraseLinkOptions(full=True)`, or the default where the option does not exist
  yet), then one new document loaded and `link phrases` again with the default options (incremental
  where the linker is, a full relink where it is not);
* peak RSS: each measured step (load, both links, in-process learn) runs in a subprocess of its own, so
  its peak RSS (rusage of that child) is the step's and nothing else's; the Neo4j heap is sampled
  (JMX HeapMemoryUsage.used, every 0.25 s) during each step; the Neo4j process's VmHWM at the end;
* store MB: the database's folder at the end, Neo4j stopped (a stop checkpoints), transaction logs apart;
* retrieval p50/p95 of the graph, hybrid and vector retrievers (retrieval, as bench/query.py
  runs them: a warm-up of 10 questions, then the timed pass) over the first --questions MuSiQue
  questions, embedded with the same hashed vectors;
* learn of a one-chunk file end to end: in-process (`loaders.learn.learn` with `link_phrases` as the
  relink, as `graphrag learn` calls it; a subprocess of its own, time of the call and peak RSS of that
  process) and the `graphrag learn "path: DIR" --no-embed --json` command's wall time and peak RSS;
* forget: one corpus document forgotten (`documents.forget`, as `graphrag forget` does), then every
  `Phrase.chunks` compared with its HAS_PHRASE links (bench/scale_phrase_counts; `Term.chunks` with
  HAS_PHRASE + HAS_TERM where the graph has terms): the number that disagree, before and after.

The corpus (streamed: documents are made as the loader reads them; only the source pool is held): the
9,002 passages of MuSiQue, HotpotQA and 2WikiMultiHopQA (bench/communities.py's qa_passages), taken in a
shuffled order, about 15 at a time (9,000 characters, 10 chunks), their sentences shuffled together
into one document titled by the first passage. When every passage has been used (a "world", about
6,000 chunks) the next world takes them again in a new order. Recombining alone would repeat every name
once per world, so at 1M chunks every name would be shared by hundreds of chunks and fall to the "too
common" cut; real text keeps meeting new names instead. So each name part (a capitalised word the pool
never writes in lower case: 25k of them) keeps its spelling for a scope of 2^j worlds, j = log2 of the
number of passages it appears in plus a geometric draw (p = 1/4 per doubling), and is minted anew in
every scope but the first: its own first syllable and the rest of another name part ("Finland" ->
"Finsen"), chosen by a hash of (seed, name, scope). The first world has the real names; a name rare
in the pool stays rare at any size, a common one gets common, and the number of distinct names grows
with the corpus (on the phrase extractor, about N^0.76 from 10k to 30k chunks). Deterministic for a
seed (--seed). Chunks are full (1,000 characters, against the passages' 600 or so), so a chunk carries
about 30 phrase links where a load of the same passages one per chunk has 10 (the same links per
character of text).

For the 1M row on a 24 GB machine: `--sizes 1m --out scale-1m.json` (heap 4g, page cache 6g).

Goals (issue 27): at 100k, learn of a one-chunk file <= 3 s end to end and <= 1 GB RSS, forget leaves
every Phrase.chunks right; incremental link at 1M <= 2x its cost at 10k; full link at 1M <= 4 GB RSS and
time growing at most linearly (exponent <= 1.1 from 100k to 1M); graph p50 at 1M <= 50 ms.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, data_dir, graphrag_env  # noqa: E402

SIZES = {"10k": 10_000, "30k": 30_000, "100k": 100_000, "300k": 300_000, "1m": 1_000_000}
MODES = ("graph", "hybrid", "vector")
DOC_CHARS = 9000
CORPUS = "scale"
LEARN_GOAL_S, LEARN_GOAL_MB = 3.0, 1024
FULL_LINK_GOAL_MB = 4096
GRAPH_P50_GOAL_MS = 50
_NAME = re.compile(r"(?<![\w'’])([A-Z][a-z]+(?:[A-Z][a-z]+)?)(?![\w'’])")
_VOWELS = re.compile(r"[aeiouyAEIOUY]+")


# --- the corpus ----------------------------------------------------------------------------------


class NameWorlds:
    """The name parts of the pool and the spelling of each in a scope (see the docstring)."""

    def __init__(self, part_passages: dict[str, int], seed: int):
        self.seed = seed
        self.parts = sorted(part_passages)
        self.tails = [self._tail(p) for p in self.parts]
        self.known = frozenset(self.parts)
        self.span: dict[str, int] = {}
        for part in self.parts:
            h = zlib.crc32(f"{seed}|scope|{part}".encode())
            j = 0
            while h & 3 == 3 and j < 20:  # geometric: one more doubling with p = 1/4
                j += 1
                h >>= 2
            self.span[part] = 2 ** min(30, j + int(math.log2(part_passages[part])))
        self._cache: dict[tuple[str, int], str] = {}
        self._world = -1

    @staticmethod
    def _split(part: str) -> int:
        """Where the first syllable ends: after the first vowel run and one consonant, two letters or
        more left for the rest."""
        m = _VOWELS.search(part)
        end = (m.end() + 1) if m else 1
        return max(1, min(end, len(part) - 2))

    def _tail(self, part: str) -> str:
        return part[self._split(part) :]

    def spelling(self, part: str, world: int) -> str:
        scope = world // self.span[part]
        if scope == 0:
            return part
        if world != self._world:  # spellings of past worlds are not needed again
            self._cache.clear()
            self._world = world
        key = (part, scope)
        name = self._cache.get(key)
        if name is None:
            head = part[: self._split(part)]
            h = zlib.crc32(f"{self.seed}|{part}|{scope}".encode())
            for attempt in range(8):
                tail = self.tails[(h + attempt * 7919) % len(self.tails)]
                name = head + tail
                if len(name) >= 4 and name not in self.known:
                    break
            self._cache[key] = name
        return name


class Pool:
    """The sentences of the shared QA passages, each a template with its name parts as slots."""

    def __init__(self, data: Path, seed: int):
        from communities import qa_passages

        from graphrag_cypher.linkers.phrases import CONNECTORS, LEADING_STOP, lowercase_vocabulary
        from graphrag_cypher.text import split_sentences

        passages = qa_passages(data)
        lower = lowercase_vocabulary(text for _, text in passages)
        stop = {w.lower() for w in LEADING_STOP | CONNECTORS}

        def is_name(token: str) -> bool:
            return len(token) >= 3 and token.lower() not in lower and token.lower() not in stop

        seen: dict[str, int] = {}
        self.passages: list[tuple[list, list, int]] = []  # (title template, sentence templates, characters)
        for title, text in passages:
            sentences = [s for s in split_sentences(text) if len(s) > 20]
            if not sentences:
                continue
            templates = [self._template(s, is_name) for s in sentences]
            head = self._template(title, is_name)
            for part in {p for t in (head, *templates) for p in t[1::2]}:
                seen[part] = seen.get(part, 0) + 1
            self.passages.append((head, templates, sum(len(s) + 1 for s in sentences)))
        self.names = NameWorlds(seen, seed)

    @staticmethod
    def _template(text: str, is_name) -> list:
        """[literal, name part, literal, name part, ..., literal]."""
        pieces = _NAME.split(text)
        out = [pieces[0]]
        for i in range(1, len(pieces), 2):
            if is_name(pieces[i]):
                out += [pieces[i], pieces[i + 1]]
            else:
                out[-1] += pieces[i] + pieces[i + 1]
        return out

    def render(self, template: list, world: int) -> str:
        if len(template) == 1:
            return template[0]
        spelling = self.names.spelling
        return "".join(p if i % 2 == 0 else spelling(p, world) for i, p in enumerate(template))


def scale_documents(data: Path, chunks: int, seed: int = 7, first: int = 0):
    """ParsedDocuments of recombined real sentences with names minted per world, until `chunks` chunks
    (as the loader will chunk them); a generator: nothing but the source pool is held."""
    from graphrag_cypher.chunking import chunk_document

    pool = Pool(data, seed)
    rng = random.Random(seed)
    made, n, world = 0, first, 0
    order = list(range(len(pool.passages)))
    rng.shuffle(order)
    position = 0
    while made < chunks:
        taken, size = [], 0
        while size < DOC_CHARS:
            if position == len(order):  # every passage used once: the next world
                world, position = world + 1, 0
                rng.shuffle(order)
                taken, size = [], 0  # a document lies within one world
            passage = pool.passages[order[position]]
            position += 1
            taken.append(passage)
            size += passage[2]
        doc = _document(pool, rng, taken, n, world)
        made += len(chunk_document(doc, size=1000, overlap=100))
        n += 1
        yield doc


def _document(pool: Pool, rng: random.Random, passages: list, n: int, world: int, prefix: str = "scale"):
    """The sentences of `passages`, shuffled, names spelt as in `world`; titled by the first passage."""
    from graphrag_cypher.model import ParsedDocument, Section

    templates = [t for passage in passages for t in passage[1]]
    rng.shuffle(templates)
    title = pool.render(passages[0][0], world)
    return ParsedDocument(
        id=f"{prefix}:{n}",
        title=f"{title} ({n})",
        kind="passage",
        source=f"{prefix}/{n}",
        metadata={"corpus": CORPUS},
        sections=[Section(text=" ".join(pool.render(t, world) for t in templates), title=title, seq=0)],
    )


def extra_document(data: Path, seed: int, name: str, passages: int = 15):
    """One more document of the first world (real names, so it shares phrases with the corpus)."""
    pool = Pool(data, seed)
    rng = random.Random(f"{seed}:{name}")
    return _document(pool, rng, rng.sample(pool.passages, passages), 0, 0, prefix=f"scale-{name}")


def learn_file(data: Path, seed: int, name: str, folder: Path) -> Path:
    """A one-chunk Markdown file (about 700 characters of real sentences) alone in `folder`."""
    doc = extra_document(data, seed, name, passages=2)
    folder.mkdir(parents=True, exist_ok=True)
    text = doc.sections[0].text[:700]
    path = folder / f"{name}.md"
    path.write_text(f"# {doc.sections[0].title}\n\n{text}\n", encoding="utf-8")
    return path


# --- the steps, each in a process of its own ---------------------------------------------------------


def phrase_options(full: bool):
    """(PhraseLinkOptions, whether the linker has the `full` field): the full run falls back to the default
    where the linker has no incremental mode yet (every run is then a full one)."""
    from graphrag_cypher.linkers.phrases import PhraseLinkOptions

    has_full = "full" in {f.name for f in dataclasses.fields(PhraseLinkOptions)}
    return (PhraseLinkOptions(full=full) if has_full else PhraseLinkOptions()), has_full  # type: ignore[call-arg]


def worker(spec: dict) -> dict:
    """One measured step in this (fresh) process: spec["step"] is load, add, link or learn."""
    from communities import HashEmbedder

    from graphrag_cypher.config import load_settings
    from graphrag_cypher.db import connect

    settings = load_settings({k: v for k, v in os.environ.items() if k.startswith("NEO4J_")})
    data = Path(spec["data"])
    with connect(settings) as graph:
        started = time.perf_counter()
        step = spec["step"]
        if step == "load":
            from graphrag_cypher.store.ingest import Loader, LoadOptions

            stats = Loader(graph, HashEmbedder(), LoadOptions(loader="scale", source_root=CORPUS, corpus=CORPUS)).run(
                scale_documents(data, spec["chunks"], spec["seed"])
            )
            out: dict = {"documents": stats.created, "failed": stats.failed}
        elif step == "add":
            from graphrag_cypher.store.ingest import Loader, LoadOptions

            stats = Loader(graph, HashEmbedder(), LoadOptions(loader="scale", source_root=CORPUS, corpus=CORPUS)).run(
                [extra_document(data, spec["seed"], spec["name"])]
            )
            out = {"documents": stats.created}
        elif step == "link":
            from graphrag_cypher.linkers.phrases import link_phrases

            options, has_full = phrase_options(spec["full"])
            out = {"result": link_phrases(graph, options).to_dict(), "full_option": has_full}
        elif step == "learn":
            from graphrag_cypher.linkers.phrases import link_phrases
            from graphrag_cypher.loaders.learn import learn

            result = learn(graph, HashEmbedder(), f"path: {spec['folder']}", relink=link_phrases)
            out = {"result": result.to_dict()}
        else:
            raise SystemExit(f"unknown step {step!r}")
        out["seconds"] = round(time.perf_counter() - started, 2)
    return out


def _jmx_heap_used(graph) -> int:
    return int(graph.read("bench/jmx_heap")[0]["heap"]["used"])


def measured(settings, graph, command: list[str]) -> dict:
    """Run `command` against the bench Neo4j: its wall time, its own peak RSS (wait4) and the Neo4j heap's
    sampled peak while it ran; its last stdout line parsed as JSON where it is JSON."""
    heap_max = 0
    stop = threading.Event()

    def sample():
        nonlocal heap_max
        while not stop.is_set():
            try:
                heap_max = max(heap_max, _jmx_heap_used(graph))
            except Exception:  # noqa: BLE001 - a missed sample is not a failure of the step
                pass
            stop.wait(0.25)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    proc = subprocess.Popen(
        command, env=graphrag_env(settings), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    captured: dict[str, str] = {}
    readers = [
        threading.Thread(target=lambda n=n, f=f: captured.__setitem__(n, f.read()), daemon=True)
        for n, f in (("out", proc.stdout), ("err", proc.stderr))
    ]
    for reader in readers:
        reader.start()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    for reader in readers:
        reader.join()
    stop.set()
    sampler.join(timeout=5)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command[1:4])} failed ({proc.returncode}): {captured.get('err', '')[-1500:]}")
    stdout = captured.get("out", "").strip()
    lines = stdout.splitlines()
    try:
        result = json.loads(stdout) if stdout else {}
    except json.JSONDecodeError:
        try:
            result = json.loads(lines[-1])
        except json.JSONDecodeError:
            result = {"output": "\n".join(lines[-5:])}
    if not isinstance(result, dict):
        result = {"result": result}
    return {
        **result,
        "wall_s": round(wall, 2),
        "python_peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "neo4j_heap_peak_mb": round(heap_max / 2**20, 1),
    }


def step(settings, graph, **spec) -> dict:
    spec.setdefault("data", str(data_dir()))
    return measured(settings, graph, [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec)])


# --- the bench Neo4j --------------------------------------------------------------------------------


@contextmanager
def scale_neo4j(heap: str, pagecache: str, home: str | None = None):
    """(instance, settings, graph): a fresh local Neo4j with the schema applied, its page cache sized for the
    store (neo4j_local.ephemeral fixes it at 256m); deleted on exit (a --home folder too: it is made fresh)."""
    from graphrag_cypher.admin import migrations, neo4j_local
    from graphrag_cypher.db import connect

    if home:
        root = Path(home).resolve()
        root.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix="graphrag-scale-", dir=root))
    else:
        folder = Path(tempfile.mkdtemp(prefix="graphrag-scale-"))
    import secrets

    instance = neo4j_local.LocalInstance(
        home=folder,
        bolt_port=neo4j_local.free_port(),
        http_port=None,
        password=secrets.token_urlsafe(16),
        heap=heap,
        pagecache=pagecache,
    )
    try:
        neo4j_local.start(instance, timeout=300, echo=lambda *_: None)
        server = neo4j_local.Ephemeral(instance, instance.uri, "neo4j", instance.password)
        settings = server.settings()
        with connect(settings) as graph:
            migrations.apply(graph, settings.placeholders())
            yield instance, settings, graph
    finally:
        neo4j_local.stop(instance)
        shutil.rmtree(folder, ignore_errors=True)


def store_mb(instance) -> dict:
    """The database's folder and its transaction logs, Neo4j stopped (a stop checkpoints; Community has no
    db.checkpoint())."""
    from graphrag_cypher.admin import neo4j_local

    neo4j_local.stop(instance, timeout=900)

    def size(path: Path) -> float:
        return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20, 1) if path.exists() else 0

    data = Path(instance.home) / "data"
    return {"store_mb": size(data / "databases" / "neo4j"), "tx_logs_mb": size(data / "transactions" / "neo4j")}


def neo4j_rss_mb(instance) -> float | None:
    from communities import _vm_hwm

    from graphrag_cypher.admin import neo4j_local

    hwm = _vm_hwm(neo4j_local._read_pid(instance.home))
    return round(hwm / 2**20, 1) if hwm else None


# --- retrieval ------------------------------------------------------------------------------------------


def retrieval(graph, questions: list[str], k: int = 5) -> dict:
    """p50/p95 of each of MODES as bench/query.py's run_modes measures them (10 warm-up questions first)."""
    import statistics

    from communities import HashEmbedder
    from query import percentile

    from graphrag_cypher.retrieval.modes import retriever
    from graphrag_cypher.retrieval.question.analyzer import QuestionAnalyzer

    analyzer, embedder, out = QuestionAnalyzer(graph), HashEmbedder(), {}
    for mode in MODES:
        search = retriever(mode, graph, embedder)
        for question in questions[:10]:
            search.retrieve(analyzer.analyze(question), k)
        latencies = []
        for question in questions:
            started = time.perf_counter()
            search.retrieve(analyzer.analyze(question), k)
            latencies.append((time.perf_counter() - started) * 1000)
        out[mode] = {
            "p50_ms": round(statistics.median(latencies), 1),
            "p95_ms": round(percentile(latencies, 0.95), 1),
            "questions": len(latencies),
        }
    return out


# --- forget -----------------------------------------------------------------------------------------------


def count_check(graph) -> dict:
    """Phrases (and terms) whose stored `chunks` is not the number of chunks linked to them. A scan
    of every phrase and term (7.5M at 1M chunks): the check, not the product, so it is not held to
    the statement timeout a question is (30 s)."""
    bound, graph.read_timeout = graph.read_timeout, 3600.0
    try:
        phrases = graph.read("bench/scale_phrase_counts")[0]
        terms = graph.read("bench/scale_term_counts")[0]
    finally:
        graph.read_timeout = bound
    return {
        "phrases": phrases["phrases"],
        "phrases_wrong": phrases["wrong"],
        "phrase_examples": phrases["examples"],
        "terms": terms["terms"],
        "terms_wrong": terms["wrong"],
    }


def forget_check(graph, document_id: str) -> dict:
    from graphrag_cypher.store.documents import forget

    before = count_check(graph)
    touched = graph.read("bench/scale_document_phrases", id=document_id)[0]["phrases"]
    started = time.perf_counter()
    result = forget(graph, document_id)
    seconds = round(time.perf_counter() - started, 2)
    return {"document": document_id, "phrases_touched": touched, "seconds": seconds, "result": result,
            "before": before, "after": count_check(graph)}  # fmt: skip


# --- one size -----------------------------------------------------------------------------------------------


def run_size(label: str, chunks: int, args: dict, echo, save=lambda row: None) -> dict:
    """One size's row. A step that fails (a link run out of memory at 1M) is recorded as {"error": ...}
    and the row goes on; `save(row)` after every step keeps what a long run measured."""
    data = data_dir()
    questions = [q["question"] for q in json.loads((data / "qa" / "musique_train.json").read_text())]
    questions = questions[: args["questions"]]
    out: dict = {"size": label, "target_chunks": chunks, "heap": args["heap"], "pagecache": args["pagecache"]}
    seed = args["seed"]

    def attempt(key: str, run, say=lambda r: "") -> None:
        try:
            out[key] = run()
            echo(f"{label}: {key} {say(out[key])}")
        except Exception as exc:  # noqa: BLE001 - one failed step is a result of the row, not its end
            out[key] = {"error": f"{type(exc).__name__}: {str(exc)[-600:]}"}
            echo(f"{label}: {key} failed: {out[key]['error']}")
        save(out)

    def timed(r: dict) -> str:
        return f"{r.get('seconds', r.get('wall_s'))} s, {r.get('python_peak_rss_mb')} MB"

    with scale_neo4j(args["heap"], args["pagecache"], args["home"]) as (instance, settings, graph):
        attempt("load", lambda: step(settings, graph, step="load", chunks=chunks, seed=seed), timed)
        out["graph"] = counts(graph)
        attempt("link_full", lambda: step(settings, graph, step="link", full=True), timed)
        out["graph"] = counts(graph)
        attempt("add", lambda: step(settings, graph, step="add", seed=seed, name="extra"), timed)
        attempt("link_incremental", lambda: step(settings, graph, step="link", full=False), timed)
        attempt("retrieval", lambda: retrieval(graph, questions), lambda r: json.dumps(r))
        with tempfile.TemporaryDirectory(prefix="graphrag-scale-learn-") as tmp:
            inprocess, cli = learn_file(data, seed, "learn", Path(tmp) / "inprocess"), Path(tmp) / "cli"
            learn_file(data, seed, "learn-cli", cli)
            exe = str(Path(sys.executable).parent / "graphrag")
            attempt("learn", lambda: step(settings, graph, step="learn", folder=str(inprocess.parent)), timed)
            attempt(
                "learn_cli",
                lambda: measured(settings, graph, [exe, "learn", f"path: {cli}", "--no-embed", "--json"]),
                timed,
            )
        if args["forget"]:
            attempt("forget", lambda: forget_check(graph, f"{CORPUS}:1"), lambda r: json.dumps(r["after"]))
        out["neo4j_peak_rss_mb"] = neo4j_rss_mb(instance)
        out.update(store_mb(instance))  # last: it stops Neo4j
    save(out)
    return out


def counts(graph) -> dict:
    row = graph.read("sanity/counts")[0]
    labels, relationships = row["labels"], row["relationships"]
    return {
        "chunks": labels.get("Chunk", 0),
        "documents": labels.get("Document", 0),
        "phrases": labels.get("Phrase", 0),
        "terms": labels.get("Term", 0),
        "phrase_links": relationships.get("HAS_PHRASE", 0),
        "term_links": relationships.get("HAS_TERM", 0),
        "words": labels.get("Word", 0),
    }


# --- the table ------------------------------------------------------------------------------------------------


def _mb(value) -> str:
    if not isinstance(value, (int, float)):
        return "—"
    return f"{value / 1024:.1f} GB" if value >= 1024 else f"{value:.0f} MB"


def _get(r: dict, key: str, field: str, default="—"):
    """r[key][field], or `default` where the step failed ("error") or did not run."""
    value = (r.get(key) or {}).get(field)
    return default if value is None else value


def _failed(r: dict) -> str:
    failed = [k for k, v in r.items() if isinstance(v, dict) and "error" in v]
    return "; failed: " + ", ".join(f"{k} ({r[k]['error'][:120]})" for k in failed) if failed else ""


def rows(result: dict) -> list[tuple[str, str, str]]:
    """bench/run.py's rows: one per size, and one for the growth between sizes."""
    if "skipped" in result:
        return [("scale", "skipped", result["skipped"])]
    table = []
    for r in result["sizes"]:
        g, ret, forget = r.get("graph", {}), r.get("retrieval") or {}, r.get("forget") or {}
        learn_s, learn_mb = _get(r, "learn", "seconds", None), _get(r, "learn", "python_peak_rss_mb", None)
        detail = (
            f"{g.get('chunks', 0):,} chunks, {g.get('phrases', 0):,} phrases, {g.get('phrase_links', 0):,} links; "
            f"load {_get(r, 'load', 'seconds')} s; link phrases full {_get(r, 'link_full', 'seconds')} s "
            f"({_mb(_get(r, 'link_full', 'python_peak_rss_mb'))} RSS, Neo4j heap "
            f"{_mb(_get(r, 'link_full', 'neo4j_heap_peak_mb'))}), after one new document "
            f"{_get(r, 'link_incremental', 'seconds')} s ({_mb(_get(r, 'link_incremental', 'python_peak_rss_mb'))}); "
            f"store {_mb(r.get('store_mb'))}; "
            + "; ".join(f"{m} p50 {_get(ret, m, 'p50_ms')} / p95 {_get(ret, m, 'p95_ms')} ms" for m in MODES)
            + f"; learn one-chunk file {learn_s} s in-process ({_mb(learn_mb)}), "
            f"CLI {_get(r, 'learn_cli', 'wall_s')} s ({_mb(_get(r, 'learn_cli', 'python_peak_rss_mb'))})"
        )
        if "after" in forget:
            detail += (
                f"; forget: {forget['after']['phrases_wrong']} of {forget['after']['phrases']} Phrase.chunks wrong "
                f"({forget['before']['phrases_wrong']} before)"
            )
        if r["target_chunks"] == 100_000:
            ok = (
                learn_s is not None
                and learn_s <= LEARN_GOAL_S
                and learn_mb <= LEARN_GOAL_MB
                and forget.get("after", {}).get("phrases_wrong") == 0
            )
            detail += (
                f" (goal learn <= {LEARN_GOAL_S:g} s and <= 1 GB, forget leaves counts right: "
                f"{'met' if ok else 'not met'})"
            )
        if r["target_chunks"] == 1_000_000:
            rss, p50 = _get(r, "link_full", "python_peak_rss_mb", None), _get(ret, "graph", "p50_ms", None)
            ok = rss is not None and p50 is not None and rss <= FULL_LINK_GOAL_MB and p50 <= GRAPH_P50_GOAL_MS
            detail += (
                f" (goal full link <= {FULL_LINK_GOAL_MB // 1024} GB RSS, graph p50 <= {GRAPH_P50_GOAL_MS} ms: "
                f"{'met' if ok else 'not met'})"
            )
        table.append((f"scale {r['size']}", f"learn {learn_s if learn_s is not None else '—'} s", detail + _failed(r)))
    g = result.get("growth") or {}
    if "full_link_exponent" in g:
        ok = g["full_link_exponent"] <= 1.1 and g.get("incremental_ratio", 99) <= 2
        table.append(
            (
                "scale growth",
                f"exponent {g['full_link_exponent']}",
                f"full link time ~ chunks^{g['full_link_exponent']} from {g['exponent_from']} to {g['exponent_to']}; "
                f"incremental link {g.get('incremental_ratio')}x from {g['ratio_from']} to {g['ratio_to']} "
                f"(goal exponent <= 1.1, ratio <= 2: {'met' if ok else 'not met'})",
            )
        )
    return table


def markdown(result: dict) -> str:
    """The README "At scale" table."""
    head = (
        "| chunks | phrases · links | load | `link phrases` full / after one document | link peak RSS full / incr. | "
        "Neo4j heap peak | store | graph · hybrid · vector p50 (p95) | learn one file in-process / CLI | "
        "forget: counts wrong |\n"
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )
    lines = [head]
    for r in result.get("sizes", []):
        g, ret, forget = r.get("graph", {}), r.get("retrieval") or {}, r.get("forget") or {}
        heaps = [_get(r, k, "neo4j_heap_peak_mb", 0) for k in ("load", "link_full", "link_incremental", "learn")]
        lines.append(
            f"| {g.get('chunks', 0):,} | {g.get('phrases', 0):,} · {g.get('phrase_links', 0):,} | "
            f"{_get(r, 'load', 'seconds')} s | {_get(r, 'link_full', 'seconds')} / "
            f"{_get(r, 'link_incremental', 'seconds')} s | {_mb(_get(r, 'link_full', 'python_peak_rss_mb'))} / "
            f"{_mb(_get(r, 'link_incremental', 'python_peak_rss_mb'))} | "
            f"{_mb(max(h for h in heaps if isinstance(h, (int, float))))} | {_mb(r.get('store_mb'))} | "
            + " · ".join(f"{_get(ret, m, 'p50_ms')} ({_get(ret, m, 'p95_ms')})" for m in MODES)
            + f" ms | {_get(r, 'learn', 'seconds')} s, {_mb(_get(r, 'learn', 'python_peak_rss_mb'))} / "
            f"{_get(r, 'learn_cli', 'wall_s')} s | "
            + (
                f"{forget['after']['phrases_wrong']} (before {forget['before']['phrases_wrong']})"
                if "after" in forget
                else "—"
            )
            + " |"
        )
    return "\n".join(lines)


def growth(sizes: list[dict]) -> dict:
    """How full and incremental `link phrases` grow: the full run's time exponent (100k to 1M where both
    ran, else smallest to largest; goal <= 1.1) and the incremental run's time ratio (1M over 10k where
    both ran, else largest over smallest; goal <= 2)."""
    sizes = [
        r for r in sizes if "seconds" in (r.get("link_full") or {}) and "seconds" in (r.get("link_incremental") or {})
    ]
    if len(sizes) < 2:
        return {}
    by = {r["size"]: r for r in sizes}
    a, b = (by["100k"], by["1m"]) if "100k" in by and "1m" in by else (sizes[0], sizes[-1])
    ratio = b["graph"]["chunks"] / max(1, a["graph"]["chunks"])
    out: dict = {"exponent_from": a["size"], "exponent_to": b["size"]}
    if ratio > 1:
        out["full_link_exponent"] = round(
            math.log(max(b["link_full"]["seconds"], 1e-3) / max(a["link_full"]["seconds"], 1e-3)) / math.log(ratio), 2
        )
    a, b = (by["10k"], by["1m"]) if "10k" in by and "1m" in by else (sizes[0], sizes[-1])
    out.update(ratio_from=a["size"], ratio_to=b["size"])
    out["incremental_ratio"] = round(b["link_incremental"]["seconds"] / max(a["link_incremental"]["seconds"], 1e-3), 2)
    return out


def sized(args: dict, chunks: int) -> dict:
    """--heap and --pagecache where given, else sized for `chunks`: a page cache that holds the store
    (about 1.2 GB per 100k chunks; 1g at 10k, 2g at 100k, at most 6g), heap 3g (4g from 300k chunks)."""
    heap = args["heap"] or ("4g" if chunks >= 300_000 else "3g")
    pagecache = args["pagecache"] or f"{min(6, max(1, math.ceil(chunks * 1.5 / 100_000)))}g"
    return {**args, "heap": heap, "pagecache": pagecache}


def parse_args(argv: list[str]) -> dict:
    def value(flag, default):
        return argv[argv.index(flag) + 1] if flag in argv else default

    sizes = [s.strip().lower() for s in value("--sizes", "10k,100k").split(",") if s.strip()]
    unknown = [s for s in sizes if s not in SIZES and not s.isdigit()]
    if unknown:
        raise SystemExit(f"unknown size(s) {unknown}: use {', '.join(SIZES)} or a number of chunks")
    return {
        "sizes": sizes,
        "heap": value("--heap", None),
        "pagecache": value("--pagecache", None),
        "seed": int(value("--seed", "7")),
        "questions": int(value("--questions", "100")),
        "home": value("--home", None),
        "out": value("--out", None),
        "forget": "--no-forget" not in argv,
    }


def main(argv: list[str] | None = None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    data = data_dir()
    from communities import QA_FILES

    absent = [n for n in (*QA_FILES, "musique_train.json") if not (data / "qa" / n).exists()]
    if absent:
        return {"skipped": f"real data not found: {', '.join(absent)} (set GRAPHRAG_DATA_DIR)"}
    echo = (lambda line: print(line, file=sys.stderr, flush=True)) if __name__ == "__main__" else (lambda line: None)
    results: list[dict] = []

    def save(row: dict) -> None:  # --out FILE: the rows so far, rewritten after every step
        if args["out"]:
            Path(args["out"]).write_text(json.dumps({"sizes": [*results, row]}, indent=2, default=str))

    for label in args["sizes"]:
        chunks = SIZES.get(label) or int(label)
        results.append(run_size(label, chunks, sized(args, chunks), echo, save))
        if "--json" not in argv and __name__ == "__main__":
            for row in rows({"sizes": results[-1:]}):
                print("  ".join(row), flush=True)
    out = {
        "sizes": results,
        "growth": growth(results),
        "args": {k: v for k, v in args.items() if k not in ("home", "out")},
    }
    _, has_full = phrase_options(True)
    out["link_full_option"] = has_full
    return out


if __name__ == "__main__":
    if "-h" in sys.argv or "--help" in sys.argv:
        print(__doc__)
        raise SystemExit(0)
    if "--worker" in sys.argv:
        print(json.dumps(worker(json.loads(sys.argv[sys.argv.index("--worker") + 1])), default=str))
        raise SystemExit(0)
    result = main()
    if "--json" in sys.argv:
        print(json.dumps(result, indent=2, default=str))
    else:
        print()
        print(markdown(result))
