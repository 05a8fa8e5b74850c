"""RandomRouteAction: at a fork the entity takes a random branch, the same one for the same seed."""

from __future__ import annotations

from xosc_docs import lane_teleport, scenario

from roadtest.sim.xosc.engine import ScenarioEngine

TICK = 0.05


def _road(rid: str, x: float, y: float, hdg: float, length: float, link: str, junction: str = "-1") -> str:
    return f"""<road name="r{rid}" length="{length}" id="{rid}" junction="{junction}"><link>{link}</link>
<planView><geometry s="0" x="{x}" y="{y}" hdg="{hdg}" length="{length}"><line/></geometry></planView>
<lanes><laneSection s="0"><center><lane id="0" type="none"/></center><right>
<lane id="-1" type="driving"><link><predecessor id="-1"/><successor id="-1"/></link><width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane></right></laneSection></lanes></road>"""


def fork() -> str:
    """Road 1 (x 0..100) forks in junction 9: connecting road 5 straight on to road 2, road 6 bears left to road 3."""
    pred = '<predecessor elementType="road" elementId="1" contactPoint="end"/>'
    roads = [
        _road("1", 0, 0, 0, 100, '<successor elementType="junction" elementId="9"/>'),
        _road("5", 100, 0, 0, 10, pred + '<successor elementType="road" elementId="2" contactPoint="start"/>', "9"),
        _road("6", 100, 0, 0.3, 10, pred + '<successor elementType="road" elementId="3" contactPoint="start"/>', "9"),
        _road("2", 110, 0, 0, 100, '<predecessor elementType="junction" elementId="9"/>'),
        _road("3", 109.553, 2.955, 0.3, 100, '<predecessor elementType="junction" elementId="9"/>'),
    ]
    j = """<junction id="9" name="j">
<connection id="0" incomingRoad="1" connectingRoad="5" contactPoint="start"><laneLink from="-1" to="-1"/></connection>
<connection id="1" incomingRoad="1" connectingRoad="6" contactPoint="start"><laneLink from="-1" to="-1"/></connection>
</junction>"""
    return f'<?xml version="1.0"?><OpenDRIVE><header revMajor="1" revMinor="6" name="fork"/>{"".join(roads)}{j}</OpenDRIVE>'


RANDOM = "<PrivateAction><RoutingAction><RandomRouteAction/></RoutingAction></PrivateAction>"


def road_after_fork(tmp_path, seed: int, random_route: bool) -> str:
    (tmp_path / "fork.xodr").write_text(fork())
    init = lane_teleport("Ego", -1, 60, 20.0).replace("</Private>", (RANDOM if random_route else "") + "</Private>")
    text = scenario("", init=init, rev_minor=3).replace(
        "<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="fork.xodr"/></RoadNetwork>')
    text = text.replace('<Maneuver name="M"></Maneuver>', "")  # no events: the run goes on until stopped
    path = tmp_path / "s.xosc"
    path.write_text(text)
    eng = ScenarioEngine(path, seed=seed, tick=TICK)
    eng.init()
    for k in range(int(4.0 / TICK)):  # 80 m at 20 m/s: 40 m to the fork, then onto road 2 or 3
        eng.step(round(k * TICK, 6))
    return eng.entities["Ego"].lane.road


def test_without_a_random_route_the_straightest_branch(tmp_path):
    assert {road_after_fork(tmp_path, s, False) for s in range(6)} == {"2"}


def test_a_random_route_takes_both_branches_over_seeds_and_repeats_per_seed(tmp_path):
    got = [road_after_fork(tmp_path, s, True) for s in range(12)]
    assert set(got) == {"2", "3"}  # P(one branch in 12 fair draws) = 2 / 4096
    assert [road_after_fork(tmp_path, s, True) for s in range(12)] == got
