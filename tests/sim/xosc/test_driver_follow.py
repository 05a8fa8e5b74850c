"""esmini's FollowReferenceController and OffroadFollower as roadtest driver models."""

from __future__ import annotations

import math

import pytest

from roadtest.errors import ScenarioError
from roadtest.sim.xosc.drivers.follow_reference import FollowReference
from roadtest.sim.xosc.drivers.offroad_follower import OffroadFollower, speed_limit_at
from roadtest.sim.xosc.engine import ScenarioEngine
from xosc_docs import VEHICLE, event, lane_teleport, scenario, sim_time, speed_action, straight_road, trigger

TICK = 0.05
ACTIVATE = '<PrivateAction><ActivateControllerAction longitudinal="true" lateral="true"/></PrivateAction>'


def _with_controller(text: str, entity: str, props: dict[str, str]) -> str:
    ps = "".join(f'<Property name="{k}" value="{v}"/>' for k, v in props.items())
    ctrl = f'<ObjectController><Controller name="c_{entity}"><Properties>{ps}</Properties></Controller></ObjectController>'
    plain = f'<ScenarioObject name="{entity}">{VEHICLE}</ScenarioObject>'
    assert plain in text
    return text.replace(plain, f'<ScenarioObject name="{entity}">{VEHICLE}{ctrl}</ScenarioObject>')


def _engine(tmp_path, text: str) -> ScenarioEngine:
    (tmp_path / "road.xodr").write_text(straight_road(length=1000.0))
    p = tmp_path / "s.xosc"
    p.write_text(text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>'))
    eng = ScenarioEngine(p, seed=0, tick=TICK)
    eng.init()
    return eng


def _run(eng: ScenarioEngine, seconds: float, start: int = 0, each=None) -> int:
    k = start
    for _ in range(int(round(seconds / TICK))):
        eng.step(round(k * TICK, 9))
        k += 1
        if each is not None:
            each(eng)
    return k


def _lane_change(lane: int, shape: str = "sinusoidal", seconds: float = 3.0) -> str:
    return f"""<PrivateAction><LateralAction><LaneChangeAction><LaneChangeActionDynamics dynamicsShape="{shape}"
      dynamicsDimension="time" value="{seconds}"/><LaneChangeTarget><AbsoluteTargetLane value="{lane}"/></LaneChangeTarget>
      </LaneChangeAction></LateralAction></PrivateAction>"""


def _polyline(points: list[tuple[float, float]]) -> str:
    verts = "".join(f'<Vertex><Position><WorldPosition x="{x}" y="{y}"/></Position></Vertex>' for x, y in points)
    return f"""<PrivateAction><RoutingAction><FollowTrajectoryAction><TrajectoryRef><Trajectory name="away" closed="false">
      <Shape><Polyline>{verts}</Polyline></Shape></Trajectory></TrajectoryRef>
      <TimeReference><None/></TimeReference><TrajectoryFollowingMode followingMode="position"/>
      </FollowTrajectoryAction></RoutingAction></PrivateAction>"""


# ---------------------------------------------------------------- OffroadFollower
def _offroad_doc(target: float = 15.0, lead: str = "Lead", lead_speed: float = 8.0) -> str:
    away = _polyline([(40.0, -1.75), (90.0, -1.75), (140.0, -40.0), (600.0, -40.0)])
    body = event("away", away, trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    init = (lane_teleport("Lead", -1, 40, speed=lead_speed) + lane_teleport("Follower", -1, 10)
            + f'<Private entityRef="Follower">{ACTIVATE}</Private>')
    text = scenario(body, entities=("Lead", "Follower"), actors=("Lead",), init=init,
                    stop=trigger("StopTrigger", sim_time(100)))
    return _with_controller(text, "Follower", {"esminiController": "OffroadFollower", "followEntity": lead,
                                                "targetDistance": str(target), "steeringRate": "4.0"})


def test_offroad_follower_keeps_its_distance_behind_a_leader_that_leaves_the_road(tmp_path):
    eng = _engine(tmp_path, _offroad_doc(target=15.0))
    assert isinstance(eng.drivers.get("Follower"), OffroadFollower) and eng.warnings == []
    gaps: list[float] = []

    def gap(e):
        a, b = e.entities["Lead"], e.entities["Follower"]
        gaps.append(math.hypot(a.x - b.x, a.y - b.y))

    _run(eng, 40.0, each=gap)
    lead, f = eng.entities["Lead"], eng.entities["Follower"]
    assert lead.y < -39.0  # the leader is off the road, on its straight 38 m beside it
    assert f.y < -30.0 and eng.offroad_time("Follower") > 5.0  # the follower went after it, off the road
    assert gaps[0] > 29.0 and min(gaps) > 13.5  # it closed a 30 m gap without running into the leader
    late = gaps[-200:]  # the last 10 s
    assert all(14.5 < g < 16.0 for g in late), (min(late), max(late))
    assert f.speed == pytest.approx(lead.speed, abs=0.3)
    assert abs(math.atan2(lead.y - f.y, lead.x - f.x) - f.h) < 0.05  # it points at the leader


def test_offroad_follower_waits_behind_a_standing_leader(tmp_path):
    eng = _engine(tmp_path, _offroad_doc(target=15.0, lead_speed=0.0))
    _run(eng, 20.0)
    lead, f = eng.entities["Lead"], eng.entities["Follower"]
    assert (lead.x, lead.y) == (pytest.approx(40.0), pytest.approx(-1.75))
    assert f.x == pytest.approx(25.0, abs=0.3) and f.y == pytest.approx(-1.75, abs=0.05) and f.speed < 0.05


def test_offroad_follower_needs_an_existing_entity_to_follow(tmp_path):
    with pytest.raises(ScenarioError, match=r"s\.xosc:\d+.*followEntity.*'Nobody'"):
        _engine(tmp_path, _offroad_doc(lead="Nobody"))


def test_offroad_speed_cap_comes_from_the_nearest_road(tmp_path):
    from roadtest.sim.road import load_map

    (tmp_path / "road.xodr").write_text(straight_road())
    net = load_map(tmp_path / "road.xodr")
    assert speed_limit_at(net, 50.0, -1.75, 0.0) == pytest.approx(120 / 3.6)  # two driving lanes on its side
    assert speed_limit_at(net, 50.0, -300.0, 0.0) == pytest.approx(70 / 3.6)  # far from every road
    assert speed_limit_at(None, 0.0, 0.0, 0.0) == pytest.approx(70 / 3.6)


def test_offroad_follower_property_that_is_no_number_is_located(tmp_path):
    with pytest.raises(ScenarioError, match=r"s\.xosc:\d+.*targetDistance.*a number, got 'far'"):
        _engine(tmp_path, _offroad_doc().replace('value="15.0"', 'value="far"'))


# ---------------------------------------------------------------- FollowReferenceController
def _reference_doc(tmp_path, ref: str | None, body: str, init_extra: str = "", entities=("Lead", "Ego"),
                   actors=("Lead",), ego_s: float = 20.0) -> ScenarioEngine:
    init = lane_teleport("Ego", -1, ego_s) + f'<Private entityRef="Ego">{ACTIVATE}</Private>' + init_extra
    text = scenario(body, entities=entities, actors=actors, init=init, stop=trigger("StopTrigger", sim_time(100)))
    props = {"esminiController": "FollowReferenceController", "stanleyCrossTrackErrorGain": "2.0",
             "speedControlStiffness": "3.0"}
    if ref is not None:
        props["referenceEntity"] = ref
    return _engine(tmp_path, _with_controller(text, "Ego", props))


def test_follow_reference_tracks_its_reference_entity(tmp_path):
    change = event("change", _lane_change(-2), trigger("StartTrigger", sim_time(8)))
    eng = _reference_doc(tmp_path, "Lead", change, lane_teleport("Lead", -1, 30, speed=10.0))
    assert isinstance(eng.drivers.get("Ego"), FollowReference) and eng.warnings == []
    e, lead = eng.entities["Ego"], eng.entities["Lead"]
    k = _run(eng, 8.0)
    assert math.hypot(e.x - lead.x, e.y - lead.y) < 0.5  # the spring closed the 10 m gap onto the reference
    assert e.speed == pytest.approx(10.0, abs=0.3)
    ys: list[float] = []
    _run(eng, 7.0, k, each=lambda en: ys.append(en.entities["Ego"].y))
    assert e.y == pytest.approx(-5.25, abs=0.1) and abs(e.x - lead.x) < 0.5  # it followed the lane change
    assert min(ys) > -5.25 - 0.3  # no big overshoot past the new lane
    assert e.lane is not None and e.lane.lane == -2


def test_follow_reference_without_a_reference_follows_its_ghost(tmp_path):
    body = (event("faster", speed_action(15.0, "linear", "rate", 3.0), trigger("StartTrigger", sim_time(1)))
            + event("jump", _lane_change(-2, "step"), trigger("StartTrigger", sim_time(6))))
    init = f'<Private entityRef="Ego">{speed_action(10.0)}</Private>'
    eng = _reference_doc(tmp_path, None, body, init, entities=("Ego",), actors=("Ego",))
    drv = eng.drivers["Ego"]
    e, g = eng.entities["Ego"], drv.ghost
    assert g is not None and "Ego_ghost" not in eng.entities  # the model's own ghost, not an entity
    rates: list[float] = []
    _run(eng, 12.0, each=lambda en: rates.append(abs(en.entities["Ego"].yaw_rate)))
    assert g.speed == pytest.approx(15.0) and g.y == pytest.approx(-5.25, abs=1e-6)  # the ghost took the actions
    assert e.speed == pytest.approx(15.0, abs=0.2) and e.y == pytest.approx(-5.25, abs=0.1)
    # the spring zeroes the gap to where the ghost is after its move, so the entity rests a tick ahead (as in esmini)
    assert e.x - g.x == pytest.approx(15.0 * TICK, abs=0.05)
    assert 0.2 < max(rates) < 2.0  # the ghost jumped a lane in one tick; the entity steered over smoothly
    assert eng.odometer("Ego") == pytest.approx(e.x - 20.0, abs=0.5)  # the entity's own distance, not the ghost's


def test_follow_reference_names_an_unknown_reference(tmp_path):
    with pytest.raises(ScenarioError, match=r"s\.xosc:\d+.*referenceEntity.*'Ghosty'"):
        _reference_doc(tmp_path, "Ghosty", "", lane_teleport("Lead", -1, 30))


# ---------------------------------------------------------------- esmini's own files
CORPUS = {  # file -> (entity, bound on its largest position difference from esmini's trajectory, m)
    "follow_reference": ("Ego", 0.02),  # was 2.46 under the default controller
    "follow_reference_interactive": ("Ego", 0.05),
    "offroad_follower": ("Follower", 0.05),  # was 2.00: the follower stood still
}


def test_follow_reference_ghost_moves_as_esminis_ghost(conformance_dir):
    import csv

    ref = {round(float(r["time"]), 2): (float(r["x"]), float(r["y"]))
           for r in csv.DictReader(open(conformance_dir / "esmini_reference/follow_reference.csv"))
           if r["entity"] == "Ego_ghost"}
    eng = ScenarioEngine(conformance_dir / "esmini/resources/xosc/follow_reference.xosc", seed=1, tick=TICK)
    eng.init()
    g = eng.drivers["Ego"].ghost
    worst = 0.0
    for k in range(1, 601):  # 30 s: the speed ramps and the four lane changes (step, linear, sinusoidal, cubic)
        eng.step(round((k - 1) * TICK, 9))
        t = round(k * TICK, 2)
        if t in ref:
            worst = max(worst, math.hypot(g.x - ref[t][0], g.y - ref[t][1]))
    assert worst < 0.01


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_esmini_corpus_files_run_as_esmini(conformance_dir, name):
    from esmini_corpus import corpus_rows, run_corpus_file

    row = next(r for r in corpus_rows(conformance_dir) if r["xosc_path"].endswith(f"/{name}.xosc"))
    res = run_corpus_file(conformance_dir, row)
    ent, bound = CORPUS[name]
    assert res.matches, (res.result, res.end, res.esmini_end, res.detail)
    assert res.max_diff[ent] < bound, res.max_diff
    eng = ScenarioEngine(conformance_dir / row["xosc_path"], seed=1, tick=TICK)
    eng.init()
    _run(eng, 1.0)
    assert eng.warnings == [] and eng.drivers  # modelled, not replaced by the default controller
