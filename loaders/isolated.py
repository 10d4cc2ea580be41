"""Parsing off the server's process: each uploaded file, folder file or crawled page is parsed
in a worker process with a time and a memory bound, so one hostile file cannot stall the
server (a parser holding the GIL stops every request thread) nor grow it without bound.

The bounds are the `ParseBudget`'s (see `graphrag_cypher.budget`):

- ``GRAPHRAG_PARSE_SECONDS`` (60): a document the worker has not finished shortly after it
  (the parsers cut a document at this budget themselves, and keep what they read; the worker
  is killed at ``seconds + min(10, 2 + seconds / 10)``) fails alone with one line:
  "not parsed: over the 60-second parse time budget (GRAPHRAG_PARSE_SECONDS), stopped after 68 s".
- ``GRAPHRAG_PARSE_MEMORY_MB`` (2,048): the worker's address space (RLIMIT_AS); a document that
  needs more fails alone: "not parsed: over the 2,048 MB parse memory budget (GRAPHRAG_PARSE_MEMORY_MB)".

The worker is a fresh Python interpreter (never a fork of the threaded server) that imports the
parsers and nothing heavy, parses one document at a time, and is reused while every parse ends
within its bounds; one that was stopped or died is killed with the workers it started (a PDF's)
and the next document gets a new one. The CLI's loaders parse in their own process: the user's
own files, with the same budgets, and no process to start.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from graphrag_cypher.budget import ParseBudget, megabytes
from graphrag_cypher.model import ContentError, ItemError, ParsedDocument

from .files import DEFAULT_MAX_BYTES, _relative
from .pdf_content import _Worker

# The worker's main program: requests on stdin, replies on a copy of stdout (fd 1 itself is
# pointed at stderr, so that nothing a parser prints can corrupt the replies).
_MAIN = """
import os, sys
out = os.dup(1)
os.dup2(2, 1)
from graphrag_cypher.loaders.isolated import serve
serve(0, out, int(sys.argv[1]))
"""


class _ParseWorker(_Worker):
    _idle: list[_Worker] = []
    MAIN = _MAIN
    NEW_SESSION = True


def hard_limit(budget: ParseBudget) -> float:
    """Seconds after which a worker still parsing one document is killed: the budget, and a
    grace for the parsers that cut a document at the budget to hand back what they kept."""
    return budget.seconds + min(10.0, 2.0 + budget.seconds / 10)


class _Stopped(Exception):
    """The worker did not answer within its bounds; the message is the reason, one line."""


def _run(task: str, args: tuple, budget: ParseBudget):
    """The task's result from a worker, or _Stopped; a ContentError raised there is raised here."""
    worker = _ParseWorker.take(budget.memory)
    limit = hard_limit(budget)
    healthy = False
    try:
        worker.wait_ready()
        started = time.monotonic()
        worker.requests.send((task, args))
        if not worker.replies.poll(limit):
            raise _Stopped(
                f"not parsed: over the {budget.seconds:g}-second parse time budget (GRAPHRAG_PARSE_SECONDS), "
                f"stopped after {time.monotonic() - started:.0f} s"
            )
        kind, value = worker.replies.recv()
        healthy = kind != "memory"
    except (EOFError, OSError):  # the worker died: the memory limit, or a crash in a C library
        code = worker.stop()
        raise _Stopped(f"not parsed: {_death(code, budget)}") from None
    finally:
        worker.give_back(healthy)
    if kind == "memory":
        raise _Stopped(f"not parsed: {_memory(budget)}")
    if kind == "content":
        raise ContentError(value)
    if kind == "error":
        raise ContentError(f"unexpected {value}")
    return value


def _memory(budget: ParseBudget) -> str:
    return f"over the {megabytes(budget.memory)} parse memory budget (GRAPHRAG_PARSE_MEMORY_MB)"


def _death(code: int | None, budget: ParseBudget) -> str:
    how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    return f"the parser stopped ({how}; {_memory(budget)}?)"


def parse_file(
    path: str | os.PathLike,
    root: str | os.PathLike | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    source: str | None = None,
    budget: ParseBudget | None = None,
) -> ParsedDocument | ItemError:
    """`files.parse_file` in a worker process: the same document, or an ItemError naming the
    file; a file the worker does not finish within the budget's time or memory is one too."""
    budget = budget or ParseBudget.from_env()
    name = _relative(Path(path), root)[1]
    try:
        return _run("file", (str(path), None if root is None else str(root), max_bytes, source, budget), budget)
    except (_Stopped, ContentError) as exc:
        return ItemError(name, str(exc))


def page_document(
    url: str, content_type: str, data: bytes, budget: ParseBudget | None = None
) -> tuple[ParsedDocument, list[str]]:
    """`web.page_document` in a worker process: (document, links); why a page cannot be one is a
    ContentError, a page over the time or memory budget included."""
    budget = budget or ParseBudget.from_env()
    try:
        return _run("page", (url, content_type, data, budget), budget)
    except _Stopped as exc:
        raise ContentError(str(exc)) from None


# --- the worker's side -----------------------------------------------------------------------

WORKER_NICENESS = 10


def serve(requests_fd: int, replies_fd: int, memory: int) -> None:
    """The worker's loop: (task, args) in, (kind, value) out, until its input closes."""
    from multiprocessing.connection import Connection

    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ImportError, ValueError, OSError):
        pass  # no rlimits here (or a lower hard limit already): the wall-time kill remains
    try:  # a hostile file's parse yields the CPU to the requests the server answers meanwhile
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):
        pass
    from . import files, web

    tasks: dict[str, Callable[..., object]] = {"file": files.parse_file, "page": web.page_document}
    requests, replies = Connection(requests_fd, writable=False), Connection(replies_fd, readable=False)
    replies.send(("ready",))
    while True:
        try:
            task, args = requests.recv()
        except (EOFError, OSError):
            return
        try:
            reply = ("result", tasks[task](*args))
        except MemoryError:
            reply = ("memory", None)
        except ContentError as exc:
            reply = ("content", str(exc))
        except Exception as exc:  # a parser bug: one line for this document, the worker goes on
            reply = ("error", f"{type(exc).__name__}: {' '.join(str(exc).split())}")
        if isinstance(reply[1], ItemError) and "MemoryError" in reply[1].error:
            reply = ("memory", None)  # parse_file caught it; the worker may be in a bad state
        try:
            replies.send(reply)
        except MemoryError:
            replies.send(("memory", None))
        if reply[0] == "memory":
            return  # the parent starts a new worker for the next document
