"""The web search's settings, from the environment or `.env`, with the domain blocklist."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from graphrag_cypher.errors import GraphragError

from .search import (
    BRAVE_URL,
    DEFAULT_TIMEOUT,
    MAX_RESULTS,
    PROVIDERS,
    BraveProvider,
    SearchProvider,
    SearxngProvider,
)

ENV_NAMES = (
    "GRAPHRAG_WEB_SEARCH",
    "GRAPHRAG_SEARXNG_URL",
    "GRAPHRAG_BRAVE_API_KEY",
    "GRAPHRAG_BRAVE_URL",
    "GRAPHRAG_WEB_BLOCKLIST",
    "GRAPHRAG_WEB_BLOCKLIST_FILE",
    "GRAPHRAG_WEB_RESULTS",
    "GRAPHRAG_WEB_TIMEOUT",
    "GRAPHRAG_WEB_DELAY",
    "GRAPHRAG_WEB_CORPUS",
    "GRAPHRAG_WEB_ALLOW_LOCAL",
)
DEFAULT_RESULTS = 5
DEFAULT_DELAY = 0.5  # seconds between two requests to the same host
DEFAULT_CORPUS = "web"


# -- the blocklist ----------------------------------------------------------------------------


def _domain(entry: str) -> str | None:
    """A blocklist entry as a host name: URLs give their host; "*.x" and ".x" mean x."""
    entry = entry.strip().lower()
    if not entry or entry.startswith("#"):
        return None
    if "://" in entry:
        entry = urlsplit(entry).hostname or ""
    else:
        entry = entry.split("/", 1)[0]
        if entry.startswith("[") and "]" in entry:
            entry = entry[1 : entry.index("]")]
        elif entry.count(":") == 1:
            entry = entry.split(":", 1)[0]  # a port is not part of a domain
    entry = entry.removeprefix("*.").lstrip(".").rstrip(".")
    return entry or None


class Blocklist:
    """Domains never fetched nor cited; a domain blocks its subdomains (`example.com` blocks
    `news.example.com`, not `badexample.com`). IP addresses match themselves only."""

    def __init__(self, domains: Iterable[str] = ()):
        self.domains = frozenset(d for d in (_domain(x) for x in domains) if d)

    @classmethod
    def from_env(cls, environ: dict | None = None) -> Blocklist:
        env = (environ if environ is not None else os.environ).get
        entries = [x for x in (env("GRAPHRAG_WEB_BLOCKLIST") or "").split(",")]
        path = env("GRAPHRAG_WEB_BLOCKLIST_FILE")
        if path:
            try:
                entries += Path(path).expanduser().read_text("utf-8").splitlines()
            except OSError as exc:
                raise GraphragError(f"GRAPHRAG_WEB_BLOCKLIST_FILE {path}: {exc.strerror or exc}") from None
        return cls(e.split("#", 1)[0] for e in entries)

    def match(self, url: str) -> str | None:
        """The blocklist entry that blocks `url`'s host, or None."""
        try:
            host = (urlsplit(url).hostname or "").lower().rstrip(".")
        except ValueError:
            return None
        if not host:
            return None
        if host in self.domains:
            return host
        try:
            ipaddress.ip_address(host)
            return None  # an address has no parent domains
        except ValueError:
            pass
        parts = host.split(".")
        for i in range(1, len(parts)):
            parent = ".".join(parts[i:])
            if parent in self.domains:
                return parent
        return None

    def __len__(self) -> int:
        return len(self.domains)


# -- configuration ----------------------------------------------------------------------------


@dataclass
class WebConfig:
    provider: str = "off"  # off, searxng, brave
    searxng_url: str | None = None
    brave_key: str | None = None
    brave_url: str = BRAVE_URL
    results: int = DEFAULT_RESULTS
    timeout: float = DEFAULT_TIMEOUT
    delay: float = DEFAULT_DELAY
    corpus: str = DEFAULT_CORPUS
    blocklist: Blocklist = field(default_factory=Blocklist)
    allow_local: bool = False  # results on loopback, private or link-local addresses are fetched too

    @classmethod
    def from_env(cls, environ: dict | None = None) -> WebConfig:
        """The web-search settings; a value that cannot work is a one-line GraphragError."""
        env = (environ if environ is not None else os.environ).get
        provider = (env("GRAPHRAG_WEB_SEARCH") or "off").strip().lower()
        if provider in ("", "none", "0", "false", "no"):
            provider = "off"
        if provider not in PROVIDERS:
            raise GraphragError(f"GRAPHRAG_WEB_SEARCH={provider!r}: use {', '.join(PROVIDERS)}")
        config = cls(
            provider=provider,
            searxng_url=(env("GRAPHRAG_SEARXNG_URL") or "").strip() or None,
            brave_key=(env("GRAPHRAG_BRAVE_API_KEY") or "").strip() or None,
            brave_url=(env("GRAPHRAG_BRAVE_URL") or "").strip() or BRAVE_URL,
            results=int(_number(env, "GRAPHRAG_WEB_RESULTS", DEFAULT_RESULTS, 1, MAX_RESULTS, whole=True)),
            timeout=_number(env, "GRAPHRAG_WEB_TIMEOUT", DEFAULT_TIMEOUT, 1, 120),
            delay=_number(env, "GRAPHRAG_WEB_DELAY", DEFAULT_DELAY, 0, 30),
            corpus=(env("GRAPHRAG_WEB_CORPUS") or "").strip() or DEFAULT_CORPUS,
            blocklist=Blocklist.from_env(environ),
            allow_local=(env("GRAPHRAG_WEB_ALLOW_LOCAL") or "").strip().lower() in ("1", "true", "yes", "on"),
        )
        if provider == "searxng":
            if not config.searxng_url:
                raise GraphragError(
                    "GRAPHRAG_WEB_SEARCH=searxng needs GRAPHRAG_SEARXNG_URL (e.g. http://127.0.0.1:8888)"
                )
            if not config.searxng_url.lower().startswith(("http://", "https://")):
                raise GraphragError(f"GRAPHRAG_SEARXNG_URL={config.searxng_url!r} is not an http(s) URL")
        if provider == "brave" and not config.brave_key:
            raise GraphragError("GRAPHRAG_WEB_SEARCH=brave needs GRAPHRAG_BRAVE_API_KEY (a Brave Search API key)")
        return config

    def provider_object(self) -> SearchProvider | None:
        if self.provider == "searxng" and self.searxng_url:
            return SearxngProvider(self.searxng_url, self.timeout)
        if self.provider == "brave" and self.brave_key:
            return BraveProvider(self.brave_key, self.brave_url, self.timeout)
        return None


def _number(env, name: str, default: float, low: float, high: float, whole: bool = False) -> float:
    raw = env(name)
    if raw is None or not str(raw).strip():
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        raise GraphragError(f"{name}={raw!r} is not a {'whole ' if whole else ''}number") from None
    if not low <= value <= high:
        raise GraphragError(f"{name}={raw!r}: use a value from {low:g} to {high:g}")
    return value
