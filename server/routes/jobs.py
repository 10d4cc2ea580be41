"""Jobs: every learning job remembered, one job's progress, cancelling one."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from ..common import ApiError, State
from ..jobs import JobFinished


def router(state: State) -> APIRouter:
    routes = APIRouter(tags=["jobs"])

    @routes.get("/jobs", summary="Every job remembered, oldest first: state, place in the line, progress")
    def jobs():
        listed = state.jobs.all()
        running = next((j["id"] for j in listed if j["state"] == "running"), None)
        return {
            "jobs": listed,
            "running": running,
            "queued": [j["id"] for j in sorted(listed, key=lambda j: j["position"] or 0) if j["state"] == "queued"],
        }

    @routes.get("/jobs/{job_id}", summary="A job's state, place in the line, progress and load summary")
    def job(job_id: str):
        found = state.jobs.get(job_id)
        if found is None:
            raise ApiError(404, f"no job {job_id!r}")
        return found

    @routes.delete(
        "/jobs/{job_id}",
        summary="Cancel a job: a queued one now (200), a running one at its next document (202; needs the key)",
    )
    def cancel_job(job_id: str):
        try:
            found = state.jobs.cancel(job_id)
        except JobFinished as exc:
            raise ApiError(409, str(exc)) from None
        if found is None:
            raise ApiError(404, f"no job {job_id!r}")
        return JSONResponse(found, status_code=200 if found["state"] == "cancelled" else 202)

    return routes
