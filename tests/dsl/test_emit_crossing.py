"""cross_road emits a trajectory that crosses the carriageway, and the walker really crosses it closed-loop."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from lxml import etree

from roadtest.bundle import load_bundle
from roadtest.dsl.bundle_writer import write_bundle
from roadtest.dsl.suite import iter_target

REPO = Path(__file__).resolve().parents[2]
# (scenario file, walker id, crosswalk s, crosswalk width, walking speed m/s)
CASES = [
    ("scenarios/crosswalk_pedestrian.yaml", "walker", 130.0, 5.0, 5 / 3.6),  # right to left, CN
    ("scenarios/school_zone.yaml", "child", 180.0, None, 4 / 3.6),  # left to right
]


def _bundle(tmp_path_factory, rel: str, country: str | None = None) -> Path:
    text = (REPO / rel).read_text()
    src = tmp_path_factory.mktemp("src") / Path(rel).name
    if country is not None:  # same scene under another driving side
        text = text.replace("country: CN", f"country: {country}")
    src.write_text(text)
    (_, variants), = list(iter_target(src))
    assert not isinstance(variants, Exception), variants
    return write_bundle(variants[0], tmp_path_factory.mktemp("out"))


@pytest.fixture(scope="module", params=[(c, None) for c in CASES] + [(CASES[0], "JP")],
                ids=["crosswalk", "school_zone", "crosswalk_JP"])
def case(request, tmp_path_factory):
    (rel, walker, s, width, speed), country = request.param
    return _bundle(tmp_path_factory, rel, country), walker, s, width, speed


def _net(folder: Path):
    from roadtest.sim.road import load_map

    return load_map(folder / "road.xodr")


def _carriageway_half(net, road: str, s: float, side: int) -> float:
    """Distance from the reference line to the outer edge of the driving lanes on one side (+1 left, -1 right)."""
    ids = [i for i in net.lane_ids(road, s) if i * side > 0 and net.lane_type(road, i, s) == "driving"]
    return sum(net.lane_width(road, i, s) for i in ids)


def _crossing_event(root, walker: str):
    for ev in root.iter("Event"):
        if ev.get("name", "").startswith(f"{walker}_") and ev.find(".//FollowTrajectoryAction") is not None:
            return ev
    raise AssertionError(f"no FollowTrajectoryAction for {walker}")


def test_emitted_path_crosses_from_edge_to_edge(case):
    folder, walker, cw_s, cw_width, speed = case
    root = etree.parse(str(folder / "scenario.xosc")).getroot()
    ev = _crossing_event(root, walker)
    verts = ev.findall(".//FollowTrajectoryAction/Trajectory/Shape/Polyline/Vertex")
    assert len(verts) >= 2
    xy = [(float(v.find("Position/WorldPosition").get("x")), float(v.find("Position/WorldPosition").get("y")))
          for v in verts]
    times = [float(v.get("time")) for v in verts]
    net = _net(folder)
    m0, m1 = net.locate(*xy[0]), net.locate(*xy[-1])
    assert m0 is not None and m1 is not None and m0.road == m1.road
    assert m0.t * m1.t < 0, f"path stays on one side of the road: t {m0.t:.2f} -> {m1.t:.2f}"
    for m in (m0, m1):  # both ends at or beyond the outer edge of the driving lanes (kerb / sidewalk)
        assert abs(m.t) >= _carriageway_half(net, m.road, m.s, 1 if m.t > 0 else -1) - 1e-6
    for x, y in xy:  # every vertex stays on the crosswalk line
        assert abs(net.locate(x, y).s - cw_s) <= (cw_width or 4.0) / 2
    # the path starts where the walker stands and takes as long as the behaviour's speed says
    tp = root.find(f"Storyboard/Init/Actions/Private[@entityRef='{walker}']/PrivateAction/TeleportAction//WorldPosition")
    assert (float(tp.get("x")), float(tp.get("y"))) == pytest.approx(xy[0], abs=1e-6)
    assert times[0] == 0.0 and all(b > a for a, b in zip(times, times[1:]))
    length = sum(math.dist(a, b) for a, b in zip(xy, xy[1:]))
    assert length / times[-1] == pytest.approx(speed, rel=0.01)


def test_trajectory_and_speed_share_no_control_domain(case):
    """A timed trajectory also owns the longitudinal domain, so the event's SpeedAction (newest action wins)
    ended it and walkers strolled along the kerb; untimed, the path steers and the SpeedAction sets the pace."""
    folder, walker, _, _, speed = case
    ev = _crossing_event(etree.parse(str(folder / "scenario.xosc")).getroot(), walker)
    kinds = [a.find("PrivateAction/*/*").tag for a in ev.findall("Action")]
    assert sorted(kinds) == ["FollowTrajectoryAction", "SpeedAction"]  # scenario_runner walks at that speed
    follow = ev.find(".//FollowTrajectoryAction")
    assert follow.find("TimeReference/Timing") is None and follow.find("TimeReference/None") is not None
    assert follow.find("TrajectoryFollowingMode").get("followingMode") == "position"
    target = ev.find(".//SpeedAction/SpeedActionTarget/AbsoluteTargetSpeed")
    assert float(target.get("value")) == pytest.approx(speed)


def _walker_states(trace, walker: str):
    return [(st.time, a) for st in trace.states for a in st.actors if a.id == walker]


def test_closed_loop_walker_crosses(case):
    """No agent: the walker's lateral t changes sign on the crosswalk line, then it stands off the carriageway."""
    from roadtest.sim.embedded import run_bundle

    folder, walker, cw_s, cw_width, speed = case
    trace = run_bundle(load_bundle(folder))
    ws = [(t, a) for t, a in _walker_states(trace, walker) if a.lane is not None]
    assert ws, "walker never on the map"
    t_first, t_last = ws[0][1].lane.t, ws[-1][1].lane.t
    ts = [a.lane.t for _, a in ws]
    assert min(ts) < -3.0 and max(ts) > 3.0, f"walker t stayed in [{min(ts):.2f}, {max(ts):.2f}]"
    assert t_first * t_last < 0 or any(a * b < 0 for a, b in zip(ts, ts[1:]))
    on_road = [(t, a) for t, a in ws if abs(a.lane.t) < 3.0]
    assert all(abs(a.lane.s - cw_s) <= (cw_width or 4.0) / 2 for _, a in on_road), "walked along the road"
    crossing = on_road[-1][0] - on_road[0][0]  # 6 m of carriageway at the walking speed
    assert crossing == pytest.approx(6.0 / speed, rel=0.15)


@pytest.fixture(scope="module")
def crosswalk(tmp_path_factory):
    return load_bundle(_bundle(tmp_path_factory, CASES[0][0]))


def _on_ego_lane_while_ego_passes(trace) -> list[float]:
    """Times at which the ego's front is over the crosswalk while the walker is inside the ego's lane."""
    out = []
    for st in trace.states:
        ego = next(a for a in st.actors if a.role == "ego")
        w = next(a for a in st.actors if a.id == "walker")
        front = ego.x + ego.length / 2
        if w.lane is not None and -3.5 < w.lane.t < 0.0 and 127.5 <= front <= 132.5 + ego.length:
            out.append(st.time)
    return out


@pytest.mark.parametrize("agent, yields", [("expert", True), ("lane-follower", False)])
def test_crosswalk_trigger_separates_yielding_from_not(crosswalk, agent, yields):
    """The walker starts early enough for the expert to see it and stop short; the lane follower drives on."""
    from roadtest.runner.episode import run_episode
    from roadtest.sim.api import SimSettings

    trace = run_episode(crosswalk, 0, agent, SimSettings())
    hits = [e for st in trace.states for e in st.events if e.kind == "collision" and "walker" in (e.actor, e.other)]
    passing = _on_ego_lane_while_ego_passes(trace)
    ws = [a for st in trace.states for a in st.actors if a.id == "walker" and a.lane is not None]
    assert min(a.lane.t for a in ws) < -3.5 and max(a.lane.t for a in ws) > 3.5  # it crossed in both runs
    if yields:
        assert not hits and not passing
        ego = [a for st in trace.states for a in st.actors if a.role == "ego"]
        assert min(a.speed for a in ego if 100 < a.x < 130) < 2.0  # it slowed for the walker
        assert max(a.x for a in ego) > 250  # and then drove on to its goal
    else:
        ego_v = [a.speed for st in trace.states for a in st.actors if a.role == "ego" and 100 < a.x < 130]
        assert min(ego_v) > 8.0  # never slowed down for the walker
