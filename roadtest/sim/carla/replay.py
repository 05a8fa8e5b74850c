"""Replaying a CARLA run on a server from the recorder file its run folder references (trace.info
"carla_recorder"), for a `roadtest replay --carla` view: the server re-enacts the run with its own renderer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from roadtest.errors import UserError

__all__ = ["recorder_file", "replay_on_server"]


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


def replay_on_server(run_dir: str | Path, host: str | None = None, port: int | None = None,
                     follow: str = "hero") -> str:
    """Ask the server to replay the run, the camera following the actor with role name `follow`; returns the
    server's summary of the file. The server reads the file itself: it must see the same path."""
    from roadtest.sim.carla.connect import import_carla, parse_endpoint, probe

    log = recorder_file(run_dir)
    ep = parse_endpoint(host, port)
    probe(ep)
    carla: Any = import_carla()
    client = carla.Client(ep.host, ep.port)
    client.set_timeout(ep.timeout)
    info = client.show_recorder_file_info(str(log), False)
    follow_id = current = 0
    for line in info.splitlines():  # "Create 24: vehicle.tesla.model3 (1) at ..." then " role_name = hero"
        if line.strip().startswith("Create "):
            current = int(line.split()[1].rstrip(":"))
        elif line.strip() == f"role_name = {follow}":
            follow_id = current
            break
    client.replay_file(str(log), 0.0, 0.0, follow_id, False)
    return info
