"""The expert's officer constraint: a police officer directing the ego's approach outranks the lights there.

"stop" holds the ego at the stop line the officer stands by (even on green); "go" overrules the red and
yellow of the lights at that line (even on red). The ablated expert that ignores officer_signal gets no
command and obeys the lights.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from roadtest.agents.constraints import keeps
from roadtest.kinds import OFFICERS

__all__ = ["OfficerCommand", "officer_command", "OFFICER_RANGE", "LINE_MATCH", "SETBACK"]
keeps(__name__, "officer_signal")

OFFICER_RANGE = 80.0  # m ahead along the route within which an officer directs the ego's approach
LINE_MATCH = 15.0  # m: a stop line up to this far past the officer is the one it holds traffic at
SETBACK = 2.0  # m before the officer where the ego stops when there is no stop line
_KINDS = OFFICERS


@dataclass(frozen=True)
class OfficerCommand:
    """What the nearest officer ahead signals: `state` stop|go, `line` (route distance from the ego's centre of the
    line it holds traffic at), `reach` (lights whose stop line is at most this far are the officer's to overrule)."""

    id: str
    state: str
    line: float
    reach: float

    def overrules(self, light: Mapping[str, Any]) -> bool:
        """Whether the officer decides instead of this light (its line is the officer's)."""
        return float(light.get("stop_distance", light.get("distance", 1e9))) <= self.reach


def officer_command(view: Mapping[str, Any], half: float, ignore: frozenset[str] = frozenset()) -> OfficerCommand | None:
    """The command of the nearest officer ahead on the route that signals stop or go, or None (none, or ignored)."""
    if "officer_signal" in ignore:
        return None
    ahead = [a for a in view.get("actors") or [] if a.get("kind") in _KINDS and a.get("signal") in ("stop", "go")
             and a.get("route_s") is not None and 0.0 < float(a["route_s"]) <= OFFICER_RANGE]
    if not ahead:
        return None
    o = min(ahead, key=lambda a: float(a["route_s"]))
    at = float(o["route_s"])
    lines = [float(sl["distance"]) for sl in view.get("stop_lines") or []]
    lines += [float(lt["stop_distance"]) for lt in view.get("lights") or []]
    held = [d for d in lines if d - half >= -0.5 and d <= at + LINE_MATCH]
    line = min(held) if held else at - SETBACK
    return OfficerCommand(id=str(o.get("id")), state=str(o["signal"]), line=line, reach=at + LINE_MATCH)
