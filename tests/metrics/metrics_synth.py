"""Hand-built traces for metric tests: an ego on road "1", lane -1, driving along x (s = x)."""

from __future__ import annotations

from roadtest.sim.api import ActorState, Event, LanePos, Termination, Trace, WorldState

TICK = 0.05


def ego(x: float, speed: float, y: float = 0.0, lane: int = -1, road: str = "1", **kw) -> ActorState:
    """The ego at x with the given speed, located on (road, lane, s=x)."""
    return ActorState(id="hero", role="ego", kind="car", x=x, y=y, z=0.0, h=kw.pop("h", 0.0), speed=speed,
                      vx=speed, lane=LanePos(road, lane, x, y) if lane is not None else None, **kw)


def actor(aid: str, x: float, y: float = 0.0, kind: str = "car", role: str = "scenario", speed: float = 0.0,
          **kw) -> ActorState:
    return ActorState(id=aid, role=role, kind=kind, x=x, y=y, z=0.0, h=kw.pop("h", 0.0), speed=speed, **kw)


def drive(xs, speeds=None, *, extra=None, events=None, signals=None, termination=Termination.COMPLETED,
          tick: float = TICK) -> Trace:
    """A trace whose ego visits xs; extra[i] adds actors, events[i] adds events, signals(i) gives signal states."""
    states = []
    for i, x in enumerate(xs):
        v = speeds[i] if speeds is not None else (xs[i + 1] - x) / tick if i + 1 < len(xs) else 0.0
        actors = (ego(x, v),) + tuple((extra or {}).get(i, ()))
        states.append(WorldState(time=round(i * tick, 6), frame=i, actors=actors,
                                 signals=signals(i) if signals else {}, events=tuple((events or {}).get(i, ()))))
    return Trace(states=states, termination=termination, tick=tick)


def straight_meta(length: float = 100.0, **scene) -> dict:
    return {"id": "synthetic", "driving_side": "right",
            "route": {"waypoints": [[float(x), 0.0] for x in range(0, int(length) + 1, 2)], "length": length,
                      "lanes": [{"road": "1", "lane": -1, "s_start": 0.0, "s_end": length}]},
            "scene": {"speed_limit": 13.9, **scene}}


def collision(other: str, kind: str) -> Event:
    return Event(kind="collision", actor="hero", other=other, data={"relative_speed": 5.0, "other_kind": kind})
