"""ScenarioEngine: one OpenSCENARIO run, stepped by the caller (the embedded simulator wraps it)."""

from __future__ import annotations

import copy
import math
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Iterable

from roadtest.errors import Problem, ScenarioError, UnsupportedError
from roadtest.sim.api import Environment, Event
from roadtest.sim.xosc import conditions as C
from roadtest.sim.xosc.actions import RuntimeAction, make_action
from roadtest.sim.xosc.controllers import EXTERNAL_KINDS, ControllerMixin, controller_kind
from roadtest.sim.xosc.drivers import DriverModel
from roadtest.sim.xosc.entities import EntityState, build_entity
from roadtest.sim.xosc import ghost as G
from roadtest.sim.xosc import lane_follow as LF
from roadtest.sim.xosc.motion import LaneCache, Motion, Path as TrajPath, advance
from roadtest.sim.xosc.parser import load_scenario, where
from roadtest.sim.xosc.positions import PositionSpec, Resolved, parse_position, resolve, wrap
from roadtest.sim.xosc.storyboard import COMPLETE, RUNNING, STANDBY, Element, build_tree
from roadtest.sim.xosc.trailers import SignalControllers

__all__ = ["EntityState", "ScenarioEngine", "EXTERNAL_KINDS", "controller_kind"]

_STATIC = ("WorldPosition", "LanePosition", "RoadPosition")
_new = object.__new__


def _snapshot(e: Any) -> Any:
    """A shallow copy of an entity, as copy.copy makes it, without copy's generic protocol (every entity, every tick)."""
    if type(e) is not EntityState:
        return copy.copy(e)
    c = _new(EntityState)
    c.__dict__.update(e.__dict__)
    return c


def _snapshot(e: Any) -> Any:
    """copy.copy of an entity: for the plain EntityState dataclass, its fields into a new instance (what
    copy.copy does by way of __reduce_ex__, at a fraction of the cost, for every entity every tick)."""
    if type(e) is EntityState:
        out = object.__new__(EntityState)
        out.__dict__.update(e.__dict__)
        return out
    return copy.copy(e)


class ScenarioEngine(ControllerMixin):
    """Parses a scenario, loads its map, and plays its storyboard tick by tick."""

    def __init__(self, xosc_path: str | Path, *, seed: int = 0, tick: float = 0.05,
                 params: dict[str, Any] | None = None):
        self.path = Path(xosc_path)
        self.file = str(self.path)
        self.seed, self.tick = seed, tick
        self.sc = load_scenario(self.path, params)
        from roadtest.sim.xosc.validate import validate

        validate(self.sc.root, self.file)
        self.params = self.sc.params
        self.variables: dict[str, Any] = {}
        for d in self.sc.root.findall("VariableDeclarations/VariableDeclaration"):
            self.variables[d.get("name")] = d.get("value")
        self.warnings: list[str] = list(self.sc.warnings)  # substitutions a user should know of (never silent)
        self._external_at: dict[str, tuple[float, float]] = {}  # pose of each externally driven entity last tick
        self.network = self._load_map()
        self.entities: dict[str, EntityState] = {}
        self.controllers: dict[str, dict] = {}
        self.overrides: dict[str, dict[str, Any]] = {}  # entity -> OverrideControllerValueAction values in force
        self.drivers: dict[str, DriverModel] = {}  # entity -> the player-specific model driving it now
        # entity -> a model a newer controller displaced but left active on the lateral domain (as esmini keeps it)
        self.lateral_keepers: dict[str, DriverModel] = {}
        for so in self.sc.entities:
            e, ctrl = build_entity(so, self)
            if e.name in self.entities:
                raise self.error(so, "ScenarioObject.name", f"duplicate entity name {e.name!r}")
            self.entities[e.name] = e
            if ctrl is not None:
                self.controllers[e.name] = {"xml": ctrl, "lat": False, "long": False}
        G.setup_ghosts(self)  # a FollowGhostController's ghost entity, its storyboard hand-over and head start
        self.entity_names = list(self.entities)
        for e in self.entities.values():
            if e.trailer is not None:
                if e.trailer not in self.entities:
                    raise UnsupportedError("Trailer", self.file, 0, f"{e.name} tows {e.trailer!r}, which is no entity")
                self.entities[e.trailer].tow = e.name
        self.motions = {n: Motion() for n in self.entities}
        self._lanes = LaneCache(self.network) if self.network is not None else None
        self._flat = LF.FlatLanes(self._lanes) if self._lanes is not None else None
        self.environment = Environment()
        # entity -> the speed limit in force at it (m/s, None: none known); the backend that knows the scene's rules
        # (roadtest.limits from meta.json) sets it; drivers with obeyLimits read it
        self.limit_in_force: Callable[[EntityState], float | None] | None = None
        self.signals: dict[str, str] = {}
        self._tsc = SignalControllers(self.sc.traffic_signal_controllers)
        self._pos_cache: dict[int, Resolved] = {}
        sb = self.sc.storyboard
        self.stories = build_tree(sb, lambda tx: C.build_trigger(tx, self), self._int_attr)
        self.elements = [el for s in self.stories for el in s.walk()]
        self._by_name: dict[str, list[Element]] = {}
        for el in self.elements:
            self._by_name.setdefault(el.name, []).append(el)
        for el in self.elements:
            if el.kind == "action":
                ev = el.parent
                actors = self._actors(ev.parent.parent)
                el.runtime_proto = el.xml  # built again at each start (events may run more than once)
                make_action(el.xml, actors, self)  # load-time check: unsupported elements are refused now
        self._check_references(sb)
        self._check_controllers()
        self._track_offroad = any(True for _ in sb.iter("OffroadCondition"))
        st = sb.find("StopTrigger")
        self.stop_trigger = C.build_trigger(st, self) if st is not None and len(st) else None
        self._init_actions = self._build_init(sb.find("Init/Actions"))
        self.running: list[tuple[Element | None, RuntimeAction]] = []
        self._swarms: list[tuple[str | None, Any]] = []
        self.time = self.start_time  # -HeadStartTime when a ghost runs ahead (esmini's clock), else 0
        self.snap: dict[str, EntityState] = {}
        self.events: list[Event] = []
        self.finished = False
        self.end_reason = ""
        # an entity handed to an external controller that the caller does not drive (and roadtest has no headless
        # model of, see drivers.MODELS) stands still
        self.hold_unattached_external = True
        self._started = False

    @property
    def net(self) -> Any:
        return self.network

    @property
    def lanes(self) -> LaneCache | None:
        """Lane tables shared by the default controller and the driver models (None without a map)."""
        return self._lanes

    def inject_action(self, ra: RuntimeAction) -> None:
        """Start an action that no storyboard event owns (a driver model's own lane change); it ends the entity's
        running actions of the same motion domain, as any newer action does."""
        ra.start(self)
        self._override(ra)
        self.running.append((None, ra))

    # ------------------------------------------------------------------ load helpers
    def where(self, el: Any) -> tuple[str, int]:
        return where(el, self.file)

    def error(self, el: Any, field_name: str, message: str) -> ScenarioError:
        f, line = self.where(el)
        return ScenarioError(Problem(f, line, 0, field_name, message))

    def position(self, el: Any) -> PositionSpec:
        return parse_position(el, self.file)

    @staticmethod
    def _int_attr(el: Any, name: str, default: int) -> int:
        v = el.get(name)
        return default if v in (None, "") else int(float(v))

    def _load_map(self) -> Any:
        lf = self.sc.logic_file
        if lf is None:
            return None
        if not lf.exists():
            lf = self._find_logic_file(lf)
        if not lf.exists():
            logic = self.sc.root.find("RoadNetwork/LogicFile")
            hint = (f" ({lf.name!r} names a CARLA town: run it on the CARLA backend)"
                    if lf.suffix == "" and lf.name.startswith("Town") else "")
            raise self.error(logic, "LogicFile.filepath", f"OpenDRIVE file not found: {lf}{hint}")
        from roadtest.sim.road import load_map

        net = load_map(lf)
        self.warnings.extend(w for w in net.warnings if w not in self.warnings)
        return net

    def _find_logic_file(self, lf: Path) -> Path:
        from roadtest.sim.xosc.parser import find_elsewhere

        found, msg = find_elsewhere(self.sc.root.find("RoadNetwork/LogicFile").get("filepath"), self.path, "LogicFile")
        if found is None:
            return lf
        self.warnings.append(msg)
        return found

    def _check_references(self, sb: Any) -> None:
        """Every entityRef and storyboardElementRef names something that exists (a typo is a located error)."""
        for x in sb.iter():
            if not isinstance(x.tag, str):
                continue
            for attr in ("entityRef", "masterEntityRef"):
                n = x.get(attr)
                if n is not None and n not in self.entities:
                    raise self.error(x, f"{x.tag}.{attr}", f"unknown entity {n!r} (known: {', '.join(self.entities)})")
            ref = x.get("storyboardElementRef")
            if ref is not None and self.element(ref, x.get("storyboardElementType")) is None:
                names = sorted({e.name for e in self.elements})
                raise self.error(x, f"{x.tag}.storyboardElementRef",
                                 f"no storyboard element named {ref!r} (known: {', '.join(names[:30])})")

    def _actors(self, group: Element) -> list[str]:
        out = []
        for r in group.xml.findall("Actors/EntityRef"):
            n = r.get("entityRef")
            if n not in self.entities:
                raise self.error(r, "Actors.EntityRef.entityRef", f"unknown entity {n!r} (known: {', '.join(self.entities)})")
            out.append(n)
        return out

    def _build_init(self, actions: Any) -> list[RuntimeAction]:
        out: list[RuntimeAction] = []
        if actions is None:
            return out
        for a in actions:
            if not isinstance(a.tag, str):
                continue
            if a.tag == "Private":
                n = a.get("entityRef")
                if n not in self.entities:
                    raise self.error(a, "Private.entityRef", f"unknown entity {n!r}")
                for pa in a.findall("PrivateAction"):
                    for m in G.init_copies(self, n, pa):
                        out += make_action(pa, [m], self)
            elif a.tag == "GlobalAction":
                out += make_action(a, [], self)
            else:
                raise UnsupportedError(a.tag, *self.where(a))
        return out

    # ------------------------------------------------------------------ run
    def init(self) -> None:
        """Run the Init actions: positions, speeds, environment, controllers."""
        # private actions first: global ones (a traffic swarm around an entity) see the entities placed
        for ra in sorted(self._init_actions, key=lambda r: r.actor is None):
            ra.start(self)
            ra.step(self, 0.0)
            if not ra.done:
                self._override(ra)
                self.running.append((None, ra))
        self._update_signals(0.0)
        G.sample_trails(self, self.time)
        self._started = False
        self._place_trailers(straight=True)

    def begin(self, time: float) -> None:
        """esmini's zero-length first step: the storyboard starts and what triggers at `time` starts (teleports,
        trajectory starts), nothing moves; the first state a caller records and shows an agent is after it."""
        self._transitions(time, ())

    def step(self, time: float, external: Iterable[str] = frozenset(), events: Iterable[Event] = ()) -> None:
        """One tick: triggers on the snapshot at `time`, storyboard transitions, then motion for one tick."""
        if not self._transitions(time, events):
            return
        self._motion(time, external)

    def _transitions(self, time: float, events: Iterable[Event]) -> bool:
        """Triggers on the snapshot at `time` and the storyboard's transitions; False once the storyboard ended."""
        if self.finished:
            return False
        self.time = time
        self.events = list(events)
        for n, (x, y) in self._external_at.items():  # an entity driven from outside covers its distance there
            e = self.entities[n]
            self.motions[n].odometer += math.hypot(e.x - x, e.y - y)
        self._external_at = {}
        self.snap = {n: _snapshot(e) for n, e in self.entities.items()}
        if not self._started:
            self._started = True
            for s in self.stories:
                s.start(time)
        if self.stop_trigger is not None and self.stop_trigger.evaluate(self):
            self.finished, self.end_reason = True, "storyboard stop trigger"
            for s in self.stories:
                s.stop(time, self._on_done)
            return False
        for act in (e for e in self.elements if e.kind == "act"):
            if act.state == STANDBY and act.parent.state == RUNNING and act.start_trigger is not None:
                if act.start_trigger.evaluate(self):
                    act.start(time)
            elif act.state == RUNNING and act.stop_trigger is not None and act.stop_trigger.evaluate(self):
                act.stop(time, self._on_done)
        for ev in [e for e in self.elements if e.kind == "event"]:
            if ev.state == STANDBY and ev.parent.state == RUNNING:
                if ev.start_trigger is None or ev.start_trigger.evaluate(self):
                    self._start_event(ev)
        return True

    def _motion(self, time: float, external: Iterable[str]) -> None:
        """The running actions and every entity's motion for one tick from `time`."""
        self._update_signals(time + self.tick)
        for _, ra in list(self.running):
            if not ra.done:
                ra.step(self, self.tick)
        ext = set(external)
        planned = self._plan_lane_following(ext)
        for n, e in self.entities.items():
            if n in ext and n in self.motions:
                self._external_at[n] = (e.x, e.y)
            if not e.active or n in ext or e.tow is not None:
                continue
            if G.held_back(self, n, time):
                e.accel, e.yaw_rate = 0.0, 0.0  # the ghosts' head start: only they move before time 0
                continue
            if self.hold_unattached_external and self.controlled_externally(n) and n not in self.drivers:
                e.speed, e.accel, e.yaw_rate = 0.0, 0.0, 0.0  # nobody drives it: it waits, as esmini headless
                self.motions[n].standstill += self.tick
                continue
            v0 = self.snap[n].speed
            drv = self.drivers.get(n)
            if drv is not None:
                drv.drive(self, time + self.tick)
            elif n in planned:
                LF.apply(e, self.motions[n], planned[n], self.tick)
            else:
                advance(self.network, e, self.motions[n], self.tick, time + self.tick, self._lanes)
            if n in self.lateral_keepers:
                self.lateral_keepers[n].steer_after(self)
            e.accel = (e.speed - v0) / self.tick
            e.yaw_rate = wrap(e.h - self.snap[n].h) / self.tick
            if self._track_offroad and self.network is not None and self.motions[n].road is not None:
                mt = self.network.locate(e.x, e.y)
                m = self.motions[n]
                off = mt is None or not mt.on_road or mt.lane_type == "none"  # esmini: border lanes still count
                m.offroad = m.offroad + self.tick if off else 0.0
        G.sample_trails(self, time + self.tick)
        self._place_trailers(straight=False)
        for _, sw in self._swarms:
            sw.step()
        for _, ra in self.running:
            ra.post(self)
        self._complete_actions(time)
        if self.stop_trigger is None and self.stories and all(s.state == COMPLETE for s in self.stories):
            self.finished, self.end_reason = True, "all acts complete"

    def _plan_lane_following(self, ext: set[str]) -> dict[str, tuple]:
        """This tick's plain lane-following steps, vectorised (lane_follow), of the entities the default
        controller moves; the others are left to `advance`."""
        if self._flat is None:
            return {}
        drivers, motions = self.drivers, self.motions
        return LF.plan(self._flat, ((n, e, motions[n]) for n, e in self.entities.items()
                                    if e.active and e.tow is None and n not in ext and n not in drivers and n in motions),
                       self.tick)

    def _start_event(self, ev: Element) -> None:
        siblings = [x for x in ev.parent.children if x is not ev and x.state == RUNNING]
        if ev.priority in ("overwrite", "override"):
            for x in siblings:
                x.stop(self.time, self._on_done)
        elif ev.priority == "skip" and siblings:
            ev.skip(self.time)
            return
        ev.start(self.time)
        G.on_event_start(self, ev.xml, self.time)
        actors = self._actors(ev.parent.parent)
        for a in ev.children:
            a.state = STANDBY
            a.start(self.time)
            a.runtime = make_action(a.xml, G.actors_for(self, a.xml, actors), self)
            for ra in a.runtime:
                ra.start(self)
                self._override(ra)
                self.running.append((a, ra))
            if not a.runtime:
                a.end(self.time, self._on_done)

    def _override(self, ra: RuntimeAction) -> None:
        """A new action on an entity ends the running ones that control the same motion domain."""
        if not ra.actor or not ra.domains:
            return
        for _, old in self.running:
            if old is not ra and not old.done and old.actor == ra.actor and old.domains & ra.domains:
                old.stop(self)

    def _on_done(self, el: Element) -> None:
        if el.kind == "action":
            for ra in el.runtime:
                if not ra.done:
                    ra.stop(self)

    def _complete_actions(self, time: float) -> None:
        still = []
        for el, ra in self.running:
            if el is None:
                if not ra.done:
                    still.append((el, ra))
                continue
            if el.state != RUNNING:
                continue
            if all(r.done for r in el.runtime):
                el.end(time, self._on_done)
            else:
                still.append((el, ra))
        self.running = still

    def start_swarm(self, el: Any) -> None:
        """TrafficSwarmAction: keep a seeded swarm of background vehicles around its central entity."""
        from roadtest.sim.xosc.swarm import Swarm

        self._swarms.append((el.getparent().get("trafficName"), Swarm(self, el, len(self._swarms))))
        self._swarms[-1][1].step()

    def stop_traffic(self, name: str | None) -> None:
        for n, sw in self._swarms:
            if name is None or n == name:
                sw.stop()

    def _place_trailers(self, straight: bool) -> None:
        from roadtest.sim.xosc.trailers import place_trailers

        place_trailers(self.entities, self.network, straight)

    def connect_trailer(self, tow: str, trailer: str | None) -> None:
        """ConnectTrailerAction (trailer given) or DisconnectTrailerAction (None)."""
        from roadtest.sim.xosc.trailers import connect

        if trailer is not None and trailer not in self.entities:
            raise self.error(self.sc.storyboard, "ConnectTrailerAction.trailerRef", f"unknown entity {trailer!r}")
        connect(self.entities, self.motions, self.network, tow, trailer)

    # ------------------------------------------------------------------ context for conditions and actions
    def element(self, name: str, etype: str | None) -> Element | None:
        cands = self._by_name.get(name)
        if not cands and "::" in name:
            cands = [e for e in self.elements if e.path().endswith(name)]
        if not cands:
            return None
        if etype:
            typed = [c for c in cands if c.kind.lower() == etype.lower()]
            cands = typed or cands
        return cands[0]

    def time_of_day(self) -> datetime:
        return datetime.fromisoformat(self.environment.time_of_day[:19]) + timedelta(seconds=self.time)

    def controller_phase(self, name: str) -> str | None:
        return self._tsc.phase(name)

    def set_controller_phase(self, name: str, phase: str) -> None:
        self._tsc.set_phase(name, phase, self.time, self.signals)

    def _update_signals(self, t: float) -> None:
        self._tsc.update(t, self.signals)

    # Durations count from the end of the first tick in the state, as esmini stamps them (so one tick less
    # than the time accumulated); -1 when the entity is not in the state at all.
    def _held(self, acc: float) -> float:
        return max(acc - self.tick, 0.0) if acc > 0 else -1.0

    def standstill_time(self, n: str) -> float:
        return self._held(self.motions[n].standstill)

    def odometer(self, n: str) -> float:
        return self.motions[n].odometer

    def end_of_road_time(self, n: str) -> float:
        return self._held(self.motions[n].end_of_road)

    def offroad_time(self, n: str) -> float:
        return self._held(self.motions[n].offroad)

    def collides(self, n: str, target: str | None, otype: str | None) -> bool:
        for ev in self.events:
            if ev.kind == "collision" and n in (ev.actor, ev.other):
                other = ev.other if ev.actor == n else ev.actor
                if target is None and otype is None or other == target or (otype and self._type_of(other) == otype):
                    return True
        me = self.snap[n]
        for o in self.snap.values():
            if o.name == n or not o.active or o.name in self.ghost_trails:  # nothing collides with a ghost
                continue
            if (target is not None and o.name != target) or (otype and self._type_of(o.name) != otype):
                continue
            if C.boxes_overlap(me, o):
                return True
        return False

    def _type_of(self, n: str) -> str:
        cat = self.entities[n].category if n in self.entities else ""
        return "pedestrian" if cat == "pedestrian" else "miscellaneous" if cat == "misc" else "vehicle"

    def resolve_position(self, spec: PositionSpec, e: Any = None) -> Resolved:
        if spec.kind in _STATIC:
            r = self._pos_cache.get(id(spec))
            if r is None:
                r = self._pos_cache[id(spec)] = resolve(spec, self.network, self.snap or self.entities)
            return r
        return resolve(spec, self.network, self.snap or self.entities)

    def _pseudo(self, r: Resolved) -> EntityState:
        return EntityState(name="", category="misc", role="scenario", length=0.0, width=0.0, height=0.0,
                           x=r.x, y=r.y, z=r.z, h=r.h, lane=r.lane)

    def distance_to_position(self, e: Any, r: Resolved, dtype: str, fs: bool, cs: str) -> float:
        return abs(C.rel_distance(self, e, self._pseudo(r), dtype, fs, cs))

    def road_delta(self, a: Any, b: Any) -> tuple[float, float] | None:
        """(ds, dt) from a to b in a's driving direction, when both are on the same road."""
        if self.network is None or a.lane is None or b.lane is None or a.lane.road != b.lane.road:
            return None
        d = self.network.lane_direction(a.lane.road, a.lane.lane) if a.lane.lane else 1
        return (b.lane.s - a.lane.s) * d, (b.lane.t - a.lane.t) * d

    def distance_along(self, e: Any, r: Resolved) -> float:
        """Distance still to go from e to a position (along the road when both are on the same one)."""
        if e.lane is not None and r.lane is not None and e.lane.road == r.lane.road and self.network is not None:
            d = self.network.lane_direction(e.lane.road, e.lane.lane) if e.lane.lane else 1
            return (r.lane.s - e.lane.s) * d
        dx, dy = r.x - e.x, r.y - e.y
        return dx * math.cos(e.h) + dy * math.sin(e.h)

    def set_param(self, name: str, value: Any, store: str) -> None:
        if store == "params":
            owner = self.params.owner(name)
            (owner if owner is not None else self.params)[name] = value
        else:
            self.variables[name] = value

    def route_waypoints(self, route: Any, actor: str) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        if route is None:
            return out
        for w in route.findall("Waypoint"):
            r = resolve(parse_position(w.find("Position"), self.file), self.network, self.entities)
            if r.lane is not None:
                out.append((r.lane.road, r.lane.lane))
        cur = self.motions[actor].road
        while out and out[0][0] == cur:
            out.pop(0)
        return out

    def set_environment(self, env: Any) -> None:
        from roadtest.sim.xosc.trailers import environment_from

        if env is not None:
            self.environment = environment_from(env, self.environment)

    def build_path(self, traj: Any, timing: Any, actor: str) -> TrajPath:
        """A Trajectory's shape as a dense polyline, with vertex times when a Timing is given."""
        from roadtest.sim.xosc.trajectory import build_path

        return build_path(traj, timing, self.entities[actor], self.time, self.network, self.entities, self.file)
