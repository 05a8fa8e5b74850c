"""The differential harness and the scenario generator: what runs without esmini (generated files are valid,
the harness reads esmini's log and finds a divergence where one was put), and, with esmini, agreement per family."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from esmini_diff import BOUND, diff_file, divergences, esmini_binary, read_esmini_log, run_roadtest
from esmini_sweep import agreement, family_table, sweep
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xosc_gen import FAMILIES, Case, lane_pos, scenario_xosc, speed_step
from xosc_gen_roads import road_xodr

from roadtest.dsl.validate import check_xsd
from roadtest.sim.xosc.engine import ScenarioEngine

GEN = settings(max_examples=8, deadline=None, derandomize=True, database=None,
               suppress_health_check=list(HealthCheck))

# Two ticks of esmini 3.6's --csv_logger output for two entities (its header lines, then 31 fields per entity).
ESMINI_LOG = """esmini GIT REV: N/A
Scenario File Name: x.xosc
Number of Vehicles: 2
Index [-], TimeStamp [s], #1 Entity_Name [-], ...
0, 0.000000, Ego, 0, 33.333333, 0.000000, 0.000000, 1.400000, 0.000000, 0.750000, 5.040000, 2.000000, 1.500000, 20.000000, -1.535000, 0.000000, 33.333333, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 20.000000, -1.535000, -1, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, , Target, 1, 8.333333, 0.000000, 0.000000, 1.450000, 0.000000, 0.750000, 5.040000, 2.000000, 1.500000, 100.000000, -1.535000, 0.000000, 8.333333, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 100.000000, -1.535000, -1, 0.000000, 0.100000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, ,
1, 0.050000, Ego, 0, 33.333333, 0.000000, 4.761905, 1.400000, 0.000000, 0.750000, 5.040000, 2.000000, 1.500000, 21.666667, -1.535000, 0.000000, 33.333333, 0.000000, 0.000000, -0.000000, 0.000000, 0.000000, 21.666667, -1.535000, -1, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, , Target, 1, 8.333333, 0.000000, 1.190476, 1.450000, 0.000000, 0.750000, 5.040000, 2.000000, 1.500000, 100.416667, -1.535000, 0.000000, 8.333333, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 100.416667, -1.535000, -1, 0.000000, 0.100000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000, ,
"""


def test_esmini_log_reads_into_the_reference_columns(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text(ESMINI_LOG)
    rows = read_esmini_log(log)
    assert [(r["time"], r["entity"]) for r in rows] == [(0.0, "Ego"), (0.0, "Target"), (0.05, "Ego"), (0.05, "Target")]
    assert rows[3]["x"] == pytest.approx(100.416667) and rows[3]["y"] == pytest.approx(-1.535)
    assert rows[3]["lane"] == -1 and rows[3]["speed"] == pytest.approx(8.333333) and rows[3]["h"] == pytest.approx(0.1)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_generated_files_are_schema_valid_and_load(family, tmp_path):
    @GEN
    @given(FAMILIES[family])
    def check(case: Case) -> None:
        xosc = case.write(tmp_path / case.name)
        assert check_xsd(xosc) == [] and check_xsd(xosc.parent / "road.xodr") == []
        ScenarioEngine(xosc).init()

    check()


def test_divergence_names_its_first_time_size_and_the_running_action(tmp_path):
    """A reference that is roadtest's own run moved 1 m sideways from 2 s on: the first divergence is at 2 s,
    1 m, while the SpeedAction that starts at 1 s and lasts 5 s runs."""
    act = ('<LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape="linear" value="5" '
           'dynamicsDimension="time"/><SpeedActionTarget><AbsoluteTargetSpeed value="15"/></SpeedActionTarget>'
           "</SpeedAction></LongitudinalAction>")
    case = Case("speed", scenario_xosc({"Ego": (lane_pos(1, -1, 10), 5.0)}, [("Ego", 1.0, act)], stop=4), road_xodr("straight"))
    trace, active = run_roadtest(case.write(tmp_path))
    own = {"Ego": [(s.time, s.actor("Ego").x - 1.4, s.actor("Ego").y + (1.0 if s.time >= 2.0 - 1e-9 else 0.0))
                   for s in trace.states]}
    d = divergences(trace, active, own)["Ego"]
    assert d.first == pytest.approx(2.0) and d.size == pytest.approx(1.0, abs=1e-6) and d.worst == pytest.approx(1.0, abs=1e-6)
    assert d.element == "A0 (SpeedAction)"
    assert divergences(trace, active, own, bound=1.5)["Ego"].first is None


def test_a_still_car_agrees_with_a_hand_written_reference(tmp_path):
    """A car held at s=10 on lane -1 of the straight road sits at x=10, y=-1.75 (lane centre): the stored
    reference agrees; one 0.6 m off disagrees from its first sample."""
    case = Case("speed", scenario_xosc({"Ego": (lane_pos(1, -1, 10), 0.0)}, [("Ego", 0.5, speed_step(0))], stop=2),
                road_xodr("straight"))
    xosc = case.write(tmp_path)
    for y, agrees in ((-1.75, True), (-1.15, False)):
        ref = tmp_path / "ref.csv"
        ref.write_text("time,entity,x,y,z,h,speed,lane,s,t\n"
                       + "".join(f"{t:.1f},Ego,10.0,{y},0,0,0,-1,10,{y}\n" for t in (0.0, 0.5, 1.0, 1.5)))
        r = diff_file(xosc, reference_csv=ref)
        assert r.agrees is agrees, r.entities


# family -> (share it reaches today, why not 95 %): the cases not yet fixed, docs/openscenario.md
FLOOR: dict[str, tuple[float, str]] = {
    "lane_change": (0.88, "short lane changes at low speed end 0.6 m apart"),
    "lateral_distance": (0.75, "entity frame with maxAcceleration: esmini steers on a turn radius, roadtest a spring"),
}


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_generated_cases_agree_with_esmini(family):
    binary = esmini_binary()
    if binary is None:
        pytest.skip("no esmini binary ($ESMINI or a build beside the checkout: ../shared/tools/build_esmini.sh)")
    n = int(os.environ.get("ROADTEST_ESMINI_CASES", "100"))
    res = sweep(family, n, binary)
    print("\n" + family_table({family: res}))
    ok, n_compared = agreement(res)  # the cases that exercise a difference kept on purpose do not count
    share = ok / max(n_compared, 1)
    floor = FLOOR.get(family, (0.95, ""))[0]
    assert share >= floor, f"{family}: {share:.0%} agree within {BOUND} m; " + "; ".join(
        f"{r.file} {d.entity} at {d.first} s by {d.size:.2f} m in {d.element}" for c, r in res
        if r.result == "compared" and not r.agrees and not c.deliberate
        for d in r.entities.values() if d.first is not None)[:2000]
