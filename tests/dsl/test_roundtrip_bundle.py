"""Bundles round-trip: the emitted .xosc/.xodr/meta.json parse back to the scenario they came from."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from lxml import etree

from roadtest.bundle import load_bundle
from roadtest.dsl import emit_xosc
from roadtest.dsl.bundle_writer import write_bundle
from roadtest.dsl.emit_xosc import light_phases
from roadtest.dsl.loader import Variant
from roadtest.dsl.model import Scenario
from roadtest.dsl.validate import check_file

SCENARIO = dict(
    name="roundtrip", country="CN", level="L2",
    environment={"weather": "rain_heavy", "time": "21:30"},
    road=dict(kind="straight", length=400, speed_limit=50, lanes={"forward": 2, "backward": 1},
              signs=[{"id": "speed_limit", "s": 30, "value": 50}],
              crosswalks=[{"s": 250}],
              traffic_lights=[{"id": "tl", "s": 300, "offset": 4,
                               "phases": [{"state": "green", "duration": 10}, {"state": "red", "duration": 6}]}]),
    ego={"lane": 1, "s": 15, "speed": 36, "route": {"distance": 200}},
    actors=[
        {"id": "lead", "kind": "vehicle", "place": {"ahead_of": "ego", "distance": 40}, "speed": 30,
         "behaviours": [{"action": "change_lane", "direction": "right", "trigger": {"time": 2}},
                        {"action": "stop", "trigger": {"ego_distance": 15}}]},
        {"id": "walker", "kind": "pedestrian", "place": {"side": "right", "s": 250},
         "behaviours": [{"action": "cross_road", "to": "left", "trigger": {"ttc": 4}}]},
        {"id": "cone", "kind": "cone", "place": {"lane": 2, "s": 150}},
        {"id": "amb", "kind": "emergency", "place": {"lane": -1, "s": 380}, "speed": 50},
    ],
    rules=["speed_limit", "red_light"],
    traffic={"density": 5, "pedestrians": 4, "crossing_share": 0.5},
    expect={"timeout": 75},
)


def variant(data: dict = SCENARIO, vid: str = "rt") -> Variant:
    return Variant(scenario=Scenario.model_validate(data), id=vid, seed=7, sweep={"ego.speed": 36},
                   source=Path("in-test.yaml"))


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return write_bundle(variant(), tmp_path_factory.mktemp("b"))


def test_bundle_files_and_loader(bundle):
    b = load_bundle(bundle)
    assert b.id == "rt" and b.xodr is not None
    assert b.meta["seed"] == 7 and b.meta["sweep"] == {"ego.speed": 36}


def test_xosc_header_entities_and_positions(bundle):
    root = etree.parse(str(bundle / "scenario.xosc")).getroot()
    hdr = root.find("FileHeader")
    assert (hdr.get("revMajor"), hdr.get("revMinor")) == ("1", "0")
    assert not hdr.get("description").startswith("CARLA:")
    assert root.find("RoadNetwork/LogicFile").get("filepath") == "road.xodr"
    names = [o.get("name") for o in root.findall("Entities/ScenarioObject")]
    assert names == ["hero", "lead", "walker", "cone", "amb"]
    prop = root.find("Entities/ScenarioObject[@name='hero']/Vehicle/Properties/Property")
    assert (prop.get("name"), prop.get("value")) == ("type", "ego_vehicle")
    assert root.find("Entities/ScenarioObject[@name='walker']/Pedestrian") is not None
    assert root.find("Entities/ScenarioObject[@name='cone']/MiscObject") is not None
    pos = {p.get("entityRef"): p.find("PrivateAction/TeleportAction/Position/*") for p in root.iter("Private")}
    hero = pos["hero"]
    assert (hero.tag, hero.get("roadId"), hero.get("laneId"), float(hero.get("s"))) == ("LanePosition", "1", "-1", 15.0)
    lead = pos["lead"]
    assert (lead.get("laneId"), float(lead.get("s"))) == ("-1", 55.0)  # 40 m ahead of the ego in its lane
    assert (pos["cone"].get("laneId"), pos["amb"].get("laneId")) == ("-2", "1")  # oncoming lane is +1 in RHT
    walker = pos["walker"]
    assert walker.tag == "WorldPosition" and float(walker.get("x")) == pytest.approx(250.0)
    assert float(walker.get("y")) < -7.0  # beyond the two right lanes, on the sidewalk
    assert float(walker.get("h")) == pytest.approx(math.pi / 2)  # faces across the road, to the left
    speed = root.find("Storyboard/Init/Actions/Private[@entityRef='hero']//AbsoluteTargetSpeed")
    assert float(speed.get("value")) == pytest.approx(10.0)
    assert all(float(p.get("offset")) == 0.0 for p in root.iter("LanePosition"))


def test_xosc_environment(bundle):
    root = etree.parse(str(bundle / "scenario.xosc")).getroot()
    env = root.find("Storyboard/Init/Actions/GlobalAction/EnvironmentAction/Environment")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT21:30:00", env.find("TimeOfDay").get("dateTime"))
    w = env.find("Weather")
    assert w.get("cloudState") == "rainy"
    assert int(w.find("Fog").get("visualRange")) == 1000
    prec = w.find("Precipitation")
    assert (prec.get("precipitationType"), float(prec.get("intensity"))) == ("rain", 0.9)
    assert float(w.find("Sun").get("elevation")) < 0  # 21:30 is after sunset
    assert float(env.find("RoadCondition").get("frictionScaleFactor")) == 0.6


def test_xosc_storyboard_follows_scenario_runner_subset(bundle):
    root = etree.parse(str(bundle / "scenario.xosc")).getroot()
    acts = root.findall("Storyboard/Story/Act")
    assert {a.get("name") for a in acts} == {"ego_default", "lead_act", "walker_act"}
    for act in acts:
        cond = act.find("StopTrigger/ConditionGroup/Condition/ByValueCondition/SimulationTimeCondition")
        assert float(cond.get("value")) == 75.0
    stop = root.find("Storyboard/StopTrigger//SimulationTimeCondition")
    assert float(stop.get("value")) == 75.0
    for bad in ("RoutePosition", "AcquirePositionAction", "AssignRouteAction", "AbsoluteTargetLane", "Clothoid"):
        assert root.find(f".//{bad}") is None, bad
    lc = root.find(".//LaneChangeAction")
    assert lc.find("LaneChangeActionDynamics").get("dynamicsDimension") == "distance"
    assert int(lc.find("LaneChangeTarget/RelativeTargetLane").get("value")) == -1  # right
    verts = root.findall(".//FollowTrajectoryAction//Polyline/Vertex")
    assert len(verts) == 2 and all(v.get("time") is not None for v in verts)
    assert root.find(".//TimeToCollisionCondition/TimeToCollisionConditionTarget/EntityRef").get("entityRef") == "walker"
    phases = root.findall("RoadNetwork/TrafficSignals/TrafficSignalController/Phase")
    assert [(p.find("TrafficSignalState").get("state"), float(p.get("duration"))) for p in phases] == \
        [("green", 6.0), ("red", 6.0), ("green", 4.0)]


def test_emitted_files_pass_xsd_and_asam_checker(bundle):
    assert check_file(bundle / "scenario.xosc", strict=True) == []
    assert check_file(bundle / "road.xodr") == []


def test_meta_matches_scenario_and_xodr(bundle):
    meta = json.loads((bundle / "meta.json").read_text())
    assert (meta["country"], meta["driving_side"], meta["level"]) == ("CN", "right", "L2")
    assert meta["environment"]["fog_visual_range"] == 1000.0 and meta["environment"]["time_of_day"] == "21:30"
    assert meta["ego"]["start"] == pytest.approx({"road": "1", "lane": -1, "s": 15.0, "x": 15.0, "y": -1.75, "h": 0.0,
                                                   "user_lane": 1})
    assert meta["expect"]["timeout"] == 75.0
    assert meta["traffic"] == {"density": 5.0, "pedestrians": 4, "crossing_share": 0.5, "seed": 0}
    assert [r["id"] for r in meta["rules"]] == ["speed_limit", "red_light"]
    assert all(isinstance(r["priority"], int) and r["priority_class"] for r in meta["rules"])
    route = meta["route"]
    pts = route["waypoints"]
    gaps = [math.dist(a, b) for a, b in zip(pts, pts[1:])]
    assert max(gaps) <= 2.0 + 1e-9 and route["length"] == pytest.approx(200.0, abs=0.01)
    assert pts[0] == pytest.approx([15.0, -1.75]) and route["goal"]["s"] == pytest.approx(215.0)
    scene = meta["scene"]
    assert scene["speed_limit"] == pytest.approx(50 / 3.6)
    xodr = etree.parse(str(bundle / "road.xodr")).getroot()
    sig_ids = {s.get("id") for s in xodr.iter("signal")}
    assert {s["signal_id"] for s in scene["signs"]} | {l["signal_id"] for l in scene["lights"]} <= sig_ids
    assert scene["signs"][0]["country_code"] == "CN:prohibition-speed_limit:-1"
    assert scene["lights"][0]["phases"] == [{"state": "green", "duration": 10.0}, {"state": "red", "duration": 6.0}]
    assert scene["stop_lines"] == [{"road": "1", "s": 300.0, "lanes": [-1, -2]}]
    assert scene["crosswalks"][0]["s_start"] == pytest.approx(248.0)
    assert {a["id"]: a["siren"] for a in scene["actors"]}["amb"] is True


def test_left_hand_route_and_lanes(tmp_path):
    data = dict(SCENARIO, country="JP", actors=[], rules=[],
                road=dict(kind="intersection", length=80, lanes={"forward": 1, "backward": 1}),
                ego={"lane": 1, "s": 10, "speed": 20, "route": {"exit": "right"}})
    out = write_bundle(variant(data, "lht"), tmp_path)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["driving_side"] == "left"
    lanes = meta["route"]["lanes"]
    assert [l["lane"] for l in lanes] == [1, 1, 1]  # forward lanes are +1 in left-hand traffic
    assert lanes[2]["road"] == "2"  # the right arm
    pts = meta["route"]["waypoints"]
    assert max(math.dist(a, b) for a, b in zip(pts, pts[1:])) <= 2.0 + 1e-9
    # the exit arm runs east (+x) from the junction: the route ends to the right of where it started
    assert pts[-1][0] > pts[0][0] + 10
    assert check_file(out / "scenario.xosc", strict=True) == [] and check_file(out / "road.xodr") == []


def test_write_is_atomic_and_replaces_only_on_success(tmp_path, monkeypatch):
    first = write_bundle(variant(), tmp_path)
    before = (first / "meta.json").read_text()

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(emit_xosc, "write_xosc", boom)  # write_bundle imports it when it writes
    changed = dict(SCENARIO, expect={"timeout": 30})
    with pytest.raises(RuntimeError):
        write_bundle(variant(changed), tmp_path)
    assert (first / "meta.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rt"]  # no temp folder left behind
    monkeypatch.undo()
    write_bundle(variant(changed), tmp_path)
    assert json.loads((first / "meta.json").read_text())["expect"]["timeout"] == 30.0


def test_light_phase_offset_rotation():
    light = Scenario.model_validate(SCENARIO).road.traffic_lights[0]
    phases = light_phases(light)
    assert sum(d for _, d in phases) == pytest.approx(16.0)
    assert phases[0] == ("green", 6.0)  # 4 s into a 10 s green


def _every_behaviour(kind: str, country: str) -> dict:
    """Every actor kind and behaviour on one road kind: the emitter's whole vocabulary at once."""
    road = dict(kind=kind, length=120 if kind in ("intersection", "t_junction", "roundabout") else 400,
                lanes={"forward": 2, "backward": 1}, speed_limit=60,
                signs=[{"id": "speed_limit", "s": 10, "value": 60, "side": "both"}, {"id": "stop", "s": 100, "side": "overhead"}],
                crosswalks=[{"s": 90}], stop_lines=[{"s": 88, "lanes": [1]}],
                traffic_lights=[{"id": "tl1", "s": 95, "offset": 3, "phases": [{"state": "red", "duration": 5},
                                                                               {"state": "green", "duration": 9}]}],
                sections=[{"kind": "school_zone", "s_start": 20, "s_end": 60, "speed_limit": 30}])
    if kind == "highway_merge":
        road["ramp"] = {"merge_s": 150, "length": 100}
    if kind == "curve":
        road.update(radius=150, angle=60)
    route = {"exit": "left"} if kind in ("intersection", "roundabout") else \
        {"exit": "right"} if kind == "t_junction" else {"distance": 150}
    kerb = "left" if country == "JP" else "right"
    return dict(name=f"all-{kind}", country=country, road=road, ego={"lane": 1, "s": 12, "speed": 30, "route": route},
                expect={"timeout": 40}, actors=[
                    {"id": "a1", "kind": "vehicle", "place": {"ahead_of": "ego", "distance": 20}, "speed": 30,
                     "behaviours": [{"action": "change_lane", "direction": "right"},
                                    {"action": "follow_lane", "speed": 20, "trigger": {"time": 4}}]},
                    {"id": "a2", "kind": "truck", "place": {f"{kerb}_of": "ego", "distance": 5}, "speed": 35,
                     "behaviours": [{"action": "cut_in", "trigger": {"ego_distance": 8}}]},
                    {"id": "a3", "kind": "bus", "place": {"lane": 2, "s": 70}, "speed": 20,
                     "behaviours": [{"action": "pull_over", "side": kerb, "trigger": {"distance_to_position": {"s": 50}}}]},
                    {"id": "a4", "kind": "emergency", "place": {"lane": 1, "s": 120}, "speed": 40, "siren": True,
                     "behaviours": [{"action": "keep_speed", "trigger": {"ttc": 3}}]},
                    {"id": "a5", "kind": "motorcycle", "place": {"lane": -1, "s": 110}, "speed": 30},
                    {"id": "a6", "kind": "bicycle", "place": {"lane": 2, "s": 30}, "speed": 15,
                     "behaviours": [{"action": "stop", "trigger": {"time": 5}}]},
                    {"id": "a7", "kind": "pedestrian", "place": {"side": "right", "s": 90},
                     "behaviours": [{"action": "cross_road", "speed": 5, "to": "left"}]},
                    {"id": "a8", "kind": "police_officer", "place": {"side": "left", "s": 80}},
                    {"id": "a9", "kind": "cone", "place": {"lane": 2, "s": 50}},
                    {"id": "a10", "kind": "barrier", "place": {"lane": 2, "s": 55}},
                    {"id": "a11", "kind": "broken_down_vehicle", "place": {"lane": 2, "s": 60}},
                    {"id": "a12", "kind": "vehicle", "place": {"lane": 1, "s": 40}, "speed": 20,
                     "behaviours": [{"action": "change_speed", "to": 40, "rate": 3}]}])


@pytest.mark.parametrize("country", ["CN", "JP"])
@pytest.mark.parametrize("kind", ["straight", "curve", "intersection", "t_junction", "roundabout", "highway_merge"])
def test_every_actor_and_behaviour_validates(kind, country, tmp_path):
    out = write_bundle(variant(_every_behaviour(kind, country), "all"), tmp_path)
    assert [str(p) for p in check_file(out / "scenario.xosc", strict=True)] == []
    assert [str(p) for p in check_file(out / "road.xodr")] == []
    root = etree.parse(str(out / "scenario.xosc")).getroot()
    assert len(root.findall("Entities/ScenarioObject")) == 13
    lanes = {a.get("name"): int(a.find(".//RelativeTargetLane").get("value"))
             for a in root.iter("Action") if a.find(".//RelativeTargetLane") is not None}
    assert lanes["a1_0_change_lane_lane"] == -1  # right
    # from the kerb-side lane into the ego's: one lane left in right-hand traffic, one right in left-hand
    assert lanes["a2_0_cut_in_lane"] == (-1 if country == "JP" else 1)
    assert "a3_0_pull_over_lane" not in lanes  # already in the kerb lane: it only stops
    # a second write of the same variant is byte-identical
    first = {n: (out / n).read_bytes() for n in ("scenario.xosc", "road.xodr", "meta.json")}
    again = write_bundle(variant(_every_behaviour(kind, country), "all"), tmp_path)
    assert {n: (again / n).read_bytes() for n in first} == first


@pytest.mark.parametrize("time, azimuth", [("06:00", math.pi / 2), ("12:00", math.pi), ("18:00", 1.5 * math.pi),
                                           ("21:30", 21.5 / 12 * math.pi)])
def test_sun_azimuth_is_the_standards_north_clockwise(time, azimuth):
    # OpenSCENARIO 1.0 Sun.azimuth: 0 = north, pi/2 = east, pi = south, 3/2 pi = west (northern sun path)
    from roadtest.dsl.emit_xosc import environment
    from roadtest.dsl.model import Environment

    env = environment(Environment(time=time))
    assert env.weather.sun.azimuth == pytest.approx(azimuth, abs=1e-6)
