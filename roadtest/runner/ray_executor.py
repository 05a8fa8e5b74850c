"""Runs on Ray: each run a Ray task on a worker of a local or remote cluster; the driver alone writes results.

A task declares what it holds: one CPU for a built-in run, one `carla_server` custom resource for a
CARLA run (start each node with `--resources '{"carla_server": N}'` for its N servers). A worker that
dies (process killed, node lost) is retried `retries` times by Ray, then recorded as an infrastructure
failure. Worker processes live across runs, so per-process caches (parsed maps by digest) serve every
run a worker takes.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

from roadtest.errors import DependencyMissing
from roadtest.runner.episode import Job
from roadtest.runner.limits import ServerLimits
from roadtest.runner.pool import KILL_GRACE, failure_record, hang_deadline

__all__ = ["run_jobs_ray", "import_ray", "task_options", "DEFAULT_RETRIES"]

DEFAULT_RETRIES = 2  # extra attempts after a lost worker before the run counts as an infrastructure failure
QUEUED_PER_CPU = 1  # tasks waiting on the cluster per CPU, beyond the running ones
_POLL = 0.2  # s


def import_ray():
    """The ray module, or a DependencyMissing that says how to install it."""
    try:
        import ray
    except ImportError as e:
        raise DependencyMissing("ray (needed by --executor ray)", extra="ray") from e
    return ray


def task_options(job: Job, retries: int) -> dict[str, Any]:
    """Resources and retry policy of one run's task."""
    opts: dict[str, Any] = {"max_retries": retries, "retry_exceptions": False}
    if job.backend == "carla":
        opts.update(num_cpus=0, resources={"carla_server": 1})
    else:
        opts["num_cpus"] = 1
    return opts


def _execute(job: Job) -> dict[str, Any]:
    from roadtest.runner.episode import execute_run

    return execute_run(job)


def run_jobs_ray(jobs: Sequence[Job], on_result: Callable[[dict[str, Any]], None], address: str | None = None,
                 num_cpus: int | None = None, retries: int = DEFAULT_RETRIES) -> None:
    """Run every job as a Ray task, calling on_result(record) in the driver as each ends.

    Connects to the cluster at `address` (or starts a local one with `num_cpus`); keeps one task queued per
    CPU beyond those running, so a worker that finishes starts its next run without waiting for the driver
    to hear of it, and submits no more (so server limits and progress stay meaningful); a task past its hang
    deadline (counted from submission, with a queued task's wait allowed for) is cancelled and recorded as a
    timeout.
    """
    ray = import_ray()
    started_here = not ray.is_initialized()
    if started_here:
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
        if address:
            kwargs["address"] = address
        elif num_cpus:
            kwargs["num_cpus"] = num_cpus
        ray.init(**kwargs)
    remote = ray.remote(_execute)
    slots = max(1, int(ray.cluster_resources().get("CPU", 1)))
    in_flight = QUEUED_PER_CPU * slots + slots
    pending = list(jobs)
    running: dict[Any, tuple[Job, float]] = {}
    limits = ServerLimits()
    try:
        while pending or running:
            while pending and len(running) < in_flight:
                index = limits.next_index(pending)
                if index is None:
                    break
                job = pending.pop(index)
                limits.start(job)
                queued = len(running) >= slots  # waits behind a running task: allow for that task's own limit
                ref = remote.options(**task_options(job, retries)).remote(job)
                wait = 1.5 * job.timeout + KILL_GRACE if queued else 0.0
                running[ref] = (job, hang_deadline(job, time.monotonic()) + wait)
            done, _ = ray.wait(list(running), num_returns=1, timeout=_POLL)
            for ref in done:
                job, _ = running.pop(ref)
                limits.end(job)
                on_result(_record(ray, ref, job, retries))
            now = time.monotonic()
            for ref, (job, deadline) in list(running.items()):
                if now > deadline:
                    ray.cancel(ref, force=True)
                    running.pop(ref)
                    limits.end(job)
                    on_result(failure_record(job, "timeout", f"killed after {job.timeout:g} s wall-clock limit"))
    finally:
        for ref in running:
            ray.cancel(ref, force=True)
        if started_here:
            ray.shutdown()


def _record(ray, ref, job: Job, retries: int) -> dict[str, Any]:
    """The task's record, or a failure record naming what Ray reported."""
    try:
        return ray.get(ref)
    except ray.exceptions.TaskCancelledError:
        return failure_record(job, "timeout", f"killed after {job.timeout:g} s wall-clock limit")
    except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError, ray.exceptions.ActorDiedError) as e:
        return failure_record(job, "sim_error", f"worker lost {retries + 1} time(s) ({type(e).__name__}); "
                                                f"{retries} retr{'y' if retries == 1 else 'ies'} used")
    except ray.exceptions.RayError as e:
        return failure_record(job, "sim_error", f"ray task failed: {type(e).__name__}: {str(e).splitlines()[0]}")
