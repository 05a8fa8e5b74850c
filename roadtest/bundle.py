"""The bundle: the contract between authoring and running.

A bundle is a folder with `scenario.xosc` (OpenSCENARIO 1.0), `road.xodr` (OpenDRIVE) and
`meta.json`. Nothing downstream reads the YAML again; what a run and its metrics need beyond the two
standard files travels in meta.json. A bare `.xosc` someone else wrote is also a bundle, with an
empty meta.

meta.json keys (all SI units; absent keys mean "not known"):
  roadtest_version, id (variant id), scenario (name), source (YAML path), description,
  country (ISO alpha-2), driving_side ("right"|"left"), level ("L1".."L5"), tags [str],
  seed (int), sweep {field.path: value},
  environment {weather, cloudiness, precipitation, precipitation_intensity, fog_visual_range,
               wetness, friction, time_of_day "HH:MM", sun_elevation}
  ego {entity: "hero", model, speed (m/s), start {road, lane, s}},
  route {waypoints [[x, y], ...] every <= 2 m from start to goal, length (m),
         lanes [{road, lane, s_start, s_end}], goal {x, y, road, lane, s}, exit: left|straight|right|null},
  rules [{id, params {...}, priority (int, lower = more important), priority_class (str)}],
  governing: {rule id that the expected behaviour follows where rules conflict, or null},
  expect {reach_goal: bool, timeout (s), rules_hold: bool},
  traffic {density (vehicles/km/lane), pedestrians (int), crossing_share (0-1), seed (int)},
  scene {speed_limit (m/s), signs [{id, road, s, t, side, value, unit, country_code}],
         stop_lines [{road, s, lanes}], crosswalks [{road, s_start, s_end}],
         lights [{id, road, s, phases [{state, duration}]}],
         zones [{kind: tunnel|bridge|school_zone|work_zone, road, s_start, s_end, speed_limit}],
         actors [{id, kind, siren}]}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roadtest.errors import UserError

__all__ = ["Bundle", "load_bundle"]


@dataclass(frozen=True)
class Bundle:
    """Paths of one runnable scenario and its meta (empty for a foreign .xosc)."""

    root: Path
    xosc: Path
    xodr: Path | None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        if self.meta.get("id"):
            return str(self.meta["id"])
        return self.root.name if self.xosc.name == "scenario.xosc" else self.xosc.stem


def load_bundle(path: str | Path) -> Bundle:
    """A bundle folder, its scenario.xosc, or any .xosc file."""
    p = Path(path)
    if p.is_dir():
        xosc = p / "scenario.xosc"
        if not xosc.exists():
            raise UserError(f"{p}: not a bundle (no scenario.xosc)")
    elif p.suffix == ".xosc" and p.exists():
        xosc = p
    else:
        raise UserError(f"{p}: expected a bundle folder or an .xosc file")
    root = xosc.parent
    meta_path = root / "meta.json"
    meta: dict[str, Any] = {}
    if xosc.name == "scenario.xosc" and meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text())
        except json.JSONDecodeError as e:
            raise UserError(f"{meta_path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from e
    xodr = root / "road.xodr"
    return Bundle(root=root, xosc=xosc, xodr=xodr if xodr.exists() else None, meta=meta)
