"""Concurrency benchmark of `graphrag serve` under a mixed load: /chat, /v1 and uploads.

    python bench/hostile.py [--json] [--clients 8] [--seconds 120]

Loads the bundled sample and links its shared phrases (`make demo`'s graph) into a throw-away
Neo4j, starts `graphrag serve` on it with a write key and no LLM (answers are extractive: the
same question gets the same answer), and uploads once the files the clients will send again, so
their later uploads change nothing a question reads. Then, in one run on the same server:

1. the single-threaded answer to every sample question on /chat and on /v1 (text and sources);
2. one client on /chat for a quarter of `seconds`;
3. `clients` clients for `seconds`, each request /chat (50 %), /v1 (35 %) or an upload (15 %),
   every answer compared with the single-threaded one;
4. one client on /chat again for a quarter of `seconds` (the machine may be shared: the 1-client
   figures are of both passes).

Throughout, /health/live is asked every 0.2 s. Reported: answers of 500 or more, answers that
differ from the single-threaded ones, /chat p50/p95 with 1 client and with `clients` clients and
the p50 ratio, the slowest /health/live, and what became of the uploads.
Goal: 0 5xx, every answer identical, 8-client /chat p50 within 2x of 1 client.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, bench_neo4j  # noqa: E402
from serve import percentile, serve_env, start_serve  # noqa: E402

MODE = "graph"
KEY = "bench-key-0123456789abcdef"
UPLOAD_CORPUS = "bench-uploads"
UPLOADS = [
    (
        f"harbour-{i}.txt",
        (
            f"Harbour note {i}. The grain ships of Portus moored beside the lighthouse, and the harbour master "
            f"kept ledger {i} of every cargo that came in from Alexandria.\n"
        ).encode(),
    )
    for i in range(4)
]


def load_sample(graph, embedder) -> list[str]:
    """The bundled sample with its shared phrases linked; its questions."""
    from graphrag_cypher.linkers.phrases import link_phrases
    from graphrag_cypher.loaders.files import parse_folder
    from graphrag_cypher.loaders.mediawiki import parse_mediawiki
    from graphrag_cypher.loaders.stories import parse_stories_jsonl
    from graphrag_cypher.store.ingest import Loader, LoadOptions

    folder = REPO / "loaders" / "sample"

    def items():
        yield from parse_stories_jsonl(folder / "tales.jsonl", corpus="sample")
        yield from parse_folder(folder / "articles", source="sample")
        yield from parse_mediawiki(folder / "wiki.xml")

    Loader(graph, embedder, LoadOptions(loader="sample", source_root="graphrag:sample", corpus="sample")).run(items())
    link_phrases(graph)
    questions = json.loads((folder / "questions.json").read_text())
    return [q["question"] if isinstance(q, dict) else q for q in questions]


def headers() -> dict:
    return {"Authorization": f"Bearer {KEY}"}


class Faces:
    """The three kinds of request, each returning (status, what to compare) and logging 5xx."""

    def __init__(self, url: str):
        self.url = url
        self.server_errors: list[str] = []
        self.jobs: list[str] = []
        self.refused_uploads = 0
        self._lock = threading.Lock()
        self._local = threading.local()

    def http(self):
        import httpx

        if not hasattr(self._local, "http"):
            self._local.http = httpx.Client(base_url=self.url, headers=headers(), timeout=300)
        return self._local.http

    def _note(self, what: str, response) -> None:
        if response.status_code >= 500:
            with self._lock:
                self.server_errors.append(f"{what}: {response.status_code} {response.text[:120]}")

    def chat(self, question: str) -> tuple[int, tuple | None]:
        response = self.http().post("/chat", json={"question": question, "mode": MODE, "llm": False})
        self._note("/chat", response)
        if response.status_code != 200:
            return response.status_code, None
        out = response.json()
        return 200, (out["answer"], tuple(s["document_id"] for s in out["sources"]))

    def v1(self, question: str) -> tuple[int, tuple | None]:
        body = {"model": f"graphrag-{MODE}", "messages": [{"role": "user", "content": question}]}
        response = self.http().post("/v1/chat/completions", json=body)
        self._note("/v1", response)
        if response.status_code != 200:
            return response.status_code, None
        out = response.json()
        return 200, (out["choices"][0]["message"]["content"], tuple(c["document_id"] for c in out["citations"]))

    def upload(self, rng: random.Random) -> int:
        name, data = rng.choice(UPLOADS)
        response = self.http().post(
            "/documents",
            files=[("files", (name, data, "text/plain"))],
            data={"corpus": UPLOAD_CORPUS, "replace": "true"},
        )
        self._note("/documents", response)
        with self._lock:
            if response.status_code == 202:
                self.jobs.append(response.json()["id"])
            elif response.status_code == 429:
                self.refused_uploads += 1
        return response.status_code

    def wait_jobs(self, ids: list[str], timeout: float = 600) -> dict:
        """How the upload jobs ended (done, failed, ...), once none is queued or running."""
        deadline = time.monotonic() + timeout
        states: dict[str, str] = {}
        for job_id in ids:
            while True:
                response = self.http().get(f"/jobs/{job_id}")
                # the server remembers a bounded number of jobs: an old finished one is forgotten
                state = "forgotten" if response.status_code == 404 else response.json()["state"]
                if state not in {"queued", "running"} or time.monotonic() > deadline:
                    states[job_id] = state
                    break
                time.sleep(0.2)
        counts: dict[str, int] = {}
        for state in states.values():
            counts[state] = counts.get(state, 0) + 1
        return counts


class Liveness:
    """/health/live every 0.2 s until stopped: the slowest answer."""

    def __init__(self, url: str):
        import httpx

        self.latencies: list[float] = []
        self.failures = 0
        self._stop = threading.Event()

        def run() -> None:
            with httpx.Client(base_url=url, headers=headers(), timeout=120) as http:
                while not self._stop.is_set():
                    asked = time.monotonic()
                    try:
                        ok = http.get("/health/live").status_code == 200
                    except httpx.HTTPError:
                        ok = False
                    self.latencies.append(time.monotonic() - asked)
                    self.failures += not ok
                    self._stop.wait(max(0.0, 0.2 - (time.monotonic() - asked)))

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def stop(self) -> dict:
        self._stop.set()
        self._thread.join(timeout=130)
        ordered = self.latencies or [float("nan")]
        return {
            "answers": len(self.latencies),
            "max_ms": round(max(ordered) * 1000, 1),
            "p99_ms": round(percentile(ordered, 0.99) * 1000, 1),
            "failures": self.failures,
        }


def stats(latencies: list[float], seconds: float) -> dict:
    return {
        "requests": len(latencies),
        "per_s": round(len(latencies) / seconds, 2),
        "p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "p95_ms": round(percentile(latencies, 0.95), 1) if latencies else None,
    }


def one_client(faces: Faces, questions: list[str], seconds: float) -> list[float]:
    """/chat latencies (ms) of one client asking the questions in turn for `seconds`."""
    latencies, stop_at, i = [], time.monotonic() + seconds, 0
    while time.monotonic() < stop_at:
        started = time.perf_counter()
        faces.chat(questions[i % len(questions)])
        latencies.append((time.perf_counter() - started) * 1000)
        i += 1
    return latencies


def mixed(faces: Faces, questions: list[str], alone: dict, clients: int, seconds: float) -> dict:
    """`clients` clients for `seconds`: /chat, /v1 and uploads, answers compared with `alone`."""
    chat_ms: list[float] = []
    v1_ms: list[float] = []
    differ: list[str] = []
    compared = [0]
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def client(seed: int) -> None:
        rng = random.Random(seed)
        while time.monotonic() < stop_at:
            pick, question = rng.random(), rng.choice(questions)
            started = time.perf_counter()
            if pick < 0.15:
                faces.upload(rng)
                continue
            face = "chat" if pick < 0.65 else "v1"
            status, got = (faces.chat if face == "chat" else faces.v1)(question)
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                (chat_ms if face == "chat" else v1_ms).append(elapsed)
                if got is not None:
                    compared[0] += 1
                    if got != alone[face][question]:
                        differ.append(f"{face} {question!r}: {got[0][:80]!r} {got[1]}")

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {
        "clients": clients,
        "seconds": seconds,
        "chat": stats(chat_ms, seconds),
        "v1": stats(v1_ms, seconds),
        "compared": compared[0],
        "different": len(differ),
        "different_examples": differ[:3],
    }


def main(clients: int = 8, seconds: float = 120) -> dict:
    from graphrag_cypher.embedder import make_embedder

    with bench_neo4j() as (settings, graph):
        questions = load_sample(graph, make_embedder(settings))
        server, url = start_serve(dict(serve_env(settings), GRAPHRAG_API_KEY=KEY), headers())
        faces = Faces(url)
        try:
            # the files the clients will send, once: later uploads of them leave the graph as it is
            response = faces.http().post(
                "/documents",
                files=[("files", (name, data, "text/plain")) for name, data in UPLOADS],
                data={"corpus": UPLOAD_CORPUS, "replace": "true"},
            )
            first = faces.wait_jobs([response.json()["id"]])
            for question in questions:  # warm-up: plans, caches, the model
                faces.chat(question)
            alone = {
                "chat": {q: faces.chat(q)[1] for q in questions},
                "v1": {q: faces.v1(q)[1] for q in questions},
            }
            live = Liveness(url)
            single = one_client(faces, questions, seconds / 4)
            loaded = mixed(faces, questions, alone, clients, seconds)
            single += one_client(faces, questions, seconds / 4)
            liveness = live.stop()
            uploads = faces.wait_jobs(list(faces.jobs))
        finally:
            server.terminate()
            server.wait(timeout=30)
    one = stats(single, seconds / 2)
    ratio = round(loaded["chat"]["p50_ms"] / one["p50_ms"], 2) if loaded["chat"]["p50_ms"] and one["p50_ms"] else None
    return {
        "data": f"the bundled sample ({len(questions)} questions)",
        "mode": MODE,
        "warm_up_uploads": first,
        "one_client_chat": one,
        "mixed": loaded,
        "p50_ratio": ratio,
        "server_errors": len(faces.server_errors),
        "server_error_examples": faces.server_errors[:3],
        "uploads": {"jobs": uploads, "refused_429": faces.refused_uploads},
        "health_live": liveness,
        "cpus": os.cpu_count(),
    }


def rows(result: dict) -> list[tuple[str, str, str]]:
    one, many = result["one_client_chat"], result["mixed"]
    goal = (
        "met"
        if result["server_errors"] == 0 and many["different"] == 0 and (result["p50_ratio"] or 99) <= 2
        else "not met"
    )
    return [
        ("hostile 5xx", f"{result['server_errors']}", f"of all answers in the run {result['server_error_examples']}"),
        (
            "hostile answers identical",
            "yes" if many["different"] == 0 else f"no ({many['different']})",
            f"{many['compared']} answers of {many['clients']} clients compared with the single-threaded ones "
            f"(text and sources) {many['different_examples']}",
        ),
        (
            "hostile /chat 1 client",
            f"p50 {one['p50_ms']} ms",
            f"p95 {one['p95_ms']} ms, {one['requests']} requests, {one['per_s']}/s",
        ),
        (
            f"hostile /chat {many['clients']} clients",
            f"p50 {many['chat']['p50_ms']} ms",
            f"p95 {many['chat']['p95_ms']} ms, {many['chat']['requests']} requests ({many['chat']['per_s']}/s) over "
            f"{many['seconds']:g} s mixed with /v1 (p50 {many['v1']['p50_ms']} ms, {many['v1']['per_s']}/s) and "
            f"uploads {result['uploads']}",
        ),
        (
            "hostile p50 ratio",
            f"{result['p50_ratio']}x",
            f"{many['clients']} clients / 1 client on {result['cpus']} CPUs (goal 0 5xx, identical answers, "
            f"<= 2x: {goal}; answers are CPU work: with fewer CPUs than clients a request waits its turn)",
        ),
        (
            "hostile /health/live",
            f"max {result['health_live']['max_ms']} ms",
            f"p99 {result['health_live']['p99_ms']} ms over {result['health_live']['answers']} answers, "
            f"{result['health_live']['failures']} failed",
        ),
    ]


if __name__ == "__main__":
    args = sys.argv[1:]
    clients = int(args[args.index("--clients") + 1]) if "--clients" in args else 8
    seconds = float(args[args.index("--seconds") + 1]) if "--seconds" in args else 120
    out = main(clients, seconds)
    if "--json" in args:
        print(json.dumps(out, indent=2))
    else:
        for name, value, detail in rows(out):
            print(f"{name:<28}  {value:<18}  {detail}")
