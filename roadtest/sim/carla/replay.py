"""Replaying a CARLA run on a server from the recorder file its run folder references (trace.info
"carla_recorder"), for a `roadtest replay --carla` view: the server re-enacts the run with its own renderer."""

from __future__ import annotations

from pathlib import Path

from roadtest.errors import UserError

__all__ = ["recorder_file"]


def recorder_file(run_dir: str | Path) -> Path:
    """The CARLA recorder file of a run folder (UserError when the run was not a CARLA run or lost its file)."""
    from roadtest.sim.api import Trace

    run_dir = Path(run_dir)
    trace_path = run_dir / "trace.json.gz"
    if not trace_path.exists():
        raise UserError(f"{run_dir}: no trace.json.gz (expected a run folder, OUT/runs/<run id>/)")
    log = Trace.load(trace_path).info.get("carla_recorder")
    if not log:
        raise UserError(f"{run_dir}: not a CARLA run (its trace names no CARLA recorder file)")
    path = Path(log)
    if not path.exists() and (run_dir / path.name).exists():
        path = run_dir / path.name  # the results folder was moved: the file travels with the run
    if not path.exists():
        raise UserError(f"{run_dir}: the CARLA recorder file {log} is missing")
    return path
