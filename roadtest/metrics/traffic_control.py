"""Red lights and stop signs as scenario_runner's RunningRedLightTest and RunningStopTest judge them.

Stand-in for CARLA's map: CARLA's trigger volumes and lane waypoints are replaced by meta.scene's stop
lines (the nearest line on the light's or sign's road) and the ego's OpenDRIVE lane position (road, lane, s).
"""

from __future__ import annotations

import math
from typing import Sequence

from roadtest.findings import Violation
from roadtest.metrics.base import travel_direction
from roadtest.sim.api import ActorState, WorldState

__all__ = ["detect_red_lights", "detect_stops", "LINE_MATCH", "STOP_PROXIMITY", "EPSILON_SPEED"]

STOP_PROXIMITY = 4.0  # m (RunningStopTest.PROXIMITY_THRESHOLD)
EPSILON_SPEED = 0.1  # m/s (RunningStopTest.SPEED_THRESHOLD)
LINE_MATCH = 15.0  # m: a stop line this close to a light or stop sign is the one it governs


def _at(a: ActorState) -> str:
    """Where upstream writes the light's or sign's location; meta.json has no world position for them, so the ego's."""
    return f"(x={round(a.x, 3)}, y={round(a.y, 3)}, z={round(a.z, 3)})"


def _stop_line(meta: dict, road: str, s: float) -> dict | None:
    best, best_d = None, LINE_MATCH
    for ln in (meta.get("scene") or {}).get("stop_lines") or []:
        if str(ln.get("road")) == str(road) and abs(float(ln["s"]) - s) <= best_d:
            best, best_d = ln, abs(float(ln["s"]) - s)
    return best


def _governed(item: dict, meta: dict) -> tuple[str, float, set[int] | None, int]:
    """(road, stop-line s, lanes or None for all, lane side +1/-1/0) of a light or stop sign."""
    road, s = str(item.get("road")), float(item.get("s", 0.0))
    line = _stop_line(meta, road, s)
    lanes = (line or {}).get("lanes") or item.get("lanes")
    t = float(item.get("t") or 0.0)
    return road, float(line["s"]) if line else s, {int(x) for x in lanes} if lanes else None, (t > 0) - (t < 0)


def _applies(lanes: set[int] | None, side: int, ego_lane: int) -> bool:
    if lanes is not None:
        return ego_lane in lanes
    return side == 0 or (ego_lane > 0) == (side > 0)


CARRY = 12.0  # m: how far past a road's end the ego's s on that road is extrapolated


def _positions(ticks: Sequence[tuple[WorldState, ActorState]], side: str) -> list[dict[str, tuple[int, float, int]]]:
    """Per tick {road: (lane, s, travel direction)}: the ego's lane, and, for CARRY m after it leaves a road, its s
    extrapolated along that road, so a stop line at a road's very end is still crossed by the rear."""
    out: list[dict[str, tuple[int, float, int]]] = []
    carried: dict[str, tuple[int, float, int, float]] = {}
    prev = None
    for _, e in ticks:
        step = math.hypot(e.x - prev.x, e.y - prev.y) if prev is not None else 0.0
        cur = {r: (ln, s + d * step, d, tr + step) for r, (ln, s, d, tr) in carried.items() if tr + step <= CARRY}
        if e.lane is not None:
            cur[str(e.lane.road)] = (e.lane.lane, e.lane.s, travel_direction(e.lane.lane, side), 0.0)
        carried, prev = cur, e
        out.append({r: v[:3] for r, v in cur.items()})
    return out


def detect_red_lights(ticks: Sequence[tuple[WorldState, ActorState]], meta: dict) -> list[Violation]:
    """RunningRedLightTest: the ego's rear crosses the light's stop line on its lane while the signal is red.

    Stands in for CARLA's trigger volume: the stop line is meta.scene.stop_lines' nearest line on the
    light's road (else the light's own s); the rear is the lane s minus half the length along travel.
    The light's state is WorldState.signals[signal_id] (the OpenDRIVE signal), else signals[id].
    """
    lights = (meta.get("scene") or {}).get("lights") or []
    pos = _positions(ticks, meta.get("driving_side", "right"))
    out: list[Violation] = []
    last = None
    for i in range(1, len(ticks)):
        st, e1 = ticks[i]
        length = e1.length
        for lt in lights:
            road, line, lanes, lside = _governed(lt, meta)
            if road not in pos[i - 1] or road not in pos[i]:
                continue
            (_, s0, _), (lane, s1, d) = pos[i - 1][road], pos[i][road]
            if not _applies(lanes, lside, lane):
                continue
            r0, r1 = s0 - d * length / 2, s1 - d * length / 2
            if not (d * (r0 - line) < 0 <= d * (r1 - line)):
                continue
            lid = str(lt.get("id"))
            state = st.signals.get(str(lt.get("signal_id")), st.signals.get(lid, ""))
            if str(state).lower().startswith("red") and last != lid:
                last = lid
                out.append(Violation(st.time, 0.0, abs(e1.speed), "red_light",
                                     f"Agent ran a red light {lid} at {_at(e1)}", {"light": lid}))
    return out


def _is_stop_sign(sign: dict) -> bool:
    for key in ("id", "type", "kind", "name"):
        v = str(sign.get(key) or "").lower()
        if v in ("stop", "stop_sign", "206") or (v.startswith("stop_") and v != "stop_line"):
            return True
    return False


def detect_stops(ticks: Sequence[tuple[WorldState, ActorState]], meta: dict) -> list[Violation]:
    """RunningStopTest: passing a stop line without the speed dropping below 0.1 m/s while the front is within 4 m of it."""
    signs = [s for s in (meta.get("scene") or {}).get("signs") or [] if _is_stop_sign(s)]
    pos = _positions(ticks, meta.get("driving_side", "right"))
    out: list[Violation] = []
    stopped = {i: False for i in range(len(signs))}
    closest = {i: math.inf for i in range(len(signs))}
    last = None
    for k in range(1, len(ticks)):
        st, e1 = ticks[k]
        half = e1.length / 2
        for i, sg in enumerate(signs):
            road, line, lanes, sside = _governed(sg, meta)
            if road not in pos[k - 1] or road not in pos[k]:
                continue
            (_, s0, _), (lane, s1, d) = pos[k - 1][road], pos[k][road]
            if not _applies(lanes, sside, lane):
                continue
            f0, f1 = d * (line - s0) - half, d * (line - s1) - half
            if f1 > STOP_PROXIMITY:
                stopped[i], closest[i] = False, math.inf
                continue
            if 0.0 <= f1 <= STOP_PROXIMITY:
                closest[i] = min(closest[i], abs(e1.speed))
                if abs(e1.speed) < EPSILON_SPEED:
                    stopped[i] = True
            if f0 >= 0.0 > f1:
                if not stopped[i] and last != i:
                    sid = str(sg.get("name") or sg.get("id"))
                    out.append(Violation(st.time, 0.0, min(closest[i], abs(e1.speed)), "stop_infraction",
                                         f"Agent ran a stop with id={sid} at {_at(e1)}", {"sign": i, "s": line}))
                    last = i
                stopped[i] = False
    return out
