"""PDF to one section per page (PyMuPDF), with the PDF's own title, author and date.

MuPDF runs in a worker process, within a `ParseBudget`: one `get_text` call on a page whose
content stream inflates to megabytes of text operators cannot be interrupted from Python, so
the worker has a memory limit (RLIMIT_AS) and is killed at the wall-time budget. It sends each
page as it is read; the pages that arrived before a cut are kept, and the cut is one line in
`PdfContent.notes`. Pages whose decompressed content is over the per-page budget are skipped
before MuPDF interprets them; the characters, pages and decompressed bytes of the whole
document are counted page by page. A worker that finished a file within budget parses the
next one, so a folder of PDFs pays one interpreter start, not one per file.
"""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass, field

from graphrag_cypher.budget import ParseBudget, cut_text, megabytes
from graphrag_cypher.model import ContentError, Section
from graphrag_cypher.text import iso_date, tidy_lines


@dataclass
class PdfContent:
    title: str | None
    metadata: dict
    sections: list[Section]
    notes: list[str] = field(default_factory=list)  # what the budget cut, one line each


def parse_pdf(data: bytes, budget: ParseBudget | None = None) -> PdfContent:
    if not data.startswith(b"%PDF"):
        raise ContentError("not a PDF (no %PDF header)")
    # MuPDF silently "repairs" a cut-off file and returns whatever pages survive; a missing
    # end-of-file marker is how we know it was truncated, so refuse rather than load half.
    if b"%%EOF" not in data[-2048:]:
        raise ContentError("truncated or corrupt PDF (no %%EOF marker at the end)")
    run = _Run(budget or ParseBudget.from_env())
    run.parse(data)
    sections = [s for s in run.sections if s.text]
    if not sections:
        raise ContentError("; ".join(run.notes) if run.notes else "no text layer (a scanned PDF?)")
    return PdfContent(_clean(run.metadata.get("title")), _metadata(run.metadata), sections, run.notes)


class _Run:
    """The parent's side: hand the file to a worker, collect its pages until it is done or out of budget."""

    def __init__(self, budget: ParseBudget):
        self.budget = budget
        self.sections: list[Section] = []
        self.notes: list[str] = []
        self.metadata: dict = {}
        self.page_count = 0
        self.chars = 0
        self.last_page = 0

    def parse(self, data: bytes) -> None:
        worker = _Worker.take(self.budget.memory)
        reusable = False
        try:
            worker.wait_ready()
            deadline = time.monotonic() + self.budget.seconds
            worker.requests.send((data, self.budget))
            reusable = self._receive(worker, deadline)
        except (BrokenPipeError, EOFError, OSError):
            self._cut(self.last_page + 1, _death(worker.stop(), self.budget))
        finally:
            worker.give_back(reusable)

    def _receive(self, worker: _Worker, deadline: float) -> bool:
        """Messages until the worker is done (True: it may parse the next file) or cut off (False)."""
        replies = worker.replies
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not replies.poll(remaining):
                self._cut(self.last_page + 1, f"{self.budget.seconds:g}-second budget reached")
                return False
            try:
                message = replies.recv()
            except EOFError:  # the worker died: killed by the memory limit, or MuPDF crashed
                self._cut(self.last_page + 1, _death(worker.stop(), self.budget))
                return False
            kind = message[0]
            if kind == "done":
                return True
            if kind == "error":
                _drain(replies)
                raise ContentError(message[1])
            if kind == "meta":
                self.page_count, self.metadata = message[1], message[2]
            elif kind == "page":
                if self._page(message[1], message[2]):
                    return _drain(replies)
            elif kind == "skip":
                self.notes.append(
                    f"PDF page {message[1]} of {self.page_count} skipped: {megabytes(message[2])} of page content, "
                    f"over the {megabytes(self.budget.page_bytes)} per-page budget"
                )
            elif kind == "bomb":
                self.notes.append(
                    f"PDF page {message[1]} of {self.page_count} skipped: its content inflates {message[2]:,.0f} times "
                    f"({megabytes(message[3])} from {message[4]:,} bytes; more than {self.budget.page_ratio:g} times is "
                    "refused as a compression bomb)"
                )
            elif kind == "cut":
                self._cut(message[1] or self.last_page + 1, message[2])
                return _drain(replies) and not message[3]

    def _page(self, number: int, text: str) -> bool:
        """Keep one page; True when the character budget is spent."""
        self.last_page = number
        room = self.budget.chars - self.chars
        if len(text) > room:
            text = cut_text(text, room)
            if text:
                self.sections.append(Section(text=text, page=number))
            self._cut(number, f"{self.budget.chars:,}-character budget reached", within=True)
            return True
        self.chars += len(text)
        self.sections.append(Section(text=text, page=number))
        return False

    def _cut(self, page: int, reason: str, within: bool = False) -> None:
        where = f"in page {page}" if within else f"at page {page}"
        self.notes.append(f"PDF cut {where} of {self.page_count or '?'}: {reason}")


def _drain(replies) -> bool:
    """Read up to the worker's "done" (it follows a cut or an error at once); False if it does not come."""
    while replies.poll(5):
        try:
            if replies.recv()[0] == "done":
                return True
        except EOFError:
            return False
    return False


def _death(returncode: int | None, budget: ParseBudget) -> str:
    if returncode is not None and returncode < 0:
        return f"the parser was stopped by signal {-returncode} (over the {megabytes(budget.memory)} memory budget?)"
    return f"the parser stopped (exit code {returncode}; over the {megabytes(budget.memory)} memory budget?)"


class _Worker:
    """A child Python process that parses PDFs one after another under an address-space limit.

    Idle workers are kept (a few) so that a folder of PDFs pays one interpreter start; a worker
    that was cut off, died or hit its memory limit is killed, never reused."""

    _idle: list[_Worker] = []
    _lock = threading.Lock()
    KEEP = 2
    MAIN = ""  # the worker's program (set below); a subclass may run another
    NEW_SESSION = False  # True: the worker leads its own process group, and `stop` kills the group
    STARTUP_SECONDS = 120.0  # an interpreter start and its imports, not counted in a document's budget

    def __init__(self, memory: int):
        import subprocess
        import sys
        from multiprocessing.connection import Connection

        self.memory = memory
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self.process = subprocess.Popen(
            [sys.executable, "-c", self.MAIN, str(memory)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            close_fds=True,
            start_new_session=self.NEW_SESSION,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests = Connection(os.dup(self.process.stdin.fileno()), readable=False)
        self.replies = Connection(os.dup(self.process.stdout.fileno()), writable=False)
        self.process.stdin.close()
        self.process.stdout.close()
        self.ready = False

    def wait_ready(self) -> None:
        """Block until a fresh worker has imported its parsers (it says "ready"), so that a
        document's time budget counts parsing, not an interpreter start on a busy machine.
        A worker not ready within STARTUP_SECONDS is treated as dead (OSError)."""
        if self.ready:
            return
        if not self.replies.poll(self.STARTUP_SECONDS):
            raise OSError(f"the parse worker did not start within {self.STARTUP_SECONDS:g} s")
        if self.replies.recv() != ("ready",):
            raise OSError("the parse worker sent something else than ready")
        self.ready = True

    @classmethod
    def take(cls, memory: int) -> _Worker:
        with cls._lock:
            for worker in cls._idle:
                if worker.memory == memory and worker.process.poll() is None:
                    cls._idle.remove(worker)
                    return worker
        return cls(memory)

    def give_back(self, reusable: bool) -> None:
        if reusable and self.process.poll() is None:
            with self._lock:
                if len(self._idle) < self.KEEP:
                    self._idle.append(self)
                    return
        self.stop()

    def stop(self) -> int | None:
        """Kill the process (if it still runs) and close the pipes; its return code."""
        if self.process.poll() is None:
            if self.NEW_SESSION:  # the workers it started (a PDF's) go with it
                try:
                    os.killpg(self.process.pid, 9)
                except OSError:
                    pass
            self.process.kill()
        try:
            code = self.process.wait(5)
        except Exception:  # a process that does not die at SIGKILL: leave it to the OS
            code = None
        for connection in (self.requests, self.replies):
            try:
                connection.close()
            except OSError:
                pass
        return code


# The worker's main program: requests on stdin, replies on a copy of stdout (fd 1 itself is
# pointed at stderr, so that nothing MuPDF or Python prints can corrupt the replies).
_WORKER_MAIN = """
import os, sys
out = os.dup(1)
os.dup2(2, 1)
from graphrag_cypher.loaders.pdf_content import serve
serve(0, out, int(sys.argv[1]))
"""
_Worker.MAIN = _WORKER_MAIN


WORKER_NICENESS = 10
PAGE_RATIO_GRACE = 256 * 1024  # decompressed bytes of a page never refused for its ratio


def serve(requests_fd: int, replies_fd: int, memory: int) -> None:
    """The worker's loop: (data, budget) in, the pages out, until its input closes."""
    from multiprocessing.connection import Connection

    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ImportError, ValueError, OSError):
        pass  # no rlimits here (or a lower hard limit already): the wall-time kill remains
    try:  # a hostile file's parse yields the CPU to the requests a server is answering meanwhile
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):
        pass
    import pymupdf  # noqa: F401 - imported before the first request, not during it

    requests, replies = Connection(requests_fd, writable=False), Connection(replies_fd, readable=False)
    replies.send(("ready",))
    while True:
        try:
            data, budget = requests.recv()
        except (EOFError, OSError):
            return
        _child(data, budget, replies)


def _child(data: bytes, budget: ParseBudget, conn) -> None:
    """One file's pages, one message each, within the budget, then "done"."""
    try:
        _pages(data, budget, conn)
    except MemoryError:
        conn.send(("cut", None, f"{megabytes(budget.memory)} memory budget reached", True))
    except Exception as exc:  # MuPDF raises its own error types for damaged files
        text = collapse(exc)
        if "malloc" in text or "out of memory" in text.lower():
            conn.send(("cut", None, f"{megabytes(budget.memory)} memory budget reached", True))
        else:
            conn.send(("error", f"corrupt PDF: {text}"))
    conn.send(("done",))


def _pages(data: bytes, budget: ParseBudget, conn) -> None:
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        if doc.needs_pass:
            conn.send(("error", "encrypted PDF (needs a password)"))
            return
        count = doc.page_count
        conn.send(("meta", count, dict(doc.metadata or {})))
        chars = decompressed = 0
        for number in range(count):
            if number >= budget.pages:
                conn.send(("cut", number + 1, f"{budget.pages:,}-page budget reached", False))
                return
            page = doc[number]
            # The content stream decompressed (by MuPDF, within the memory limit) before it is
            # interpreted: a page of megabytes of text operators is skipped unread.
            contents = page.get_contents()
            size = sum(len(doc.xref_stream(xref) or b"") for xref in contents)
            if size > budget.page_bytes:
                conn.send(("skip", number + 1, size))
                continue
            # Text and drawings compress a few times, at most tens of times; a page that inflates
            # hundreds of times is repeated operators (past a grace no real page needs).
            raw = sum(len(doc.xref_stream_raw(xref) or b"") for xref in contents)
            if size > PAGE_RATIO_GRACE and size > budget.page_ratio * max(raw, 1):
                conn.send(("bomb", number + 1, size / max(raw, 1), size, raw))
                continue
            decompressed += size
            if decompressed > budget.decompressed:
                conn.send(
                    ("cut", number + 1, f"{megabytes(budget.decompressed)} decompressed-content budget reached", False)
                )
                return
            # sort=True orders text blocks top-to-bottom, left-to-right: reading order for most layouts.
            text = tidy_lines(page.get_text("text", sort=True))
            conn.send(("page", number + 1, text))
            chars += len(text)
            if chars > budget.chars:
                return  # the parent cuts this page and says so


def _clean(value: str | None) -> str | None:
    return " ".join(value.split()) if value and value.strip() else None


def _metadata(raw: dict) -> dict:
    metadata: dict = {}
    author = _clean(raw.get("author"))
    if author:
        metadata["authors"] = [a.strip() for a in re.split(r";|\band\b", author) if a.strip()]
    date = iso_date(_clean(raw.get("creationDate")))
    if date:
        metadata["date"] = date
    for key in ("subject", "keywords", "producer"):
        value = _clean(raw.get(key))
        if value:
            metadata[key] = value
    return metadata


def collapse(exc: Exception) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
