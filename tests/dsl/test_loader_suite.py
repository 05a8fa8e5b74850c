"""Suite files and folders: globs, seeds, overrides, and errors located in the suite file."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from roadtest.dsl.suite import expand_target, iter_target
from roadtest.errors import ScenarioError

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "sc").mkdir()
    (tmp_path / "suites").mkdir()
    for name in ("straight_speed_limit.yaml", "fog_truck_solid_line.yaml"):
        shutil.copy(SCENARIOS / name, tmp_path / "sc" / name)
    return tmp_path


def suite(tree: Path, body: str) -> Path:
    p = tree / "suites" / "s.yaml"
    p.write_text(textwrap.dedent(body))
    return p


def test_glob_seeds_and_overrides(tree):
    p = suite(tree, """\
        name: s
        scenarios: ["../sc/*.yaml"]
        seeds: 2
        overrides:
          environment.weather: snow
          ego.speed: 20
        """)
    vs = expand_target(p)
    assert len(vs) == 4
    assert sorted(v.id for v in vs) == ["fog-truck-solid-line-s0", "fog-truck-solid-line-s1",
                                        "straight-speed-limit-s0", "straight-speed-limit-s1"]
    assert {v.seed for v in vs} == {0, 1}
    assert all(v.scenario.environment.weather == "snow" for v in vs)
    assert all(v.scenario.ego.speed == pytest.approx(20 / 3.6) for v in vs)


def test_override_of_missing_path_points_at_suite(tree):
    p = suite(tree, """\
        name: s
        scenarios: [../sc/straight_speed_limit.yaml]
        overrides:
          ego.sped: 20
        """)
    with pytest.raises(ScenarioError) as e:
        expand_target(p)
    (prob,) = e.value.problems
    assert prob.file == str(p) and (prob.line, prob.col) == (4, 3)
    assert "'speed'" in prob.message


def test_bad_override_value_points_at_suite(tree):
    p = suite(tree, """\
        name: s
        scenarios: [../sc/straight_speed_limit.yaml]
        overrides:
          environment.weather: foggy
        """)
    with pytest.raises(ScenarioError) as e:
        expand_target(p)
    (prob,) = e.value.problems
    assert prob.file == str(p) and prob.line == 4 and "fog_dense" in prob.message


def test_missing_member_and_unknown_suite_key(tree):
    p = suite(tree, """\
        name: s
        scenarios: [../sc/nope.yaml, "../sc/zz*.yaml"]
        seed: [1]
        """)
    with pytest.raises(ScenarioError) as e:
        expand_target(p)
    (prob,) = e.value.problems
    assert prob.line == 3 and "did you mean 'seeds'" in prob.message
    p.write_text(p.read_text().replace("seed: [1]", "seeds: [1]"))
    results = list(iter_target(p))
    assert [isinstance(r, ScenarioError) for _, r in results] == [True, True]
    assert "no such file" in str(results[0][1]) and "matches no file" in str(results[1][1])


def test_folder_takes_subfolders_and_skips_suites(tree):
    (tree / "sc" / "more").mkdir()
    shutil.copy(SCENARIOS / "school_zone.yaml", tree / "sc" / "more" / "school_zone.yaml")
    suite(tree, """\
        name: s
        scenarios: ["../sc/*.yaml"]
        """)
    ids = [v.id for v in expand_target(tree)]
    assert ids == ["fog-truck-solid-line", "school-zone", "straight-speed-limit"]


def test_duplicate_names_in_folder_rejected(tree):
    shutil.copy(tree / "sc" / "straight_speed_limit.yaml", tree / "sc" / "copy.yaml")
    with pytest.raises(ScenarioError) as e:
        expand_target(tree / "sc")
    assert "also comes from" in str(e.value)
