"""Versioned Cypher migrations, in the manner of neo4j-migrations and Flyway.

* `V0001__Some_description.cypher` — versioned: applied once, in version order. Changing
  one after it was applied is an error (add a new file instead); it is never re-run.
* `R__Some_description.cypher` — repeatable: applied after all versioned files, and
  again whenever its resolved text changes.

The checksum is the sha256 of the normalised file text (line endings, trailing blanks),
taken *before* `{{placeholders}}` are filled from configuration; repeatable migrations
also keep the checksum of the resolved text, which is what decides a re-apply. History
lives in the graph on `:__Migration` nodes; a `:__MigrationLock` node, guarded by a
uniqueness constraint, keeps two concurrent runs from both applying.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import re
import socket
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from graphrag_cypher.audit import audited
from graphrag_cypher.db import Graph
from graphrag_cypher.errors import MigrationError

_NAME = re.compile(r"^(?:V(?P<version>\d+)|(?P<repeatable>R))__(?P<description>\w+)\.cypher$")
_PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")


@dataclass(frozen=True)
class Migration:
    file: str  # file name, e.g. V0001__Constraints.cypher
    version: str  # "0001" for versioned files, the file stem for repeatable ones
    description: str
    repeatable: bool
    text: str  # normalised, placeholders unfilled
    checksum: str

    @property
    def type(self) -> str:
        return "REPEATABLE" if self.repeatable else "VERSIONED"

    def resolved(self, values: dict[str, str]) -> str:
        def fill(match: re.Match) -> str:
            key = match.group(1)
            if key not in values:
                raise MigrationError(f"{self.file}: unknown placeholder {{{{{key}}}}}")
            return values[key]

        return _PLACEHOLDER.sub(fill, self.text)

    def statements(self, values: dict[str, str]) -> list[str]:
        return split_statements(self.resolved(values))

    def to_dict(self) -> dict:
        return {"version": self.version, "description": self.description, "type": self.type, "file": self.file}


def normalise(text: str) -> str:
    """Text whose checksum ignores line endings and trailing whitespace."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n") + "\n"


def checksum(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def split_statements(text: str) -> list[str]:
    """Split on `;` outside strings, backtick names and comments; drop comment-only parts."""
    statements, current = [], []
    i, n = 0, len(text)
    quote: str | None = None
    while i < n:
        ch = text[i]
        if quote:
            current.append(ch)
            if ch == "\\" and quote != "`" and i + 1 < n:
                current.append(text[i + 1])
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
            current.append(ch)
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end == -1 else end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end == -1 else end + 2
            continue
        elif ch == ";":
            statements.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    statements.append("".join(current))
    return [s.strip() for s in statements if s.strip()]


def _read_dir(folder) -> Iterable[tuple[str, str]]:
    for entry in folder.iterdir():
        if entry.name.endswith(".cypher"):
            yield entry.name, entry.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Problem:
    """What `graphrag schema validate` reports: a file or a recorded migration that is not right."""

    kind: str  # malformed | duplicate | empty | changed | missing
    file: str
    message: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "file": self.file, "message": self.message}


def scan(directory: Path | None = None) -> tuple[list[Migration], list[Problem]]:
    """The migrations in `directory` in apply order, and the files that are not migrations."""
    folder = directory if directory is not None else resources.files("graphrag_cypher.cypher").joinpath("migrations")
    if directory is not None and not Path(directory).is_dir():
        raise MigrationError(f"migrations folder {directory} does not exist")
    found: dict[str, Migration] = {}
    problems: list[Problem] = []
    for name, raw in sorted(_read_dir(folder)):
        match = _NAME.match(name)
        if not match:
            problems.append(
                Problem(
                    "malformed",
                    name,
                    f"{name}: not a migration name; use V<number>__<Description>.cypher or R__<Description>.cypher",
                )
            )
            continue
        repeatable = bool(match.group("repeatable"))
        version = name[: -len(".cypher")] if repeatable else match.group("version")
        key = version if repeatable else str(int(version))
        if key in found:
            problems.append(Problem("duplicate", name, f"{name}: version {version} is also used by {found[key].file}"))
            continue
        text = normalise(raw)
        if not split_statements(text):
            problems.append(Problem("empty", name, f"{name}: no Cypher statement in the file"))
            continue
        found[key] = Migration(
            file=name,
            version=version,
            description=match.group("description").replace("_", " "),
            repeatable=repeatable,
            text=text,
            checksum=checksum(text),
        )
    versioned = sorted((m for m in found.values() if not m.repeatable), key=lambda m: int(m.version))
    again = sorted((m for m in found.values() if m.repeatable), key=lambda m: m.file)
    return versioned + again, problems


def discover(directory: Path | None = None) -> list[Migration]:
    """Migrations in `directory` (default: the ones shipped in `cypher/migrations/`), in apply order."""
    migrations, problems = scan(directory)
    if problems:
        raise MigrationError(problems[0].message)
    return migrations


@dataclass
class Plan:
    applied: list[Migration]
    pending: list[Migration]
    changed: list[tuple[Migration, str]]  # versioned files edited after being applied: (file, recorded checksum)
    missing: list[dict]  # recorded in the graph, no file any more

    def to_dict(self) -> dict:
        return {
            "applied": [m.to_dict() for m in self.applied],
            "pending": [m.to_dict() for m in self.pending],
            "changed": [dict(m.to_dict(), recorded_checksum=old, file_checksum=m.checksum) for m, old in self.changed],
            "missing": self.missing,
        }


def _resolved_checksum(migration: Migration, values: dict[str, str]) -> str:
    return checksum(migration.resolved(values))


def plan(graph: Graph, migrations: list[Migration], values: dict[str, str]) -> Plan:
    """Compare the files with the history recorded in the graph."""
    recorded = {row["version"]: row for row in graph.read("migrations/applied")}
    result = Plan([], [], [], [])
    for migration in migrations:
        row = recorded.pop(migration.version, None)
        if row is None:
            result.pending.append(migration)
        elif migration.repeatable:
            if row["resolvedChecksum"] == _resolved_checksum(migration, values):
                result.applied.append(migration)
            else:
                result.pending.append(migration)
        elif row["checksum"] == migration.checksum:
            result.applied.append(migration)
        else:
            result.changed.append((migration, row["checksum"]))
    result.missing = [
        {"version": v, "file": r.get("file"), "appliedAt": r.get("appliedAt")} for v, r in recorded.items()
    ]
    return result


def refuse_changed(result: Plan) -> None:
    if result.changed:
        migration, old = result.changed[0]
        raise MigrationError(
            f"cypher/migrations/{migration.file} was changed after it was applied "
            f"(recorded sha256 {old[:12]}…, file {migration.checksum[:12]}…): restore it and put the change in a new V-file"
        )


def _bootstrap(graph: Graph) -> None:
    """The constraints the history and the lock rely on; safe to race with another run."""
    from neo4j.exceptions import Neo4jError

    for name in ("migrations/bootstrap_version_constraint", "migrations/bootstrap_lock_constraint"):
        for attempt in range(10):
            try:
                graph.run_schema(_query_text(name))
                break
            except Neo4jError:
                # Two runs creating the same constraint at once: one wins, the other retries
                # and then finds it in place.
                if attempt == 9:
                    raise
                time.sleep(0.2 * (attempt + 1))


def _query_text(name: str) -> str:
    from graphrag_cypher.db import query

    return query(name)


class _Lock:
    def __init__(self, graph: Graph, timeout: float):
        self.graph = graph
        self.timeout = timeout
        self.owner = f"{getpass.getuser()}@{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    def __enter__(self) -> _Lock:
        from neo4j.exceptions import ConstraintError

        deadline = time.monotonic() + self.timeout
        while True:
            try:
                self.graph.write("migrations/acquire_lock", owner=self.owner)
                return self
            except ConstraintError:
                if time.monotonic() > deadline:
                    holder = self.graph.read("migrations/lock_holder")
                    who = f"{holder[0]['owner']} since {holder[0]['since']}" if holder else "another run"
                    raise MigrationError(
                        f"the migration lock is held by {who}; if that run died, run `graphrag schema unlock`"
                    ) from None
                time.sleep(0.25)

    def __exit__(self, *exc) -> None:
        self.graph.write("migrations/release_lock", owner=self.owner)


def status(graph: Graph, values: dict[str, str], directory: Path | None = None) -> Plan:
    return plan(graph, discover(directory), values)


def apply(
    graph: Graph,
    values: dict[str, str],
    directory: Path | None = None,
    dry_run: bool = False,
    lock_timeout: float = 120.0,
    index_timeout: int = 300,
    on_apply: Callable[[Migration], None] | None = None,
    wait: bool = True,
) -> dict:
    """Apply pending migrations; returns {"applied": [...], "pending": [...]}. With ``wait=False``
    it returns once the statements ran, while indexes may still be populating (constraints are
    in place: creating one validates the data): a bulk import links phrases meanwhile, then
    calls :func:`await_indexes`."""
    migrations = discover(directory)
    if dry_run:
        before = plan(graph, migrations, values)
        refuse_changed(before)
        return {"applied": [], "pending": [m.to_dict() for m in before.pending], "dry_run": True}
    with audited(graph, "schema") as audit:
        applied = _apply(graph, migrations, values, lock_timeout, on_apply)
        audit.ids("applied", [m["file"] for m in applied])
        audit.add({"migrations": {"applied": len(applied)}})
        audit.only_if(bool(applied))
    if wait:
        await_indexes(graph, index_timeout)
    return {"applied": applied, "pending": []}


def _apply(
    graph: Graph,
    migrations: list[Migration],
    values: dict[str, str],
    lock_timeout: float,
    on_apply: Callable[[Migration], None] | None,
) -> list[dict]:
    """Apply the pending `migrations` under the lock; what it applied."""
    refuse_changed(plan(graph, migrations, values))
    _bootstrap(graph)
    applied: list[dict] = []
    with _Lock(graph, lock_timeout) as lock:
        # Read the history again under the lock: a concurrent run may have applied it all.
        current = plan(graph, migrations, values)
        refuse_changed(current)
        for migration in current.pending:
            if on_apply:
                on_apply(migration)
            started = time.monotonic()
            statements = migration.statements(values)
            for number, statement in enumerate(statements, 1):
                try:
                    graph.run_schema(statement)
                except Exception as exc:
                    message = getattr(exc, "message", None) or str(exc)
                    raise MigrationError(
                        f"{migration.file}, statement {number}: {message.splitlines()[0] if message else exc}"
                    ) from exc
            graph.write(
                "migrations/record",
                version=migration.version,
                description=migration.description,
                type=migration.type,
                file=migration.file,
                checksum=migration.checksum,
                resolvedChecksum=_resolved_checksum(migration, values),
                statements=len(statements),
                durationMs=int((time.monotonic() - started) * 1000),
                appliedBy=lock.owner,
            )
            applied.append(migration.to_dict())
    return applied


def await_indexes(graph: Graph, seconds: int = 300) -> None:
    """Wait until every index is ONLINE; raises when `seconds` pass first."""
    graph.run_schema(_query_text("admin/await_indexes"), seconds=seconds)


def validate(graph: Graph, values: dict[str, str], directory: Path | None = None) -> dict:
    """Files against the recorded history, as neo4j-migrations' `validate`: a problem for each
    malformed file, each applied versioned file changed since, each recorded migration whose file
    is gone. Pending migrations are no problem (apply-schema applies them)."""
    found, problems = scan(directory)
    result = plan(graph, found, values)
    problems += [
        Problem(
            "changed",
            m.file,
            f"{m.file}: changed after it was applied (recorded sha256 {old[:12]}…, "
            f"file {m.checksum[:12]}…); restore it and put the change in a new V-file",
        )
        for m, old in result.changed
    ]
    problems += [
        Problem(
            "missing",
            r["file"] or r["version"],
            f"{r['file'] or r['version']}: applied{' on ' + r['appliedAt'] if r.get('appliedAt') else ''}"
            " but the file is gone; restore it",
        )
        for r in result.missing
    ]
    return {
        "valid": not problems,
        "problems": [p.to_dict() for p in problems],
        "applied": len(result.applied),
        "pending": [m.file for m in result.pending],
    }


def clean(graph: Graph, batch: int = 10000) -> dict:
    """An empty database, for tests: every constraint, index (token lookups stay), node,
    relationship and migration record removed. Returns what was removed."""
    counts = graph.read("schema/counts")[0]
    constraints = [row["name"] for row in graph.read("schema/constraint_names")]
    for name in constraints:
        graph.run_schema(_query_text("schema/drop_constraint"), name=name)
    indexes = [row["name"] for row in graph.read("schema/index_names")]
    for name in indexes:
        graph.run_schema(_query_text("schema/drop_index"), name=name)
    graph.run_schema(_query_text("schema/delete_all"), batch=batch)
    return {
        "nodes": counts["nodes"],
        "relationships": counts["relationships"],
        "migrations": counts["migrations"],
        "constraints": constraints,
        "indexes": indexes,
    }


def unlock(graph: Graph) -> int:
    return graph.write("migrations/force_unlock")[0]["released"]
