"""Background jobs (crawl, upload, path): one at a time, in a visible line, each cancellable.

Loads write to one graph, so they run one after another (their writes and phrase re-links stay
apart); every job shows where it stands in the line (`position`, `waiting_behind`), its progress
while it runs, and can be cancelled: a queued one at once, a running one at its next document
or embedding call (it keeps whole documents and says what it wrote).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from graphrag_cypher import telemetry
from graphrag_cypher.errors import GraphragError
from graphrag_cypher.principal import Principal, acting_as, current

MAX_KEPT = 200  # finished jobs remembered; the oldest are forgotten first
MAX_ERRORS = 100  # error lines kept per job
MAX_QUEUED = 20  # jobs waiting (uploads keep their files on disk until they run)
ACTIVE = ("queued", "running")

Work = Callable[[Callable[[dict], None], Callable[[str], None], Callable[[], bool]], dict]


class QueueFull(GraphragError):
    """Too many jobs wait already."""


class JobFinished(GraphragError):
    """A job that is over cannot be cancelled."""


class Jobs:
    def __init__(self) -> None:
        self._jobs: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()
        # per job: (stop asked, ended, clean up once) and its future
        self._controls: dict[str, tuple[threading.Event, threading.Event, Callable[[], None]]] = {}
        self._futures: dict[str, Future] = {}
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphrag-job")

    def check_room(self) -> None:
        """Raise QueueFull when a new job would wait behind too many."""
        with self._lock:
            waiting = sum(1 for j in self._jobs.values() if j["state"] == "queued")
        if waiting >= MAX_QUEUED:
            raise QueueFull(
                f"{waiting} jobs are waiting already: try again when one has finished "
                "(GET /jobs shows them; DELETE /jobs/{id} cancels one)"
            )

    def submit(
        self,
        kind: str,
        describe: str,
        work: Work,
        cleanup: Callable[[], None] = lambda: None,
        total: int | None = None,
    ) -> dict:
        """Queue `work(progress, error, should_stop)`; its result is the job's summary. `total`:
        how many items it has, when known (files of an upload). The job runs as the principal that
        submitted it (its key: named in the job, seen by the audit). Raises QueueFull."""
        self.check_room()
        work = telemetry.traced_job(kind, work)  # counted for /metrics, a span under the request's
        principal = current()  # a worker thread does not inherit the request's context: carried here
        job: dict[str, Any] = {
            "id": uuid.uuid4().hex[:16],
            "kind": kind,
            "key": principal.name,
            "source": describe,
            "state": "queued",
            "created": time.time(),
            "started": None,
            "finished": None,
            "progress": None,
            "cancel_requested": False,
            "errors": [],
            "summary": None,
            "error": None,
        }
        stop = threading.Event()
        done = threading.Event()
        cleaned = threading.Lock()

        def clean() -> None:
            if cleaned.acquire(blocking=False):  # once, whoever ends the job
                cleanup()

        def progress(stats: dict) -> None:
            stats = dict(stats)
            stats["items"] = dict(stats.get("items") or {}, total=total)
            job["progress"] = stats

        def error(line: str) -> None:
            if len(job["errors"]) < MAX_ERRORS:
                job["errors"].append(line)

        def run() -> None:
            with self._lock:
                if job["state"] != "queued":  # cancelled while it waited
                    return
                job["state"], job["started"] = "running", time.time()
            progress({"items": {"read": 0, "done": 0}, "phase": "starting"})  # e.g. the embedding model loads
            try:
                with acting_as(principal):
                    summary = work(progress, error, stop.is_set)
                job["summary"] = summary
                job["state"] = "cancelled" if summary.get("cancelled") else "done"
            except Exception as exc:  # a job's failure is its report, never the server's
                from .errors import one_line

                job["state"], job["error"] = "failed", one_line(exc)
            finally:
                job["finished"] = time.time()
                clean()
                done.set()

        with self._lock:
            self._jobs[job["id"]] = job
            self._controls[job["id"]] = (stop, done, clean)
            while len(self._jobs) > MAX_KEPT:
                oldest = next(iter(self._jobs))
                if self._jobs[oldest]["state"] in ACTIVE:
                    break
                self._jobs.popitem(last=False)
                self._controls.pop(oldest, None)
                self._futures.pop(oldest, None)
        self._futures[job["id"]] = self._pool.submit(run)
        return self.get(job["id"]) or self._view(job, [])

    def active_of(self, key: str) -> int:
        """How many jobs the key named `key` has queued or running."""
        with self._lock:
            return sum(1 for j in self._jobs.values() if j["key"] == key and j["state"] in ACTIVE)

    @staticmethod
    def _visible(job: dict, who: Principal | None = None) -> bool:
        """A key scoped to corpora sees (and cancels) its own jobs only; others see every job."""
        who = who or current()
        return who.corpora is None or job["key"] == who.name

    def cancel(self, job_id: str) -> dict | None:
        """Cancel a job: a queued one now (state `cancelled`, nothing written), a running one
        at its next document or embedding call (`cancel_requested`; it ends `cancelled` with a
        summary of what it wrote). None for an unknown id; JobFinished for one that is over."""
        from graphrag_cypher.store.ingest import LoadStats

        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or not self._visible(job):
                return None
            stop, done, clean = self._controls[job_id]
            if job["state"] not in ACTIVE:
                raise JobFinished(f"job {job_id} is {job['state']} already: there is nothing to cancel")
            job["cancel_requested"] = True
            stop.set()
            queued = job["state"] == "queued"
            if queued:
                job["state"], job["finished"] = "cancelled", time.time()
                job["summary"] = LoadStats(cancelled=True).to_dict()  # it wrote nothing
        if queued:
            self._futures.pop(job_id, Future()).cancel()
            clean()
            done.set()
        return self.get(job_id)

    def wait(self, job_id: str, timeout: float | None = None) -> dict | None:
        """The job once it is over (or after `timeout` seconds)."""
        controls = self._controls.get(job_id)
        if controls is not None:
            controls[1].wait(timeout)
        return self.get(job_id)

    def get(self, job_id: str) -> dict | None:
        with self._lock:
            job = self._jobs.get(job_id)
            return self._view(job, self._line()) if job and self._visible(job) else None

    def all(self) -> list[dict]:
        """Every job remembered, oldest first, each with its place in the line."""
        with self._lock:
            line = self._line()
            who = current()
            return [self._view(job, line) for job in self._jobs.values() if self._visible(job, who)]

    def _line(self) -> list[str]:
        """Ids of the jobs not over: the running one first, then the queued in the order they run."""
        running = [i for i, j in self._jobs.items() if j["state"] == "running"]
        return running + [i for i, j in self._jobs.items() if j["state"] == "queued"]

    @staticmethod
    def _view(job: dict, line: list[str]) -> dict:
        view = {k: (list(v) if isinstance(v, list) else v) for k, v in job.items()}
        if job["id"] in line:
            view["position"] = line.index(job["id"])  # jobs ahead of it
            view["waiting_behind"] = line[0] if view["position"] else None
        else:
            view["position"] = view["waiting_behind"] = None
        return view

    def shutdown(self, wait: float = 10) -> None:
        """Cancel what waits, ask the running job to stop, and give it `wait` seconds to end
        whole (it writes what it has embedded and re-links)."""
        with self._lock:
            active = [i for i, j in self._jobs.items() if j["state"] in ACTIVE]
        for job_id in active:
            try:
                self.cancel(job_id)
            except JobFinished:
                pass
        self._pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + wait
        for job_id in active:
            self.wait(job_id, max(0.0, deadline - time.monotonic()))
