"""Background jobs (crawl, upload, path): one at a time, progress and summary kept in memory."""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

MAX_KEPT = 200  # finished jobs remembered; the oldest are forgotten first
MAX_ERRORS = 100  # error lines kept per job


class Jobs:
    def __init__(self):
        self._jobs: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()
        # Loads write to one graph: one at a time keeps their writes and phrase re-links apart.
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphrag-job")

    def submit(
        self,
        kind: str,
        describe: str,
        work: Callable[[Callable[[dict], None], Callable[[str], None]], dict],
        cleanup: Callable[[], None] = lambda: None,
    ) -> dict:
        job: dict[str, Any] = {
            "id": uuid.uuid4().hex[:16],
            "kind": kind,
            "source": describe,
            "state": "queued",
            "created": time.time(),
            "started": None,
            "finished": None,
            "progress": None,
            "errors": [],
            "summary": None,
            "error": None,
        }
        with self._lock:
            self._jobs[job["id"]] = job
            while len(self._jobs) > MAX_KEPT:
                oldest = next(iter(self._jobs))
                if self._jobs[oldest]["state"] in {"queued", "running"}:
                    break
                self._jobs.popitem(last=False)

        def progress(stats: dict) -> None:
            job["progress"] = {"documents": stats.get("documents"), "chunks": stats.get("chunks")}

        def error(line: str) -> None:
            if len(job["errors"]) < MAX_ERRORS:
                job["errors"].append(line)

        def run() -> None:
            job["state"], job["started"] = "running", time.time()
            try:
                job["summary"] = work(progress, error)
                job["state"] = "done"
            except Exception as exc:  # a job's failure is its report, never the server's
                from .errors import one_line

                job["state"], job["error"] = "failed", one_line(exc)
            finally:
                job["finished"] = time.time()
                cleanup()

        self._pool.submit(run)
        return self.view(job)

    def get(self, job_id: str) -> dict | None:
        job = self._jobs.get(job_id)
        return self.view(job) if job else None

    @staticmethod
    def view(job: dict) -> dict:
        return {k: (list(v) if isinstance(v, list) else v) for k, v in job.items()}

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
