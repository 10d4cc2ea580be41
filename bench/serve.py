"""Load benchmark of `graphrag serve`: concurrent clients against POST /chat, no LLM.

    python bench/serve.py [--json] [--clients 20] [--seconds 60]
    python bench/serve.py --hostile [--clients 8] [--seconds 30]

Loads the MuSiQue corpus of ../shared/data/qa (else the bundled sample) into a throw-away
Neo4j, measures the in-process `qa.ask` latency over its questions, then starts
`graphrag serve` on a free port and runs 20 clients for 60 s (after a one-client pass, which
shows what HTTP and SSE-less JSON add to one answer). Reports requests/s, p50/p95 and errors.
Goal: 0 errors; p50 within 1.5x of the in-process latency at the same load (20 threads calling
`qa.ask` in one process, measured in the same run); the ratio to one sequential ask is shown too.

`--hostile`: the same `clients` on /chat, first alone, then (in the same run, same server) while
one more client asks a question whose web-search fallback fetches a PDF bomb (a small file
with a multi-megabyte compressed text stream, served with a fake SearxNG on 127.0.0.1) and
another sends 950 KB questions to /v1/chat/completions. Goal: the other clients' p50 within
1.5x of the load alone, and the server's RSS back within 20 % of where it started.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, bench_neo4j, data_dir, free_port  # noqa: E402

MODE = "graph"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def load(settings, graph, embedder) -> tuple[str, list[str], str | None]:
    from graphrag_cypher.linkers.phrases import link_phrases
    from graphrag_cypher.store.ingest import Loader, LoadOptions

    data = data_dir() / "qa"
    corpus, questions_file = data / "musique_train_corpus.json", data / "musique_train.json"
    if corpus.exists() and questions_file.exists():
        from graphrag_cypher.linkers.titles import link_titles
        from graphrag_cypher.loaders.qa_corpus import parse_qa_corpus

        Loader(graph, embedder, LoadOptions(loader="qa-corpus", source_root="musique", corpus="musique")).run(
            parse_qa_corpus(corpus, corpus="musique")
        )
        link_titles(graph, corpus="musique")
        link_phrases(graph)
        return "MuSiQue (1,890 passages)", [q["question"] for q in json.loads(questions_file.read_text())], "musique"
    from graphrag_cypher.loaders.files import parse_folder
    from graphrag_cypher.loaders.mediawiki import parse_mediawiki
    from graphrag_cypher.loaders.stories import parse_stories_jsonl

    folder = REPO / "loaders" / "sample"

    def items():
        yield from parse_stories_jsonl(folder / "tales.jsonl", corpus="sample")
        yield from parse_folder(folder / "articles", source="sample")
        yield from parse_mediawiki(folder / "wiki.xml")

    Loader(graph, embedder, LoadOptions(loader="sample", source_root="graphrag:sample", corpus="sample")).run(items())
    link_phrases(graph)
    questions = json.loads((REPO / "loaders" / "sample" / "questions.json").read_text())
    return "the bundled sample", [q["question"] if isinstance(q, dict) else q for q in questions], "sample"


def in_process(graph, embedder, settings, questions: list[str], corpus: str | None) -> list[float]:
    from graphrag_cypher.retrieval import qa

    for question in questions[:10]:  # warm-up: query plans, caches
        qa.ask(graph, embedder, settings, question, mode=MODE, corpus=corpus, use_llm=False)
    latencies = []
    for question in questions:
        started = time.perf_counter()
        qa.ask(graph, embedder, settings, question, mode=MODE, corpus=corpus, use_llm=False)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


def drive(request, clients: int, seconds: float) -> dict:
    """`clients` threads, each calling ``request(rng)`` (a problem line, or None when it went
    well) until `seconds` have passed; requests/s, p50/p95 and errors."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def client(seed: int) -> None:
        rng = random.Random(seed)
        while time.monotonic() < stop_at:
            started = time.perf_counter()
            problem = request(rng)
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                (errors.append(problem) if problem else latencies.append(elapsed))

    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - started
    return {
        "clients": clients,
        "seconds": round(wall, 1),
        "requests": len(latencies) + len(errors),
        "requests_per_s": round(len(latencies) / wall, 2),
        "p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "p95_ms": round(percentile(latencies, 0.95), 1),
        "errors": len(errors),
        "error_examples": errors[:3],
    }


def in_process_concurrent(
    graph, embedder, settings, questions: list[str], corpus: str | None, clients: int, seconds: float
) -> dict:
    """`clients` threads calling `qa.ask` in this process for `seconds`: the same load without
    HTTP, so the ratio to the served p50 is what serving adds under load."""
    from graphrag_cypher.retrieval import qa

    def request(rng: random.Random) -> str | None:
        try:
            qa.ask(graph, embedder, settings, rng.choice(questions), mode=MODE, corpus=corpus, use_llm=False)
            return None
        except Exception as exc:  # counted, not raised: the benchmark reports errors
            return f"{type(exc).__name__}: {exc}"

    return drive(request, clients, seconds)


def hammer(url: str, questions: list[str], corpus: str | None, clients: int, seconds: float) -> dict:
    """`clients` HTTP clients posting to /chat for `seconds` (one connection each)."""
    import httpx

    local = threading.local()
    opened: list[httpx.Client] = []

    def request(rng: random.Random) -> str | None:
        if not hasattr(local, "http"):
            local.http = httpx.Client(base_url=url, timeout=120)
            opened.append(local.http)
        body = {"question": rng.choice(questions), "mode": MODE, "corpus": corpus, "llm": False}
        try:
            response = local.http.post("/chat", json=body)
        except httpx.HTTPError as exc:
            return f"{type(exc).__name__}: {exc}"
        ok = response.status_code == 200 and "answer" in response.json()
        return None if ok else f"{response.status_code}: {response.text[:120]}"

    try:
        return drive(request, clients, seconds)
    finally:
        for http in opened:
            http.close()


# --- the hostile mode --------------------------------------------------------------------------

BOMB_QUESTION = "What does the quorvex manuscript say about glimmerfrost?"  # asked with "web": "always"


def pdf_bomb(stream_bytes: int = 4_000_000) -> bytes:
    """A few-KB PDF whose one page holds `stream_bytes` of text operators, Flate-compressed."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "glimmerfrost")  # gives the page a font resource and a content stream
    # every line drawn at the same place on the page (text off the page would not be extracted)
    line = b"1 0 0 1 72 700 Tm (glimmerfrost quorvex zyxwvut manuscript.) Tj "
    body = b"BT /F1 1 Tf " + line * (stream_bytes // len(line)) + b" ET"
    font = page.get_fonts()[0][4]
    doc.update_stream(page.get_contents()[0], body.replace(b"/F1", b"/" + font.encode()), compress=True)
    data = doc.tobytes(garbage=3, deflate=True)
    doc.close()
    return data


class HostileSite:
    """A fake SearxNG and a web page server on 127.0.0.1: the bomb question's one result is the PDF bomb."""

    def __init__(self):
        import http.server
        import urllib.parse

        bomb = pdf_bomb()
        self.bomb_bytes = len(bomb)
        self.bomb_fetches = 0
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                parts = urllib.parse.urlsplit(self.path)
                if parts.path == "/search":
                    q = urllib.parse.parse_qs(parts.query).get("q", [""])[0]
                    results = (
                        [{"title": "Quorvex manuscript", "url": f"{site.url}/bomb.pdf", "content": "glimmerfrost"}]
                        if "glimmerfrost" in q.lower()
                        else []
                    )
                    return self._send(200, "application/json", json.dumps({"results": results}).encode())
                if parts.path == "/bomb.pdf":
                    site.bomb_fetches += 1
                    return self._send(200, "application/pdf", bomb)
                if parts.path == "/robots.txt":
                    return self._send(200, "text/plain", b"User-agent: *\nAllow: /\n")
                return self._send(404, "text/plain", b"no")

            def _send(self, status, kind, body):
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def attackers(url: str, stop: threading.Event) -> tuple[list[threading.Thread], dict]:
    """The two hostile clients, running until `stop`: counts of what each got back."""
    import httpx

    seen: dict = {"bomb": {}, "v1": {}}
    big = "glimmerfrost AND (quorvex OR zyx~2) " * (950_000 // 36)

    def bomb_client() -> None:
        with httpx.Client(base_url=url, timeout=300) as http:
            while not stop.is_set():
                started = time.perf_counter()
                try:
                    body = {"question": BOMB_QUESTION, "llm": False, "web": "always"}
                    status = http.post("/chat", json=body).status_code
                except httpx.HTTPError as exc:
                    status = type(exc).__name__
                seen["bomb"].setdefault(status, []).append(round(time.perf_counter() - started, 2))

    def v1_client() -> None:
        # encoded once: the bench measures the server's work, not this client's JSON encoder
        body = json.dumps({"model": "graphrag-graph", "messages": [{"role": "user", "content": big}]}).encode()
        headers = {"Content-Type": "application/json"}
        with httpx.Client(base_url=url, timeout=300) as http:
            while not stop.is_set():
                started = time.perf_counter()
                try:
                    status = http.post("/v1/chat/completions", content=body, headers=headers).status_code
                except httpx.HTTPError as exc:
                    status = type(exc).__name__
                seen["v1"].setdefault(status, []).append(round(time.perf_counter() - started, 2))

    threads = [threading.Thread(target=bomb_client), threading.Thread(target=v1_client)]
    for thread in threads:
        thread.start()
    return threads, seen


def summarise(seen: dict) -> dict:
    return {
        kind: {str(status): {"n": len(times), "max_s": max(times)} for status, times in by_status.items()}
        for kind, by_status in seen.items()
    }


def main_hostile(clients: int = 8, seconds: float = 30) -> dict:
    from graphrag_cypher.embedder import make_embedder

    site = HostileSite()
    with bench_neo4j() as (settings, graph):
        embedder = make_embedder(settings)
        data, questions, corpus = load(settings, graph, embedder)
        env = serve_env(
            settings,
            GRAPHRAG_WEB_SEARCH="searxng",
            GRAPHRAG_SEARXNG_URL=site.url,
            GRAPHRAG_WEB_ALLOW_LOCAL="1",  # the fake search and its page are on 127.0.0.1
        )
        server, url = start_serve(env)
        try:
            hammer(url, questions[:10], corpus, 2, 5)  # warm-up
            rss_warm = rss_mb(server.pid)
            alone = hammer(url, questions, corpus, clients, seconds)
            rss_start = rss_mb(server.pid)  # what the load alone holds: the attack is measured from here
            stop = threading.Event()
            threads, seen = attackers(url, stop)
            try:
                attacked = hammer(url, questions, corpus, clients, seconds)
            finally:
                stop.set()
                for thread in threads:
                    thread.join()
            rss_peak_after = rss_mb(server.pid)
            time.sleep(5)
            rss_end = rss_mb(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
            site.close()
    ratio = attacked["p50_ms"] / alone["p50_ms"] if attacked["p50_ms"] and alone["p50_ms"] else None
    return {
        "data": data,
        "mode": MODE,
        "alone": alone,
        "attacked": attacked,
        "p50_ratio": round(ratio, 2) if ratio else None,
        "attackers": summarise(seen),
        "bomb_file_bytes": site.bomb_bytes,
        "bomb_fetches": site.bomb_fetches,
        "rss_mb": {
            "warm": round(rss_warm),
            "start": round(rss_start),
            "after_attack": round(rss_peak_after),
            "after_5s": round(rss_end),
        },
        "rss_ratio": round(rss_end / rss_start, 2),
        "cpus": os.cpu_count(),
    }


def hostile_rows(result: dict) -> list[tuple[str, str, str]]:
    alone, attacked, rss = result["alone"], result["attacked"], result["rss_mb"]
    goal = (
        "met"
        if attacked["errors"] == 0 and (result["p50_ratio"] or 99) <= 1.5 and result["rss_ratio"] <= 1.2
        else "not met"
    )
    return [
        (
            f"serve /chat {alone['clients']} clients",
            f"p50 {alone['p50_ms']} ms",
            f"p95 {alone['p95_ms']} ms, {alone['requests_per_s']} req/s, {alone['errors']} errors (the load alone)",
        ),
        (
            "  + PDF bomb, 950 KB /v1",
            f"p50 {attacked['p50_ms']} ms",
            f"{result['p50_ratio']}x alone; p95 {attacked['p95_ms']} ms, {attacked['errors']} errors; attackers got "
            f"{result['attackers']}; bomb {result['bomb_file_bytes']:,} bytes fetched {result['bomb_fetches']}x",
        ),
        (
            "  server RSS",
            f"{rss['start']} -> {rss['after_5s']} MB",
            f"{result['rss_ratio']}x ({rss['warm']} MB before the load alone, {rss['after_attack']} MB right after "
            "the attack; goal p50 <= 1.5x and RSS "
            f"<= 1.2x: {goal})",
        ),
    ]


def serve_env(settings, **extra: str) -> dict:
    """The environment `graphrag serve` runs in: this Neo4j, no .env, no LLM, no key."""
    env = dict(
        os.environ,
        NEO4J_URI=settings.neo4j_uri,
        NEO4J_USERNAME=settings.neo4j_username,
        NEO4J_PASSWORD=settings.neo4j_password,
        GRAPHRAG_ENV_FILE="/nonexistent.env",
        **extra,
    )
    for name in ("OPENAI_BASE_URL", "GRAPHRAG_LLM_MODEL", "GRAPHRAG_API_KEY"):
        env.pop(name, None)
    return env


def start_serve(env: dict, headers: dict | None = None) -> tuple[subprocess.Popen, str]:
    """`graphrag serve` on a free port with `env`, once /health answers 200 (asked with `headers`:
    a server with a key wants it there too)."""
    import httpx

    port = free_port()
    exe = Path(sys.executable).parent / "graphrag"
    server = subprocess.Popen(
        [str(exe), "serve", "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while True:
        try:
            if httpx.get(url + "/health", headers=headers, timeout=2).status_code == 200:
                return server, url
        except httpx.HTTPError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            raise RuntimeError("graphrag serve did not start: " + server.stderr.read().decode()[-500:])
        time.sleep(0.3)


def main(clients: int = 20, seconds: float = 60) -> dict:
    from graphrag_cypher.embedder import make_embedder

    with bench_neo4j() as (settings, graph):
        embedder = make_embedder(settings)
        data, questions, corpus = load(settings, graph, embedder)
        ask_ms = in_process(graph, embedder, settings, questions, corpus)
        server, url = start_serve(serve_env(settings))
        try:
            hammer(url, questions[:10], corpus, 2, 5)  # warm-up of the server's own caches
            single = hammer(url, questions, corpus, 1, 10)
            loaded = hammer(url, questions, corpus, clients, seconds)
            # the same load in-process, so the served p50 is compared with its own kind
            concurrent = in_process_concurrent(graph, embedder, settings, questions, corpus, clients, seconds)
            # the machine may be shared: measure in-process again after the load, and use both passes
            ask_ms += in_process(graph, embedder, settings, questions, corpus)
        finally:
            server.terminate()
            server.wait(timeout=30)
    ask_p50 = statistics.median(ask_ms)
    return {
        "data": data,
        "mode": MODE,
        "in_process_ask": {
            "p50_ms": round(ask_p50, 1),
            "p95_ms": round(percentile(ask_ms, 0.95), 1),
            "questions": len(ask_ms),
            "passes": 2,
        },
        "one_client": single,
        "loaded": loaded,
        "in_process_loaded": concurrent,
        "ratio_same_load": round(loaded["p50_ms"] / concurrent["p50_ms"], 2)
        if loaded["p50_ms"] and concurrent["p50_ms"]
        else None,
        "ratio_one_client": round(single["p50_ms"] / ask_p50, 2) if single["p50_ms"] else None,
        "ratio_loaded": round(loaded["p50_ms"] / ask_p50, 2) if loaded["p50_ms"] else None,
        "cpus": os.cpu_count(),
    }


def rows(result: dict) -> list[tuple[str, str, str]]:
    if "skipped" in result:
        return [("serve /chat", "skipped", result["skipped"])]
    ask, one, many = result["in_process_ask"], result["one_client"], result["loaded"]
    bound = round(many["clients"] / max(many["requests_per_s"], 1e-9) * 1000 / ask["p50_ms"], 1)
    same = result["in_process_loaded"]
    goal = "met" if many["errors"] == 0 and (result["ratio_same_load"] or 99) <= 1.5 else "not met"
    return [
        (
            "serve in-process ask",
            f"p50 {ask['p50_ms']} ms",
            f"p95 {ask['p95_ms']} ms over {ask['questions']} questions of {result['data']}, mode {result['mode']}",
        ),
        (
            "serve /chat 1 client",
            f"p50 {one['p50_ms']} ms",
            f"p95 {one['p95_ms']} ms, {one['requests_per_s']} req/s, "
            f"{one['errors']} errors, {result['ratio_one_client']}x "
            "in-process",
        ),
        (
            f"serve /chat {many['clients']} clients",
            f"{many['requests_per_s']} req/s",
            f"p50 {many['p50_ms']} ms, p95 {many['p95_ms']} ms over {many['seconds']} s, {many['requests']} requests, "
            f"{many['errors']} errors; p50 {result['ratio_loaded']}x one in-process ask ({result['cpus']} CPUs: with "
            f"{many['clients']} requests in flight a request waits about clients / throughput = {bound}x it)",
        ),
        (
            f"in-process {same['clients']} threads",
            f"{same['requests_per_s']} asks/s",
            f"p50 {same['p50_ms']} ms, p95 {same['p95_ms']} ms, {same['errors']} errors; served p50 is "
            f"{result['ratio_same_load']}x this (goal 0 errors and <= 1.5x at the same load: {goal})",
        ),
    ]


if __name__ == "__main__":
    args = sys.argv[1:]
    hostile = "--hostile" in args
    clients = int(args[args.index("--clients") + 1]) if "--clients" in args else (8 if hostile else 20)
    seconds = float(args[args.index("--seconds") + 1]) if "--seconds" in args else (30 if hostile else 60)
    out = main_hostile(clients, seconds) if hostile else main(clients, seconds)
    if "--json" in args:
        print(json.dumps(out, indent=2))
    else:
        for name, value, detail in (hostile_rows if hostile else rows)(out):
            print(f"{name:<24}  {value:<16}  {detail}")
