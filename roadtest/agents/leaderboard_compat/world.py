"""A CARLA-shaped world over the built-in simulation, for leaderboard agents that ask the world (privileged agents).

CARLA's BasicAgent (the leaderboard's npc_agent), PDM-Lite, PlanT and the data agents read the world through
CarlaDataProvider: the world, its map, the hero and the actors around it. BuiltinWorld answers those calls from
the run's current WorldState, in CARLA's frame (frames.py): carla.World's get_map, get_actors(...).filter,
get_snapshot, get_settings, debug (drawing is a no-op); vehicles and walkers with their transform, location,
velocity, angular velocity (deg/s, as CARLA), acceleration, bounding box, speed limit (km/h); the hero (role_name
'hero') also with apply_control and get_control; traffic lights with state, trigger volume and stop waypoints.
The map is the real client's carla.Map built from the scene's OpenDRIVE (it needs no server); where the real
client is not importable, standin_map.StandInMap, a stand-in over roadtest's road network of the same file.

Anything else is refused by name: NotProvided, which ends the run as agent_error with the call in its message;
never a silent default. Every call made is counted (BuiltinWorld.calls) and the run's results list them.
PROVIDED names every call answered.
"""

from __future__ import annotations

import fnmatch
import math
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

from roadtest.errors import RoadtestError
from roadtest.sim.frames import location_to_carla, vector_to_carla, yaw_to_carla

__all__ = ["NotProvided", "BuiltinWorld", "PROVIDED", "install_data_provider", "clear_data_provider", "TYPE_IDS",
           "HERO_TYPE_ID"]

HERO_TYPE_ID = "vehicle.lincoln.mkz_2020"  # the leaderboard's ego
TYPE_IDS = {"car": "vehicle.tesla.model3", "truck": "vehicle.carlamotors.carlacola",
            "bus": "vehicle.mitsubishi.fusorosa", "emergency": "vehicle.ford.ambulance",
            "motorcycle": "vehicle.yamaha.yzf", "bicycle": "vehicle.bh.crossbike",
            "pedestrian": "walker.pedestrian.0001", "officer": "walker.pedestrian.0030",
            "static": "static.prop.streetbarrier"}
_LIGHT_TYPE_ID = "traffic.traffic_light"
TRIGGER_DEPTH = 3.0  # m of lane before a light's stop position that its trigger volume covers
_FIRST_ID = 100  # CARLA's actor ids are ints; the hero gets the first

PROVIDED = {
    "World": ("get_map", "get_actors", "get_actor", "get_snapshot", "get_settings", "debug", "id"),
    "ActorList": ("filter", "find", "len", "iter"),
    "Actor": ("id", "type_id", "attributes", "is_alive", "parent", "get_world", "get_transform", "get_location",
              "get_velocity", "get_angular_velocity", "get_acceleration", "bounding_box"),
    "Vehicle": ("get_speed_limit", "get_traffic_light_state", "is_at_traffic_light", "get_traffic_light",
                "get_control (the hero)", "apply_control (the hero)"),
    "TrafficLight": ("state", "get_state", "trigger_volume", "get_stop_waypoints", "get_group_traffic_lights"),
    "Map (stand-in, without the real client)": ("name", "get_waypoint", "get_waypoint_xodr", "get_topology",
                                                "generate_waypoints", "transform_to_geolocation", "to_opendrive"),
    "Waypoint (stand-in)": ("id", "transform", "road_id", "section_id", "lane_id", "s", "lane_width", "lane_type",
                            "lane_change", "right_lane_marking", "left_lane_marking", "is_junction", "junction_id",
                            "next", "previous", "next_until_lane_end", "previous_until_lane_start", "get_left_lane",
                            "get_right_lane"),
    "WorldSnapshot": ("frame", "timestamp", "find", "has_actor", "iter"),
    "DebugHelper": ("draw_point", "draw_line", "draw_arrow", "draw_box", "draw_string", "draw_hud_box",
                    "draw_hud_point", "draw_hud_line", "draw_hud_arrow"),
    "CarlaDataProvider": ("get_world", "get_map", "get_hero_actor", "get_actors", "get_all_actors",
                          "get_actor_by_id", "get_actor_by_name", "actor_id_exists", "get_location", "get_transform",
                          "get_velocity", "is_sync_mode", "get_random_seed", "get_next_traffic_light",
                          "get_trafficlight_trigger_location", "get_latest_scenario"),
}


class NotProvided(RoadtestError):
    """A CARLA call that roadtest's built-in world does not answer; the run ends as agent_error naming it."""

    def __init__(self, call: str, why: str = ""):
        provided = "; ".join(f"{k}: {', '.join(v)}" for k, v in PROVIDED.items())
        super().__init__(f"{call} is not provided by roadtest's built-in CARLA world{': ' + why if why else ''} "
                         f"(provided: {provided})")
        self.call = call


def _carla():
    import carla

    return carla


class _Strict:
    """Refuses, by name, any public attribute it does not define; counts the calls it answers."""

    _kind = "Object"

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotProvided(f"carla.{self._kind}.{name}")

    def _log(self, name: str) -> None:
        self._world_ref.calls[f"{self._kind}.{name}"] += 1


class ActorList(list):
    """carla.ActorList: a list with filter(wildcard on type_id) and find(id)."""

    def __init__(self, items: Iterable[Any], world: "BuiltinWorld"):
        super().__init__(items)
        self._world = world

    def filter(self, wildcard_pattern: str) -> "ActorList":
        self._world.calls["ActorList.filter"] += 1
        return ActorList([a for a in self if fnmatch.fnmatch(a.type_id, wildcard_pattern)], self._world)

    def find(self, actor_id: int) -> Any:
        self._world.calls["ActorList.find"] += 1
        return next((a for a in self if a.id == actor_id), None)


class Actor(_Strict):
    """A vehicle, walker or prop of the run, as the current tick shows it, in CARLA's frame."""

    _kind = "Actor"

    def __init__(self, world: "BuiltinWorld", rid: str, cid: int, role: str, kind: str):
        self._world_ref, self._rid, self.id = world, rid, cid
        self._is_hero = role == "ego"
        self.type_id = HERO_TYPE_ID if self._is_hero else TYPE_IDS.get(kind, "static.prop.streetbarrier")
        self._kind = "Vehicle" if self.type_id.startswith("vehicle.") else "Walker" \
            if self.type_id.startswith("walker.") else "Actor"
        role_name = "hero" if self._is_hero else "scenario" if role == "scenario" else "background"
        self.attributes = {"role_name": role_name, "roadtest_id": rid}
        if self._kind == "Vehicle":
            self.attributes["number_of_wheels"] = "2" if kind in ("motorcycle", "bicycle") else "4"
        self.parent = None

    def __repr__(self) -> str:
        return f"Actor(id={self.id}, type={self.type_id})"

    def __hash__(self) -> int:
        return hash(self.id)

    def __eq__(self, other) -> bool:
        return isinstance(other, Actor) and other.id == self.id

    # the state of this tick
    def _state(self):
        state = self._world_ref.state
        for a in state.actors if state is not None else ():
            if a.id == self._rid:
                return a
        return None

    def _alive(self):
        a = self._state()
        if a is None:
            raise NotProvided(f"carla.{self._kind} {self.id} ({self._rid})", "the actor is no longer in the run")
        return a

    @property
    def is_alive(self) -> bool:
        self._log("is_alive")
        return self._state() is not None

    def get_world(self) -> "BuiltinWorld":
        self._log("get_world")
        return self._world_ref

    def get_location(self):
        self._log("get_location")
        a, c = self._alive(), _carla()
        return c.Location(*location_to_carla(a.x, a.y, a.z))

    def get_transform(self):
        self._log("get_transform")
        a, c = self._alive(), _carla()
        return c.Transform(c.Location(*location_to_carla(a.x, a.y, a.z)), c.Rotation(pitch=0.0, yaw=yaw_to_carla(a.h),
                                                                                      roll=0.0))

    def get_velocity(self):
        self._log("get_velocity")
        a = self._alive()
        return _carla().Vector3D(*vector_to_carla(a.vx, a.vy, 0.0))

    def get_angular_velocity(self):
        """deg/s, as CARLA's; a left turn is negative z in CARLA's left-handed frame."""
        self._log("get_angular_velocity")
        a = self._alive()
        return _carla().Vector3D(0.0, 0.0, -math.degrees(a.yaw_rate))

    def get_acceleration(self):
        self._log("get_acceleration")
        a = self._alive()
        c, s = math.cos(a.h), math.sin(a.h)
        return _carla().Vector3D(*vector_to_carla(c * a.ax - s * a.ay, s * a.ax + c * a.ay, 0.0))

    @property
    def bounding_box(self):
        self._log("bounding_box")
        a, c = self._alive(), _carla()
        return c.BoundingBox(c.Location(0.0, 0.0, a.height / 2.0), c.Vector3D(a.length / 2.0, a.width / 2.0, a.height / 2.0))

    # vehicles
    def get_speed_limit(self) -> float:
        """km/h, as CARLA's: the limit in force at the vehicle's lane (the hero: the one its objects view gives)."""
        self._log("get_speed_limit")
        limit = self._world_ref.speed_limit(self._alive(), self._is_hero)
        if limit is None:
            raise NotProvided(f"carla.Vehicle.get_speed_limit of {self._rid}", "no speed limit is in force there")
        return limit * 3.6

    def get_control(self):
        self._log("get_control")
        if not self._is_hero:
            raise NotProvided(f"carla.Vehicle.get_control of {self._rid}",
                              "roadtest's traffic is not driven by pedal controls; only the hero's control is known")
        return self._world_ref.last_control

    def apply_control(self, control) -> None:
        self._log("apply_control")
        if not self._is_hero:
            raise NotProvided(f"carla.Vehicle.apply_control of {self._rid}", "an agent drives the hero only")
        self._world_ref.applied = control

    def get_traffic_light(self):
        self._log("get_traffic_light")
        return self._world_ref.light_ahead(self._alive())

    def get_traffic_light_state(self):
        self._log("get_traffic_light_state")
        light = self._world_ref.light_ahead(self._alive())
        return light.state if light is not None else _carla().TrafficLightState.Unknown

    def is_at_traffic_light(self) -> bool:
        self._log("is_at_traffic_light")
        return self._world_ref.light_ahead(self._alive()) is not None


_STATES = {"red": "Red", "yellow": "Yellow", "amber": "Yellow", "green": "Green", "off": "Off"}


class TrafficLight(_Strict):
    """A light of the scene (meta.scene.lights), standing at its stop position on the first lane it governs;
    its trigger volume covers the lanes it governs there, its state is the tick's signal state."""

    _kind = "TrafficLight"

    def __init__(self, world: "BuiltinWorld", spec: dict, cid: int):
        self._world_ref, self._spec, self.id = world, spec, cid
        self.type_id = _LIGHT_TYPE_ID
        self.attributes = {"role_name": "", "roadtest_id": str(spec.get("id"))}
        self.parent = None
        net = world.network
        self._lanes = [int(x) for x in spec.get("lanes") or []] or [world.route_lane(str(spec.get("road")))]
        road, s = str(spec.get("road")), float(spec.get("s", 0.0))
        self._poses = [net.lane_to_world(road, ln, s) for ln in self._lanes]
        self._width = sum(net.lane_width(road, ln, s) for ln in self._lanes)

    def __repr__(self) -> str:
        return f"TrafficLight(id={self.id}, {self._spec.get('id')})"

    def __hash__(self) -> int:
        return hash(self.id)

    def __eq__(self, other) -> bool:
        return isinstance(other, TrafficLight) and other.id == self.id

    @property
    def is_alive(self) -> bool:
        return True

    @property
    def state(self):
        self._log("state")
        return self._state()

    def _state(self):
        state = self._world_ref.state
        sig = state.signals if state is not None else {}
        colour = str(sig.get(str(self._spec.get("signal_id")), sig.get(str(self._spec.get("id")), "unknown"))).lower()
        return getattr(_carla().TrafficLightState, _STATES.get(colour, "Unknown"))

    def get_state(self):
        self._log("get_state")
        return self._state()

    def get_transform(self):
        self._log("get_transform")
        p, c = self._poses[0], _carla()
        return c.Transform(c.Location(*location_to_carla(p.x, p.y, p.z)), c.Rotation(yaw=yaw_to_carla(p.h)))

    def get_location(self):
        self._log("get_location")
        p = self._poses[0]
        return _carla().Location(*location_to_carla(p.x, p.y, p.z))

    @property
    def trigger_volume(self):
        """Local to the light (x forward along the lane, y right): across the governed lanes, the 3 m before the
        stop position (as CARLA's towns put it on the incoming lanes, so a waypoint there is the approach's)."""
        self._log("trigger_volume")
        c = _carla()
        first = self._poses[0]
        mid_x = sum(p.x for p in self._poses) / len(self._poses) - first.x
        mid_y = sum(p.y for p in self._poses) / len(self._poses) - first.y
        ch, sh = math.cos(first.h), math.sin(first.h)
        fwd, left = ch * mid_x + sh * mid_y, -sh * mid_x + ch * mid_y
        return c.BoundingBox(c.Location(fwd - TRIGGER_DEPTH / 2, -left, 1.0),
                             c.Vector3D(TRIGGER_DEPTH / 2, self._width / 2.0, 1.0))

    def get_stop_waypoints(self) -> list:
        self._log("get_stop_waypoints")
        cmap = self._world_ref.carla_map()
        c = _carla()
        return [cmap.get_waypoint(c.Location(*location_to_carla(p.x, p.y, p.z))) for p in self._poses]

    def get_group_traffic_lights(self) -> list:
        self._log("get_group_traffic_lights")
        return [self]


class _Timestamp:
    def __init__(self, frame: int, elapsed: float, delta: float):
        self.frame, self.elapsed_seconds, self.delta_seconds, self.platform_timestamp = frame, elapsed, delta, elapsed


class _ActorSnapshot(_Strict):
    _kind = "ActorSnapshot"

    def __init__(self, actor: Actor):
        self._actor, self._world_ref, self.id = actor, actor._world_ref, actor.id

    def get_transform(self):
        return self._actor.get_transform()

    def get_velocity(self):
        return self._actor.get_velocity()

    def get_angular_velocity(self):
        return self._actor.get_angular_velocity()

    def get_acceleration(self):
        return self._actor.get_acceleration()


class WorldSnapshot(_Strict):
    _kind = "WorldSnapshot"

    def __init__(self, world: "BuiltinWorld"):
        self._world_ref = world
        self.frame = world.frame
        self.timestamp = _Timestamp(world.frame, world.elapsed, world.tick)
        self._actors = {a.id: a for a in world._movers()}

    def find(self, actor_id: int):
        self._log("find")
        a = self._actors.get(actor_id)
        return _ActorSnapshot(a) if a is not None else None

    def has_actor(self, actor_id: int) -> bool:
        self._log("has_actor")
        return actor_id in self._actors

    def __iter__(self):
        return iter([_ActorSnapshot(a) for a in self._actors.values()])

    def __len__(self) -> int:
        return len(self._actors)


class DebugHelper:
    """carla.DebugHelper: drawing does nothing here (there is no spectator to see it)."""

    def __getattr__(self, name: str):
        if name.startswith("draw_"):
            return lambda *args, **kwargs: None
        raise NotProvided(f"carla.DebugHelper.{name}")


class _Settings:
    def __init__(self, tick: float):
        self.synchronous_mode, self.fixed_delta_seconds, self.no_rendering_mode = True, tick, False
        self.substepping = False


def _logged_map(carla, name: str, xodr: str, world: "BuiltinWorld"):
    """A carla.Map (a subclass, so isinstance checks such as BasicAgent's pass) whose method calls are counted."""
    def counted(method: str):
        def call(self, *args, **kwargs):
            world.calls[f"Map.{method}"] += 1
            return getattr(carla.Map, method)(self, *args, **kwargs)

        call.__name__ = method
        return call

    methods = {n: counted(n) for n in dir(carla.Map)
               if not n.startswith("_") and callable(getattr(carla.Map, n, None))}
    return type("Map", (carla.Map,), methods)(name, xodr)


class BuiltinWorld(_Strict):
    """carla.World over one built-in Simulation; reads `sim.state` at every call, so it is always this tick's."""

    _kind = "World"

    def __init__(self, sim: Any, tick: float = 0.05):
        self._sim, self.tick, self.id = sim, float(tick), 1
        self._world_ref = self
        self.calls: Counter[str] = Counter()
        self.debug = DebugHelper()
        self._ids: dict[str, int] = {}
        self._actors: dict[str, Actor] = {}
        self._lights: list[TrafficLight] | None = None
        self._map = None
        self.applied = None  # a control the hero got by apply_control during this step
        self.last_control = _carla().VehicleControl()
        ego = self.state.ego if self.state is not None else None
        if ego is not None:
            self._actor_for(ego)  # the hero is the first actor, id 100

    # the run
    @property
    def state(self):
        return self._sim.state

    @property
    def network(self):
        return self._sim.network

    @property
    def frame(self) -> int:
        return int(self.state.frame) if self.state is not None else 0

    @property
    def elapsed(self) -> float:
        """The leaderboard's game time: one tick ahead of the state's time (the world ticked before the agent)."""
        return (float(self.state.time) if self.state is not None else 0.0) + self.tick

    def route_lane(self, road: str) -> int:
        for ln in (self._sim.meta.get("route") or {}).get("lanes") or []:
            if str(ln.get("road")) == road:
                return int(ln.get("lane"))
        raise NotProvided("carla.TrafficLight", f"the light on road {road} names no lanes and the route does not cross it")

    def _actor_for(self, a) -> Actor:
        actor = self._actors.get(a.id)
        if actor is None:
            cid = self._ids.setdefault(a.id, _FIRST_ID + len(self._ids))
            actor = self._actors[a.id] = Actor(self, a.id, cid, a.role, a.kind)
        return actor

    def _movers(self) -> list[Actor]:
        return [self._actor_for(a) for a in (self.state.actors if self.state is not None else ())
                if getattr(a, "visible", True)]

    def _traffic_lights(self) -> list[TrafficLight]:
        if self._lights is None:
            scene = self._sim.meta.get("scene") or {}
            start = _FIRST_ID + 1000
            self._lights = [TrafficLight(self, dict(lt), start + i) for i, lt in enumerate(scene.get("lights") or [])]
        return self._lights

    @property
    def hero(self) -> Actor | None:
        ego = self.state.ego if self.state is not None else None
        return self._actor_for(ego) if ego is not None else None

    # carla.World
    def get_map(self):
        self._log("get_map")
        return self.carla_map()

    def carla_map(self):
        if self._map is None:
            carla = _carla()
            from roadtest.agents.leaderboard_compat import is_compat

            bundle = getattr(self._sim, "bundle", None)
            xodr = getattr(bundle, "xodr", None) if bundle is not None else None
            if not xodr:
                raise NotProvided("carla.World.get_map", "the run has no OpenDRIVE map")
            name, text = Path(xodr).parent.name or Path(xodr).stem, Path(xodr).read_text()
            if is_compat(carla):  # no real client: the stand-in, over the run's own road network
                from roadtest.agents.leaderboard_compat.standin_map import StandInMap

                self._map = StandInMap(self.network, name, text, carla, self.calls)
            else:
                self._map = _logged_map(carla, name, text, self)
        return self._map

    def get_actors(self, actor_ids: Iterable[int] | None = None) -> ActorList:
        self._log("get_actors")
        actors = [*self._movers(), *self._traffic_lights()]
        if actor_ids is not None:
            wanted = set(actor_ids)
            actors = [a for a in actors if a.id in wanted]
        return ActorList(actors, self)

    def get_actor(self, actor_id: int):
        self._log("get_actor")
        return next((a for a in [*self._movers(), *self._traffic_lights()] if a.id == actor_id), None)

    def get_snapshot(self) -> WorldSnapshot:
        self._log("get_snapshot")
        return WorldSnapshot(self)

    def get_settings(self) -> _Settings:
        self._log("get_settings")
        return _Settings(self.tick)

    # what actors ask of the run
    def speed_limit(self, a, is_hero: bool) -> float | None:
        """m/s in force at actor `a`: the hero's from its objects view (signs and zones), others' from the lane."""
        if is_hero and self._sim.meta.get("scene") is not None:
            from roadtest.sim.embedded.sensors import SENSORS

            view = SENSORS["roadtest.objects"](self._sim, a, {})
            if view.get("speed_limit") is not None:
                return float(view["speed_limit"])
        match = self.network.locate(a.x, a.y, a.h)
        return None if match is None else self.network.speed_limit(match.road, match.lane, match.s)

    def light_ahead(self, a) -> TrafficLight | None:
        """The light whose stop position lies up to 40 m ahead of `a` on its lane (what CARLA's is_at_traffic_light
        reports once a vehicle is in a trigger volume, taken a little early as most agents poll it)."""
        match = self.network.locate(a.x, a.y, a.h)
        if match is None:
            return None
        for light in self._traffic_lights():
            if str(light._spec.get("road")) != str(match.road) or match.lane not in light._lanes:
                continue
            p = light._poses[light._lanes.index(match.lane)]
            dx, dy = p.x - a.x, p.y - a.y
            ahead = dx * math.cos(a.h) + dy * math.sin(a.h)
            if 0.0 <= ahead <= 40.0:
                return light
        return None


def _provider():
    """scenario_runner's CarlaDataProvider class: the real one where srunner is importable, else roadtest's stand-in."""
    from roadtest.agents.leaderboard_compat import install

    install()
    from srunner.scenariomanager.carla_data_provider import CarlaDataProvider

    return CarlaDataProvider


def install_data_provider(world: BuiltinWorld) -> Any:
    """Fill CarlaDataProvider with `world` (its world, map, actor pool and light map), as the leaderboard has it
    before the agent is built; the map is built on first use. Returns the CarlaDataProvider class."""
    cdp = _provider()
    from roadtest.agents.leaderboard_compat import is_compat
    import sys

    module = sys.modules[cdp.__module__]
    if is_compat(module):
        cdp._install(world)
        return cdp
    cdp._world, cdp._sync_flag, cdp._client = world, True, None
    try:
        cdp._map = world.carla_map()
    except NotProvided:
        cdp._map = None
    movers = world._movers()
    cdp._carla_actor_pool = {a.id: a for a in movers}
    cdp._actor_location_map = {a: None for a in movers}
    cdp._actor_transform_map = {a: None for a in movers}
    cdp._actor_velocity_map = {a: 0.0 for a in movers}
    cdp._traffic_light_map = {tl: tl.get_transform() for tl in world._traffic_lights()}
    cdp._all_actors = None
    _refresh_real(cdp, world)
    return cdp


def _refresh_real(cdp, world: BuiltinWorld) -> None:
    """The real CarlaDataProvider's per-tick caches (its on_carla_tick), from this tick's state."""
    for a in world._movers():
        cdp._carla_actor_pool.setdefault(a.id, a)
    for a in list(cdp._carla_actor_pool.values()):
        if a._state() is None:
            continue
        cdp._actor_location_map[a] = a.get_location()
        cdp._actor_transform_map[a] = a.get_transform()
        v = a.get_velocity()
        cdp._actor_velocity_map[a] = math.hypot(v.x, v.y)
    cdp._all_actors = None


def refresh_data_provider(world: BuiltinWorld) -> None:
    """Bring CarlaDataProvider's caches to this tick (the leaderboard refreshes them on every world tick)."""
    cdp = _provider()
    import sys

    from roadtest.agents.leaderboard_compat import is_compat

    if is_compat(sys.modules[cdp.__module__]):
        return  # the stand-in reads the world at every call
    if cdp._world is world:
        _refresh_real(cdp, world)


def clear_data_provider(world: BuiltinWorld) -> None:
    """Empty CarlaDataProvider at the end of the run, if it still holds `world`."""
    cdp = _provider()
    if getattr(cdp, "_world", None) is not world:
        return
    import sys

    from roadtest.agents.leaderboard_compat import is_compat

    if is_compat(sys.modules[cdp.__module__]):
        cdp._install(None)
        return
    cdp._world = cdp._map = None
    cdp._carla_actor_pool, cdp._traffic_light_map = {}, {}
    cdp._actor_location_map, cdp._actor_transform_map, cdp._actor_velocity_map = {}, {}, {}
    cdp._all_actors = None
