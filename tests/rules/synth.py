"""Hand-built traces for rule monitor tests: an ego driving along +x on road "0", lane -1 (s = x)."""

from __future__ import annotations

from typing import Callable

from roadtest.sim.api import ActorState, Environment, Event, LanePos, Trace, WorldState

TICK = 0.1


def ego(x: float, speed: float, lane: int = -1, y: float | None = None, h: float = 0.0, road: str = "0") -> ActorState:
    yy = (-1.75 if lane < 0 else 1.75) * abs(lane) if y is None else y
    return ActorState(id="hero", role="ego", kind="car", x=x, y=yy, z=0.0, h=h, speed=speed, length=4.0, width=2.0,
                      lane=LanePos(road, lane, x, yy))


def other(id: str, kind: str, x: float, y: float, speed: float = 0.0, h: float = 0.0, lane: int | None = -1,
          siren: bool = False, length: float = 4.0, width: float = 2.0) -> ActorState:
    return ActorState(id=id, role="scenario", kind=kind, x=x, y=y, z=0.0, h=h, speed=speed, length=length, width=width,
                      lane=LanePos("0", lane, x, y) if lane is not None else None, siren=siren)


def drive(speeds: list[float] | Callable[[int, float], float], x0: float = 0.0, n: int = 0,
          lanes: Callable[[int], int] | None = None, roads: Callable[[int], str] | None = None,
          others: Callable[[int, float], list[ActorState]] | None = None,
          signals: Callable[[int], dict] | None = None, env: Callable[[int], Environment] | None = None,
          events: Callable[[int], tuple] | None = None, tick: float = TICK) -> Trace:
    """Ego at x0 moving with per-tick speeds (a list, or f(i, x) for n ticks); x integrates the speed."""
    states, x = [], x0
    count = len(speeds) if isinstance(speeds, list) else n
    for i in range(count):
        v = speeds[i] if isinstance(speeds, list) else speeds(i, x)
        if i:
            x += v * tick
        lane = lanes(i) if lanes else -1
        e = ego(x, v, lane, road=roads(i) if roads else "0")
        acts = (e, *(others(i, x) if others else []))
        states.append(WorldState(time=i * tick, frame=i, actors=acts, signals=signals(i) if signals else {},
                                 environment=env(i) if env else Environment(),
                                 events=events(i) if events else ()))
    return Trace(states=states, tick=tick)


def const(v: float, n: int) -> list[float]:
    return [v] * n


def invasion(allowed: bool, kind: str = "solid") -> tuple:
    return (Event("lane_invasion", "hero", data={"road": "0", "lane": -1, "to_lane": 1, "type": kind, "allowed": allowed}),)


def segments(*parts: tuple[float, int]) -> list[float]:
    """Speeds from (speed, ticks) pieces."""
    return [v for v, k in parts for _ in range(k)]


def crossing_tick(trace: Trace, line_s: float) -> int:
    """First tick whose ego front (x + 2) is at or past line_s."""
    for i, st in enumerate(trace.states):
        if st.ego.x + st.ego.length / 2 >= line_s:
            return i
    raise AssertionError("the ego never reaches the line")
