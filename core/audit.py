"""The audit of writes: every load, learn, upload, crawl, forget, embed and schema change leaves
one `:__Audit` node saying who (the acting key's name), when, which corpora, what the operation
was, what it changed (counts; the ids of forgotten documents, capped) and whether it failed.

A write is recorded after its work, in a small write transaction of its own; a write that fails
is recorded too, with its one-line error. An audit record that cannot be written never fails the
user's write: it is one line in the log.

The few places every write passes through open an audit (`audited`); one opened inside another
(the load a `learn` or a crawl runs) adds its counts to the outer one, so a command or a job is
one record."""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from graphrag_cypher.errors import GraphragError

log = logging.getLogger("graphrag.audit")

MAX_IDS = 100  # document ids kept per record (forgotten ones); the rest are counted
MAX_LIST = 1000  # records one read returns at most
OPERATIONS = (
    "load",
    "learn",
    "upload",
    "crawl",
    "forget",
    "embed",
    "schema",
    "import",
    "cypher",
    "keys",
    "link",
    "communities",
    "extract",
    "resolve",
)


@dataclass
class Audit:
    """One write being recorded: its operation, corpora and what it changed so far."""

    operation: str
    corpora: set[str] = field(default_factory=set)
    changed: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    quiet: bool = False  # recorded only when it `wrote` something (or failed)
    wrote: bool = False
    graph_counts: bool = False  # add Neo4j's counters of each write transaction (derived writes)

    def only_if(self, wrote: bool) -> None:
        """Record this write only if something in it wrote (`wrote` true once), or it failed: a
        load that found everything as it was, a schema already up to date, wrote nothing."""
        self.quiet = True
        self.wrote = self.wrote or wrote

    def corpus(self, name: str | None) -> None:
        """Note a corpus the write touches (None: the default corpus, not listed)."""
        if name:
            self.corpora.add(name)

    def add(self, counts: dict[str, Any]) -> None:
        """Add counts (numbers are summed, nested dicts merged, other values set)."""
        _merge(self.changed, counts)

    def ids(self, name: str, ids: Iterable[str]) -> None:
        """Keep document ids under `name`, at most MAX_IDS; the rest counted under `<name>_more`."""
        kept = self.changed.setdefault(name, [])
        for value in ids:
            if len(kept) < MAX_IDS:
                kept.append(value)
            else:
                self.changed[f"{name}_more"] = self.changed.get(f"{name}_more", 0) + 1


def _merge(into: dict, counts: dict) -> None:
    for key, value in counts.items():
        if isinstance(value, bool) or value is None:
            into[key] = value
        elif isinstance(value, (int, float)):
            into[key] = into.get(key, 0) + value
        elif isinstance(value, dict):
            _merge(into.setdefault(key, {}), value)
        else:
            into[key] = value


_open: ContextVar[Audit | None] = ContextVar("graphrag_audit", default=None)
# Neo4j's counters of a write transaction, as a derived write's record keeps them
COUNTERS = (
    "nodes_created",
    "nodes_deleted",
    "relationships_created",
    "relationships_deleted",
    "properties_set",
    "labels_added",
    "labels_removed",
)
# commands that write only what is derived from documents already audited, and their operation:
# recorded each time they run (not with --dry-run), with what Neo4j counted their writes changing
DERIVED = {
    "link entities": "link",
    "link phrases": "link",
    "link places": "link",
    "link titles": "link",
    "link wikidata": "link",
    "communities build": "communities",
    "communities report": "communities",
    "extract": "extract",
    "resolve": "resolve",
}


# what makes a derived write worth a record: a node, relationship or label made or removed (a
# property set again to the value it had is counted by Neo4j too, so it alone is not a change)
STRUCTURAL = (
    "nodes_created",
    "nodes_deleted",
    "relationships_created",
    "relationships_deleted",
    "labels_added",
    "labels_removed",
)
# the derived command running in this process (a CLI command is one per process): its linkers
# write from worker threads, which do not see the context's record
_derived_entry: Audit | None = None
_count_lock = threading.Lock()


def counted(counters) -> None:
    """Add a write transaction's counters (the driver's SummaryCounters) to the record open in
    this context (or the derived command's, from a worker thread), when it keeps them."""
    entry = _open.get() or _derived_entry
    if entry is None or not entry.graph_counts or counters is None:
        return
    changed = {name: getattr(counters, name, 0) for name in COUNTERS if getattr(counters, name, 0)}
    if changed:
        with _count_lock:  # the linkers' worker threads count beside the command's own
            entry.add({"graph": changed})
            entry.only_if(any(name in changed for name in STRUCTURAL))


@contextmanager
def derived(graph, command: str, corpus: str | None = None) -> Iterator[Audit | None]:
    """The record of a derived command (`DERIVED`, by its path, e.g. "link phrases"), written when
    its writes made or removed something (or it failed): a second run that changes nothing leaves
    none. Other commands run as they are."""
    global _derived_entry
    operation = DERIVED.get(command)
    if operation is None:
        yield None
        return
    with audited(graph, operation, corpus) as entry:
        if entry.operation == operation and not entry.changed:
            entry.graph_counts = True
            entry.only_if(False)
            entry.add({"command": command})
            _derived_entry = entry
        try:
            yield entry
        finally:
            if _derived_entry is entry:
                _derived_entry = None


def one_line(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return text.strip().splitlines()[0][:500] if text.strip() else type(exc).__name__


@contextmanager
def audited(graph, operation: str, corpus: str | None = None) -> Iterator[Audit]:
    """Record the block as one write: the `Audit` it yields gathers corpora and counts, and is
    written when the block ends (with its error when it raised; the error goes on). Inside
    another audited block it is that block's record (its counts are added there)."""
    outer = _open.get()
    if outer is not None:
        outer.corpus(corpus)
        yield outer
        return
    entry = Audit(operation)
    entry.corpus(corpus)
    token = _open.set(entry)
    try:
        yield entry
    except BaseException as exc:
        entry.error = one_line(exc)
        raise
    finally:
        _open.reset(token)
        if graph is not None and (entry.error is not None or not entry.quiet or entry.wrote):
            record(graph, entry)


def record(graph, entry: Audit) -> None:
    """Write `entry` as an :__Audit node in its own transaction; a failure is one log line."""
    from graphrag_cypher.principal import current

    try:
        if getattr(graph, "is_down", lambda: False)():  # known away: no wait for a connection that cannot be made
            raise ConnectionError("Neo4j is not answering")
        graph.write(
            "audit/record",
            key=current().name,
            operation=entry.operation,
            corpus=sorted(entry.corpora),
            changed=json.dumps(entry.changed, ensure_ascii=False, sort_keys=True, default=str),
            ok=entry.error is None,
            error=entry.error,
        )
    except Exception as exc:  # the audit never fails the write it records
        # one line; quieter when the write failed too (Neo4j away): its own error says so already
        level = logging.WARNING if entry.error is None else logging.INFO
        log.log(level, "audit: could not record %s by %s: %s", entry.operation, current().name, one_line(exc))


_AGO = re.compile(r"^(\d+)\s*([smhdw])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def since_time(text: str | None, now: datetime | None = None) -> str | None:
    """`--since`: a span back from now (30m, 12h, 1d, 2w) or an ISO date/time, as an ISO
    date-time in UTC; a one-line GraphragError for anything else."""
    if text is None or not text.strip():
        return None
    text = text.strip()
    ago = _AGO.match(text.lower())
    if ago:
        moment = (now or datetime.now(UTC)) - timedelta(**{_UNITS[ago.group(2)]: int(ago.group(1))})
        return moment.isoformat()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise GraphragError(
            f"--since {text!r}: give a span back from now (30m, 12h, 1d, 2w) or an ISO date or time "
            "(2026-01-31, 2026-01-31T08:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


def stamp(at) -> str:
    """A stored time as fixed-width ISO text in UTC with milliseconds (2026-01-31T08:00:00.400Z), so
    that the text sorts as the times do; Neo4j's own text drops trailing zeros (08:00:00.4Z)."""
    if isinstance(at, str):
        return at
    moment = at.to_native() if hasattr(at, "to_native") else at
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def entries(
    graph, since: str | None = None, key: str | None = None, corpus: str | None = None, limit: int = 100
) -> list[dict]:
    """Audit records, newest first, filtered by time (`since`: see `since_time`), key name and
    corpus; at most `limit` (1 to MAX_LIST)."""
    rows = graph.read(
        "audit/list",
        since=since_time(since),
        key=key or None,
        corpus=corpus or None,
        limit=max(1, min(int(limit), MAX_LIST)),
    )
    for row in rows:
        row["at"] = stamp(row["at"])
        try:
            row["changed"] = json.loads(row["changed"]) if row.get("changed") else {}
        except ValueError:
            pass  # a record written by hand: shown as it is
    return rows
