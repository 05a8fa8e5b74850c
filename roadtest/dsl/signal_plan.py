"""The heads of a signalised junction: every approach's own, a generated plan, and the convert-time check that no
two heads whose movements conflict show green (or yellow) at the same time, over the whole repeated cycle.

Movements and conflicts (kept simple, documented in the README): a head with `turn: all` releases the near-side
turn, straight on and the far-side turn; its far-side turn is *permitted*, i.e. it yields to oncoming traffic, so
two full heads on opposite arms are compatible. A head with a turn arrow (left, straight, right) releases that
one movement, protected. Two movements conflict when their paths cross or end in the same exit (paths drawn as
chords between the arms' entry and exit points on a circle, entries on the driving side); movements from one
approach only diverge. A permitted far-side turn against the opposite arm's traffic is not a conflict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from roadtest.dsl.model import LightPhase, Road, TrafficLight
from roadtest.errors import FieldError

__all__ = ["Head", "junction_heads", "check_heads", "GO_STATES", "PLAN_IDS", "PLAN_SETBACK",
           "heads_conflict", "go_intervals", "light_phases"]

GO_STATES = frozenset({"green", "yellow"})
PLAN_IDS = {None: "tl_main", "opposite": "tl_opposite", "left": "tl_left", "right": "tl_right"}  # generated head ids
_ARM_ANGLE = {None: 270.0, "right": 0.0, "opposite": 90.0, "left": 180.0}  # deg, compass of each arm seen from above
PLAN_SETBACK = 3.0  # m: generated heads (and their stop lines) stand this far before their arm meets the junction
HORIZON_CAP = 3600.0  # s: cycles whose common period is longer are checked this far (or the scenario's timeout)


@dataclass(frozen=True)
class Head:
    """One light head and the YAML field it comes from (road.traffic_lights.N or road.signal_plan)."""

    light: TrafficLight
    field: str


def _arms(kind: str) -> list[str | None]:
    return [None, "right", "left"] + ([] if kind == "t_junction" else ["opposite"])


def _plan_heads(road: Road, taken: set[str | None]) -> list[Head]:
    p = road.signal_plan
    if p is None:
        return []
    cg = p.cross_green if p.cross_green is not None else p.green
    main = [LightPhase(state="green", duration=p.green), LightPhase(state="yellow", duration=p.yellow)]
    cross = [LightPhase(state="green", duration=cg), LightPhase(state="yellow", duration=p.yellow)]
    red_main = p.all_red + cg + p.yellow + p.all_red
    red_cross = p.all_red + p.green + p.yellow + p.all_red
    cycle = p.green + p.yellow + red_main
    out = []
    for arm in _arms(road.kind):
        if arm in taken:
            continue
        if arm in (None, "opposite"):
            phases, start = main + [LightPhase(state="red", duration=red_main)], 0.0
        else:  # the cross axis' cycle begins at its own green, p.green + p.yellow + p.all_red into the plan's
            phases, start = cross + [LightPhase(state="red", duration=red_cross)], p.green + p.yellow + p.all_red
        offset = (p.offset - start) % cycle
        head = TrafficLight(id=PLAN_IDS[arm], s=max(road.length - PLAN_SETBACK, 0.0), phases=phases, offset=offset,
                            arm=arm)
        out.append(Head(head, "road.signal_plan"))
    return out


def junction_heads(road: Road) -> list[Head]:
    """The road's own heads, then the plan's heads for every approach that has none (Layout.place checks the arms)."""
    heads = [Head(tl, f"road.traffic_lights.{i}") for i, tl in enumerate(road.traffic_lights)]
    taken = {h.light.arm for h in heads}
    have = {h.light.id for h in heads}
    plan = _plan_heads(road, taken)
    for h in plan:
        if h.light.id in have:
            raise FieldError("road.signal_plan", f"the plan's head id {h.light.id!r} is also a traffic light's id "
                                                 "(expected distinct ids)")
    return heads + plan


# ---------------------------------------------------------------- movements and conflicts

def _movements(light: TrafficLight, traffic: str) -> list[tuple[str, bool]]:
    """(movement, permitted) pairs a head releases; movements are the driver's left, straight, right."""
    if light.turn != "all":
        return [(light.turn, False)]
    far = "left" if traffic == "right" else "right"
    return [(m, m == far) for m in ("left", "straight", "right")]


def _exit_arm(arm: str | None, move: str) -> float:
    """Compass angle of the arm a movement from `arm` leaves by (a driver from angle a faces a + 180)."""
    a = _ARM_ANGLE[arm]
    return (a + {"right": 90.0, "straight": 180.0, "left": 270.0}[move]) % 360.0


def _chord(arm: str | None, move: str, traffic: str) -> tuple[float, float]:
    eps = 10.0 if traffic == "right" else -10.0  # entries lie on the driving side of each arm's axis
    return (_ARM_ANGLE[arm] + eps) % 360.0, (_exit_arm(arm, move) - eps) % 360.0


def _paths_conflict(a: tuple[str | None, str], b: tuple[str | None, str], traffic: str) -> bool:
    if a[0] == b[0]:
        return False  # one approach: its movements only diverge
    if abs(_exit_arm(*a) - _exit_arm(*b)) < 1e-6:
        return True  # they merge into one exit
    (p, q), (r, t) = _chord(*a, traffic), _chord(*b, traffic)
    inside = lambda x: (x - p) % 360.0 < (q - p) % 360.0  # noqa: E731 - on the arc from p to q
    return inside(r) != inside(t)


def heads_conflict(h1: TrafficLight, h2: TrafficLight, traffic: str) -> tuple[str, str] | None:
    """The first pair of movements of two heads that conflict, or None when both may be green together."""
    opposite = abs((_ARM_ANGLE[h1.arm] - _ARM_ANGLE[h2.arm]) % 360.0 - 180.0) < 1e-6
    for m1, perm1 in _movements(h1, traffic):
        for m2, perm2 in _movements(h2, traffic):
            if opposite and (perm1 or perm2):
                continue  # a permitted far-side turn yields to the oncoming stream
            if _paths_conflict((h1.arm, m1), (h2.arm, m2), traffic):
                return m1, m2
    return None


# ---------------------------------------------------------------- time

def _cycle(light: TrafficLight) -> float:
    return sum(p.duration for p in light.phases)


def _horizon(lights: list[TrafficLight], timeout: float) -> float:
    """The common period of every cycle (a lcm over millisecond fractions), at most max(timeout, HORIZON_CAP)."""
    cap = max(timeout, HORIZON_CAP)
    period = Fraction(0)
    for lt in lights:
        c = Fraction(_cycle(lt)).limit_denominator(1000)
        if period == 0:
            period = c
            continue
        num = math.lcm(period.numerator * c.denominator, c.numerator * period.denominator)
        period = Fraction(num, period.denominator * c.denominator)
        if period > cap:
            return cap
    return min(float(period), cap)


def go_intervals(light: TrafficLight, horizon: float) -> list[tuple[float, float, str]]:
    """(start, end, state) of every green or yellow stretch within [0, horizon), the cycle repeated from its offset."""
    cycle = _cycle(light)
    out: list[tuple[float, float, str]] = []
    t = 0.0 - light.offset % cycle  # (0.0 - x, not -x: no -0.0 in messages)
    while t < horizon:
        for p in light.phases:
            a, b = t, t + p.duration
            t = b
            if p.state in GO_STATES and b > 0.0 and a < horizon:
                if out and out[-1][1] >= max(a, 0.0) - 1e-9 and out[-1][2] == p.state:
                    out[-1] = (out[-1][0], min(b, horizon), p.state)
                else:
                    out.append((max(a, 0.0), min(b, horizon), p.state))
    return out


def _first_overlap(x: list[tuple[float, float, str]], y: list[tuple[float, float, str]]):
    i = j = 0
    while i < len(x) and j < len(y):
        a, b = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        if b - a > 1e-6:
            return a, b, x[i][2], y[j][2]
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return None


def _where(light: TrafficLight) -> str:
    arm = "the ego's approach" if light.arm is None else f"the {light.arm} arm"
    return f"{light.id} ({arm}, turn {light.turn})"


def check_heads(heads: list[Head], traffic: str, timeout: float) -> None:
    """FieldError naming both heads and the time when two heads whose movements conflict are green or yellow together."""
    lights = [h.light for h in heads]
    if len(lights) < 2:
        return
    horizon = _horizon(lights, timeout)
    spans = [go_intervals(lt, horizon) for lt in lights]
    for i in range(len(heads)):
        for j in range(i + 1, len(heads)):
            moves = heads_conflict(lights[i], lights[j], traffic)
            if moves is None:
                continue
            hit = _first_overlap(spans[i], spans[j])
            if hit is None:
                continue
            a, b, s1, s2 = hit
            raise FieldError(heads[j].field, (
                f"conflicting greens: {_where(lights[i])} shows {s1} and {_where(lights[j])} shows {s2} from "
                f"t = {a:.1f} s to {b:.1f} s, and their movements conflict ({moves[0]} vs {moves[1]}); expected "
                "phases (durations and offsets) that never release conflicting movements together"))


def light_phases(light) -> list[tuple[str, float]]:
    """A light's cycle as (state, duration) starting at its `offset` into the cycle (same cycle, rotated)."""
    phases = [(p.state, p.duration) for p in light.phases]
    cycle = sum(d for _, d in phases)
    off = light.offset % cycle if cycle else 0.0
    if off <= 0:
        return phases
    acc = 0.0
    for i, (state, d) in enumerate(phases):
        if acc + d > off + 1e-9:
            cut = off - acc
            head = [(state, d - cut)] + phases[i + 1:] + phases[:i]
            return head + ([(state, cut)] if cut > 1e-9 else [])
        acc += d
    return phases
