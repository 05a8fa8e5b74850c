"""CarlaSimulation's own wiring against a recording stand-in server (FakeServer below: real carla value types,
plain-Python client, world and actors; scenario_runner replaced by a stand-in storyboard). It checks what
roadtest does with a server, not what CARLA or scenario_runner do: sync settings applied and restored, the
recorder file named in the run folder, sign props re-textured, traffic spawned as planned, the agent's control
reaching the ego through the controller's mailbox, WorldStates in roadtest's frame, everything destroyed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from roadtest.bundle import load_bundle
from roadtest.sim.api import Control, SimSettings, Termination
from roadtest.sim.carla import roadtest_ego_control as ego_control
from roadtest.sim.carla import simulation as simulation_module
from roadtest.sim.carla import storyboard as storyboard_module
from roadtest.sim.carla.traffic import plan_traffic
from roadtest.sim.road import load_map


class _Attr:
    def __init__(self, v):
        self.v = v

    def as_int(self):
        return int(self.v)


class _Blueprint:
    def __init__(self, bp_id):
        self.id, self.attrs = bp_id, {"number_of_wheels": "4", "role_name": ""}

    def has_attribute(self, k):
        return True

    def set_attribute(self, k, v):
        self.attrs[k] = v

    def get_attribute(self, k):
        return _Attr(self.attrs.get(k, "0"))


class _Actor:
    def __init__(self, server, bp, tf):
        self.server, self.id, self.type_id = server, next(server.ids), bp.id
        self.attributes = dict(bp.attrs)
        self.tf, self.alive = tf, True
        c = server.carla
        self.bounding_box = c.BoundingBox(c.Location(0.0, 0.0, 0.7), c.Vector3D(2.3, 0.95, 0.75))
        self.velocity, self.controls = c.Vector3D(), []

    def get_location(self):
        return self.tf.location

    def get_transform(self):
        return self.tf

    def get_velocity(self):
        return self.velocity

    def apply_control(self, control):
        self.controls.append(control)

    def set_autopilot(self, on, port):
        self.autopilot = (on, port)

    def listen(self, cb):
        self.listening = cb

    def stop(self):
        pass

    def start(self):
        pass

    def go_to_location(self, loc):
        pass

    def set_max_speed(self, v):
        pass

    def destroy(self):
        self.alive = False
        self.server.actors.pop(self.id, None)


class _Snap:
    def __init__(self, server):
        self.server, self.frame = server, server.frame
        self.timestamp = SimpleNamespace(elapsed_seconds=server.frame * server.settings.fixed_delta_seconds,
                                         frame=server.frame)

    def find(self, actor_id):
        a = self.server.actors.get(actor_id)
        c = self.server.carla
        return None if a is None else SimpleNamespace(get_transform=lambda: a.tf, get_velocity=lambda: a.velocity,
                                                      get_acceleration=lambda: c.Vector3D(),
                                                      get_angular_velocity=lambda: c.Vector3D())


class _ActorList(list):
    def filter(self, pattern):
        return _ActorList(a for a in self if a.type_id.startswith(pattern.rstrip("*")))


class FakeServer:
    """Client, world and Traffic Manager in one recording object."""

    def __init__(self, carla):
        import itertools

        self.carla, self.ids, self.actors, self.frame = carla, itertools.count(100), {}, 0
        self.settings = carla.WorldSettings()
        self.applied, self.recorder, self.textured, self.weather, self.tm_calls = [], [], [], None, {}

    # client
    def get_world(self):
        return self

    def get_trafficmanager(self, port):
        self.tm_port = port
        return self

    def generate_opendrive_world(self, text, params, reset_settings=True):
        self.generated = (text, params, reset_settings)
        return self

    def start_recorder(self, name, additional):
        self.recorder.append(("start", name))

    def stop_recorder(self):
        self.recorder.append(("stop",))

    def apply_batch_sync(self, commands, tick):
        self.destroyed = list(commands)
        return []

    # traffic manager
    def __getattr__(self, name):
        if name.startswith("set_"):
            return lambda *a: self.tm_calls.__setitem__(name, a)
        raise AttributeError(name)

    def get_port(self):
        return self.tm_port

    # world
    def get_settings(self):
        s = self.carla.WorldSettings()
        s.synchronous_mode, s.fixed_delta_seconds = self.settings.synchronous_mode, self.settings.fixed_delta_seconds
        return s

    def apply_settings(self, s):
        self.settings = s
        self.applied.append((s.synchronous_mode, s.fixed_delta_seconds))

    def get_map(self):
        return SimpleNamespace(to_opendrive=lambda: "<OpenDRIVE/>")

    def get_blueprint_library(self):
        lib = SimpleNamespace(find=_Blueprint)
        lib.filter = lambda pattern: [_Blueprint("vehicle.tesla.model3"), _Blueprint("walker.pedestrian.0001")] \
            if pattern.startswith("vehicle") else [_Blueprint("walker.pedestrian.0001")]
        return lib

    def try_spawn_actor(self, bp, tf, attach_to=None):
        a = _Actor(self, bp, tf)
        self.actors[a.id] = a
        return a

    spawn_actor = try_spawn_actor

    def get_names_of_all_objects(self):
        return [f"BP_obj_{i}" for i in self.actors]

    def apply_color_texture_to_object(self, name, param, tex):
        self.textured.append((name, tex.width, tex.height))

    def tick(self):
        self.frame += 1
        return self.frame

    def get_snapshot(self):
        return _Snap(self)

    def get_actors(self):
        return _ActorList(self.actors.values())

    def set_weather(self, w):
        self.weather = w

    def get_random_location_from_navigation(self):
        return self.carla.Location()


class _StandInStoryboard:
    """scenario_runner's place: spawns the ego and the scenario actors, runs the controller's mailbox each tick."""

    def __init__(self, server, xosc, ticks):
        c = server.carla
        self.ego = server.try_spawn_actor(_Blueprint("vehicle.tesla.model3"),
                                          c.Transform(c.Location(x=20.0, y=1.75, z=0.0), c.Rotation(yaw=0.0)))
        self.ego.attributes["role_name"] = "hero"
        self.ego.velocity = c.Vector3D(10.0, 0.0, 0.0)
        self.egos = [self.ego]
        self.config = SimpleNamespace(ego_vehicles=[SimpleNamespace(rolename="hero")], other_actors=[])
        self.scenario = SimpleNamespace(other_actors=[], scenario_tree=SimpleNamespace(status=SimpleNamespace(name="SUCCESS")))
        self.mailbox = [p.get("value") for p in __import__("lxml.etree").etree.parse(str(xosc)).iter("Property")
                        if p.get("name") == "mailbox"][0]
        self.left, self.closed = ticks, False

    def tick(self, snapshot):
        control = ego_control.MAILBOXES.get(self.mailbox, [None])[0]
        if control is not None:
            self.ego.apply_control(control)
        self.left -= 1
        return self.left > 0

    def close(self):
        self.closed = True


def test_a_run_on_the_stand_in_server(real_carla, smoke_bundles, tmp_path, monkeypatch):
    server = FakeServer(real_carla)
    bundle = load_bundle(smoke_bundles["fog-truck-solid-line"])
    built = {}

    def build(sr, client, world, xosc, tm_port, seed):
        built["sb"] = _StandInStoryboard(server, xosc, ticks=3)
        return built["sb"]

    monkeypatch.setattr(storyboard_module.Storyboard, "build", staticmethod(build))
    simulator = SimpleNamespace(endpoint=SimpleNamespace(tm_port=8123), server_version="0.9.16", weather="roadtest",
                                record_dir=str(tmp_path))
    sim = simulation_module.CarlaSimulation(simulator, real_carla, None, server, bundle, 7, SimSettings(tick=0.05))
    # synchronous at the bundle's tick, the map generated from the .xodr with the stated parameters
    assert server.applied[-1] == (True, pytest.approx(0.05))
    text, params, reset = server.generated
    assert text.startswith("<OpenDRIVE") and params.enable_pedestrian_navigation and reset is False
    assert server.tm_calls["set_synchronous_mode"] == (True,) and server.tm_calls["set_random_device_seed"] == (7,)
    assert server.tm_calls["set_hybrid_physics_mode"] == (False,)
    assert sim.trace.info["carla_recorder"] == str(tmp_path.resolve() / "carla_recorder.log")
    assert server.recorder[0] == ("start", sim.trace.info["carla_recorder"])
    assert len(server.textured) >= 2 and all(w == h == 256 for _, w, h in server.textured)  # two signs CARLA lacks
    planned, _ = plan_traffic(load_map(bundle.xodr), bundle.meta["traffic"], bundle.meta["traffic"]["seed"],
                              sim._scenario_poses())
    traffic = [a for a in server.actors.values() if a.attributes.get("role_name", "").startswith("traffic_")]
    assert len(traffic) == len(planned) and all(a.autopilot == (True, 8123) for a in traffic)
    first = sim.state
    assert first.time == 0.0 and first.ego.id == "hero" and first.ego.role == "ego"
    assert (first.ego.x, first.ego.y) == pytest.approx((20.0, -1.75))  # CARLA y=+1.75 is south of the centre line
    assert first.ego.lane is not None and first.ego.lane.lane == -1  # right-hand lane, as the scenario places it
    assert first.ego.speed == pytest.approx(10.0) and first.ego.length == pytest.approx(4.6)
    assert {a.id for a in first.actors if a.role == "background"} == {f"traffic_{i}" for i in range(len(planned))}
    # the agent's control reaches the ego through the mailbox; the storyboard's end is the run's end
    s1 = sim.step(Control(throttle=0.6, steer=0.1))
    assert s1.time == pytest.approx(0.05) and s1.frame == 1
    assert built["sb"].ego.controls[-1].throttle == pytest.approx(0.6)
    assert built["sb"].ego.controls[-1].steer == pytest.approx(0.1)
    assert server.weather is not None and server.weather.fog_density > 50  # fog_dense: visual range 50 m
    sim.step(None)
    assert len(built["sb"].ego.controls) == 1  # no control posted: the ego is left to its scenario controller
    sim.step(Control(brake=1.0))
    assert sim.done and sim.trace.termination == Termination.COMPLETED
    assert "scenario_runner SUCCESS" in sim.trace.reason
    sim.close()
    assert server.applied[-1] == (False, None)  # the world's settings as they were before the run
    assert server.recorder[-1] == ("stop",) and built["sb"].closed
    assert sim.mailbox not in ego_control.MAILBOXES
    assert "cleanup_errors" not in sim.trace.info, sim.trace.info.get("cleanup_errors")
    assert len(server.destroyed) == len(planned)  # the traffic, in one batch
