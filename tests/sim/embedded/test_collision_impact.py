"""Collisions have consequences: when the lane follower runs into the slow truck of the fog scene, both come to
rest where they touched (a plastic impact, a stop within the overlap), the trace records the impact, and
expect.stop_on_collision / --stop-on-collision end the run there."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from roadtest.bundle import load_bundle
from roadtest.dsl.bundle_writer import write_bundle
from roadtest.dsl.loader import load_variants
from roadtest.dsl.model import Scenario
from roadtest.runner.episode import run_episode
from roadtest.sim.api import SimSettings, Termination

FOG = Path(__file__).resolve().parents[3] / "scenarios" / "fog_truck_solid_line.yaml"



def _raw(path=None) -> dict:
    """The fog scene's YAML as written (km/h at the surface): re-validating a dumped model would convert twice."""
    import yaml

    return yaml.safe_load(Path(path or FOG).read_text(encoding="utf-8"))

def _bundle(tmp_path: Path, **expect):
    variant = load_variants(FOG)[0]
    data = _raw()
    data["expect"] = {**data.get("expect", {}), **expect}
    variant = dataclasses.replace(variant, scenario=Scenario.model_validate(data))
    return load_bundle(write_bundle(variant, tmp_path))


def _first_collision(trace):
    for k, st in enumerate(trace.states):
        for ev in st.events:
            if ev.kind == "collision" and ev.other == "truck":
                return k
    return None


def test_lane_follower_hitting_the_truck_stops_and_so_does_the_truck(tmp_path):
    trace = run_episode(_bundle(tmp_path), 0, "lane-follower", SimSettings(tick=0.05))
    k = _first_collision(trace)
    assert k is not None, "the lane follower, blind to the truck, runs into it"
    hit = trace.states[k]
    assert hit.ego.speed > 3.0 and hit.actor("truck").speed > 1.0  # both moving at contact
    crash = trace.info["crashes"][0]
    assert (crash["ego"], crash["other"]) == (hit.ego.id, "truck") and crash["time"] == pytest.approx(hit.time)
    rest_ego, rest_truck = trace.states[k + 1].ego, trace.states[k + 1].actor("truck")
    for st in trace.states[k + 1:]:
        assert st.ego.speed == 0.0 and st.actor("truck").speed == 0.0
        assert (st.ego.x, st.ego.y) == (rest_ego.x, rest_ego.y)
        assert (st.actor("truck").x, st.actor("truck").y) == (rest_truck.x, rest_truck.y)
    # at rest within the overlap: no further than one tick of travel beyond the contact pose
    assert abs(rest_ego.x - hit.ego.x) <= hit.ego.speed * 0.05 + 1e-9
    assert trace.termination is not Termination.COMPLETED  # it never reaches the goal through the truck
    assert len(trace.states) > k + 20


def test_stop_on_collision_ends_the_run_at_the_impact(tmp_path):
    by_scene = run_episode(_bundle(tmp_path / "a", stop_on_collision=True), 0, "lane-follower", SimSettings(tick=0.05))
    by_flag = run_episode(_bundle(tmp_path / "b"), 0, "lane-follower", SimSettings(tick=0.05, stop_on_collision=True))
    for trace in (by_scene, by_flag):
        assert trace.termination is Termination.COLLISION
        assert _first_collision(trace) == len(trace.states) - 1
    assert by_scene.states[-1].time == by_flag.states[-1].time
