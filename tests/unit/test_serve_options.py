"""`graphrag serve`'s safety rules that need no graph: loopback by default, a key elsewhere."""

import pytest

from graphrag_cypher.errors import GraphragError
from graphrag_cypher.server.options import ServerOptions, check_options, is_loopback


@pytest.mark.parametrize(
    "host, loopback",
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("127.0.0.2", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.org", False),
    ],
)
def test_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_another_host_needs_a_key():
    with pytest.raises(GraphragError, match="GRAPHRAG_API_KEY"):
        check_options(ServerOptions(host="0.0.0.0"))
    check_options(ServerOptions(host="0.0.0.0", api_key="k" * 24))
    check_options(ServerOptions(host="127.0.0.1"))


def test_a_short_key_is_refused():
    with pytest.raises(GraphragError, match="too short"):
        check_options(ServerOptions(host="127.0.0.1", api_key="secret"))


def test_writes_need_a_key():
    assert ServerOptions().writes_enabled is False and ServerOptions(api_key="k" * 24).writes_enabled is True


def test_serve_refuses_an_open_host_before_connecting(run_cli, monkeypatch):
    monkeypatch.delenv("GRAPHRAG_API_KEY", raising=False)
    result = run_cli("serve", "--host", "0.0.0.0")
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "GRAPHRAG_API_KEY" in lines[0] and "Traceback" not in result.output


def test_the_server_package_is_imported_only_by_its_command():
    """Nothing below the server imports it; of the CLI, only cli/serve.py does."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    import tomllib

    folders = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-dir"]
    for part, folder in folders.items():
        if part.endswith(".server"):
            continue
        for path in (root / folder).rglob("*.py"):
            if path.name == "serve.py":
                continue
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"graphrag_cypher\.server|from \.server|from \.\.server", text), path


@pytest.mark.parametrize(
    "host, ok",
    [
        ("127.0.0.1:8000", True),
        ("localhost", True),
        ("[::1]:8000", True),
        ("evil.example:8000", False),
        ("evil.example", False),
        ("", False),
    ],
)
def test_loopback_host_header(host, ok):
    from graphrag_cypher.server.guard import loopback_host as _loopback_host

    assert _loopback_host(host) is ok


def test_accepted_connections_do_not_wait_for_delayed_acks():
    """`graphrag serve` binds its socket through uvicorn (proto 0, so asyncio leaves Nagle on);
    TCP_NODELAY set on it reaches every connection it accepts."""
    import socket

    import uvicorn

    from graphrag_cypher.cli.serve import _no_delay

    listener = uvicorn.Config(app=None, host="127.0.0.1", port=0).bind_socket()
    try:
        listener.listen(1)
        assert listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0  # why the fix is needed
        _no_delay(listener)
        client = socket.create_connection(listener.getsockname()[:2])
        accepted, _ = listener.accept()
        try:
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        finally:
            accepted.close()
            client.close()
    finally:
        listener.close()
