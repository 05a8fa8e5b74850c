"""A ParameterValueDistribution file runs as a suite: one variant per concrete scenario, recording its values."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from roadtest.cli import main
from roadtest.runner.store import read_records
from roadtest.sim.api import Trace
from roadtest.sim.xosc.distribution import expand_distribution

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sim" / "xosc"))
from xosc_docs import event, scenario, sim_time, speed_action, straight_road, teleport, trigger  # noqa: E402

HEADER = '<FileHeader revMajor="1" revMinor="2" date="2024-01-01T00:00:00" description="d" author="t"/>'


def concrete(folder: Path) -> Path:
    """Ego starts at x=$X0 and is set to $V m/s at t=0; the run stops at t=2 s."""
    (folder / "maps").mkdir(parents=True, exist_ok=True)
    (folder / "maps" / "road.xodr").write_text(straight_road())
    params = ('<ParameterDeclaration name="V" parameterType="double" value="5"/>'
              '<ParameterDeclaration name="X0" parameterType="double" value="10"/>')
    stop = trigger("StopTrigger", sim_time(2.0))
    text = scenario(event("go", speed_action("$V"), trigger("StartTrigger", sim_time(0, rule="greaterOrEqual", edge="none"))),
                    params=params, init=teleport("Ego", "$X0", -1.75), stop=stop)
    text = text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="maps/road.xodr"/></RoadNetwork>')
    p = folder / "target.xosc"
    p.write_text(text)
    return p


def dist(folder: Path, body: str, name: str = "dist.xosc") -> Path:
    p = folder / "suite" / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(f'<?xml version="1.0"?><OpenSCENARIO>{HEADER}<ParameterValueDistribution>'
                 f'<ScenarioFile filepath="../target.xosc"/>{body}</ParameterValueDistribution></OpenSCENARIO>')
    return p


DETERMINISTIC = """<Deterministic>
  <DeterministicSingleParameterDistribution parameterName="V"><DistributionSet><Element value="4"/><Element value="8"/></DistributionSet></DeterministicSingleParameterDistribution>
  <DeterministicSingleParameterDistribution parameterName="X0"><DistributionRange stepWidth="5"><Range lowerLimit="0" upperLimit="10"/></DistributionRange></DeterministicSingleParameterDistribution>
</Deterministic>"""


def test_run_distribution_runs_every_variant_with_its_values(tmp_path, capsys):
    concrete(tmp_path)
    d = dist(tmp_path, DETERMINISTIC)
    out = tmp_path / "out"
    assert main(["run", str(d), "-o", str(out), "-j", "2"]) == 0
    recs = list(read_records(out))
    assert len(recs) == 2 * 3
    got = sorted((r["params"]["V"], r["params"]["X0"]) for r in recs)
    assert got == sorted((v, x) for v in ("4", "8") for x in ("0.0", "5.0", "10.0"))
    for r in recs:  # the parameters reached the simulation: ego at x0 + v*2 s after 2 s at speed v
        assert r["status"] == "completed"
        last = Trace.load(out / "runs" / r["run_id"] / "trace.json.gz").states[-1]
        ego = last.actor("Ego")
        v, x0 = float(r["params"]["V"]), float(r["params"]["X0"])
        assert ego.speed == pytest.approx(v, abs=1e-6)
        # the trace holds the bounding box's centre, 1.5 m ahead of the reference point (xosc_docs.VEHICLE)
        assert ego.x == pytest.approx(x0 + 1.5 + v * last.time, abs=v * 0.05 + 1e-6)
    # resume: nothing left to run
    assert main(["run", str(d), "-o", str(out), "--resume"]) == 0
    assert "6 run(s) already" in capsys.readouterr().err


def test_convert_distribution_writes_one_bundle_per_variant(tmp_path):
    from roadtest.sim.xosc.parser import load_scenario

    concrete(tmp_path)
    d = dist(tmp_path, DETERMINISTIC)
    assert main(["convert", str(d), "-o", str(tmp_path / "b")]) == 0
    folders = sorted(p for p in (tmp_path / "b").iterdir())
    assert [p.name for p in folders] == [f"dist-{i}" for i in range(1, 7)]
    meta = json.loads((folders[-1] / "meta.json").read_text())
    assert meta["params"] == {"V": "8", "X0": "10.0"}
    assert (folders[-1] / "road.xodr").read_text() == straight_road()
    sc = load_scenario(folders[-1] / "scenario.xosc")  # self-contained: its declarations hold the values
    assert sc.params["V"] == 8.0 and sc.params["X0"] == 10.0


def test_stochastic_distribution_is_seeded_and_respects_ranges(tmp_path):
    concrete(tmp_path)
    body = """<Stochastic numberOfTestRuns="40" randomSeed="7">
      <StochasticDistribution parameterName="V"><NormalDistribution expectedValue="6" variance="4"><Range lowerLimit="5" upperLimit="9"/></NormalDistribution></StochasticDistribution>
      <StochasticDistribution parameterName="X0"><ProbabilityDistributionSet><Element value="1" weight="1"/><Element value="2" weight="0"/><Element value="3" weight="3"/></ProbabilityDistributionSet></StochasticDistribution>
    </Stochastic>"""
    runs = expand_distribution(dist(tmp_path, body))
    assert len(runs) == 40
    vs = [float(p["V"]) for _, p in runs]
    assert all(5 <= v <= 9 for v in vs) and len(set(vs)) == 40
    xs = [p["X0"] for _, p in runs]
    assert "2" not in xs and set(xs) == {"1", "3"} and xs.count("3") > xs.count("1")
    assert expand_distribution(dist(tmp_path, body)) == runs  # same seed, same runs
    other = expand_distribution(dist(tmp_path, body.replace('randomSeed="7"', 'randomSeed="8"')))
    assert [p["V"] for _, p in other] != [p["V"] for _, p in runs]


@pytest.mark.parametrize("kind, lo, hi", [
    ('<UniformDistribution><Range lowerLimit="2" upperLimit="3"/></UniformDistribution>', 2, 3),
    ('<LogNormalDistribution expectedValue="4" variance="1"/>', 0, float("inf")),
    ('<PoissonDistribution expectedValue="3"><Range lowerLimit="1" upperLimit="5"/></PoissonDistribution>', 1, 5),
    ('<Histogram><Bin weight="1"><Range lowerLimit="0" upperLimit="1"/></Bin>'
     '<Bin weight="1"><Range lowerLimit="10" upperLimit="11"/></Bin></Histogram>', 0, 11),
])
def test_every_stochastic_distribution_draws_within_its_support(tmp_path, kind, lo, hi):
    concrete(tmp_path)
    body = f'<Stochastic numberOfTestRuns="400" randomSeed="1"><StochasticDistribution parameterName="V">{kind}' \
           '</StochasticDistribution></Stochastic>'
    vs = [float(p["V"]) for _, p in expand_distribution(dist(tmp_path, body))]
    assert len(vs) == 400 and all(lo <= v <= hi for v in vs)
    if "LogNormal" in kind:  # the file's expectedValue and variance are the distribution's own
        mean = sum(vs) / len(vs)
        var = sum((v - mean) ** 2 for v in vs) / len(vs)
        assert mean == pytest.approx(4, abs=0.2) and var == pytest.approx(1, abs=0.35)
    if "Poisson" in kind:
        assert all(v == int(v) for v in vs)
    if "Histogram" in kind:
        assert not any(1 < v < 10 for v in vs)


def test_a_catalog_or_a_missing_scenario_is_a_clear_error(tmp_path, capsys):
    cat = tmp_path / "cat.xosc"
    cat.write_text(f'<?xml version="1.0"?><OpenSCENARIO>{HEADER}<Catalog name="VehicleCatalog">'
                   '<Vehicle name="a"/></Catalog></OpenSCENARIO>')
    assert main(["run", str(cat), "-o", str(tmp_path / "o1")]) == 2
    assert "a catalog (VehicleCatalog" in capsys.readouterr().err
    d = dist(tmp_path, DETERMINISTIC)  # ../target.xosc not written
    assert main(["run", str(d), "-o", str(tmp_path / "o2")]) == 2
    assert "target.xosc does not exist" in capsys.readouterr().err
    concrete(tmp_path)
    bad = dist(tmp_path, DETERMINISTIC.replace('parameterName="X0"', 'parameterName="Nope"'), "bad.xosc")
    assert main(["convert", str(bad), "-o", str(tmp_path / "b")]) == 2
    assert "Nope not declared" in capsys.readouterr().err


def test_corpus_parameter_set_expands_as_esmini_does(conformance_dir):
    path = conformance_dir / "esmini" / "resources" / "xosc" / "cut-in_parameter_set.xosc"
    if not path.exists():
        pytest.skip("cut-in_parameter_set.xosc not in this corpus")
    runs = expand_distribution(path)
    # 2 value sets x 2 speeds x range 1.1..1.5 step 0.2 (3 values): esmini's --param_permutation count
    assert len(runs) == 12
    assert runs[0][1] == {"HostVehicle": "car_blue", "TargetVehicle": "car_yellow", "EgoSpeed": "70.0",
                          "TargetSpeedFactor": "1.1"}
