"""The ghost concept of esmini's FollowGhostController: a copy of the entity runs the storyboard ahead of it.

An entity whose controller is a FollowGhostController (or an ExternalController with useGhost) gets a
ghost, ``<name>_ghost``: the storyboard's motion actions for the entity act on the ghost instead, the ghost
starts HeadStartTime seconds early (the run's clock starts at -HeadStartTime, as esmini's log does, and
only ghosts move before 0), and the entity follows the ghost's trail (a polyline sampled every 0.2 s) with
the driver model in drivers/follow_ghost.py (an external entity is left to its agent).
Ghosts are invisible (no collisions, no obstacle for traffic or sensors); ``engine.ghosts`` maps entity to ghost.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["GHOST_KIND", "TRAIL_DT", "TRANSFERRED_ACTIONS", "HANDED_CONDITIONS", "Trail", "TrailPoint",
           "setup_ghosts", "actors_for", "held_back", "sample_trails", "on_event_start", "init_copies"]

GHOST_KIND = "FollowGhostController"
TRAIL_DT = 0.2  # s between trail samples (esmini's default ghost_trail_dt)
DEFAULT_HEADSTART = 3.0  # s, esmini's default headstartTime
# private actions on the entity that the ghost performs instead (esmini moves exactly these)
TRANSFERRED_ACTIONS = frozenset({
    "SpeedAction", "SpeedProfileAction", "LaneChangeAction", "LaneOffsetAction", "SynchronizeAction",
    "FollowTrajectoryAction", "AssignRouteAction", "TeleportAction", "AcquirePositionAction",
})
# entity conditions whose triggering entity is handed over to the ghost in a moved event's or act's trigger
HANDED_CONDITIONS = frozenset({
    "CollisionCondition", "ReachPositionCondition", "TraveledDistanceCondition", "SpeedCondition",
    "AccelerationCondition", "EndOfRoadCondition", "OffroadCondition", "StandStillCondition",
})
_EPS = 1e-9


@dataclass
class TrailPoint:
    """One sample of a ghost's trail: pose, time, speed and distance along the trail."""

    x: float
    y: float
    h: float
    time: float
    speed: float
    s: float


@dataclass
class Trail:
    """The polyline a ghost leaves behind, sampled every TRAIL_DT while it moves."""

    points: list[TrailPoint] = field(default_factory=list)

    def add(self, x: float, y: float, h: float, time: float, speed: float) -> None:
        s = self.points[-1].s + math.hypot(x - self.points[-1].x, y - self.points[-1].y) if self.points else 0.0
        self.points.append(TrailPoint(x, y, h, time, speed, s))

    def sample(self, x: float, y: float, h: float, time: float, speed: float) -> None:
        """Add a sample when TRAIL_DT has passed and the ghost is not standing still (esmini's rule)."""
        p = self.points
        if p and time - p[-1].time <= TRAIL_DT - _EPS:
            return
        if p and abs(p[-1].speed) < _EPS and abs(speed) < _EPS:
            return
        if p and time - p[-1].time > 2 * TRAIL_DT - _EPS:
            last = p[-1]  # after a pause, repeat the resting sample just before this one
            p.append(TrailPoint(last.x, last.y, last.h, time - TRAIL_DT, last.speed, last.s))
        self.add(x, y, h, time, speed)

    def at_s(self, s: float, start: int = 0) -> tuple[TrailPoint, int]:
        """The interpolated point at distance s along the trail (clamped to its ends), and its segment index."""
        p = self.points
        if s >= p[-1].s - _EPS or len(p) == 1:
            return p[-1], len(p) - 1
        i = min(max(start, 0), len(p) - 1)
        while i < len(p) - 2 and s > p[i + 1].s + _EPS:
            i += 1
        while i > 0 and s < p[i].s + _EPS:
            i -= 1
        return self._interp(i, s - p[i].s), i

    def at_time(self, t: float) -> TrailPoint:
        """The interpolated point the ghost passed at time t (clamped to the trail's ends)."""
        p = self.points
        if t <= p[0].time or len(p) == 1:
            return p[0]
        if t >= p[-1].time:
            return p[-1]
        i = next(k for k in range(len(p) - 1) if p[k + 1].time >= t)
        span = p[i + 1].time - p[i].time
        u = (t - p[i].time) / span if span > _EPS else 1.0
        return self._interp(i, u * (p[i + 1].s - p[i].s))

    def closest(self, x: float, y: float, start: int = 0) -> tuple[float, int]:
        """Distance along the trail of the point nearest (x, y), searched locally from segment `start`."""
        p = self.points
        best, best_i, best_s = math.inf, start, p[min(start, len(p) - 1)].s
        start = start if start + 1 < len(p) else 0
        i, step = start, 1
        while 0 <= i < len(p) - 1:
            d, s = _segment_distance(p[i], p[i + 1], x, y)
            if d < best + 1e-6:
                best, best_i, best_s = d, i, s
            elif start > 0:  # distance grows: look back from the start once, then stop
                if step == 1:
                    i, step = start, -1
                else:
                    break
            i += step
        return best_s, best_i

    def _interp(self, i: int, ds: float) -> TrailPoint:
        a, b = self.points[i], self.points[i + 1]
        length = max(b.s - a.s, 1e-12)
        u = min(max(ds / length, 0.0), 1.0)
        dh = math.atan2(math.sin(b.h - a.h), math.cos(b.h - a.h))
        return TrailPoint(a.x + u * (b.x - a.x), a.y + u * (b.y - a.y), a.h + u * dh,
                          a.time + u * (b.time - a.time), a.speed + u * (b.speed - a.speed), a.s + u * (b.s - a.s))


def _segment_distance(a: TrailPoint, b: TrailPoint, x: float, y: float) -> tuple[float, float]:
    dx, dy = b.x - a.x, b.y - a.y
    n2 = dx * dx + dy * dy
    u = 0.0 if n2 < 1e-12 else min(max(((x - a.x) * dx + (y - a.y) * dy) / n2, 0.0), 1.0)
    return math.hypot(a.x + u * dx - x, a.y + u * dy - y), a.s + u * (b.s - a.s)


def _kind(ctrl: Any) -> str:
    from roadtest.sim.xosc.engine import controller_kind

    return controller_kind(ctrl)


def _wants_ghost(ctrl: Any) -> bool:
    """A FollowGhostController, or an ExternalController with useGhost (esmini: a guide ahead of a human/agent)."""
    from roadtest.sim.xosc.drivers import properties

    kind = _kind(ctrl)
    return kind == GHOST_KIND or kind == "ExternalController" and properties(ctrl).get("useGhost") in ("true", "True")


def _host(eng: Any) -> tuple[str, Any] | None:
    """The first entity whose controller wants a ghost (its ObjectController, or a FollowGhostController its Init assigns)."""
    for n, c in eng.controllers.items():
        if _wants_ghost(c["xml"]):
            return n, c["xml"]
    init = eng.sc.storyboard.find("Init/Actions")
    for priv in init.findall("Private") if init is not None else ():
        for ctrl in priv.iterfind("PrivateAction/ControllerAction/AssignControllerAction/Controller"):
            if _kind(ctrl) == GHOST_KIND and priv.get("entityRef") in eng.entities:
                return priv.get("entityRef"), ctrl
    return None


def _action_tag(action_xml: Any) -> str:
    """The concrete action element's tag (SpeedAction, LaneChangeAction, ...) of an <Action>/<PrivateAction>."""
    el = action_xml
    while el is not None and len(el) and el.tag in ("Action", "PrivateAction", "LongitudinalAction", "LateralAction",
                                                    "RoutingAction", "ControllerAction"):
        el = next((c for c in el if isinstance(c.tag, str)), None)
    return el.tag if el is not None else ""


def setup_ghosts(eng: Any) -> None:
    """Create the ghost of the first entity whose controller wants one and hand it the storyboard (esmini: one ghost).

    Sets eng.ghosts {entity: ghost}, eng.ghost_trails {ghost: Trail}, eng.headstart and eng.start_time, and
    rewrites the storyboard's XML before its triggers are built: in the triggers of events that now move the
    ghost (and of acts the entity acts in) SimulationTime values move earlier by the head start and the
    handed-over entity conditions name the ghost. Events whose trigger has other conditions are recorded in
    eng.ghost_restart_events (esmini teleports the ghost back to the entity when they start).
    """
    eng.ghosts, eng.ghost_trails, eng.ghost_restart_events = {}, {}, set()
    eng.headstart, eng.start_time = 0.0, 0.0
    found = _host(eng)
    if found is None:
        return
    host, ctrl = found
    from roadtest.sim.xosc.drivers import properties

    try:
        head = float(properties(ctrl).get("headstartTime", DEFAULT_HEADSTART))
    except ValueError:
        head = -1.0
    if not head >= 0.0:
        raise eng.error(ctrl, "Controller.Property[headstartTime]",
                        f"expected a head start of 0 s or more, got {properties(ctrl).get('headstartTime')!r}")
    name = f"{host}_ghost"
    if name in eng.entities:
        raise eng.error(ctrl, "ScenarioObject.name", f"{name!r} exists already: the ghost of {host!r} needs that name")
    g = copy.copy(eng.entities[host])
    g.name, g.role, g.visible, g.trailer, g.tow = name, "scenario", False, None, None
    g.properties = dict(g.properties)
    eng.entities[name] = g
    eng.ghosts[host] = name
    eng.ghost_trails[name] = Trail()
    eng.headstart, eng.start_time = head, -head
    eng.time = -head
    for act in eng.sc.storyboard.iterfind("Story/Act"):
        in_act = False
        for mg in act.iterfind("ManeuverGroup"):
            if host not in [r.get("entityRef") for r in mg.iterfind("Actors/EntityRef")]:
                continue
            in_act = True
            for ev in mg.iterfind("Maneuver/Event"):
                tags = {_action_tag(a) for a in ev.iterfind("Action/PrivateAction")}
                if tags & TRANSFERRED_ACTIONS and _retarget(ev.find("StartTrigger"), host, name, head):
                    eng.ghost_restart_events.add(ev)
        if in_act:
            _retarget(act.find("StartTrigger"), host, name, head)


def _retarget(trigger: Any, host: str, ghost: str, head: float) -> bool:
    """Rewrite one trigger for the ghost; True when it has a condition esmini answers with a ghost teleport."""
    teleport = False
    if trigger is None:
        return False
    for cond in trigger.iterfind("ConditionGroup/Condition"):
        st = cond.find("ByValueCondition/SimulationTimeCondition")
        if st is not None:
            try:
                st.set("value", repr(float(st.get("value", "")) - head))
            except ValueError:
                pass  # the condition's own check reports the bad value, with its place
            continue
        ec = cond.find("ByEntityCondition/EntityCondition")
        kind = next((c.tag for c in ec if isinstance(c.tag, str)), "") if ec is not None else ""
        if kind in HANDED_CONDITIONS:
            for ref in cond.iterfind("ByEntityCondition/TriggeringEntities/EntityRef"):
                if ref.get("entityRef") == host:
                    ref.set("entityRef", ghost)
                else:
                    teleport = True
        else:
            teleport = True
    return teleport


def init_copies(eng: Any, entity: str, private_action: Any) -> list[str]:
    """The entities an Init private action on `entity` applies to: the entity, and its ghost (controllers aside)."""
    g = getattr(eng, "ghosts", {}).get(entity)
    if not g or private_action.find("ControllerAction") is not None:
        return [entity]
    return [entity, g]


def actors_for(eng: Any, action_xml: Any, actors: list[str]) -> list[str]:
    """The actors a storyboard action moves: the ghost stands in for its entity in the transferred actions."""
    ghosts = getattr(eng, "ghosts", None)
    if not ghosts or not any(a in ghosts for a in actors) or _action_tag(action_xml) not in TRANSFERRED_ACTIONS:
        return actors
    return [ghosts.get(a, a) for a in actors]


def held_back(eng: Any, name: str, time: float) -> bool:
    """True while the head start runs (time < 0) for an entity that is no ghost: only ghosts move then."""
    return bool(getattr(eng, "ghosts", None)) and time < -_EPS and name not in eng.ghost_trails


def sample_trails(eng: Any, time: float) -> None:
    """Record each ghost's pose on its trail (called at the end of every tick and after Init)."""
    for name, trail in getattr(eng, "ghost_trails", {}).items():
        g = eng.entities[name]
        trail.sample(g.x, g.y, g.h, time, g.speed)


def on_event_start(eng: Any, ev_xml: Any, time: float) -> None:
    """esmini's ghost teleport for an event whose trigger the ghost cannot take over.

    Up to time 0 the ghost is put back on its entity's pose; later esmini restarts the ghost (clock set back by
    the head start, events replayed), which roadtest does not model: the run says so in its warnings.
    """
    if ev_xml not in getattr(eng, "ghost_restart_events", ()):
        return
    host = next(h for h in eng.ghosts)
    ghost = eng.ghosts[host]
    if time > _EPS:
        msg = (f"ghost restart of {ghost!r} at t={time:.2f} s (event {ev_xml.get('name')!r}) is not modelled by "
               "roadtest: the ghost goes on from where it is")
        if msg not in eng.warnings:
            eng.warnings.append(msg)
        return
    from roadtest.sim.xosc.motion import place
    from roadtest.sim.xosc.positions import Resolved

    e = eng.entities[host]
    place(eng.entities[ghost], eng.motions[ghost], Resolved(e.x, e.y, e.z, e.h, e.lane, _lane_offset(eng, host)),
          eng.network)


def _lane_offset(eng: Any, n: str) -> float:
    m = eng.motions.get(n)
    return m.offset if m is not None and m.road is not None else 0.0
