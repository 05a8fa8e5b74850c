"""A third-party .xosc without meta.json is scored on the route, limits and default rules derived from it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from roadtest.cli import main
from roadtest.runner.store import read_records

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sim" / "xosc"))
from xosc_docs import scenario, sim_time, straight_road, trigger  # noqa: E402

SPEED = 7.0  # m/s, the file's own ego: below the map's 30 km/h (8.33 m/s)
END = 20.0  # s, the storyboard's stop trigger


def third_party(folder: Path) -> Path:
    road = straight_road(500.0).replace('junction="-1"><link/>',
                                        'junction="-1"><link/><type s="0" type="town"><speed max="30" unit="km/h"/></type>')
    (folder / "road.xodr").write_text(road)
    init = f"""<Private entityRef="Ego">
      <PrivateAction><TeleportAction><Position><LanePosition roadId="1" laneId="-1" s="20" offset="0"/></Position></TeleportAction></PrivateAction>
      <PrivateAction><LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape="step" dynamicsDimension="time" value="0"/>
        <SpeedActionTarget><AbsoluteTargetSpeed value="{SPEED}"/></SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction></Private>"""
    text = scenario("", init=init, stop=trigger("StopTrigger", sim_time(END)))
    text = text.replace("<Maneuver name=\"M\"></Maneuver>", "").replace(
        '<ManeuverGroup name="G" maximumExecutionCount="1"><Actors selectTriggeringEntities="false"><EntityRef entityRef="Ego"/></Actors>\n        \n      </ManeuverGroup>', "")
    text = text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    p = folder / "regulation_test.xosc"
    p.write_text(text)
    return p


def verdicts(rec) -> dict[str, str]:
    return {r["id"]: r["verdict"] for r in rec["rules"]}


@pytest.mark.parametrize("agent, limit_verdict", [(None, "satisfied"), ("expert", "satisfied"), ("lane-follower", "violated")])
def test_an_agent_on_a_bare_xosc_is_scored_on_derived_route_and_rules(tmp_path, agent, limit_verdict):
    f = third_party(tmp_path)
    out = tmp_path / "out"
    args = ["run", str(f), "-o", str(out)] + (["-a", agent] if agent else [])
    assert main(args) in (0, 1)
    (rec,) = list(read_records(out))
    assert rec["status"] == "completed", rec.get("reason")
    d = rec["derived"]
    assert d["rules"] == ["no_collision_vehicle", "no_collision_vru", "speed_limit"]  # no lights or stop signs on this map
    assert "start lane followed" in d["route"]
    meta = __import__("json").loads((out / "runs" / rec["run_id"] / "meta.json").read_text())
    # the file's ego drives SPEED m/s until the stop trigger at END s: the route is that stretch of its lane
    assert meta["route"]["length"] == pytest.approx(SPEED * END, abs=SPEED * 0.1 + 2.0)
    assert meta["route"]["lanes"][0]["road"] == "1" and meta["route"]["lanes"][0]["lane"] == -1
    v = verdicts(rec)
    assert v["speed_limit"] == limit_verdict  # the lane follower's 12 m/s is above 30 km/h; the file's ego is not
    assert v["no_collision_vehicle"] != "violated" and v["no_collision_vru"] != "violated"
    if agent is None:
        assert rec["roadtest"]["route_completion"] > 90.0


def test_lights_stop_signs_and_limit_signs_of_the_map_bring_their_rules():
    from roadtest.runner.derived_meta import default_rules, map_scene
    from roadtest.sim.road.network import RoadNetwork

    signals = """<signals>
      <signal id="10" s="150" t="-4" dynamic="yes" orientation="+" country="DE" type="1000001" subtype="-1" name="light"/>
      <signal id="11" s="300" t="-4" dynamic="no" orientation="+" country="DE" type="206" subtype="-1" name="s"/>
      <signal id="12" s="400" t="-4" dynamic="no" orientation="+" country="DE" type="274" subtype="-1" value="50" unit="km/h" name="v"/>
    </signals><objects><object id="20" type="roadMark" name="stopLine" s="148" t="-1.75" zOffset="0" orientation="none" length="0.3" width="3.5" hdg="0"/></objects>"""
    xodr = straight_road(500.0).replace("</lanes></road>", "</lanes>" + signals + "</road>")
    net = RoadNetwork.from_bytes(xodr.encode())
    scene = map_scene(net, {"lanes": [{"road": "1", "lane": -1, "s_start": 0, "s_end": 500}]})
    assert [(lt["signal_id"], lt["s"]) for lt in scene["lights"]] == [("10", 150.0)]
    assert [(s["kind"], s["s"]) for s in scene["signs"]] == [("stop", 300.0), ("speed_limit", 400.0)]
    assert scene["stop_lines"] == [{"road": "1", "s": 148.0}]
    assert scene["signs"][1]["value"] == 50.0 and scene["zones"] == []  # no speed records on this road
    ids = [r["id"] for r in default_rules(scene, None)]
    assert ids == ["no_collision_vehicle", "no_collision_vru", "speed_limit", "red_light", "stop_sign"]
    bare = map_scene(RoadNetwork.from_bytes(straight_road(500.0).encode()), {})
    assert [r["id"] for r in default_rules(bare, None)] == ["no_collision_vehicle", "no_collision_vru"]


def waiting_ego(folder: Path, criteria: bool) -> Path:
    """A scenario_runner-style file: the ego stands (its driver is the agent) and the file asks it to drive 80 m,
    by a DrivenDistanceTest criterion or, without it, by a TraveledDistanceCondition on the ego ending the act."""
    (folder / "road.xodr").write_text(straight_road(500.0))
    init = """<Private entityRef="Ego"><PrivateAction><TeleportAction><Position><LanePosition roadId="1" laneId="-1"
      s="20" offset="0"/></Position></TeleportAction></PrivateAction></Private>"""
    crit = """<Condition name="criteria_DrivenDistanceTest" delay="0" conditionEdge="rising"><ByValueCondition>
      <ParameterCondition parameterRef="distance_success" value="80" rule="lessThan"/></ByValueCondition></Condition>"""
    travelled = """<Condition name="far" delay="0" conditionEdge="rising"><ByEntityCondition><TriggeringEntities
      triggeringEntitiesRule="any"><EntityRef entityRef="Ego"/></TriggeringEntities><EntityCondition>
      <TraveledDistanceCondition value="80"/></EntityCondition></ByEntityCondition></Condition>"""
    stop = trigger("StopTrigger", sim_time(END), crit) if criteria else trigger("StopTrigger", travelled)
    text = scenario("", init=init, stop=stop).replace(
        "<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    p = folder / "waiting.xosc"
    p.write_text(text)
    return p


@pytest.mark.parametrize("criteria", [True, False], ids=["driven-distance-criterion", "traveled-distance-condition"])
def test_an_ego_waiting_for_its_driver_gets_the_distance_the_file_asks(tmp_path, criteria):
    from roadtest.bundle import load_bundle
    from roadtest.runner.derived_meta import derive_meta

    meta = derive_meta(load_bundle(waiting_ego(tmp_path, criteria)))
    # lane -1 from where the ego stands, 80 m along +x: a straight 80 m route
    lanes = meta["route"]["lanes"]
    assert [(g["road"], g["lane"]) for g in lanes] == [("1", -1)]
    assert lanes[0]["s_end"] - lanes[0]["s_start"] == pytest.approx(80.0)
    assert meta["route"]["length"] == pytest.approx(80.0, abs=2.0)
    assert "waits for its driver" in meta["derived"]["route"]
