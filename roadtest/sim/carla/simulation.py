"""One run on a CARLA server: the bundle's map and weather, scenario_runner's storyboard, roadtest's agent on the
ego, sign props, Traffic Manager traffic and walkers, sensors; each step one synchronous tick and one WorldState.

Events are judged as the built-in simulator judges them (roadtest.sim.events on the actors' boxes and
the same .xodr), plus CARLA's collision sensor for contacts with what is not an actor (walls, props), so a rule
monitor reads the same event kinds from both backends. Everything the run spawned is destroyed and the world's
settings are restored on close().
"""

from __future__ import annotations

import math
import queue
from pathlib import Path
from typing import Any, Mapping

from roadtest.errors import BackendError, UserError
from roadtest.sim.api import Control, Event, LanePos, SimSettings, Simulation, Termination, WorldState
from roadtest.sim.carla import roadtest_ego_control as ego_control
from roadtest.sim.carla.sensors import SPAWNED, SensorRig, forward_speed
from roadtest.sim.carla.state import actor_kind, actor_state, box_centre, light_state
from roadtest.sim.carla.traffic import LIMIT_PERIOD, apply_desired_speeds, traffic_desired_speeds

__all__ = ["CarlaSimulation", "OPENDRIVE_PARAMS", "load_opendrive", "sync_settings"]

# generate_opendrive_world: scenario_runner's own values, plus the navmesh for walkers
OPENDRIVE_PARAMS = {"vertex_distance": 2.0, "max_road_length": 50.0, "wall_height": 1.0, "additional_width": 0.6,
                    "smooth_junctions": True, "enable_mesh_visibility": True, "enable_pedestrian_navigation": True}
GOAL_RADIUS = 2.0  # m, as the built-in simulator


def load_opendrive(carla: Any, client: Any, xodr: Path) -> Any:
    """The world holding the bundle's road: generated from the .xodr unless the loaded map is that text already
    (scenario_runner's own test, so its configuration then leaves the world alone)."""
    text = xodr.read_text()
    text = text[text.find("<OpenDRIVE"):]
    world = client.get_world()
    current = world.get_map().to_opendrive()
    if current[current.find("<OpenDRIVE"):] != text:
        world = client.generate_opendrive_world(text, carla.OpendriveGenerationParameters(**OPENDRIVE_PARAMS),
                                                reset_settings=False)
    return world


def sync_settings(ws: Any, tick: float) -> Any:
    """World settings for a run: synchronous at the bundle's tick (CARLA substeps 0.01 s x 10 cover up to 0.1 s),
    deterministic ragdolls, rendering on (the cameras need it)."""
    if not 0.0 < tick <= 0.1:
        raise UserError(f"--tick {tick}: CARLA's physics substepping covers ticks up to 0.1 s")
    ws.synchronous_mode, ws.fixed_delta_seconds, ws.deterministic_ragdolls = True, float(tick), True
    ws.no_rendering_mode = False
    return ws


class CarlaSimulation(Simulation):
    """A run; built by CarlaSimulator.load. Attributes `network` (roadtest's map of the .xodr) and `meta`."""

    def __init__(self, simulator: Any, carla: Any, sr: Any, client: Any, bundle: Any, seed: int,
                 settings: SimSettings):
        super().__init__(settings)
        from roadtest.sim.carla.weather import weather_parameters
        from roadtest.sim.environment import environment_of
        from roadtest.sim.road import load_map

        self.bundle, self.meta, self.seed = bundle, dict(bundle.meta), seed
        self._carla, self._client, self._sr = carla, client, sr
        self.network = load_map(bundle.xodr) if bundle.xodr else None
        self._spawned: list[Any] = []
        self._rig: SensorRig | None = None
        self.story = None
        self._events: queue.Queue = queue.Queue()
        self.mailbox = f"{bundle.id}:{seed}:{id(self)}"
        ep = simulator.endpoint
        self.trace.info.update(backend="carla", seed=seed, bundle=bundle.id, server=simulator.server_version,
                               weather_mapping=simulator.weather)
        self.world = client.get_world()
        self._original = self.world.get_settings()
        try:
            if bundle.xodr:
                self.world = load_opendrive(carla, client, Path(bundle.xodr))
            self.world.apply_settings(sync_settings(self.world.get_settings(), settings.tick))
            self.tm = client.get_trafficmanager(ep.tm_port)
            self.tm.set_synchronous_mode(True)
            self.tm.set_random_device_seed(seed)
            self.tm.set_hybrid_physics_mode(False)
            self.world.set_pedestrians_seed(seed)
            if simulator.record_dir:
                log = Path(simulator.record_dir).resolve() / "carla_recorder.log"
                client.start_recorder(str(log), True)  # written by the server: the folder must be shared with it
                self.trace.info["carla_recorder"] = str(log)
            from roadtest.sim.carla.storyboard import Storyboard, with_ego_controller

            xosc, self.ego_name = with_ego_controller(Path(bundle.xosc), self.mailbox)
            self.story = Storyboard.build(sr, client, self.world, xosc, ep.tm_port, seed)
            self.ego = self.story.egos[0]
            self.environment = environment_of(bundle.xosc, self.meta)
            self._weather = (weather_parameters(carla, self.environment, "roadtest")
                             if simulator.weather == "roadtest" else None)
            self._roles = {v.rolename: "scenario" for v in self.story.config.other_actors}
            self._roles.update({v.rolename: "ego" for v in self.story.config.ego_vehicles})
            self._spawn_extras()
            from roadtest.sim.events import EventDetector

            self.detector = EventDetector(self.network, watch=[self.ego_name])
            self._goal = self._route_goal()
            self.frame0 = self.world.tick()
            self.time = 0.0
            self.frame = 0
            self.state = self._world_state([])
        except BaseException:
            self._close()
            raise

    # -- set-up ------------------------------------------------------------------------------------------------
    @property
    def _sensors(self) -> dict[str, Any]:
        """The sensor types read from the run: the shared pseudo-sensors CARLA offers, the speedometer and the
        map text from the server's own actor and world (the spawned ones are read by the SensorRig)."""
        from roadtest.sim.carla.sensors import PSEUDO
        from roadtest.sim.sensors import PSEUDO as SHARED

        return {**{kind: SHARED[kind] for kind in PSEUDO if kind in SHARED},
                "sensor.speedometer": lambda sim, ego, spec: {"speed": forward_speed(self.ego.get_transform(),
                                                                                     self.ego.get_velocity())},
                "sensor.opendrive_map": lambda sim, ego, spec: {"opendrive": self.world.get_map().to_opendrive()}}

    def _spawn_extras(self) -> None:
        from roadtest.sim.carla.signs import sign_props, spawn_sign_props
        from roadtest.sim.carla.traffic import spawn_traffic

        carla, world = self._carla, self.world
        if self.network is not None:
            self._spawned += spawn_sign_props(carla, world, sign_props(self.network))
        if self.settings.traffic and self.network is not None:
            self._background = spawn_traffic(carla, self._client, world, self.tm, self.network,
                                             self.meta.get("traffic") or {}, self.seed,
                                             avoid=self._scenario_poses())
        else:
            self._background = None
        bp = world.get_blueprint_library().find("sensor.other.collision")
        sensor = world.spawn_actor(bp, carla.Transform(), attach_to=self.ego)
        sensor.listen(self._events.put)
        self._spawned.append(sensor)

    def _scenario_poses(self) -> list[tuple[float, float]]:
        """(x, y) in roadtest's frame of the ego and every scenario actor, for traffic to keep clear of."""
        from roadtest.sim.frames import location_from_carla

        out = []
        for actor in [*self.story.egos, *self.story.scenario.other_actors]:
            loc = actor.get_location()
            out.append(location_from_carla(loc.x, loc.y, loc.z)[:2])
        return out

    def _route_goal(self) -> tuple[float, float] | None:
        goal = (self.meta.get("route") or {}).get("goal") or {}
        return (float(goal["x"]), float(goal["y"])) if "x" in goal and "y" in goal else None

    # -- the tick ----------------------------------------------------------------------------------------------
    def _advance(self, control: Control | None) -> tuple[WorldState, Termination | None, str]:
        carla = self._carla
        vc = None if control is None else carla.VehicleControl(
            throttle=float(control.throttle), steer=float(control.steer), brake=float(control.brake),
            hand_brake=bool(control.hand_brake), reverse=bool(control.reverse))
        ego_control.post(self.mailbox, vc)
        try:
            running = self.story.tick(self.world.get_snapshot())
            if self._weather is not None and self.frame == 0:
                self.world.set_weather(self._weather)  # after the tree's own Init weather, which it applies first
            self.world.tick()
        except RuntimeError as e:  # LibCarla: RPC timeout or a lost connection
            raise BackendError(f"CARLA server failed during the tick: {e}") from e
        self.frame += 1
        self.time = round(self.frame * self.tick, 9)
        contacts = []
        while not self._events.empty():
            contacts.append(self._events.get_nowait())
        state = self._world_state(contacts)
        if self._background is not None and self._background.vehicles and self.frame % LIMIT_PERIOD == 1:
            from roadtest.limits import scene_limits

            speeds = traffic_desired_speeds(self._background, state.actors, self.network, scene_limits(self.meta),
                                            self.environment)
            apply_desired_speeds(self.tm, self._background, speeds)
        termination, reason = None, ""
        if not running:
            termination = Termination.COMPLETED
            reason = f"storyboard ended (scenario_runner {self.story.scenario.scenario_tree.status.name})"
        elif self.settings.stop_on_collision and any(e.kind == "collision" for e in state.events):
            termination, reason = Termination.COLLISION, "collision"
        return state, termination, reason

    def _world_state(self, contacts: list[Any]) -> WorldState:
        snap = self.world.get_snapshot()
        actors, ids = [], {}
        bg = {a.id: name for name, a in (self._background.named() if self._background else [])}
        for actor in self.world.get_actors():
            tid = actor.type_id
            role_name = actor.attributes.get("role_name", "")
            if not (tid.startswith("vehicle.") or tid.startswith("walker.")
                    or (tid.startswith("static.") and role_name in self._roles)):  # a scenario's MiscObject
                continue
            role = self._roles.get(role_name, "background")
            aid = role_name if role != "background" else bg.get(actor.id, f"carla_{actor.id}")
            ids[actor.id] = aid
            s = snap.find(actor.id)
            if s is None:
                continue
            tf = s.get_transform()
            centre = box_centre(self._carla, tf, actor.bounding_box.location)
            actors.append(actor_state(aid, role, actor_kind(tid, actor.attributes), tf, s.get_velocity(),
                                      s.get_acceleration(), s.get_angular_velocity(), actor.bounding_box.extent,
                                      self._locate, centre=centre))
        actors.sort(key=lambda a: (a.role != "ego", a.role != "scenario", a.id))
        events: list[Event] = []
        if self.frame > 0:
            new, _ = self.detector.collisions([a for a in actors if a.visible], first=self.ego_name)
            events += new
            ego = next((a for a in actors if a.role == "ego"), None)
            if ego is not None and self.network is not None:
                m = self.network.locate(ego.x, ego.y, ego.h)
                events += self.detector.road_events(ego.id, m, ego.length, ego.width)
            for c in contacts:  # CARLA's sensor: contacts with what is not an actor (walls, props)
                if c.other_actor is None or c.other_actor.id not in ids:
                    other = getattr(c.other_actor, "type_id", "static")
                    events.append(Event("collision", self.ego_name, f"static:{other}",
                                        {"relative_speed": 0.0, "other_kind": "static", "actor_kind": "car",
                                         "impulse": math.hypot(c.normal_impulse.x, c.normal_impulse.y)}))
            if ego is not None and self._goal is not None and math.hypot(ego.x - self._goal[0],
                                                                         ego.y - self._goal[1]) <= GOAL_RADIUS:
                events.append(Event("goal_reached", ego.id, data={"x": self._goal[0], "y": self._goal[1]}))
        signals = {}
        for tl in self.world.get_actors().filter("traffic.traffic_light"):
            sid = tl.get_opendrive_id() if hasattr(tl, "get_opendrive_id") else str(tl.id)
            signals[str(sid)] = light_state(tl.state)
        return WorldState(time=self.time, frame=self.frame, actors=tuple(actors), signals=signals,
                          environment=self.environment, events=tuple(events))

    def _locate(self, x: float, y: float, h: float) -> LanePos | None:
        if self.network is None:
            return None
        m = self.network.locate(x, y, h)
        return LanePos(m.road, m.lane, m.s, m.t) if m is not None else None

    # -- sensors -----------------------------------------------------------------------------------------------
    def _observe(self, sensor_specs: list[Mapping[str, Any]]) -> dict[str, Any]:
        from roadtest.sim.sensors import observe

        if self._rig is None:
            self._rig = SensorRig(self._carla, self.world, self.ego, sensor_specs)
            self.world.tick()  # the sensors' first readings
        frame = self.world.get_snapshot().frame
        tick = self.state.frame if self.state is not None else 0

        def spawned(specs: list[Mapping[str, Any]]) -> dict[str, Any]:
            ids = (str(s.get("id", s["type"])) for s in specs)
            return {sid: (tick, self._rig.read(sid, frame)) for sid in ids if sid in self._rig.actors}

        return observe(self, sensor_specs, self._sensors, SPAWNED, spawned)

    # -- clean-up ----------------------------------------------------------------------------------------------
    def _close(self) -> None:
        errors = []
        steps = [lambda: self._rig.destroy() if self._rig else None,
                 lambda: self._background.destroy(self._client) if getattr(self, "_background", None) else None,
                 lambda: [a.destroy() for a in self._spawned],
                 lambda: self.story.close() if self.story is not None else None,
                 lambda: self._client.stop_recorder() if "carla_recorder" in self.trace.info else None,
                 lambda: self.tm.set_synchronous_mode(False) if hasattr(self, "tm") else None,
                 lambda: self.world.apply_settings(self._original)]
        for step in steps:
            try:
                step()
            except Exception as e:  # noqa: BLE001 - clean up as much as possible, then report
                errors.append(str(e))
        ego_control.MAILBOXES.pop(self.mailbox, None)
        if errors:
            self.trace.info["cleanup_errors"] = errors
