"""The expert and the lane follower on the example scenarios, end to end (YAML -> bundle -> simulator -> score)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

SMOKE = ["straight_speed_limit", "stop_sign_t_junction", "red_light_intersection", "crosswalk_pedestrian",
         "fog_truck_solid_line"]
# the leaderboard's min-speed check compares with all background traffic, including traffic the ego may not pass
EXCUSED = {"min_speed_infractions"}


@pytest.fixture(scope="module")
def bundles(repo_root, tmp_path_factory):
    episode = pytest.importorskip("roadtest.runner.episode")
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import iter_target

    out = tmp_path_factory.mktemp("bundles")
    found = {}
    for name in SMOKE:
        for _source, result in iter_target(repo_root / "scenarios" / f"{name}.yaml"):
            assert isinstance(result, list), f"{name}: {result}"
            found[name] = load_bundle(write_bundle(result[0], out))
    return episode, found


def _run(bundles, name: str, agent: str) -> dict:
    from roadtest.metrics.score import score_run
    from roadtest.sim.api import SimSettings

    episode, found = bundles
    bundle = found[name]
    trace = episode.run_episode(bundle, 0, agent, SimSettings())
    return score_run(trace, bundle.meta)


@pytest.mark.parametrize("name", SMOKE)
def test_expert_scores_100_without_violations(bundles, name):
    score = _run(bundles, name, "expert")
    assert score["scores"]["score_route"] == 100.0
    broken = {k: v for k, v in score["infractions"].items() if v and k not in EXCUSED}
    assert not broken
    assert [r["id"] for r in score.get("rules") or [] if r["verdict"] != "satisfied"] == []


def test_lane_follower_runs_the_stop_sign(bundles):
    score = _run(bundles, "stop_sign_t_junction", "lane-follower")
    assert score["infractions"]["stop_infraction"]
    assert {r["id"]: r["verdict"] for r in score["rules"]}["stop_sign"] == "violated"


def test_lane_follower_breaks_the_speed_limit(bundles):
    score = _run(bundles, "crosswalk_pedestrian", "lane-follower")  # 40 km/h zone, the follower drives 12 m/s
    assert {r["id"]: r["verdict"] for r in score["rules"]}["speed_limit"] == "violated"
