"""`roadtest replay RUN_DIR --carla HOST:PORT`: play a CARLA run's recorder file back on a CARLA server.

A run from the CARLA backend names its recorder file in trace.info["carla_recorder"] (or in
RUN_DIR/carla.json as {"recorder": ..., "ego_id": ...}). CARLA writes and reads recorder files on
the server's side, so the name is the server's path, as `client.start_recorder` was given it.
"""

from __future__ import annotations

import json
from pathlib import Path

from roadtest.errors import DependencyMissing, UserError

__all__ = ["recorder_reference", "parse_host_port", "carla_replay_command"]

CONNECT_TIMEOUT = 10.0  # s


def parse_host_port(text: str) -> tuple[str, int]:
    """('host', port) from HOST:PORT; UserError otherwise."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"--carla {text!r}: expected HOST:PORT, e.g. localhost:2000")
    return host, int(port)


def recorder_reference(run_dir: Path) -> tuple[str, int | None]:
    """(recorder file name on the server, CARLA actor id of the ego or None); UserError when the run has none."""
    import gzip

    run_dir = Path(run_dir)
    side = run_dir / "carla.json"
    if side.is_file():
        try:
            d = json.loads(side.read_text())
        except ValueError as e:
            raise UserError(f"{side}: not valid JSON ({e})") from e
        if not isinstance(d, dict) or not d.get("recorder"):
            raise UserError(f"{side}: recorder: expected the recorder file name")
        return str(d["recorder"]), d.get("ego_id")
    trace = run_dir / "trace.json.gz"
    if not trace.is_file():
        raise UserError(f"{run_dir}: no trace.json.gz in it (expected a run folder written by `roadtest run`)")
    info = json.loads(gzip.decompress(trace.read_bytes())).get("info") or {}
    if not info.get("carla_recorder"):
        raise UserError(f"{run_dir}: this run names no CARLA recorder file (backend {info.get('backend', '?')}; "
                        "only runs of the carla backend can be replayed on a server)")
    return str(info["carla_recorder"]), info.get("carla_ego_id")


def carla_replay_command(run_dir: Path, host_port: str) -> int:
    """Ask the server at HOST:PORT to replay the run's recording, following the ego."""
    host, port = parse_host_port(host_port)
    name, ego = recorder_reference(run_dir)
    try:
        import carla
    except ImportError as e:
        raise DependencyMissing("carla", "carla") from e
    try:
        client = carla.Client(host, port)
        client.set_timeout(CONNECT_TIMEOUT)
        version = client.get_server_version()
    except RuntimeError as e:
        raise UserError(f"--carla {host_port}: no CARLA server answered ({e})") from e
    info = client.show_recorder_file_info(name, False)
    if not info or "not found" in str(info).lower():
        raise UserError(f"{name}: the server at {host_port} has no such recorder file ({str(info).strip()[:200]})")
    print(client.replay_file(name, 0.0, 0.0, int(ego) if ego is not None else 0))
    print(f"replaying {name} on CARLA {version} at {host_port}" + (f", following actor {ego}" if ego is not None else ""))
    return 0
