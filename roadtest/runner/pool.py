"""Worker processes that live across runs, under a wall-clock limit per run; the parent alone writes results.

Each worker takes one run at a time and keeps what is pure and keyed by content digest (parsed maps, their
lane tables, the rule catalogue) for the runs that follow, so a suite pays them once per map and worker. A
worker that dies or hangs takes only its run with it: that run is recorded as a failure and a fresh worker
takes the next one.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import time
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any, Callable, Sequence

from roadtest.runner.episode import Job
from roadtest.runner.limits import ServerLimits

__all__ = ["run_jobs", "KILL_GRACE", "failure_record", "hang_deadline", "PRELOAD"]

KILL_GRACE = 60.0  # s past the job's own limit (plus half of it) before the parent kills a hung worker
_POLL = 0.05  # s
_STOP_WAIT = 5.0  # s a worker has to leave after it is told to stop, before it is killed
# imported once by the forkserver, so a (re)started worker begins with the runner, simulator and scoring loaded
PRELOAD = ["roadtest.runner.episode", "roadtest.scoring.score", "roadtest.sim.embedded", "roadtest.agents.registry"]


def _result_path(job: Job) -> Path:
    return Path(job.out) / "runs" / job.run_id / ".result.json"


def _serve(conn, environ: dict[str, str]) -> None:
    """Worker entry point: run each job the parent sends and leave its record beside the run, then say so.

    ENVIRON is the parent's environment when it started the worker: a forkserver's children inherit the
    forkserver's, which is the parent's of an earlier moment (settings such as $ROADTEST_RULES set since then
    would be lost).

    The record goes to OUT/runs/<run id>/.result.json before the parent hears of it, so a parent that dies
    in between leaves it for --resume. Ctrl-C reaches the whole process group; the parent answers it (it says
    how to resume), so a worker stops quietly, as a SystemExit, rather than print a traceback."""
    from roadtest.runner.episode import execute_run, write_json_atomic

    os.environ.clear()
    os.environ.update(environ)
    try:
        while True:
            try:
                job = conn.recv()
            except EOFError:  # the parent is gone
                return
            if job is None:
                return
            record = execute_run(job)
            path = _result_path(job)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_json_atomic(path, record)
            conn.send(job.run_id)
    except KeyboardInterrupt:
        raise SystemExit(130) from None


def _collect(job: Job, exitcode: int | None, killed: bool) -> dict[str, Any]:
    """The worker's record (its .result.json stays until the record is appended: see _deliver)."""
    path = _result_path(job)
    if path.exists() and not killed:
        return json.loads(path.read_text())
    if killed:
        return failure_record(job, "timeout", f"killed after {job.timeout:g} s wall-clock limit")
    return failure_record(job, "sim_error", f"worker exited with code {exitcode} without a result")


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


class _Worker:
    """One long-lived worker process, its end of the pipe, and the run it holds (None when idle)."""

    def __init__(self, ctx, index: int):
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_serve, args=(child, dict(os.environ)), name=f"roadtest-worker-{index}", daemon=True)
        self.proc.start()
        child.close()
        self.job: Job | None = None
        self.deadline = 0.0

    def give(self, job: Job) -> None:
        self.job, self.deadline = job, hang_deadline(job, time.monotonic())
        self.conn.send(job)

    def finished(self) -> bool:
        """Whether the run it holds ended with a record (False: still running, or the worker died)."""
        try:
            if not self.conn.poll():
                return False
            return self.conn.recv() == self.job.run_id
        except (EOFError, OSError):
            return False

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()

    def stop(self) -> None:
        """Ask an idle worker to leave; kill it if it does not."""
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.proc.join(_STOP_WAIT)
        self.kill()


def _context(context: str | None):
    """Linux: a forkserver that has imported PRELOAD once, so a worker starts in milliseconds yet shares no
    state with the parent; elsewhere plain spawn."""
    if context is None:
        context = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
    ctx = mp.get_context(context)
    if context == "forkserver":
        ctx.set_forkserver_preload(PRELOAD)
    return ctx


def run_jobs(jobs: Sequence[Job], workers: int, on_result: Callable[[dict[str, Any]], None],
             context: str | None = None) -> None:
    """Run every job, at most `workers` at a time, calling on_result(record) in the parent as each ends.

    A worker whose run outlives hang_deadline is killed (the run recorded as a timeout); one that exits
    without a record (killed, crashed) loses that run only (sim_error). Either way a fresh worker starts for
    the next run."""
    ctx = _context(context)
    pending = list(jobs)
    idle: list[_Worker] = []
    busy: list[_Worker] = []
    started = 0
    limits = ServerLimits()
    try:
        while pending or busy:
            while pending and len(busy) < max(workers, 1):
                index = limits.next_index(pending)
                if index is None:
                    break
                job = pending.pop(index)
                limits.start(job)
                stale = _result_path(job)
                if stale.exists():
                    stale.unlink()
                if not idle:
                    idle.append(_Worker(ctx, started))
                    started += 1
                w = idle.pop()
                try:
                    w.give(job)
                except (BrokenPipeError, OSError):  # it died while idle: the run goes to a fresh worker
                    w.kill()
                    w = _Worker(ctx, started)
                    started += 1
                    w.give(job)
                busy.append(w)
            if not pending:
                for w in idle:
                    w.stop()
                idle = []
            if busy:
                wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=_POLL)
            still = []
            for w in busy:
                job = w.job
                if w.finished():
                    limits.end(job)
                    w.job = None
                    idle.append(w)
                    _deliver(job, _collect(job, None, killed=False), on_result)
                elif not w.proc.is_alive():
                    w.kill()
                    limits.end(job)
                    _deliver(job, _collect(job, w.proc.exitcode, killed=False), on_result)
                elif time.monotonic() > w.deadline:
                    w.kill()
                    limits.end(job)
                    _deliver(job, _collect(job, w.proc.exitcode, killed=True), on_result)
                else:
                    still.append(w)
            busy = still
    finally:
        for w in busy:
            w.kill()
        for w in idle:
            w.stop()
