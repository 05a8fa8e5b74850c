"""Every example scenario under scenarios/ converts into bundles that pass both schemas and the ASAM checker."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from lxml import etree

from roadtest.dsl.bundle_writer import write_bundle
from roadtest.dsl.loader import load_variants
from roadtest.dsl.validate import check_file

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "scenarios").glob("*.yaml"))


@pytest.mark.skipif(not EXAMPLES, reason="no example scenarios under scenarios/ yet")
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_bundles_validate_and_round_trip(path, tmp_path):
    for v in load_variants(path):
        out = write_bundle(v, tmp_path)
        for name in ("scenario.xosc", "road.xodr"):
            assert [str(p) for p in check_file(out / name, strict=True)] == []
        sc = v.scenario
        xosc = etree.parse(str(out / "scenario.xosc")).getroot()
        xodr = etree.parse(str(out / "road.xodr")).getroot()
        meta = json.loads((out / "meta.json").read_text())
        assert len(xosc.findall("Entities/ScenarioObject")) == 1 + len(sc.actors)
        assert float(xosc.find("Storyboard/StopTrigger//SimulationTimeCondition").get("value")) == sc.expect.timeout
        for act in xosc.findall("Storyboard/Story/Act"):
            assert act.find("StopTrigger//SimulationTimeCondition") is not None, act.get("name")
        fog = xosc.find(".//EnvironmentAction/Environment/Weather/Fog")
        assert int(fog.get("visualRange")) == round(sc.environment.fog_visual_range)
        # the ego stands where the scenario puts it: its lane in the .xodr at its s
        hero = xosc.find("Storyboard/Init/Actions/Private[@entityRef='hero']//LanePosition")
        road = xodr.find(f"road[@id='{hero.get('roadId')}']")
        lane_ids = {int(l.get("id")) for l in road.iter("lane")}
        assert int(hero.get("laneId")) in lane_ids
        assert int(hero.get("laneId")) == meta["ego"]["start"]["lane"]
        # route: starts at the ego, dense, ends at the goal
        pts = meta["route"]["waypoints"]
        assert math.dist(pts[0], (meta["ego"]["start"]["x"], meta["ego"]["start"]["y"])) < 1e-3
        assert max(math.dist(a, b) for a, b in zip(pts, pts[1:])) <= 2.0 + 1e-9
        assert math.dist(pts[-1], (meta["route"]["goal"]["x"], meta["route"]["goal"]["y"])) < 1e-3
        if sc.ego.route.distance and sc.road.kind in ("straight", "curve"):
            assert meta["route"]["length"] == pytest.approx(sc.ego.route.distance, rel=0.05)
        # signs: one signal per sign side, with the catalogue's code for the country
        n_signs = sum(2 if s.side == "both" else 1 for s in sc.road.signs)
        static = [s for s in xodr.iter("signal") if s.get("dynamic") == "no"]
        assert len(static) == n_signs == len(meta["scene"]["signs"])
        assert len([s for s in xodr.iter("signal") if s.get("dynamic") == "yes"]) == len(sc.road.traffic_lights)
        assert {r["id"] for r in meta["rules"]} == {r.id for r in sc.rules}
