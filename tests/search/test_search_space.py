"""The search: block: what validates, and each mistake as an error at its file and line, exit 2."""

from __future__ import annotations

import textwrap
import time

import pytest

from roadtest.cli import main
from roadtest.dsl.loader import load_scenario_file, parse_file, validate_doc
from roadtest.dsl.search_space import concrete_doc, search_params
from roadtest.errors import ScenarioError
from search_fakes import BASE


def _file(tmp_path, search: str):
    p = tmp_path / "scene.yaml"
    p.write_text(BASE + "search:\n" + textwrap.indent(textwrap.dedent(search), "  "))
    return p


def test_a_search_block_resolves_paths_aliases_times_and_seeds(tmp_path):
    p = _file(tmp_path, """\
        environment.visibility: {range: [30, 400], log: true}
        environment.time: {range: ["05:00", "09:00"]}
        actors.walker.behaviours.0.trigger.time: {range: [0, 20]}
        actors.0.speed: {range: [0, 60]}
        traffic.seed: {range: [0, 100]}
        environment.weather: {choices: [clear, fog_light]}
        """)
    scn = load_scenario_file(p)
    doc = parse_file(p)
    params = {q.key: q for q in search_params(doc, scn)}
    assert params["environment.visibility"].path == ("environment", "fog_visual_range")
    assert params["environment.visibility"].log
    assert (params["environment.time"].kind, params["environment.time"].low, params["environment.time"].high) == ("time", 300.0, 540.0)
    assert params["traffic.seed"].kind == "int"
    assert params["actors.0.speed"].path == ("actors", 0, "speed")
    cdoc = concrete_doc(doc, {"environment.visibility": 55.5, "environment.time": "07:45",
                              "actors.0.speed": 36.0}, list(params.values()))
    concrete = validate_doc(cdoc)
    assert "search" not in cdoc.data
    assert concrete.environment.fog_visual_range == 55.5
    assert concrete.environment.time == "07:45"
    assert concrete.actors[0].speed == pytest.approx(10.0)  # 36 km/h, converted like any YAML speed


@pytest.mark.parametrize("entry, line, col, words", [
    ("actors.0.speed: {range: [60, 10]}", 14, 19, "expected low < high"),
    ("environment.visibility: {range: [-5, 400]}", 14, 27, "range end -5.0 gives an invalid scene"),
    ("actors.0.place.s: {range: [100, 900]}", 14, 21, "beyond the road's end"),
    ("actors.0.nope: {range: [1, 2]}", 14, 3, "actors.0 has no 'nope'"),
    ('environment.time: {range: ["05:00", "25:00"]}', 14, 21, "two 'HH:MM' times"),
    ("environment.visibility: {range: [0, 400], log: true}", 14, 27, "log: expected low > 0"),
    ("environment.visibility: {range: [30, 400], choices: [1]}", 14, 27, "exactly one of range or choices"),
    ("name: {range: [1, 2]}", 14, 3, "cannot search 'name'"),
])
def test_a_bad_search_entry_is_an_error_at_its_line(tmp_path, capsys, entry, line, col, words):
    p = _file(tmp_path, entry + "\n")
    start = time.monotonic()
    assert main(["validate", str(p)]) == 2
    assert time.monotonic() - start < 5.0
    err = capsys.readouterr().out + capsys.readouterr().err
    assert f"{p}:{line}:{col}:" in err and words in err, err


def test_search_and_sweep_together_are_refused(tmp_path):
    p = tmp_path / "scene.yaml"
    p.write_text(BASE + "sweep:\n  environment.weather: [clear]\nsearch:\n  actors.0.speed: {range: [1, 9]}\n")
    with pytest.raises(ScenarioError) as e:
        load_scenario_file(p)
    assert "search and sweep cannot be combined" in str(e.value)
    assert e.value.problems[0].line == 15
