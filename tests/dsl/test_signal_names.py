"""A light keeps the name the user gave it: OpenDRIVE signal id and name, the trace's signal keys, the map."""

from __future__ import annotations

import gzip
import json
import textwrap

import pytest
from lxml import etree

from roadtest.cli import main
from roadtest.dsl.loader import load_variants
from roadtest.errors import ScenarioError

SCENE = """\
name: named-light
country: DE
road:
  kind: straight
  length: 200
  lanes: {forward: 1, backward: 1}
  signs:
    - {id: speed_limit, s: 30, value: 50}
  traffic_lights:
    - {id: main_light, s: 120, phases: [{state: red, duration: 4}, {state: green, duration: 30}]}
ego: {lane: 1, s: 20, speed: 30, route: {distance: 60}}
rules: [red_light]
expect: {timeout: 20}
"""


@pytest.fixture
def bundle(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(SCENE)
    assert main(["convert", str(f), "-o", str(tmp_path / "b")]) == 0
    return tmp_path / "b" / "named-light"


def test_xodr_xosc_and_meta_use_the_users_name(bundle):
    xodr = etree.parse(str(bundle / "road.xodr"))
    (light,) = [s for s in xodr.iter("signal") if s.get("dynamic") == "yes"]
    assert (light.get("id"), light.get("name")) == ("main_light", "main_light")
    xosc = etree.parse(str(bundle / "scenario.xosc"))
    assert {e.get("trafficSignalId") for e in xosc.iter("TrafficSignalState")} == {"main_light"}
    meta = json.loads((bundle / "meta.json").read_text())
    assert meta["scene"]["lights"][0]["signal_id"] == "main_light"


def test_trace_keys_and_results_use_the_users_name(bundle, tmp_path):
    out = tmp_path / "r"
    main(["run", str(bundle), "-o", str(out), "--agent", "idle"])
    (run,) = [p for p in (out / "runs").iterdir() if p.is_dir()]
    with gzip.open(run / "trace.json.gz", "rt") as f:
        trace = json.load(f)
    # the layout the README documents for a user's own plots
    assert set(trace) == {"tick", "termination", "reason", "info", "states", "agent"}
    assert {"time", "frame", "actors", "signals", "environment", "events"} <= set(trace["states"][0])
    ego = next(a for a in trace["states"][0]["actors"] if a["role"] == "ego")
    assert {"id", "kind", "x", "y", "h", "speed", "lane"} <= set(ego) and {"road", "lane", "s", "t"} == set(ego["lane"])
    keys = {k for st in trace["states"] for k in st.get("signals", {})}
    assert keys == {"main_light"}, keys
    states = [st["signals"]["main_light"] for st in trace["states"]]
    assert states[0] == "red" and states[-1] == "green"  # 4 s red, then green, as written


def test_light_name_that_clashes_with_an_actor_is_refused(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(SCENE.replace("main_light", "cop") + textwrap.dedent("""\
        actors:
          - {id: cop, kind: police_officer, place: {side: kerb, s: 125}}
        """))
    with pytest.raises(ScenarioError, match="cop"):
        load_variants(f)


def test_map_labels_a_signal_by_its_name():
    from roadtest.sim.road.draw import signal_label
    from roadtest.sim.road.model import Signal

    light = Signal("main_light", "1", 120.0, -4.5, "OpenDRIVE", "1000001", "-1", None, None, "+", True, "main_light", ())
    assert signal_label(light) == "main_light"
    anonymous = Signal("7", "1", 120.0, -4.5, "DE", "274", "-1", 50.0, "km/h", "+", False, "", ())
    assert signal_label(anonymous) == "7"
