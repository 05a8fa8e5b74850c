"""A player-specific driver model roadtest does not have is reported, not silently replaced."""

from __future__ import annotations

from roadtest.sim.xosc.engine import ScenarioEngine


def _run(path, seconds=3.0):
    eng = ScenarioEngine(path, seed=1, tick=0.05)
    eng.init()
    for k in range(int(seconds / 0.05)):
        eng.step(round(k * 0.05, 9))
    return eng


def test_unmodelled_driver_model_is_reported(conformance_dir):
    eng = _run(conformance_dir / "esmini/resources/xosc/cut-in_sloppy.xosc")
    assert any("SloppyDriverController" in w and "default controller" in w for w in eng.warnings), eng.warnings


def test_plain_scenario_has_no_warning(conformance_dir):
    assert _run(conformance_dir / "esmini/resources/xosc/cut-in_simple.xosc").warnings == []
