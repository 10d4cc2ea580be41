"""API keys for the server (`graphrag keys`): each with a name (shown in logs and the audit), the
corpora it may touch and its rights, stored in the graph as a SHA-256 hash, never the key.

A key is `grk_` and 32 random bytes (secrets.token_urlsafe). A plain SHA-256 is enough for a
256-bit random token: nothing can be guessed from the hash, so a slow password hash (bcrypt,
argon2) would only make every request pay tens of milliseconds for no gain; it protects
low-entropy passwords, which these keys are not."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from dataclasses import dataclass

from .audit import audited
from .errors import GraphragError
from .principal import Principal

PREFIX = "grk_"
LEVELS = {"read": ("read",), "write": ("read", "write"), "admin": ("admin",)}
RESERVED = {"admin", "local", "anonymous"}  # names the server gives its own principals
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_CORPUS_CHARS = 200

RPM_ENV = "GRAPHRAG_KEY_RPM"  # requests per minute of a stored key without its own limit
JOBS_ENV = "GRAPHRAG_KEY_JOBS"  # jobs a stored key may have queued or running at once
DEFAULT_RPM = 600
DEFAULT_JOBS = 2


@dataclass(frozen=True)
class Limits:
    rpm: int  # requests per minute; 0: none
    jobs: int  # jobs queued or running at once; 0: none


def new_key() -> str:
    """A fresh key: the prefix (recognisable in a leaked config) and 256 random bits."""
    return PREFIX + secrets.token_urlsafe(32)


def digest(key: str) -> str:
    """What is stored and looked up for `key`: its SHA-256, in hex."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _env_limit(name: str, default: int) -> int:
    raw = (os.environ.get(name) or "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise GraphragError(f"{name} must be a whole number (0: no limit), not {raw!r}")
    return int(raw)


def default_limits() -> Limits:
    """The limits of a key made without --rpm/--jobs: GRAPHRAG_KEY_RPM and GRAPHRAG_KEY_JOBS, else
    600 requests a minute and 2 jobs."""
    return Limits(_env_limit(RPM_ENV, DEFAULT_RPM), _env_limit(JOBS_ENV, DEFAULT_JOBS))


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name or ""):
        raise GraphragError(f"bad key name {name!r}: 1 to 64 letters, digits and _.- (starting with a letter or digit)")
    if name.lower() in RESERVED:
        raise GraphragError(f"the key name {name!r} is reserved ({', '.join(sorted(RESERVED))}): choose another")
    return name


def check_corpora(corpora) -> list[str] | None:
    """The corpora given (blank ones refused, duplicates once), or None for every corpus."""
    out: list[str] = []
    for corpus in corpora or ():
        corpus = corpus.strip()
        if not corpus or len(corpus) > _CORPUS_CHARS:
            raise GraphragError(f"bad corpus name {corpus!r}: 1 to {_CORPUS_CHARS} characters")
        if corpus not in out:
            out.append(corpus)
    return out or None


def add(graph, name: str, corpora, level: str, rpm: int | None = None, jobs: int | None = None) -> dict:
    """Store a new key; returns its record with the key itself (shown once, never stored)."""
    check_name(name)
    scope = check_corpora(corpora)
    if level not in LEVELS:
        raise GraphragError(f"say what the key may do: --read, --write or --admin, not {level!r}")
    limits = default_limits()
    rpm = limits.rpm if rpm is None else rpm
    jobs = limits.jobs if jobs is None else jobs
    key = new_key()
    with audited(graph, "keys") as entry:  # the key's name and scope, never the key
        for corpus in scope or ():
            entry.corpus(corpus)
        rows = graph.write(
            "keys/add", name=name, hash=digest(key), corpora=scope, rights=list(LEVELS[level]), rpm=rpm, jobs=jobs
        )
        if not rows:
            raise GraphragError(f"a key named {name!r} exists already (revoked ones keep their name): choose another")
        entry.add({"added": name, "rights": list(LEVELS[level]), "scoped": scope is not None})
    return {"key": key, "name": name, "corpora": scope, "rights": list(LEVELS[level]), "rpm": rpm, "jobs": jobs}


def listed(graph) -> list[dict]:
    """Every key (revoked ones marked): name, corpora, rights, limits, when made; never the hash."""
    return graph.read("keys/list")


def revoke(graph, name: str) -> dict:
    with audited(graph, "keys") as entry:
        rows = graph.write("keys/revoke", name=name)
        if not rows:
            raise GraphragError(f"no key named {name!r}: `graphrag keys list` shows them")
        entry.add({"revoked": name})
    return {"name": name, "revoked": True, "was_revoked": bool(rows[0]["was_revoked"])}


def any_key(graph) -> bool:
    """Whether any key was ever made (then every request to the server needs one)."""
    return graph.read("keys/any")[0]["keys"] > 0


def principal_of(row: dict) -> tuple[Principal, Limits]:
    """The principal and limits of a stored key's row (keys/find)."""
    corpora = tuple(row["corpora"]) if row.get("corpora") is not None else None
    rights = frozenset(row.get("rights") or ("read",))
    defaults = default_limits()
    limits = Limits(
        defaults.rpm if row.get("rpm") is None else int(row["rpm"]),
        defaults.jobs if row.get("jobs") is None else int(row["jobs"]),
    )
    return Principal(row["name"], corpora, rights), limits


def find(graph, key: str) -> tuple[Principal, Limits] | None:
    """The principal a bearer key stands for, or None (unknown or revoked)."""
    if not key.startswith(PREFIX):
        return None
    rows = graph.read("keys/find", hash=digest(key))
    return principal_of(rows[0]) if rows else None
