"""esmini's SloppyDriverController: esmini's noise stream, the speed and offset noise, cut-in_sloppy run as esmini runs it."""

from __future__ import annotations

import csv

import pytest

from roadtest.errors import ScenarioError
from roadtest.sim.xosc import drivers
from roadtest.sim.xosc.drivers.sloppy import MT19937, EsminiRand, SloppyDriver
from roadtest.sim.xosc.engine import ScenarioEngine
from xosc_docs import event, lane_teleport, scenario, sim_time, straight_road, trigger, with_controller

TICK = 0.05
KIND = "SloppyDriverController"
SLOPPY = "esmini/resources/xosc/cut-in_sloppy.xosc"


def test_mt19937_is_the_standard_generator():
    import numpy as np

    g = MT19937(5489)  # std::mt19937's default seed: the C++ standard fixes its 10000th output
    assert [g.next_u32() for _ in range(10000)][-1] == 4123659995
    g = MT19937(1)
    assert [g.next_u32() for _ in range(700)] == np.random.RandomState(1).randint(0, 2**32, 700, dtype=np.uint64).tolist()


def test_uniform_reals_take_two_draws_low_word_first():
    r, g = EsminiRand(7), MT19937(7)
    lo, hi = g.next_u32(), g.next_u32()
    assert r.between(-0.35, 0.35) == (lo + hi * 2.0**32) / 2.0**64 * 0.7 - 0.35
    assert all(0.5 <= r.between(0.5, 1.5) < 1.5 for _ in range(1000))


def _doc(tmp_path, props: str, lat: bool = True, lon: bool = True, body: str = "", speed: float = 10.0):
    (tmp_path / "road.xodr").write_text(straight_road(2000.0))
    act = f'<ActivateControllerAction longitudinal="{str(lon).lower()}" lateral="{str(lat).lower()}"/>'
    init = lane_teleport("Ego", -1, 10, speed) + f'<Private entityRef="Ego"><PrivateAction>{act}</PrivateAction></Private>'
    text = scenario(body, init=init,
                    stop=trigger("StopTrigger", sim_time(100)))
    text = text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    ctrl = (f'<ObjectController><Controller name="sloppy"><Properties><Property name="esminiController" value="{KIND}"/>'
            f'{props}</Properties></Controller></ObjectController>')
    p = tmp_path / "s.xosc"
    p.write_text(with_controller(text, ctrl))
    return p


def _run(path, seconds, seed=1, until=None):
    eng = ScenarioEngine(path, seed=seed, tick=TICK)
    eng.init()
    out = []
    for k in range(int(round(seconds / TICK))):
        eng.step(round(k * TICK, 9))
        e = eng.entities["Ego"]
        out.append((round((k + 1) * TICK, 9), e.speed, eng.motions["Ego"].offset))
        if until and until(eng):
            break
    return eng, out


def test_the_model_is_registered():
    assert drivers.model_for(KIND) is SloppyDriver and drivers.refusal(KIND) is None


def test_speed_wanders_within_the_sloppiness_band(tmp_path):
    eng, out = _run(_doc(tmp_path, '<Property name="sloppiness" value="0.6"/><Property name="mode" value="additive"/>'), 30)
    assert isinstance(eng.drivers["Ego"], SloppyDriver) and eng.warnings == []
    speeds = [v for _, v, _ in out]
    assert all(10 * (1 - 0.6 * 0.35) - 1e-9 <= v <= 10 * (1 + 0.6 * 0.35) + 1e-9 for v in speeds)
    assert max(speeds) - min(speeds) > 0.5  # it does wander
    offsets = [o for _, _, o in out]
    assert max(abs(o) for o in offsets) > 0.05 and max(abs(o) for o in offsets) < 3.5  # off the centre, not off the road


def test_no_sloppiness_is_the_default_driver(tmp_path):
    _, out = _run(_doc(tmp_path, '<Property name="sloppiness" value="0"/><Property name="mode" value="additive"/>'), 10)
    assert all(abs(v - 10.0) < 1e-9 and abs(o) < 1e-12 for _, v, o in out)


def test_the_seed_drives_the_noise(tmp_path):
    p = _doc(tmp_path, '<Property name="sloppiness" value="0.8"/>')
    a, b, c = (_run(p, 8, seed=s)[1] for s in (3, 3, 4))
    assert a == b and a != c


def test_lateral_only_keeps_the_commanded_speed(tmp_path):
    _, out = _run(_doc(tmp_path, '<Property name="sloppiness" value="0.7"/>', lon=False), 10)
    assert all(v == 10.0 for _, v, _ in out) and max(abs(o) for _, _, o in out) > 0.05


def test_a_speed_action_under_the_noise_ends_when_its_target_speed_is_reached(tmp_path):
    brake = event("Brake", """<PrivateAction><LongitudinalAction><SpeedAction>
        <SpeedActionDynamics dynamicsShape="linear" dynamicsDimension="rate" value="-4"/>
        <SpeedActionTarget><AbsoluteTargetSpeed value="0"/></SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction>""",
                  trigger("StartTrigger", sim_time(1)))
    p = _doc(tmp_path, '<Property name="sloppiness" value="0.6"/><Property name="mode" value="additive"/>', body=brake)
    eng = ScenarioEngine(p, seed=1, tick=TICK)
    eng.init()
    ev = next(x for x in eng.elements if x.name == "Brake")
    ended = None
    for k in range(int(60 / TICK)):
        eng.step(round(k * TICK, 9))
        if ended is None and ev.state == "completeState":
            ended = eng.time
            e = eng.entities["Ego"]  # esmini ends it once the speed it found could be braked to the target in one tick
            assert 0.0 <= eng.snap["Ego"].speed <= e.max_decel * TICK + 1e-9
        elif ended is None and eng.time > 1.1:
            assert eng.entities["Ego"].speed > 0.0
    assert ended is not None and ended > 1.0 + 10 / 4 + TICK  # the noise held the profile back (open loop: 3.5 s)


def test_override_mode_ends_speed_actions_at_once(tmp_path):
    faster = event("Faster", """<PrivateAction><LongitudinalAction><SpeedAction>
        <SpeedActionDynamics dynamicsShape="step" dynamicsDimension="time" value="0"/>
        <SpeedActionTarget><AbsoluteTargetSpeed value="30"/></SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction>""",
                   trigger("StartTrigger", sim_time(1)))
    p = _doc(tmp_path, '<Property name="sloppiness" value="0"/><Property name="mode" value="override"/>', body=faster)
    _, out = _run(p, 3)
    assert all(v == pytest.approx(10.0) for _, v, _ in out)  # esmini: the overriding controller owns the speed


def test_a_reactivated_driver_keeps_its_clock_as_esmini_does(tmp_path):
    def switch(name, on, at):
        act = f'<ActivateControllerAction longitudinal="{on}" lateral="false"/>'
        return event(name, f"<PrivateAction>{act}</PrivateAction>", trigger("StartTrigger", sim_time(at)))

    body = switch("Off", "false", 0.95) + switch("On", "true", 1.95)
    _, out = _run(_doc(tmp_path, '<Property name="sloppiness" value="0.6"/>', lat=False, body=body), 6)
    first = next(t for t, v, _ in out if abs(v - 10.0) > 1e-6)
    # active 1 s, off 1 s, on again: the 3 s speed timer restarts from clock 0, so it fires 2 s after reactivation
    assert first == pytest.approx(4.0, abs=1.5 * TICK)


@pytest.mark.parametrize("props,field", [('<Property name="sloppiness" value="lots"/>', "sloppiness"),
                                         ('<Property name="mode" value="sideways"/>', "mode")])
def test_a_bad_property_is_a_located_error(tmp_path, props, field):
    with pytest.raises(ScenarioError, match=rf"s\.xosc:\d+.*{field}"):
        _run(_doc(tmp_path, props), 1)


@pytest.fixture(scope="module")
def cut_in_sloppy(conformance_dir):
    """cut-in_sloppy.xosc run with esmini's seed: OverTaker's speed each tick and the stop time."""
    eng = ScenarioEngine(conformance_dir / SLOPPY, seed=1, tick=TICK)
    eng.init()
    speed = {}
    k = 0
    while not eng.finished and k < 9000:
        eng.step(round(k * TICK, 9))
        k += 1
        speed[round(k * TICK, 2)] = eng.entities["OverTaker"].speed
    return eng, speed


def test_cut_in_sloppy_stops_when_esmini_stops(cut_in_sloppy, conformance_dir):
    eng, _ = cut_in_sloppy
    with open(conformance_dir / "INDEX.tsv") as f:
        row = next(r for r in csv.DictReader(f, delimiter="\t") if r["xosc_path"].endswith("cut-in_sloppy.xosc"))
    assert eng.finished and eng.time == pytest.approx(float(row["esmini_end_time_s"]), abs=TICK + 1e-9)


def test_cut_in_sloppy_speed_follows_esmini(cut_in_sloppy, conformance_dir):
    _, speed = cut_in_sloppy
    with open(conformance_dir / "esmini_reference/cut-in_sloppy.csv") as f:
        ref = {float(r["time"]): float(r["speed"]) for r in csv.DictReader(f) if r["entity"] == "OverTaker"}
    diffs = [abs(speed[t] - v) for t, v in ref.items() if t in speed]
    assert len(diffs) > 700  # the whole run, sampled every 0.5 s
    assert max(diffs) < 0.2 and sum(d < 0.01 for d in diffs) > 0.9 * len(diffs)  # speeds of 0-82 m/s, noise and all
