"""The built-in simulator: an OpenSCENARIO engine, an agent-driven ego, background traffic, events; one two-phase tick."""

from __future__ import annotations

import bisect
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from roadtest.sim.api import (
    ActorState,
    Control,
    Event,
    LanePos,
    SimSettings,
    Simulation,
    Simulator,
    Termination,
    WorldState,
)
from roadtest.sim.embedded.dynamics import BicycleState, params_from_entity, step_bicycle
from roadtest.sim.embedded.lanes import LaneTable, actor_from_fields, make_actor, make_lanepos
from roadtest.sim.embedded.sensors import SENSORS, observe
from roadtest.sim.embedded.traffic import Obstacle, Traffic
from roadtest.sim.environment import environment_of
from roadtest.sim.events import DRIVABLE, EventDetector
from roadtest.sim.loop import LoopError, drive
from roadtest.sim.road.api import LaneMatch
from roadtest.sim.signals import signal_colour

if TYPE_CHECKING:
    from roadtest.bundle import Bundle
    from roadtest.sim.xosc.engine import ScenarioEngine

__all__ = ["EmbeddedSimulator", "EmbeddedSimulation", "run_bundle", "normalise_kind", "GOAL_RADIUS"]

GOAL_RADIUS = 2.0  # m, the ego has reached meta.route.goal within this distance

_KINDS = {
    "car": "car", "van": "car", "vehicle": "car", "truck": "truck", "trailer": "truck", "semitrailer": "truck",
    "bus": "bus", "tram": "bus", "train": "bus", "motorbike": "motorcycle", "motorcycle": "motorcycle",
    "bicycle": "bicycle", "pedestrian": "pedestrian", "wheelchair": "pedestrian", "animal": "pedestrian",
    "emergency": "emergency", "officer": "officer", "police_officer": "officer", "static": "static",
    "miscobject": "static", "misc": "static", "obstacle": "static", "barrier": "static", "cone": "static",
    "pole": "static", "tree": "static",
}
_TRUE = {"true", "1", "on", "yes"}
_new = object.__new__
_PARAM_FIELDS = ("max_steer", "wheelbase", "max_speed", "max_accel", "max_decel")  # what params_from_entity reads


def normalise_kind(category: str | None, properties: Mapping[str, Any] | None = None,
                   scene_actor: Mapping[str, Any] | None = None) -> tuple[str, bool]:
    """(kind, siren) from an entity's category, its Properties and its meta.scene.actors record."""
    props = {str(k).lower(): str(v).lower() for k, v in (properties or {}).items()}
    scene_actor = scene_actor or {}
    siren = str(props.get("siren", "")).lower() in _TRUE or bool(scene_actor.get("siren", False))
    kind = str(scene_actor.get("kind") or props.get("kind") or props.get("type") or category or "car").lower()
    kind = _KINDS.get(kind, _KINDS.get(str(category or "").lower(), "static" if not category else "car"))
    if props.get("emergency", "") in _TRUE or siren and kind in ("car", "truck", "bus"):
        kind = "emergency"
    return kind, siren


class EmbeddedSimulation(Simulation):
    """One run on the built-in simulator; `engine` may be injected (tests), else a ScenarioEngine on the bundle."""

    def __init__(self, bundle: Bundle, seed: int = 0, settings: SimSettings | None = None,
                 engine: ScenarioEngine | None = None, params: Mapping[str, Any] | None = None):
        settings = settings or SimSettings()
        super().__init__(settings)
        self.bundle = bundle
        self.meta: dict[str, Any] = dict(getattr(bundle, "meta", None) or {})
        self.seed = int(seed)
        if engine is None:
            from roadtest.sim.xosc.engine import ScenarioEngine

            engine = ScenarioEngine(bundle.xosc, seed=self.seed, tick=settings.tick, params=dict(params or {}) or None)
        self.engine = engine
        if getattr(engine, "sc", None) is not None:  # an injected test engine may have no parsed scenario
            engine.environment = environment_of(engine.sc.root, self.meta)  # its Init re-applies the file's part
            engine.limit_in_force = self._entity_limit  # reacting actors (obeyLimits) drive under roadtest.limits
        self.engine.init()
        if hasattr(self.engine, "begin"):  # an injected test engine may have none
            self.engine.begin(float(getattr(self.engine, "start_time", 0.0)))
        self.network = engine.network
        self.ego_id = self._find_ego()
        self.time = float(getattr(engine, "start_time", 0.0))  # -HeadStartTime when a ghost runs ahead (esmini's log)
        self.frame = 0
        self._bike: BicycleState | None = None
        self._params_key: tuple | None = None
        self._params = None
        self._engine_events: list[Event] = []
        self._ego_match = None
        self._scene = {str(a.get("id")): a for a in (self.meta.get("scene") or {}).get("actors", []) if a.get("id")}
        self._kinds: dict[str, tuple[str, bool]] = {}
        self.detector = EventDetector(self.network, watch=[self.ego_id] if self.ego_id else [])
        goal = (self.meta.get("route") or {}).get("goal") or {}
        self._goal = (float(goal["x"]), float(goal["y"])) if "x" in goal and "y" in goal else None
        self._goal_dir = _final_direction((self.meta.get("route") or {}).get("waypoints") or [])
        self._timeout = (self.meta.get("expect") or {}).get("timeout")
        self._stop_on_collision = bool(settings.stop_on_collision or (self.meta.get("expect") or {}).get("stop_on_collision"))
        self._crashed: dict[str, tuple[float, float, float]] = {}  # actor id -> the pose it came to rest at
        self._agent_driven = False
        self.traffic: Traffic | None = None
        tcfg = self.meta.get("traffic") or {}
        if settings.traffic and self.network is not None and (tcfg.get("density") or tcfg.get("vehicles")
                                                              or tcfg.get("pedestrians")):
            active = [e for e in self.engine.entities.values() if getattr(e, "active", True)]
            avoid = [(e.x, e.y) for e in active]
            # storyboard actors do not react to traffic: keep their path clear (the ego's is the agent's business)
            corridors = [(e.x, e.y, e.h, max(e.speed, 0.0)) for e in active if e.role != "ego"]
            limit = (self.meta.get("scene") or {}).get("speed_limit")
            from roadtest.limits import scene_limits

            self.traffic = Traffic(self.network, tcfg, self.seed, avoid=avoid, corridors=corridors, speed_limit=limit,
                                   limits=scene_limits(self.meta) if self.meta else None,
                                   environment=self.engine.environment)
        self._lanes = (self.traffic.table if self.traffic is not None else LaneTable(self.network)) \
            if self.network is not None else None
        self.trace.info.update({"backend": "embedded", "seed": self.seed, "bundle": getattr(bundle, "id", ""),
                                "ego": self.ego_id, "warnings": self.engine.warnings,
                                "bbox_cx": {n: float(getattr(e, "bbox_cx", 0.0)) for n, e in self.engine.entities.items()}})
        if getattr(self.engine, "ghosts", None):
            self.trace.info["ghosts"] = dict(self.engine.ghosts)  # entity -> its ghost (invisible: no collisions, no obstacle)
        self.state = self._build_state(())
        if settings.record:
            self.trace.states.append(self.state)

    def _entity_limit(self, e: Any) -> float | None:
        """The limit in force (roadtest.limits) at a storyboard entity, as background traffic reads it there."""
        lp, net = e.lane, self.engine.network
        if lp is None or net is None or not lp.lane:
            return None
        from roadtest.limits import scene_limits, vehicle_limit

        try:
            map_limit, direction = net.speed_limit(lp.road, lp.lane, lp.s), net.lane_direction(lp.road, lp.lane)
        except (KeyError, ValueError, IndexError):
            return None
        return vehicle_limit(scene_limits(self.meta) if self.meta else None, map_limit, str(lp.road), lp.s, direction,
                             self.engine.environment)

    def _find_ego(self) -> str | None:
        want = (self.meta.get("ego") or {}).get("entity")
        if want and want in self.engine.entities:
            return want
        for name, e in self.engine.entities.items():
            if getattr(e, "role", "") == "ego":
                return name
        return None

    # ---- one tick --------------------------------------------------------------------------------
    def _obstacles(self) -> list[Obstacle]:
        out = []
        for a in self.state.actors:
            if a.role != "background" and a.lane is not None and a.visible:
                out.append(Obstacle(a.id, a.lane.road, a.lane.lane, a.lane.s, a.speed, a.length, a.kind))
        return out

    def _advance(self, control: Control | None) -> tuple[WorldState, Termination | None, str]:
        dt, t = self.tick, self.time
        if control is not None and t < -1e-9 and getattr(self.engine, "ghosts", None):
            control = None  # a ghost's head start: only ghosts move before time 0, the agent's ego waits too
        external = frozenset({self.ego_id}) if control is not None and self.ego_id else frozenset()
        self._agent_driven = bool(external)
        # Phase 1: every actor decides on the frozen snapshot (self.state and the engine's unmoved entities).
        if self.traffic is not None:
            self.traffic.environment = self.engine.environment
            self.traffic.decide(self._obstacles(), self.state.signals, dt)
        new_ego = None
        if external:
            e = self.engine.entities[self.ego_id]
            if self._bike is None:
                self._bike = BicycleState(x=e.x, y=e.y, h=e.h, speed=e.speed)
            friction = self.engine.environment.friction
            key = (friction,) + tuple(getattr(e, k, None) for k in _PARAM_FIELDS)
            if key != self._params_key:  # the limits change only when the entity or the road's friction does
                self._params_key, self._params = key, params_from_entity(e, friction=friction)
            params = self._params
            ov = getattr(self.engine, "overrides", {}).get(self.ego_id)
            if ov:  # a driver's pedals and steering wheel override the agent (OverrideControllerValueAction)
                from roadtest.sim.xosc.overrides import apply_overrides

                control = apply_overrides(control, ov, e.max_steer)
            new_ego = step_bicycle(self._bike, control, params, dt)
            if self.ego_id in self._crashed:  # at rest where the impact left it, whatever the agent asks
                b = self._bike
                new_ego = BicycleState(x=b.x, y=b.y, h=b.h, speed=0.0, steer=b.steer, accel=-b.speed / dt)
        else:
            self._bike = None
        # Phase 2: everything integrates.
        self.engine.step(t, external, self._engine_events)
        for name, (x, y, h) in self._crashed.items():
            e = self.engine.entities.get(name)
            if e is not None and name != self.ego_id:
                was = e.speed
                e.x, e.y, e.h, e.speed, e.yaw_rate = x, y, h, 0.0, 0.0
                e.accel = -was / dt if was else 0.0
                e.lane = None
        if self.traffic is not None:
            self.traffic.integrate(dt)
            if self.traffic._left:
                self.traffic.refill([(e.x, e.y) for e in self.engine.entities.values() if getattr(e, "active", True)])
        if new_ego is not None:
            e = self.engine.entities[self.ego_id]
            e.x, e.y, e.h, e.speed, e.accel, e.yaw_rate = new_ego.x, new_ego.y, new_ego.h, new_ego.speed, new_ego.accel, new_ego.yaw_rate
            e.lane = None
            self._bike = new_ego
        self.time = round(t + dt, 9)
        self.frame += 1
        prev = self.state.ego if self.state is not None else None
        state = self._build_state(None)
        term, reason = self._termination(state, prev)
        if term is not None:
            # The storyboard ends at the snapshot time its stop trigger was evaluated on (esmini reports the same).
            self.trace.info["end_time"] = t if term is Termination.COMPLETED and self.engine.finished else state.time
        return state, term, reason

    def _termination(self, state: WorldState, prev: ActorState | None) -> tuple[Termination | None, str]:
        if getattr(self.engine, "finished", False):
            return Termination.COMPLETED, getattr(self.engine, "end_reason", "") or "storyboard stop trigger"
        if any(ev.kind == "goal_reached" for ev in state.events):
            return Termination.COMPLETED, "ego reached the route goal"
        if self._stop_on_collision and any(ev.kind == "collision" and self.ego_id in (ev.actor, ev.other)
                                           for ev in state.events):
            return Termination.COLLISION, "ego collided"
        if self._timeout is not None and state.time >= float(self._timeout) - 1e-9:
            return Termination.TIMEOUT, f"scenario timeout {self._timeout} s reached"
        return None, ""

    # ---- world state -----------------------------------------------------------------------------
    def _kind(self, name: str, e) -> tuple[str, bool]:
        if name not in self._kinds:
            self._kinds[name] = normalise_kind(getattr(e, "category", None), getattr(e, "properties", None),
                                               self._scene.get(name))
        return self._kinds[name]

    def _build_state(self, _events) -> WorldState:
        actors: list[ActorState] = []
        missing: list[int] = []
        ego_id, kinds, cos, sin = self.ego_id, self._kinds, math.cos, math.sin
        ego_k, ego_fields = -1, None
        for name, e in self.engine.entities.items():
            if not getattr(e, "active", True):
                continue
            kind, siren = kinds.get(name) or self._kind(name, e)
            h, speed = e.h, e.speed
            c, s = cos(h), sin(h)
            cx = float(getattr(e, "bbox_cx", 0.0) or 0.0)
            lane = e.lane
            if lane is not None and (cx or not isinstance(lane, LanePos)):
                lane = self._centre_lanepos(lane, cx, h)
            fields = {"id": name, "role": "ego" if name == ego_id else (getattr(e, "role", "scenario") or "scenario"),
                      "kind": kind, "x": e.x + cx * c, "y": e.y + cx * s, "z": e.z, "h": h, "speed": speed,
                      "vx": speed * c, "vy": speed * s, "ax": e.accel, "ay": speed * e.yaw_rate, "yaw_rate": e.yaw_rate,
                      "length": e.length, "width": e.width, "height": e.height, "lane": lane, "siren": siren,
                      "visible": bool(getattr(e, "visible", True))}
            if name == ego_id:
                ego_k, ego_fields = len(actors), fields
                actors.append(None)  # made below, once its lane is known
                continue
            if lane is None:
                missing.append(len(actors))
            actors.append(actor_from_fields(fields))
        ego_match = None
        if ego_fields is not None:
            f = ego_fields
            if self.network is not None:
                ego_match = self._track_xyh(f["x"], f["y"], f["h"]) or self.network.locate(
                    f["x"], f["y"], f["h"], hint=self._ego_match)
                if f["lane"] is None:
                    if ego_match is not None:
                        m = ego_match
                        f["lane"] = make_lanepos(m.road, m.lane, m.s, m.t)
                    else:
                        bisect.insort(missing, ego_k)
            actors[ego_k] = actor_from_fields(f)
        if self.network is not None:
            self._ego_match = ego_match
        if missing and self.network is not None:
            matches = self.network.locate_many(np.array([[actors[i].x, actors[i].y] for i in missing]))
            for i, m in zip(missing, matches):
                if m is not None:
                    a = actors[i]
                    actors[i] = make_actor(**{**a.__dict__, "lane": LanePos(m.road, m.lane, m.s, m.t)})
        if self.traffic is not None:
            actors.extend(self.traffic.actor_states())
        events: list[Event] = []
        if self.frame > 0:
            # ActorState has every Box field the detector reads, so the actors themselves serve as boxes.
            boxes = [a for a in actors if a.visible]
            new, current = self.detector.collisions(boxes, first=self.ego_id)
            events.extend(new)
            if self._agent_driven and new:
                self._impact(new, actors)
            self._engine_events = current
            ego = actors[ego_k] if ego_k >= 0 else None
            if ego is not None and self.network is not None:
                events.extend(self.detector.road_events(ego.id, ego_match, ego.length, ego.width,
                                                        self._curvature(ego_match)))
            if ego is not None and self._goal is not None and self._reached(ego):
                events.append(Event("goal_reached", ego.id, data={"x": self._goal[0], "y": self._goal[1]}))
            if getattr(self.engine, "finished", False):
                events.append(Event("stop_trigger", ego.id if ego else "", data={"reason": getattr(self.engine, "end_reason", "")}))
        ws = _new(WorldState)  # filled in place: the frozen dataclass's __init__ costs a setattr call per field
        d = ws.__dict__
        d["time"] = self.time
        d["frame"] = self.frame
        d["actors"] = tuple(actors)
        d["signals"] = {k: signal_colour(v) for k, v in self.engine.signals.items()}
        d["environment"] = self.engine.environment
        d["events"] = tuple(events)
        return ws

    def _impact(self, new: list[Event], actors: list[ActorState]) -> None:
        """The impact model: a collision of the agent's ego with another road user or an object is perfectly
        plastic and ends in a stop within the overlap. From the next tick both stay at rest where they touched
        (the ego whatever the agent asks, a storyboard actor whatever its actions say, a background vehicle
        whatever its driver model wants); a static object is at rest already. trace.info["crashes"] records each
        impact: time, the two ids and their speeds at contact."""
        by_id = {a.id: a for a in actors}
        for ev in new:
            if self.ego_id not in (ev.actor, ev.other) or ev.other is None:
                continue
            for name in (ev.actor, ev.other):
                if name in self._crashed or name not in by_id:
                    continue
                a = by_id[name]
                if name == self.ego_id or name in self.engine.entities:
                    e = self.engine.entities[name]
                    self._crashed[name] = (e.x, e.y, e.h)
                elif self.traffic is not None and self.traffic.crash(name):
                    self._crashed[name] = (a.x, a.y, a.h)
            self.trace.info.setdefault("crashes", []).append(
                {"time": self.time, "ego": ev.actor, "other": ev.other, "other_kind": ev.data.get("other_kind"),
                 "ego_speed": by_id[ev.actor].speed, "other_speed": by_id[ev.other].speed if ev.other in by_id else 0.0,
                 "model": "plastic: both at rest within the overlap"})

    def _track(self, a: ActorState):
        """The ego's LaneMatch from its last one when it is still inside that lane (a local projection on the
        tabulated lane centre); None when a global locate is needed (lane left, lane end, off the road)."""
        return self._track_xyh(a.x, a.y, a.h)

    def _track_xyh(self, x: float, y: float, h_ego: float):
        """_track on a bare pose (the tick builds the ego's ActorState after its lane is known)."""
        m = self._ego_match
        if m is None or not m.on_road or m.lane_type not in DRIVABLE or self._lanes is None:
            return None
        try:
            ext = self._lanes.extent(m.road, m.lane)
            p = self._lanes.project(m.road, m.lane, ext, x, y, m.s)
        except Exception:  # noqa: BLE001 - anything odd about this lane: the global locate decides
            return None
        if p is None:
            return None
        s, offset, h, width, t = p
        if abs(offset) > 0.5 * width - 0.05 or not ext[0] + 0.5 <= s <= ext[1] - 0.5:
            return None
        out = _new(LaneMatch)  # filled in place (every tick): the frozen dataclass's __init__ is a setattr per field
        d = out.__dict__
        d["road"], d["lane"], d["s"], d["t"], d["offset"] = m.road, m.lane, s, t, offset
        d["heading_diff"], d["lane_type"], d["on_road"], d["junction"] = (math.remainder(h_ego - h, math.tau),
                                                                        m.lane_type, True, m.junction)
        return out

    def _curvature(self, m) -> float:
        """The ego's lane curvature at its match (1/m, positive towards +t), 0 where no lane table serves."""
        if m is None or self._lanes is None:
            return 0.0
        try:
            return self._lanes.curvature(m.road, m.lane, m.s)
        except Exception:  # noqa: BLE001 - a lane the table cannot sample: treat it as straight
            return 0.0

    def _centre_lanepos(self, lane, cx: float, h: float) -> LanePos:
        """The engine's lane position of an entity's reference point moved to its box centre, cx m ahead along
        the entity's heading projected on the road's s direction."""
        s = float(lane.s)
        if cx and self._lanes is not None:
            try:
                s = self._lanes.along(str(lane.road), int(lane.lane), s, cx, h)
            except Exception:  # noqa: BLE001 - a lane the map does not know: keep the engine's s
                pass
        return make_lanepos(str(lane.road), int(lane.lane), s, float(lane.t))

    def _reached(self, ego: ActorState) -> bool:
        """Within GOAL_RADIUS of the goal at any point of this tick's motion and, when the route has a direction,
        past the goal along it: the leaderboard counts a route complete only once its last point is passed."""
        gx, gy = self._goal
        prev = self.state.ego if self.state is not None else None
        ax, ay = (prev.x, prev.y) if prev is not None else (ego.x, ego.y)
        if self._goal_dir is not None and (ego.x - gx) * self._goal_dir[0] + (ego.y - gy) * self._goal_dir[1] <= 0:
            return False
        dx, dy = ego.x - ax, ego.y - ay
        L2 = dx * dx + dy * dy
        u = 0.0 if L2 == 0 else max(0.0, min(1.0, ((gx - ax) * dx + (gy - ay) * dy) / L2))
        return math.hypot(ax + u * dx - gx, ay + u * dy - gy) <= GOAL_RADIUS

    def _observe(self, sensor_specs: list[Mapping[str, Any]]) -> dict[str, Any]:
        return observe(self, sensor_specs)

    def _close(self) -> None:
        cams = self.__dict__.pop("cameras", None)  # the renderer, when a camera was ever read
        if cams is not None:
            cams.release()


def _final_direction(waypoints) -> tuple[float, float] | None:
    """Unit direction of the route's last segment, None without two distinct waypoints."""
    pts = [(float(p[0]), float(p[1])) for p in waypoints]
    for a in reversed(pts[:-1]):
        d = math.dist(a, pts[-1])
        if d > 1e-6:
            return ((pts[-1][0] - a[0]) / d, (pts[-1][1] - a[1]) / d)
    return None


class EmbeddedSimulator(Simulator):
    """The built-in backend: nothing outlives a run, so load() just starts an EmbeddedSimulation."""

    name = "embedded"

    @classmethod
    def sensor_types(cls) -> frozenset[str]:
        return frozenset(SENSORS)

    def load(self, bundle, seed: int = 0, settings: SimSettings | None = None,
             params: Mapping[str, Any] | None = None) -> EmbeddedSimulation:
        """Start a run; `params` overrides the scenario's ParameterDeclarations (a distribution's runs)."""
        if isinstance(bundle, (str, Path)):
            from roadtest.bundle import load_bundle

            bundle = load_bundle(bundle)
        return EmbeddedSimulation(bundle, seed, settings or SimSettings(), params=params)


def run_bundle(bundle, seed: int = 0, settings: SimSettings | None = None,
               on_step: Callable[[WorldState], None] | None = None, params: Mapping[str, Any] | None = None):
    """Run a bundle with no agent (the ego under its scenario controller) to its end; return the Trace.

    A failing step raises its own exception (the run ends as sim_error first)."""
    sim = EmbeddedSimulator().load(bundle, seed, settings or SimSettings(), params=params)
    try:
        drive(sim, on_step=on_step)
    except LoopError as e:
        raise e.cause from e.cause.__cause__  # the failure itself: callers tell failures apart by their type
    finally:
        sim.close()
    return sim.trace
