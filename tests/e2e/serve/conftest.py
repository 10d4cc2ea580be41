"""A running `graphrag serve` (a subprocess on a free port) on the session's Neo4j with the
bundled sample, an API key, and a scripted OpenAI-compatible LLM on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from ...conftest import free_port, graphrag_exe, load_sample_graph
from ...llm_server import LLMServer

KEY = "test-key-0123456789abcdef"
FORGED = "[FAKE9]"
MARKUP = '<img src=x onerror="document.body.dataset.pwned=1">'


def llm_reply(body: dict) -> str:
    """Rewrites follow-ups; answers cite the first source of the context, plus a forged id and markup."""
    first = body["messages"][0]["content"]
    if first.startswith("Rewrite the user's last message"):
        return "Who stole the silver lantern?"
    context = body["messages"][-1]["content"]
    cite = context.split("[", 1)[1].split("]", 1)[0]
    return f"Old Maren made the lantern [{cite}]. Some say {MARKUP} {FORGED} otherwise."


class Served:
    def __init__(self, url: str, key: str | None, neo4j, process, llm=None, log: Path | None = None):
        self.url, self.key, self.neo4j, self.process, self.llm, self.log = url, key, neo4j, process, llm, log

    @property
    def headers(self) -> dict:
        return {"Authorization": f"Bearer {self.key}"} if self.key else {}

    def client(self, **kw) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers=self.headers, timeout=120, **kw)


def start_server(
    neo4j_server, tmp: Path, key: str | None, llm: LLMServer | None = None, *args: str, env_extra: dict | None = None
) -> Served:
    port = free_port()
    env = dict(os.environ, **neo4j_server.env(), GRAPHRAG_ENV_FILE=str(tmp / "no.env"))
    for name in ("GRAPHRAG_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "GRAPHRAG_LLM_MODEL"):
        env.pop(name, None)
    if key:
        env["GRAPHRAG_API_KEY"] = key
    if llm:
        env.update(OPENAI_BASE_URL=llm.url, OPENAI_API_KEY="test", GRAPHRAG_LLM_MODEL="test-model")
    env.update(env_extra or {})
    log = tmp / f"serve-{port}.log"
    process = subprocess.Popen(
        [graphrag_exe(), "serve", "--port", str(port), *args],
        env=env,
        cwd=tmp,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"graphrag serve exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(url + "/health", headers=headers, timeout=2).status_code in (200, 503):
                return Served(url, key, neo4j_server, process, llm, log)
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    process.kill()
    raise AssertionError(f"graphrag serve did not answer in time: {log.read_text()[-2000:]}")


def stop_server(served: Served) -> None:
    served.process.terminate()
    try:
        served.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        served.process.kill()
        served.process.wait()


def load_sample(neo4j_server) -> None:
    load_sample_graph(neo4j_server, ["load", "sample"], ["link", "phrases"])


@pytest.fixture(scope="module")
def served(neo4j_server, tmp_path_factory):
    """`graphrag serve` with a key, the LLM fake, the sample loaded and one folder it may learn from."""
    load_sample(neo4j_server)
    tmp = tmp_path_factory.mktemp("serve")
    (tmp / "allowed").mkdir()
    llm = LLMServer(llm_reply)
    # the test sites are on 127.0.0.1: this server's crawls opt in to local addresses
    served = start_server(
        neo4j_server, tmp, KEY, llm, "--allow-path", str(tmp / "allowed"), "--mcp-writes", "--crawl-allow-local"
    )
    served.tmp = tmp
    yield served
    stop_server(served)
    llm.close()


def sse_events(response) -> list[tuple[str, dict | str]]:
    """(event, data) pairs of a server-sent-events response, data parsed as JSON when it is."""
    import json

    events, event, data = [], "message", []
    for line in response.iter_lines():
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line == "" and data:
            text = "\n".join(data)
            try:
                events.append((event, json.loads(text)))
            except ValueError:
                events.append((event, text))
            event, data = "message", []
    return events
