"""Neo4j gone: `graphrag serve` says so in one line within a few seconds, and /health never waits.

`graphrag serve` talks to the session's Neo4j through a TCP relay on 127.0.0.1 that this test
can cut in two ways: *refused* (nothing listens: Neo4j stopped) and *silent* (connections are
accepted and never answered: a host that hangs, a server half-way through a restart). Before
this was bounded, /chat answered 503 after 32 s, /documents after 33 s, /health after 16 s
and hung while Neo4j restarted; a stream sent its error after 30 s.
"""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest

from ..e2e.serve.conftest import load_sample, sse_events, start_server, stop_server

pytestmark = pytest.mark.e2e

# A question, /documents or a stream may take the configured timeout (3 s) plus one retry;
# /health answers within 2 s. The bounds leave room for a busy two-core machine.
FAST = 8.0
HEALTH = 4.0


class Relay:
    """A TCP relay to `target` that can be switched to 'open', 'refused' or 'silent'."""

    def __init__(self, target: tuple[str, int]):
        self.target, self.mode = target, "open"
        self._pairs: list[socket.socket] = []
        self._lock = threading.Lock()
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self._listen()

    def _listen(self) -> None:
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", self.port))
        self._server.listen(64)
        threading.Thread(target=self._accept, args=(self._server,), daemon=True).start()

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            with self._lock:
                self._pairs.append(client)
                if self.mode == "silent":
                    continue  # held open, never answered
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._pairs.append(upstream)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _drop_connections(self) -> None:
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for s in pairs:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def set(self, mode: str) -> None:
        self._drop_connections()
        if mode == "refused" and self.mode != "refused":
            try:  # wakes the thread blocked in accept(), which close() alone would not
                self._server.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._server.close()
        elif mode != "refused" and self.mode == "refused":
            self._listen()
        self.mode = mode

    def close(self) -> None:
        self.set("refused")


@pytest.fixture(scope="module")
def relayed(neo4j_server, tmp_path_factory):
    load_sample(neo4j_server)
    host_port = neo4j_server.uri.rsplit("//", 1)[1]
    host, port = host_port.rsplit(":", 1)
    relay = Relay((host, int(port)))
    tmp = tmp_path_factory.mktemp("down")
    served = start_server(
        neo4j_server, tmp, None, None, "--no-llm", env_extra={"NEO4J_URI": f"bolt://127.0.0.1:{relay.port}"}
    )
    try:
        yield served, relay
    finally:
        stop_server(served)
        relay.close()


def timed(call):
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


def wait_healthy(served, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if httpx.get(served.url + "/health", timeout=10).status_code == 200:
            return
        time.sleep(0.5)
    raise AssertionError("the server did not become healthy again")


def check_down(served) -> dict:
    """Every face answers a one-line 503 quickly; returns the seconds each took."""
    took = {}
    with httpx.Client(base_url=served.url, timeout=60) as client:
        health, took["health"] = timed(lambda: client.get("/health"))
        assert health.status_code == 503 and health.json()["neo4j"] == "unreachable", health.text
        assert "\n" not in health.json()["error"]
        chat, took["chat"] = timed(lambda: client.post("/chat", json={"question": "Who made the silver lantern?"}))
        assert chat.status_code == 503, chat.text
        assert "Neo4j" in chat.json()["error"] and "\n" not in chat.json()["error"]
        documents, took["documents"] = timed(lambda: client.get("/documents"))
        assert documents.status_code == 503, documents.text

        def stream():
            with client.stream(
                "POST", "/chat", json={"question": "Who stole the lantern?"}, headers={"Accept": "text/event-stream"}
            ) as response:
                return sse_events(response)

        events, took["stream"] = timed(stream)
        errors = [data for name, data in events if name == "error"]
        assert errors and errors[0]["status"] == 503, events
        again, took["health again"] = timed(lambda: client.get("/health"))
        assert again.status_code == 503
    return took


@pytest.mark.parametrize("mode", ["refused", "silent"])
def test_neo4j_gone_is_a_quick_503_on_every_face(relayed, mode):
    served, relay = relayed
    wait_healthy(served)
    assert httpx.post(served.url + "/chat", json={"question": "Who made the silver lantern?"}, timeout=60).is_success
    relay.set(mode)
    try:
        took = check_down(served)
    finally:
        relay.set("open")
    print(f"Neo4j {mode}: " + ", ".join(f"{face} {s:.1f} s" for face, s in took.items()))
    slow = {face: round(s, 1) for face, s in took.items() if s > (HEALTH if face.startswith("health") else FAST)}
    assert not slow, f"Neo4j {mode}: answers took {took}"
    # and it recovers by itself once Neo4j is back
    wait_healthy(served, 30)
    assert httpx.post(served.url + "/chat", json={"question": "Who made the silver lantern?"}, timeout=60).is_success


def test_health_checks_of_a_hung_server_do_not_pile_up(relayed):
    """Twenty health checks at once against a silent Neo4j all answer within the bound."""
    served, relay = relayed
    wait_healthy(served)
    relay.set("silent")
    try:
        results: list[tuple[int, float]] = []

        def one():
            response, seconds = timed(lambda: httpx.get(served.url + "/health", timeout=60))
            results.append((response.status_code, seconds))

        threads = [threading.Thread(target=one) for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        relay.set("open")
    assert all(status == 503 for status, _ in results), results
    assert max(seconds for _, seconds in results) < HEALTH, results
    wait_healthy(served, 30)
