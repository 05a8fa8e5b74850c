"""Files written in CARLA's frame: scenario_runner reads a scenario whose FileHeader description starts with "CARLA:"
in Unreal's left-handed frame (y and yaw mirrored against OpenDRIVE's right-handed one; see its
OpenScenarioConfiguration._set_scenario_name and OpenScenarioParser.convert_position_to_transform). Read such a file
by mirroring every lateral coordinate and heading of its positions into the OpenDRIVE frame once, after parameters
are resolved, so that the rest of the player needs no second frame."""

from __future__ import annotations

from typing import Any

__all__ = ["CARLA_PREFIX", "in_carla_frame", "to_opendrive_frame"]

CARLA_PREFIX = "CARLA:"
# attributes that change sign under the mirror y -> -y, per position kind (headings: h, of Orientation too)
MIRRORED = {
    "WorldPosition": ("y", "h"),
    "RelativeWorldPosition": ("dy",),
    "RelativeObjectPosition": ("dy",),
    "RoadPosition": ("t",),
    "RelativeRoadPosition": ("dt",),
    "LanePosition": ("offset",),
    "RelativeLanePosition": ("offset",),
    "Orientation": ("h",),
}


def in_carla_frame(root: Any) -> bool:
    """Whether the document says (as scenario_runner reads it) that its coordinates are CARLA's."""
    header = root.find("FileHeader")
    return header is not None and (header.get("description") or "").startswith(CARLA_PREFIX)


def _negated(raw: str) -> str:
    value = -float(raw)
    return repr(value + 0.0)  # + 0.0: no "-0.0"


def to_opendrive_frame(root: Any) -> int:
    """Mirror the positions below root in place; the number of elements changed."""
    changed = 0
    for tag, names in MIRRORED.items():
        for el in root.iter(tag):
            hit = False
            for name in names:
                raw = el.get(name)
                if raw not in (None, ""):
                    el.set(name, _negated(raw))
                    hit = True
            changed += hit
    return changed
