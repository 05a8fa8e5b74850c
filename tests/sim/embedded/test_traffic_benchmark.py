"""The highway-env benchmark's roadtest side is a valid workload for its whole 60 s (no timing asserted here)."""

from __future__ import annotations

import importlib.util


def _bench(repo_root):
    spec = importlib.util.spec_from_file_location("sim_vs_highwayenv", repo_root / "benchmarks" / "sim_vs_highwayenv.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_benchmark_ego_stays_on_the_road_among_20_vehicles_for_the_whole_run(repo_root, tmp_path):
    from roadtest.bundle import load_bundle

    b = _bench(repo_root)
    run = b.RoadtestRun(load_bundle(b.write_bundle(tmp_path / "bench")))
    on_road, counts = [], []
    while not run.done:
        run.run(b.BLOCK)
        state = run.sim.state
        on_road.append(state.ego.lane is not None and state.ego.lane.s < b.LENGTH)
        counts.append(sum(a.role == "background" for a in state.actors))
    facts = run.facts()
    assert facts["steps"] == b.STEPS and all(on_road)
    assert facts["background_vehicles"] == b.VEHICLES and min(counts) >= b.VEHICLES - 1
    assert abs(state.ego.speed - b.EGO_SPEED) < 1.0
    assert facts["collisions"] == 0
