"""Leaks between corpora on a shared server: two corpora, a key for each, and an adversarial set of
requests a key of corpus `alpha` sends on every read face (questions naming `beta`'s people and
places, `--about` one of them, a place both corpora mention and its graph expansion, every
retrieval mode and route, streams, `/v1`, every MCP read tool, `/graph`, `/documents`,
`/communities`, another key's remembered answer). What comes back is searched for anything of
`beta`: its document and chunk ids, titles, words only its text holds, names of entities only its
chunks mention, ids of communities with any of its members. The goal is 0.

With an LLM the context it is sent is searched too: the bench's LLM answers with the whole
prompt it was given, so a passage of `beta` in a context shows up in the answer.

    python bench/leaks.py            # a fresh Neo4j, the two corpora, the table of leaks by face
    python bench/leaks.py --json     # the same as JSON: probes, leaks by face, each leak's marker
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

ALPHA = {
    "veyra-lamps.txt": (
        "The Lamps of Veyra\n\n"
        "Marta Quillon kept the harbour lamps of Veyra for forty years. Each spring she sailed to Ghent "
        "to buy lamp oil from the merchant Pieter Vandamme, and she came home with barrels of it. "
        "The fishermen of Veyra said that no storm had ever put out a lamp that Marta Quillon had trimmed.\n"
    ),
    "ghent-oil-fair.txt": (
        "The Oil Fair of Ghent\n\n"
        "Every April the oil fair of Ghent drew traders from Veyra and from Bruges. Pieter Vandamme "
        "sold lamp oil by the barrel on the quay of Ghent, and Marta Quillon bought the clearest oil he had. "
        "The fair ended with a procession of lanterns along the river Leie.\n"
    ),
    "harbour-storms.txt": (
        "Storms over Veyra Harbour\n\n"
        "In the winter of the great storms the harbour of Veyra lost six boats. Marta Quillon kept every "
        "lamp burning through the nights, and the boats that came home steered by her light. "
        "The town council of Veyra gave her a silver chain for it.\n"
    ),
}
BETA = {
    "samphire-vault.txt": (
        "The Samphire Vault\n\n"
        "Oskar Trevanne guarded the Samphire Vault beneath Lirabel Castle. Each spring he travelled to Ghent "
        "to sell the vault's amber to Hendrika Mossberg, a jeweller of Ghent. Nobody at Lirabel Castle knew "
        "how much amber the Samphire Vault still held.\n"
    ),
    "lirabel-amber.txt": (
        "Amber of Lirabel\n\n"
        "Hendrika Mossberg carved the amber of Lirabel Castle into rings and brooches in her workshop in Ghent. "
        "Her apprentice Jorun Kestrel polished each piece with beeswax. Oskar Trevanne was paid in gold "
        "florins sewn into his saddlebags.\n"
    ),
    "trevanne-flight.txt": (
        "The Flight of Oskar Trevanne\n\n"
        "When the Quorrith ledger showed that amber was missing, Oskar Trevanne fled Lirabel Castle by night. "
        "Jorun Kestrel saw him ride north towards Ghent, and Hendrika Mossberg never bought amber again.\n"
    ),
}
GAMMA = {  # the second corpus of a key of two: its reads go through the corpora filter alone
    "gamma-notes.txt": (
        "Notes from the Leie\n\n"
        "Ilse Brandvold drew the bridges of Ghent for the guild of painters. She sold her drawings at the "
        "oil fair, where the lamp sellers of Veyra bought three of them.\n"
    ),
}
SHARED = "Ghent"  # the place both corpora mention: expansion from it must stay in the key's corpus
# rare words of beta's text (with its capitalised words): none is in alpha, a question or a prompt
PLANTED = {"amber", "beeswax", "brooches", "samphire", "florins", "saddlebags", "ledger", "jeweller", "apprentice"}
ALPHA_NAMES = ("veyra", "quillon", "vandamme", "bruges", "lamp")
MODES = ("vector", "fulltext", "hybrid", "graph", "ppr")


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]{4,}", text)}


def build(env: dict, folder: Path) -> None:
    """The corpora loaded into the server's Neo4j (alpha, beta, and gamma for a key of two corpora),
    their entities (spaCy NER), shared phrases, titles and communities: what the faces read."""
    for corpus, files in (("alpha", ALPHA), ("beta", BETA), ("gamma", GAMMA)):
        target = folder / corpus
        target.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (target / name).write_text(text, encoding="utf-8")
        graphrag(env, "load", "files", str(target), "--corpus", corpus)
    graphrag(env, "extract", "--extractor", "ner")
    graphrag(env, "link", "phrases")
    graphrag(env, "link", "titles")
    graphrag(env, "communities", "build")


def graphrag(env: dict, *args: str, capture: bool = False) -> str:
    exe = Path(sys.executable).with_name("graphrag")
    done = subprocess.run([str(exe), *args], env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"graphrag {' '.join(args)} failed: {done.stderr.strip()[-2000:]}")
    return done.stdout


def add_key(env: dict, name: str, *corpora: str) -> str:
    scope = [arg for corpus in corpora for arg in ("--corpus", corpus)]
    made = json.loads(graphrag(env, "keys", "add", name, *scope, "--read", "--rpm", "0", "--json"))
    return made["key"]


KEYS = {"alpha": ("alpha",), "alpha+gamma": ("alpha", "gamma"), "beta": ("beta",)}  # key name -> its corpora


def add_keys(env: dict) -> dict[str, str]:
    """A read key for each of KEYS, by name."""
    return {name: add_key(env, f"{name.replace('+', '-')}-reader", *corpora) for name, corpora in KEYS.items()}


def markers(graph) -> dict[str, str]:
    """What of `beta` must not reach a key of `alpha`: marker -> what it is."""
    found: dict[str, str] = {}
    alpha_words = words(" ".join(ALPHA.values()) + " ".join(GAMMA.values()))
    # capitalised words inside a sentence (a sentence's first word is capitalised anyway)
    sentences = re.split(r"[.!?]\s+|\n+", " ".join(BETA.values()))
    names = {w.lower() for s in sentences for w in re.findall(r"(?<=\s)[A-Z][a-z]{3,}", s)}
    for word in sorted((names | PLANTED) - alpha_words):
        found[word] = "a name or rare word only beta's text holds"
    for row in graph.read("bench/leaks_corpus_nodes", corpus="beta"):
        found[row["id"].lower()] = "a document id of beta"
        if row["title"]:
            found[row["title"].lower()] = "a document title of beta"
        for chunk in row["chunks"]:
            found[chunk.lower()] = "a chunk id of beta"
    for row in graph.read("bench/leaks_corpus_entities", corpus="beta"):
        if row["id"] and len(str(row["id"])) >= 6:
            found[str(row["id"]).lower()] = "an entity id only beta mentions"
        if row["name"] and len(words(row["name"]) - alpha_words) > 0:
            found[str(row["name"]).lower()] = "an entity name only beta mentions"
    for row in graph.read("bench/leaks_corpus_communities", corpus="beta"):
        found[f'"{row["id"]}"'.lower()] = "a community id with beta's members"
        if row["title"] and row["corpora"] == ["beta"]:
            found[row["title"].lower()] = "a community title of beta"
    return found


def probes(beta_ids: dict) -> list[dict]:
    """Every read request a key of alpha tries: face, method, path, body or query."""
    questions = [
        "Who is Oskar Trevanne?",
        "What did Hendrika Mossberg carve?",
        "What is kept beneath Lirabel Castle?",
        f"What happened in {SHARED}?",
        f"Who travelled to {SHARED}?",
        f"Which documents mention {SHARED}?",
        "How many people are named in the documents?",
        "Which people are mentioned?",
        "What are the main themes?",
        f"How is Oskar Trevanne related to {SHARED}?",
        "Who sold amber?",
    ]
    out: list[dict] = []
    for q in questions:
        out.append({"face": "/chat", "method": "POST", "path": "/chat", "json": {"question": q}})
    for mode in MODES:
        for q in (questions[0], questions[3]):
            out.append(
                {"face": f"/chat {mode}", "method": "POST", "path": "/chat", "json": {"question": q, "mode": mode}}
            )
    out.append(
        {
            "face": "/chat global",
            "method": "POST",
            "path": "/chat",
            "json": {"question": questions[8], "mode": "global"},
        }
    )
    for about in ("Oskar Trevanne", SHARED, beta_ids.get("entity", "")):
        out.append(
            {
                "face": "/chat --about",
                "method": "POST",
                "path": "/chat",
                "json": {"question": "Who was there?", "about": about},
            }
        )
    out.append(
        {"face": "/chat stream", "method": "POST", "path": "/chat", "json": {"question": questions[4], "stream": True}}
    )
    out.append(
        {
            "face": "/chat follow-up",
            "method": "POST",
            "path": "/chat",
            "json": {
                "question": "And what did he sell there?",
                "history": [{"question": questions[0], "answer": "I don't know.", "entities": ["Oskar Trevanne"]}],
            },
        }
    )
    out.append({"face": "/v1/models", "method": "GET", "path": "/v1/models"})
    for mode in ("hybrid", "graph"):
        for q in (questions[0], questions[4]):
            out.append(
                {
                    "face": "/v1/chat/completions",
                    "method": "POST",
                    "path": "/v1/chat/completions",
                    "json": {"model": f"graphrag-{mode}", "messages": [{"role": "user", "content": q}]},
                }
            )
    out.append(
        {
            "face": "/v1/chat/completions stream",
            "method": "POST",
            "path": "/v1/chat/completions",
            "json": {"model": "graphrag", "stream": True, "messages": [{"role": "user", "content": questions[1]}]},
        }
    )
    out += [
        {"face": "/documents", "method": "GET", "path": "/documents"},
        {"face": "/documents/{id}", "method": "GET", "path": f"/documents/{beta_ids['document']}"},
        {"face": "/communities", "method": "GET", "path": "/communities"},
        {"face": "/communities/{id}", "method": "GET", "path": f"/communities/{beta_ids['community']}"},
        {"face": "/communities/{id}", "method": "GET", "path": f"/communities/{beta_ids['mixed_community']}"},
        {"face": "/graph?id=", "method": "GET", "path": "/graph", "params": {"id": beta_ids["shared"], "limit": 50}},
        {"face": "/graph?id=", "method": "GET", "path": "/graph", "params": {"id": beta_ids["entity"]}},
        {"face": "/graph?id=", "method": "GET", "path": "/graph", "params": {"id": beta_ids["chunk"]}},
        {"face": "/graph?answer=", "method": "GET", "path": "/graph", "params": {"answer": "{beta_answer}"}},
        {
            "face": "/graph?answer=",
            "method": "GET",
            "path": "/graph",
            "params": {"answer": "{alpha_answer}", "limit": 50},
        },
        {"face": "/jobs", "method": "GET", "path": "/jobs"},
    ]
    tools = [
        ("ask", {"question": questions[0]}),
        ("ask", {"question": questions[5]}),
        ("ask", {"question": questions[8]}),
        ("ask", {"question": "Who was there?", "about": "Oskar Trevanne"}),
        ("search", {"query": questions[2]}),
        ("search", {"query": questions[4], "mode": "graph"}),
        ("get_document", {"document_id": beta_ids["document"]}),
        ("graph_neighbourhood", {"node_id": beta_ids["shared"], "limit": 50}),
        ("graph_neighbourhood", {"node_id": beta_ids["entity"]}),
        ("schema", {}),
        ("communities", {"level": 0}),
        ("communities", {"level": 1}),
        ("community_report", {"community_id": beta_ids["community"]}),
        ("community_report", {"community_id": beta_ids["mixed_community"]}),
    ]
    out += [mcp_probe(tool, arguments) for tool, arguments in tools]
    out.append(
        {
            "face": "MCP tools/list",
            "method": "POST",
            "path": "/mcp",
            "json": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        }
    )
    return out


def mcp_probe(tool: str, arguments: dict) -> dict:
    """The probe of one MCP tool call (JSON-RPC over POST /mcp)."""
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    return {"face": f"MCP {tool}", "method": "POST", "path": "/mcp", "json": call}


def beta_ids(graph) -> dict:
    """Ids a probe names: a beta document, chunk and entity, the shared place, beta's communities."""
    return graph.read_row("bench/leaks_probe_ids", corpus="beta", name="Trevanne", shared=SHARED)


def send(http, probe: dict, answers: dict):
    params = {
        k: (answers.get(v.strip("{}"), v) if isinstance(v, str) else v) for k, v in (probe.get("params") or {}).items()
    }
    headers = {"Accept": "application/json, text/event-stream"} if probe["path"] == "/mcp" else {}
    return http.request(probe["method"], probe["path"], json=probe.get("json"), params=params, headers=headers)


def leaks_in(text: str, request_text: str, found: dict[str, str]) -> list[str]:
    """The markers of beta a response holds; a marker the request itself holds does not count."""
    low, asked = text.lower(), request_text.lower()
    return [m for m in found if m in low and m not in asked and not all(w in words(asked) for w in words(m) or {m})]


def run_probes(url: str, alpha_key: str, beta_key: str, found: dict[str, str], ids: dict, llm=None) -> dict:
    """Every probe sent with alpha's key, and what of beta each answer holds; with `llm` (the
    bench's LLM server), also what of beta the prompts sent for alpha's key held."""
    import httpx

    answers = {}
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {beta_key}"}, timeout=180) as http:
        answers["beta_answer"] = (
            http.post("/chat", json={"question": "Who is Oskar Trevanne?"}).json().get("answer_id", "")
        )
    results = []
    first_prompt = len(llm.requests) if llm is not None else 0
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {alpha_key}"}, timeout=180) as http:
        answers["alpha_answer"] = (
            http.post("/chat", json={"question": f"Who travelled to {SHARED}?"}).json().get("answer_id", "")
        )
        for probe in probes(ids):
            request_text = probe["path"] + json.dumps(probe.get("json") or {}) + json.dumps(probe.get("params") or {})
            if probe["path"].endswith("/") or '""' in request_text:
                continue  # an id this graph does not have (no community mixes the corpora)
            response = send(http, probe, answers)
            hits = leaks_in(response.text, request_text, found)
            results.append(
                {
                    "face": probe["face"],
                    "status": response.status_code,
                    "leaks": hits,
                    # the face still answers from alpha: a broken face would leak nothing too
                    "alpha": sorted(w for w in ALPHA_NAMES if w in response.text.lower()),
                    "tool_error": '"isError":true' in response.text.replace(" ", ""),
                    "request": probe,
                }
            )
    if llm is not None:
        asked = " ".join(json.dumps(p.get("json") or {}) for p in probes(ids))  # the questions are in prompts
        for request in llm.requests[first_prompt:]:
            text = json.dumps(request, ensure_ascii=False)
            results.append(
                {
                    "face": "LLM prompts",
                    "status": 200,
                    "leaks": leaks_in(text, asked, found),
                    "alpha": sorted(w for w in ALPHA_NAMES if w in text.lower()),
                    "tool_error": False,
                    "request": {},
                }
            )
    return {"answers": answers, "results": results}


def summary(results: list[dict]) -> dict[str, dict]:
    """Per face: probes sent, beta's markers found in the answers, answers that show alpha."""
    by_face: dict[str, dict] = {}
    for r in results:
        row = by_face.setdefault(r["face"], {"probes": 0, "leaks": 0, "alpha": 0, "refused": 0})
        row["probes"] += 1
        row["leaks"] += len(r["leaks"])
        row["alpha"] += bool(r["alpha"])
        row["refused"] += r["status"] >= 400 or r["tool_error"]
    return by_face


def load_scale(env: dict) -> list[str]:
    """--scale: MuSiQue's corpus into alpha and HotpotQA's into beta (with their NER entities and
    shared phrases), so that scope is timed where entities have many chunks; MuSiQue's questions."""
    from bench.common import data_dir

    qa = data_dir() / "qa"
    for corpus, name in (("alpha", "musique_train_corpus.json"), ("beta", "hotpotqa_train_corpus.json")):
        if not (qa / name).is_file():
            raise SystemExit(f"--scale needs {qa / name} (the shared data's qa/ folder; GRAPHRAG_DATA_DIR)")
        graphrag(env, "load", "qa-corpus", str(qa / name), "--corpus", corpus)
        graphrag(env, "extract", "--extractor", "ner", "--corpus", corpus)
    graphrag(env, "link", "phrases")
    return [q["question"] for q in json.loads((qa / "musique_train.json").read_text(encoding="utf-8"))]


def timed(url: str, keys: dict[str, str], admin: str, rounds: int, questions: list[str] | None = None) -> dict:
    """p50 of the same asks (no LLM) with alpha's scoped key and with the admin key naming corpus
    alpha (unscoped: no $scope), side by side, alternating, after one warm-up round each."""
    import statistics

    import httpx

    questions = questions or [
        f"Who travelled to {SHARED}?",
        "Who kept the lamps of Veyra?",
        "What did Pieter Vandamme sell?",
    ]
    clients = {
        "scoped": (httpx.Client(base_url=url, headers={"Authorization": f"Bearer {keys['alpha']}"}, timeout=180), {}),
        "unscoped": (
            httpx.Client(base_url=url, headers={"Authorization": f"Bearer {admin}"}, timeout=180),
            {"corpus": "alpha"},
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in clients}
    for round_ in range(rounds + 1):
        for q in questions:
            for mode in ("graph", "hybrid"):
                for name, (http, extra) in clients.items():
                    started = time.perf_counter()
                    response = http.post("/chat", json={"question": q, "mode": mode, "llm": False, **extra})
                    response.raise_for_status()
                    if round_:  # the first round warms both up
                        times[name].append((time.perf_counter() - started) * 1000)
    for http, _ in clients.values():
        http.close()
    p50 = {name: round(statistics.median(values), 1) for name, values in times.items()}
    return {"asks": len(times["scoped"]), "p50_ms": p50, "ratio": round(p50["scoped"] / p50["unscoped"], 3)}


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--llm/--no-llm", default=True, help="Answer with the bench's echoing LLM (its prompt is searched).")
@click.option("--rounds", default=10, show_default=True, help="Rounds of the scoped/unscoped timing.")
@click.option(
    "--scale",
    is_flag=True,
    help="Time scope on MuSiQue's corpus (alpha) beside HotpotQA's (beta), with their NER entities, "
    "over MuSiQue's questions (one round); the shared data's qa/ folder.",
)
def main(as_json: bool, llm: bool, rounds: int, scale: bool) -> None:
    """Leaks of corpus beta to a key of alpha (and to a key of alpha and gamma) on every read face of
    `graphrag serve`, and the p50 of an ask with a scoped key against an unscoped one."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench.common import bench_neo4j, free_port, graphrag_env

    with bench_neo4j() as (settings, graph), tempfile.TemporaryDirectory() as tmp:
        env = graphrag_env(settings)
        t0 = time.monotonic()
        build(env, Path(tmp))
        keys = add_keys(env)
        found, ids = markers(graph), beta_ids(graph)
        server = serve(env, Path(tmp), free_port(), llm)
        try:
            reports = {
                name: run_probes(server["url"], keys[name], keys["beta"], found, ids, server.get("llm"))
                for name in ("alpha", "alpha+gamma")
            }
            timing = timed(server["url"], keys, server["admin"], rounds) if rounds else None
            if scale:
                questions = load_scale(env)
                timing = {"world": timing, "scale": timed(server["url"], keys, server["admin"], 1, questions)}
        finally:
            server["process"].terminate()
            server["process"].wait(timeout=30)
            if server.get("llm"):
                server["llm"].close()
        report = {
            "markers": len(found),
            "ids": ids,
            "seconds": round(time.monotonic() - t0, 1),
            "keys": {name: {"by_face": summary(r["results"]), "results": r["results"]} for name, r in reports.items()},
            "timing": timing,
        }
        if as_json:
            print(json.dumps(report, indent=2, default=str))
            return
        print_report(report)


def print_report(report: dict) -> None:
    names = list(report["keys"])
    probes = sum(len(k["results"]) for k in report["keys"].values())
    print(f"{probes} probes with {len(names)} keys, {report['markers']} markers of beta, {report['seconds']} s")
    head = "".join(f" {'leaks ' + n:>18} {'alpha':>6} {'refused':>8}" for n in names)
    print(f"{'face':30} {'probes':>6}{head}")
    faces = dict.fromkeys(f for k in report["keys"].values() for f in k["by_face"])
    for face in faces:
        rows = [
            report["keys"][n]["by_face"].get(face, {"probes": 0, "leaks": 0, "alpha": 0, "refused": 0}) for n in names
        ]
        cells = "".join(f" {r['leaks']:>18} {r['alpha']:>6} {r['refused']:>8}" for r in rows)
        print(f"{face:30} {rows[0]['probes']:>6}{cells}")
    totals = ""
    for n in names:
        by = report["keys"][n]["by_face"].values()
        totals += (
            f" {sum(r['leaks'] for r in by):>18} {sum(r['alpha'] for r in by):>6} {sum(r['refused'] for r in by):>8}"
        )
    print(f"{'total':30} {len(report['keys'][names[0]]['results']):>6}{totals}")
    print("alpha: answers that show alpha's names; refused: 4xx, or an MCP tool error (no leak, no answer)")
    for n in names:
        for r in report["keys"][n]["results"]:
            if r["leaks"]:
                print(f"  leak to key {n} on {r['face']} ({r['status']}): {', '.join(r['leaks'][:6])}")
    timings = report["timing"] or {}
    for where, t in timings.items() if "scale" in timings else [("world", timings)] if timings else []:
        print(
            f"ask p50 ({where}) over {t['asks']} asks each (graph and hybrid, no LLM): scoped key "
            f"{t['p50_ms']['scoped']} ms, unscoped (admin key, corpus alpha) {t['p50_ms']['unscoped']} ms: "
            f"ratio {t['ratio']}"
        )


def echo_prompt(body: dict) -> str:
    """The bench LLM: its answer is the whole prompt, so a context of beta shows in the answer."""
    return "\n".join(str(m.get("content")) for m in body.get("messages") or [])


def serve(env: dict, tmp: Path, port: int, llm: bool) -> dict:
    import httpx

    admin = "leaks-admin-" + os.urandom(8).hex()
    env = dict(env, GRAPHRAG_API_KEY=admin)
    server: dict = {"url": f"http://127.0.0.1:{port}", "admin": admin}
    if llm:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from tests.llm_server import LLMServer

        server["llm"] = LLMServer(echo_prompt)
        env.update(OPENAI_BASE_URL=server["llm"].url, OPENAI_API_KEY="bench", GRAPHRAG_LLM_MODEL="bench-echo")
    exe = Path(sys.executable).with_name("graphrag")
    server["process"] = subprocess.Popen(
        [str(exe), "serve", "--port", str(port)],
        env=env,
        cwd=tmp,
        stdout=(tmp / "serve.log").open("w"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(server["url"] + "/health/live", timeout=2).status_code in (200, 401):
                return server
        except httpx.HTTPError:
            time.sleep(0.3)
    server["process"].kill()
    raise SystemExit("graphrag serve did not start")


if __name__ == "__main__":
    main()
