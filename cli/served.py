"""A running `graphrag serve` found and asked: the state file it leaves, and the client `ask` uses.

`graphrag serve` writes ``.graphrag/serve.json`` (mode 0600) in the folder it runs from, as
`.env` and the local Neo4j's home are found there: its URL, pid, the Neo4j URI and database
it serves, the graphrag version and a random instance id that its ``GET /health`` repeats.
It removes the file when it stops. `graphrag ask` answers through that server when the pid is
alive, the URI and database are the ask's own, and ``/health`` answers quickly with the same
instance; otherwise it answers directly.

Only the standard library is imported here (no driver, no numpy, no retrieval): a served ask
is a small HTTP request, so its start-up is the interpreter and click.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from graphrag_cypher.config import MAX_QUESTION

STATE_FILE = Path(".graphrag") / "serve.json"
API_KEY_ENV = "GRAPHRAG_API_KEY"  # the server package names it too (not imported here: it is heavy)
HEALTH_TIMEOUT = 1.0  # seconds: a server that is slower to say it is there is not used
ANSWER_TIMEOUT = 600.0
# what POST /chat adds to the answer for the page; `graphrag ask --json` has none of it
SERVER_ONLY_KEYS = ("said", "standalone", "answer_id")


class ServerProblem(Exception):
    """A server that cannot answer: why, in one line."""


@dataclass
class Server:
    url: str
    key: str | None
    health: dict
    health_ms: float

    @property
    def headers(self) -> dict:
        return {"Authorization": f"Bearer {self.key}"} if self.key else {}


# --- the state file (written by `graphrag serve`) ----------------------------------------------


def state_path() -> Path:
    return Path.cwd() / STATE_FILE


def local_url(host: str, port: int) -> str:
    """The URL a client on this machine uses: a wildcard address is reached on loopback."""
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def write_state(url: str, settings, version: str, instance: str) -> Path:
    """The state file for this process, 0600 from its first byte, replaced atomically."""
    path = state_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    data = {
        "url": url,
        "pid": os.getpid(),
        "instance": instance,
        "neo4j_uri": settings.neo4j_uri,
        "neo4j_database": settings.neo4j_database,
        "version": version,
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=2)
    os.replace(temp, path)
    return path


def remove_state(path: Path, instance: str) -> None:
    """Remove the state file if it is still this server's (another one may have replaced it)."""
    try:
        if json.loads(path.read_text()).get("instance") == instance:
            path.unlink()
    except (OSError, ValueError):
        pass


def _pid_alive(pid) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


# --- choosing: a forced server, the discovered one, or none -------------------------------------


def choose(settings, server: str | None, direct: bool, version: str, note) -> Server | None:
    """The server to ask, or None to answer directly. `server` is --server / GRAPHRAG_SERVER
    ("none" = direct); a forced server that cannot answer raises ServerProblem. A discovered one
    that cannot is skipped with one `note` line; no state file, no note."""
    if direct or (server or "").strip().lower() == "none":
        return None
    key = os.environ.get(API_KEY_ENV) or None
    if server:
        url = server.strip().rstrip("/")
        if not url.lower().startswith(("http://", "https://")):
            raise ServerProblem(f"--server {server!r} is not an http(s) URL, e.g. http://127.0.0.1:8000")
        return connect(url, key, version)
    path = state_path()
    if not path.is_file():
        return None
    why, found = _usable_state(path, settings, key, version)
    if why:
        note(f"not using the graphrag server in {STATE_FILE}: {why}; answering directly")
    return found


def _usable_state(path: Path, settings, key: str | None, version: str) -> tuple[str | None, Server | None]:
    try:
        state = json.loads(path.read_text())
        url = state["url"]
    except (OSError, ValueError, KeyError, TypeError):
        return "the file is not readable JSON with a url", None
    if not _pid_alive(state.get("pid")):
        return f"its process {state.get('pid')} is not running (a stale file)", None
    theirs = (state.get("neo4j_uri"), state.get("neo4j_database"))
    ours = (settings.neo4j_uri, settings.neo4j_database)
    if theirs != ours:
        return f"it serves {theirs[0]} database {theirs[1]}, this ask uses {ours[0]} database {ours[1]}", None
    try:
        found = connect(url, key, version)
    except ServerProblem as exc:
        return str(exc), None
    if found.health.get("instance") != state.get("instance"):
        return f"{url} is another server than the one that wrote the file", None
    return None, found


def connect(url: str, key: str | None, version: str) -> Server:
    """A quick GET /health/live: the server is there, and which (version, instance); no database
    call, so it costs a millisecond (a server whose Neo4j has gone answers the question with a
    one-line error)."""
    started = time.perf_counter()
    status, body = _request("GET", url + "/health/live", key, timeout=HEALTH_TIMEOUT)
    health_ms = (time.perf_counter() - started) * 1000
    if status == 401:
        raise ServerProblem(f"{url} needs an API key: set {API_KEY_ENV} to the server's key")
    if status != 200 or not isinstance(body, dict):
        why = body.get("error") or body.get("status") if isinstance(body, dict) else None
        raise ServerProblem(f"{url}/health/live answered {status}" + (f" ({why})" if why else ""))
    if body.get("version") != version:
        raise ServerProblem(f"{url} runs graphrag {body.get('version')}, this is {version}")
    return Server(url, key, body, health_ms)


def servable(question: str) -> bool:
    """Whether POST /chat takes this question (it refuses very long ones and `learn:` requests)."""
    return len(question) <= MAX_QUESTION and not question.strip().lower().startswith("learn:")


# --- asking -----------------------------------------------------------------------------------


def ask(server: Server, body: dict, on_token=None) -> dict:
    """POST /chat: the answer dict as the server made it; with `on_token`, streamed (SSE) and each
    checked piece passed on as it arrives. A refused or failed question raises ServerProblem
    with the server's one-line message."""
    if on_token is None:
        status, result = _request("POST", server.url + "/chat", server.key, dict(body, stream=False), ANSWER_TIMEOUT)
        if status != 200 or not isinstance(result, dict):
            raise ServerProblem(_error_text(status, result))
        return result
    return _ask_streamed(server, dict(body, stream=True), on_token)


def _ask_streamed(server: Server, body: dict, on_token) -> dict:
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream", **server.headers}
    result: dict | None = None
    try:
        response = _send("POST", server.url + "/chat", headers, json.dumps(body).encode(), ANSWER_TIMEOUT)
        if response.status != 200:
            raise ServerProblem(_error_text(response.status, _json(response.read())))
        for event, data in _events(response):
            if event == "token":
                on_token(data.get("text", ""))
            elif event == "answer":
                result = data
            elif event == "error":
                raise ServerProblem(data.get("error") or "the server failed to answer")
            elif event == "done":
                break
    except (OSError, ValueError) as exc:
        _forget_connection(server.url)
        raise ServerProblem(f"{server.url} stopped answering: {exc}") from None
    if result is None:
        raise ServerProblem(f"{server.url} ended the stream without an answer")
    return result


def _events(response):
    """(event, data as JSON) of a server-sent-events stream, as the events arrive."""
    event, data = "message", []
    for raw in response:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif not line and data:
            yield event, json.loads("\n".join(data))
            event, data = "message", []


def _request(method: str, url: str, key: str | None, body: dict | None = None, timeout: float = 10.0):
    """(status, JSON body) of one request; a server that is not there raises ServerProblem."""
    headers = {"Accept": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    try:
        response = _send(method, url, headers, data, timeout)
        return response.status, _json(response.read())
    except (OSError, ValueError) as exc:  # refused, timed out, not HTTP
        _forget_connection(url)
        reason = getattr(exc, "strerror", None) or exc  # "Connection refused", not "[Errno 111] ..."
        raise ServerProblem(f"no graphrag server answers at {_base(url)} ({reason})") from None


# One kept-alive connection per server: the liveness check and the question share it, so a
# served ask opens one TCP connection (http.client, lighter to import than urllib.request).
_CONNECTIONS: dict[tuple[str, str, int | None], object] = {}


def _send(method: str, url: str, headers: dict, data: bytes | None, timeout: float):
    """The response (status, headers, a readable body) of one request on the server's connection;
    a kept connection the server has closed meanwhile is opened again once."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url}")
    key = (parts.scheme, parts.hostname, parts.port)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    for attempt in (1, 2):
        connection = _CONNECTIONS.get(key)
        reused = connection is not None
        if connection is None:
            kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
            connection = _CONNECTIONS[key] = kind(parts.hostname, parts.port, timeout=timeout)
        connection.timeout = timeout  # type: ignore[attr-defined]
        if getattr(connection, "sock", None) is not None:
            connection.sock.settimeout(timeout)  # type: ignore[attr-defined]
        try:
            connection.request(method, path, body=data, headers=headers)  # type: ignore[attr-defined]
            return connection.getresponse()  # type: ignore[attr-defined]
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            _forget_connection(url)
            if not reused or attempt == 2:
                raise
    raise AssertionError("unreachable")


def _forget_connection(url: str) -> None:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = _CONNECTIONS.pop((parts.scheme, parts.hostname or "", parts.port), None)
    if connection is not None:
        connection.close()  # type: ignore[attr-defined]


def _json(raw: bytes):
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _error_text(status: int, body) -> str:
    message = body.get("error") if isinstance(body, dict) else None
    return message if isinstance(message, str) and message else f"the server answered {status}"


def as_ask_json(result: dict, question: str, server: Server) -> dict:
    """The server's answer as `graphrag ask --json` prints it, plus `served_by`. Its timings are
    the server's (total_ms is the question's work there); connect_ms is the health check here,
    and no model was loaded for this question."""
    out = {k: v for k, v in result.items() if k not in SERVER_ONLY_KEYS}
    out["question"] = question
    timings = dict(out.get("timings_ms") or {})
    timings.update(connect_ms=round(server.health_ms, 1), embedder_load_ms=0.0)
    out["timings_ms"] = timings
    out["query_embedder"] = server.health.get("query_embedder")
    out["served_by"] = server.url
    return out


def _base(url: str) -> str:
    """The server's URL without the endpoint a request went to (``…/health/live`` → ``…``)."""
    for endpoint in ("/health/live", "/health", "/chat"):
        if url.endswith(endpoint):
            return url[: -len(endpoint)]
    return url
