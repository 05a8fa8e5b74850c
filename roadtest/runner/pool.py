"""Worker processes: each run in its own spawned process under a wall-clock limit; the parent alone writes results."""

from __future__ import annotations

import json
import multiprocessing as mp
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from roadtest.runner.episode import Job
from roadtest.runner.limits import ServerLimits

__all__ = ["run_jobs", "KILL_GRACE", "failure_record", "hang_deadline"]

KILL_GRACE = 60.0  # s past the job's own limit (plus half of it) before the parent kills a hung worker
_POLL = 0.05  # s


def _result_path(job: Job) -> Path:
    return Path(job.out) / "runs" / job.run_id / ".result.json"


def _worker(job: Job) -> None:
    """Child entry point: run the job and leave its record beside the run for the parent to collect.

    Ctrl-C reaches the whole process group; the parent answers it (it says how to resume), so a worker stops
    quietly, as a SystemExit, rather than print multiprocessing's `Process roadtest-...:` traceback. (Ignoring
    the signal instead would leave a worker the parent had not yet counted running on after it.)"""
    from roadtest.runner.episode import execute_run, write_json_atomic

    try:
        record = execute_run(job)
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    path = _result_path(job)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, record)


def _collect(job: Job, proc, killed: bool) -> dict[str, Any]:
    """The worker's record (its .result.json stays until the record is appended: see _deliver)."""
    path = _result_path(job)
    if path.exists() and not killed:
        return json.loads(path.read_text())
    if killed:
        return failure_record(job, "timeout", f"killed after {job.timeout:g} s wall-clock limit")
    return failure_record(job, "sim_error", f"worker exited with code {proc.exitcode} without a result")


def _deliver(job: Job, record: dict[str, Any], on_result: Callable[[dict[str, Any]], None]) -> None:
    """Hand the record on, and only once on_result has stored it delete the worker's copy of it."""
    on_result(record)
    path = _result_path(job)
    if path.exists():
        path.unlink()


def failure_record(job: Job, status: str, reason: str) -> dict[str, Any]:
    """The record of a run whose worker gave none (killed, lost, crashed); sim_error counts as infrastructure."""
    return {"run_id": job.run_id, "variant": job.variant, "seed": job.seed, "agent": job.agent,
            "backend": job.backend, "tick": job.tick, "bundle": job.bundle, "status": status, "reason": reason,
            "infrastructure": status == "sim_error"}


def hang_deadline(job: Job, started: float) -> float:
    """When the driver gives up on a worker that ignores the run's own wall-clock limit."""
    return started + 1.5 * job.timeout + KILL_GRACE


def run_jobs(jobs: Sequence[Job], workers: int, on_result: Callable[[dict[str, Any]], None],
             context: str | None = None) -> None:
    """Run every job, at most `workers` at a time, calling on_result(record) in the parent as each ends.

    Linux uses a forkserver that has imported the runner and the metrics once, so each run's process
    starts in milliseconds yet shares no state with the parent; elsewhere plain spawn.
    """
    if context is None:
        context = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
    ctx = mp.get_context(context)
    if context == "forkserver":
        ctx.set_forkserver_preload(["roadtest.runner.episode", "roadtest.scoring.score", "roadtest.sim.embedded"])
    pending = list(jobs)
    running: list[tuple[Job, Any, float]] = []
    limits = ServerLimits()
    try:
        while pending or running:
            while pending and len(running) < max(workers, 1):
                index = limits.next_index(pending)
                if index is None:
                    break
                job = pending.pop(index)
                limits.start(job)
                stale = _result_path(job)
                if stale.exists():
                    stale.unlink()
                proc = ctx.Process(target=_worker, args=(job,), name=f"roadtest-{job.run_id}", daemon=True)
                proc.start()
                running.append((job, proc, hang_deadline(job, time.monotonic())))
            still = []
            for job, proc, deadline in running:
                if proc.exitcode is not None:
                    proc.join()
                    limits.end(job)
                    _deliver(job, _collect(job, proc, killed=False), on_result)
                elif time.monotonic() > deadline:
                    proc.kill()
                    proc.join()
                    limits.end(job)
                    _deliver(job, _collect(job, proc, killed=True), on_result)
                else:
                    still.append((job, proc, deadline))
            running = still
            if running:
                time.sleep(_POLL)
    finally:
        for _, proc, _ in running:
            if proc.is_alive():
                proc.kill()
                proc.join()
