"""Who is acting: the key a request came with (its name, corpora and rights), read wherever scope,
audit or logs need it. The server sets it per request (`acting_as`); everything else (the CLI, a
script) acts as `LOCAL`, the machine's own user, with every right on every corpus."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

RIGHTS = ("read", "write", "admin")


@dataclass(frozen=True)
class Principal:
    name: str  # shown in logs and the audit: the key's name, "admin" for GRAPHRAG_API_KEY, "local" for the CLI
    corpora: tuple[str, ...] | None = None  # the corpora it may touch; None: every corpus
    rights: frozenset[str] = field(default_factory=lambda: frozenset({"read"}))

    def can(self, right: str) -> bool:
        """Whether it holds `right` (read, write, admin); admin holds them all, write holds read."""
        return "admin" in self.rights or right in self.rights or (right == "read" and "write" in self.rights)

    def sees(self, corpus: str | None) -> bool:
        """Whether `corpus` is inside its scope (an unscoped principal sees every corpus)."""
        return self.corpora is None or corpus in self.corpora


LOCAL = Principal("local", None, frozenset(RIGHTS))
_current: ContextVar[Principal] = ContextVar("graphrag_principal", default=LOCAL)


def current() -> Principal:
    """The principal of the request (or command) running now."""
    return _current.get()


@contextmanager
def acting_as(principal: Principal) -> Iterator[Principal]:
    """Run the block as `principal` (this thread or task and what it awaits)."""
    token = _current.set(principal)
    try:
        yield principal
    finally:
        _current.reset(token)


ADMIN = Principal("admin", None, frozenset({"admin"}))  # GRAPHRAG_API_KEY
ANONYMOUS = Principal("anonymous", None, frozenset({"read"}))  # no key: open reads, or a server without keys
