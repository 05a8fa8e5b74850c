"""Named camera rigs that `roadtest run --camera NAME` attaches to any agent (leaderboard spec dicts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from roadtest.errors import UserError

__all__ = ["RIGS", "UNIAD_RIG", "FRONT", "rig_specs"]

# a leaderboard agent's front camera, id "Center" (CARLA vehicle frame: m, degrees)
FRONT = [{"type": "sensor.camera.rgb", "id": "Center", "x": 0.7, "y": 0.0, "z": 1.60, "roll": 0.0, "pitch": 0.0,
          "yaw": 0.0, "width": 800, "height": 600, "fov": 100}]

# UniAD / VAD on Bench2Drive: six 1600x900 RGB cameras at z = 1.60 m (Bench2DriveZoo team_code agents' sensors())
UNIAD_RIG = [
    {"type": "sensor.camera.rgb", "id": cid, "x": x, "y": y, "z": 1.60, "roll": 0.0, "pitch": 0.0, "yaw": yaw,
     "width": 1600, "height": 900, "fov": fov}
    for cid, x, y, yaw, fov in (("CAM_FRONT", 0.80, 0.0, 0.0, 70), ("CAM_FRONT_LEFT", 0.27, -0.55, -55.0, 70),
                                ("CAM_FRONT_RIGHT", 0.27, 0.55, 55.0, 70), ("CAM_BACK", -2.0, 0.0, 180.0, 110),
                                ("CAM_BACK_LEFT", -0.32, -0.55, -110.0, 70), ("CAM_BACK_RIGHT", -0.32, 0.55, 110.0, 70))]

BEV = [{"type": "roadtest.bev", "id": "bev", "width": 512, "height": 512, "size": 64.0}]

RIGS: dict[str, list[dict[str, Any]]] = {"front": FRONT, "uniad": UNIAD_RIG, "bev": BEV}


def rig_specs(name: str) -> list[dict[str, Any]]:
    """A named rig, or the sensor list in a JSON/YAML file (a list of leaderboard sensor dicts)."""
    if name in RIGS:
        return [dict(s) for s in RIGS[name]]
    path = Path(name)
    if not path.is_file():
        raise UserError(f"--camera {name!r}: expected one of {', '.join(RIGS)} or a JSON/YAML file of sensor specs")
    text = path.read_text()
    try:
        if path.suffix == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as e:  # noqa: BLE001 - the user's file does not parse
        raise UserError(f"{path}: cannot read the sensor specs: {e}") from None
    if not isinstance(data, list) or not all(isinstance(d, dict) and "type" in d and "id" in d for d in data):
        raise UserError(f"{path}: expected a list of sensor specs, each with type and id")
    return data
