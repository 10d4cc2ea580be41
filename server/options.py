"""How the server is started: its options, and the checks that refuse an exposed graph."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from graphrag_cypher.errors import GraphragError

API_KEY_ENV = "GRAPHRAG_API_KEY"
MIN_KEY_LENGTH = 16


@dataclass
class ServerOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    api_key: str | None = None
    cors_origins: tuple[str, ...] = ()
    allowed_paths: tuple[str, ...] = ()  # server-side folders POST /crawl may learn from
    max_body: int = 1_000_000  # bytes of a JSON request
    max_upload: int = 20_000_000  # bytes of one upload request (all files)
    use_llm: bool = True
    mcp_writes: bool = False  # the MCP `learn` tool (also needs the key over HTTP)
    open_reads: bool = False  # with keys stored: reads need no key (a public demo); writes still do
    # whether `graphrag keys add` made a key: then every request needs one (seen at start, and by
    # the guard every few seconds)
    keys_stored: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def writes_enabled(self) -> bool:
        """Whether any request can write: with GRAPHRAG_API_KEY, or keys stored (a --write key)."""
        return bool(self.api_key) or self.keys_stored


def is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


ANY_ORIGIN = ("*", "null")  # CORS origins that let every site's pages call the server


def check_options(options: ServerOptions) -> None:
    """Refuse what would expose the graph: another host without a key, a key that cannot be
    sent back (surrounding whitespace) or is short, every site's pages allowed without a key."""
    if options.api_key is not None and options.api_key != options.api_key.strip():
        raise GraphragError(
            f"{API_KEY_ENV} starts or ends with whitespace, which no client can send back: remove it "
            "(e.g. python -c 'import secrets; print(secrets.token_urlsafe(24))' makes one)"
        )
    if options.api_key is not None and len(options.api_key) < MIN_KEY_LENGTH:
        raise GraphragError(
            f"{API_KEY_ENV} is too short: use at least {MIN_KEY_LENGTH} random characters, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(24))'"
        )
    if not is_loopback(options.host) and not options.api_key:
        raise GraphragError(
            f"--host {options.host} is reachable from other machines: set {API_KEY_ENV} (the admin "
            "bearer key; keys from `graphrag keys add` then work too), or serve on 127.0.0.1"
        )
    wildcard = next((o for o in options.cors_origins if o.strip().lower() in ANY_ORIGIN), None)
    if wildcard is not None and not options.api_key:
        raise GraphragError(
            f"--cors-origin {wildcard!r} lets any website read this graph from its visitors' browsers: "
            f"name the origins (--cors-origin https://app.example.org), or set {API_KEY_ENV}"
        )


def warnings(options: ServerOptions) -> list[str]:
    """What is allowed but worth a line at start."""
    lines = []
    if options.open_reads and not options.writes_enabled:
        lines.append("note: --open-reads changes nothing here: no key is stored and GRAPHRAG_API_KEY is not set")
    elif options.open_reads:
        lines.append(
            "warning: --open-reads: anyone who reaches this server reads every corpus without a key "
            "(writes still need a --write key)"
        )
    wildcard = next((o for o in options.cors_origins if o.strip().lower() in ANY_ORIGIN), None)
    if wildcard is not None:
        lines.append(
            f"warning: --cors-origin '{wildcard}' lets every website's pages call this server; they still "
            f"need {API_KEY_ENV}, so never put the key in a page"
        )
    return lines
