"""Lane lookups on lane-section boundaries: a lane position names the lane it is on, so at the s where one section
ends and the next begins (or inside a zero-length section) the section that holds the lane is meant, as CARLA's towns
need (their junction roads renumber lanes after a 2 m section)."""

from __future__ import annotations

import itertools
import math

import pytest

from roadtest.sim.road.graph import driving
from roadtest.sim.road.network import RoadNetwork

W = 3.5


def _lane(lid: int, type_: str = "driving", succ: int | None = None, pred: int | None = None, b: float = 0.0,
          a: float = W) -> str:
    link = (f'<predecessor id="{pred}"/>' if pred is not None else "") + (
        f'<successor id="{succ}"/>' if succ is not None else "")
    return (f'<lane id="{lid}" type="{type_}"><link>{link}</link>'
            f'<width sOffset="0" a="{a}" b="{b}" c="0" d="0"/></lane>')


def renumbering_road(zero_length: bool) -> bytes:
    """Road 1 along +x, 50 m. Section 0 (s 0..20): right lanes -1 sidewalk (narrowing from 3.5 m to 0), -2 and -3 driving. Section 1 (s 20..50):
    -1 and -2 driving, linked so that -2 -> -1 and -3 -> -2 (the lane ids shift by one, as on CARLA's roads). With
    zero_length, a zero-length section at s=20 holding the first section's lanes sits between them."""
    centre = '<center><lane id="0" type="none"/></center>'
    # with the zero-length section the first section's lanes continue under their own ids into it
    shift = 0 if zero_length else 1
    first = ('<laneSection s="0">' + centre + "<right>" + _lane(-1, "sidewalk", b=-W / 20) + _lane(-2, succ=-2 + shift)
             + _lane(-3, succ=-3 + shift) + "</right></laneSection>")
    middle = ('<laneSection s="20">' + centre + "<right>" + _lane(-1, "sidewalk", pred=-1, a=0.0)
              + _lane(-2, pred=-2, succ=-1) + _lane(-3, pred=-3, succ=-2) + "</right></laneSection>")
    last = ('<laneSection s="20">' + centre + "<right>" + _lane(-1, pred=-2) + _lane(-2, pred=-3)
            + "</right></laneSection>")
    sections = first + (middle if zero_length else "") + last
    return f"""<?xml version="1.0"?><OpenDRIVE><header revMajor="1" revMinor="6" name="boundary"/>
<road name="a" length="50" id="1" junction="-1"><link/>
<planView><geometry s="0" x="0" y="0" hdg="0" length="50"><line/></geometry></planView>
<lanes>{sections}</lanes></road></OpenDRIVE>""".encode()


@pytest.fixture(params=[False, True], ids=["two-sections", "with-zero-length-section"])
def net(request) -> RoadNetwork:
    return RoadNetwork(renumbering_road(request.param), f"boundary-{request.param}.xodr")


def test_a_lane_that_ends_on_the_boundary_is_found_there(net):
    # lane -3 is the third lane right of the reference line in s 0..20; the sidewalk is 0 m wide at s=20, so
    # its centre there is t = -(0 + 3.5 + 1.75) = -5.25 (and -(3.5 + 3.5 + 1.75) = -8.75 at s=0)
    p = net.lane_to_world("1", -3, 20.0)
    assert (p.x, p.y) == pytest.approx((20.0, -5.25))
    assert net.lane_to_world("1", -3, 0.0).y == pytest.approx(-8.75)
    # the later section's own lane -2 at the same s is the second lane: centre t = -5.25
    assert net.lane_to_world("1", -2, 20.0).y == pytest.approx(-5.25)
    assert net.lane_to_world("1", -2, 30.0).y == pytest.approx(-5.25)  # inside the later section: its 2nd lane


def test_a_route_to_the_boundary_and_across_the_renumbering(net):
    segs = net.route(("1", -3, 0.0), ("1", -3, 20.0))
    assert sum(abs(g.s_end - g.s_start) for g in segs) == pytest.approx(20.0)
    # across the boundary lane -3 continues as lane -2 (its successor link): 15 m + 20 m, no lane change
    segs = net.route(("1", -3, 5.0), ("1", -2, 40.0))
    assert [(g.lane, round(g.s_start, 6), round(g.s_end, 6)) for g in segs if g.s_end != g.s_start][0] == (-3, 5.0, 20.0)
    assert segs[-1].lane == -2 and segs[-1].s_end == pytest.approx(40.0)
    assert sum(abs(g.s_end - g.s_start) for g in segs) == pytest.approx(35.0)


def test_every_route_between_lane_ends_answers(net):
    """Routes between the start and end of every driving lane of every section: a route or none, never an error."""
    r = net.road("1")
    ends = [("1", lid, s) for si, sec in enumerate(r.sections) for lid in sec.lanes
            if lid and driving(r, si, lid) for s in (sec.s, sec.s_end)]
    for a, b in itertools.product(ends, ends):
        segs = net.route(a, b)
        assert isinstance(segs, list)
    assert all(math.isfinite(net.lane_to_world(*e).y) for e in ends)


def test_a_car_following_its_lane_crosses_the_renumbering(tmp_path):
    """The default controller keeps a car in its lane: lane -3 becomes lane -2 at s=20 by its successor link."""
    from xosc_docs import lane_teleport, scenario

    from roadtest.sim.xosc.engine import ScenarioEngine

    (tmp_path / "road.xodr").write_bytes(renumbering_road(zero_length=False))
    text = scenario("", init=lane_teleport("Ego", -3, 5.0, 10.0)).replace(
        "<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>').replace(
        '<Maneuver name="M"></Maneuver>', "")
    (tmp_path / "s.xosc").write_text(text)
    eng = ScenarioEngine(tmp_path / "s.xosc", seed=0, tick=0.05)
    eng.init()
    for k in range(int(2.5 / 0.05)):  # 25 m at 10 m/s: from s=5 to s=30, past the boundary at s=20
        eng.step(round(k * 0.05, 6))
    ego = eng.entities["Ego"]
    assert (ego.lane.road, ego.lane.lane) == ("1", -2)
    assert ego.lane.s == pytest.approx(30.0, abs=0.6)
    assert ego.y == pytest.approx(-5.25, abs=0.05)  # the centre of the later section's second lane
