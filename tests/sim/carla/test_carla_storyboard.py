"""The .xosc copy that hands the ego to roadtest's agent: valid OpenSCENARIO 1.0, the ego's controller replaced,
and (with scenario_runner's code at hand) accepted by scenario_runner's own parser."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from roadtest.dsl.validate import check_xsd
from roadtest.errors import UserError
from roadtest.sim.carla.storyboard import EGO_CONTROL_MODULE, ego_names, load_srunner, with_ego_controller


def test_copy_assigns_roadtests_controller_to_the_ego_and_stays_valid(smoke_bundles, tmp_path):
    for variant, folder in smoke_bundles.items():
        out, ego = with_ego_controller(folder / "scenario.xosc", "mb", tmp_path / f"{variant}.xosc")
        assert ego == "hero"
        assert check_xsd(out) == [], variant  # the ASAM 1.0 XSD scenario_runner validates with
        root = etree.parse(str(out)).getroot()
        private = [p for p in root.iterfind("Storyboard/Init/Actions/Private") if p.get("entityRef") == "hero"]
        ctrls = [c for p in private for c in p.iter("ControllerAction")]
        assert len(ctrls) == 1
        props = {p.get("name"): p.get("value") for p in ctrls[0].iter("Property")}
        assert props == {"module": str(EGO_CONTROL_MODULE), "mailbox": "mb"}
        assert all(el.get("active") == "false" for el in ctrls[0].find("OverrideControllerValueAction"))
        # everything else is the original's
        orig = etree.parse(str(folder / "scenario.xosc")).getroot()
        assert len(list(root.iter("Event"))) == len(list(orig.iter("Event")))


def test_no_ego_is_a_user_error(tmp_path):
    f = tmp_path / "s.xosc"
    f.write_text("<OpenSCENARIO><Entities><ScenarioObject name='a'><Vehicle name='v'/></ScenarioObject></Entities>"
                 "<Storyboard><Init><Actions/></Init></Storyboard></OpenSCENARIO>")
    assert ego_names(etree.parse(str(f)).getroot()) == []
    with pytest.raises(UserError, match="no ego vehicle"):
        with_ego_controller(f, "m")


def test_missing_scenario_runner_says_what_to_set(monkeypatch, tmp_path):
    monkeypatch.delenv("SCENARIO_RUNNER_ROOT", raising=False)
    with pytest.raises(UserError, match="SCENARIO_RUNNER_ROOT is not set"):
        load_srunner()
    with pytest.raises(UserError, match="no srunner/ package"):
        load_srunner(str(tmp_path))


CHECK = os.environ.get("SRUNNER_CHECK")  # ../shared/tools/srunner_check.py: scenario_runner's parser, no server


@pytest.mark.skipif(not (os.environ.get("SCENARIO_RUNNER_ROOT") and CHECK),
                    reason="needs SCENARIO_RUNNER_ROOT (scenario_runner v0.9.16) and SRUNNER_CHECK (srunner_check.py)")
def test_scenario_runner_accepts_the_copies(smoke_bundles, real_carla):
    files = [str(with_ego_controller(f / "scenario.xosc", "mb")[0]) for f in smoke_bundles.values()]
    r = subprocess.run([sys.executable, CHECK, *files], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert f"{len(files)} passed, 0 failed" in r.stdout
