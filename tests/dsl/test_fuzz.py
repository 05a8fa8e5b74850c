"""Property tests: any text fed to the loader yields variants or a located ScenarioError, never another exception.

Loaded variants are also built (road, scene, route), as `validate` and `convert` do; what the build
refuses must come back located too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roadtest.dsl.bundle_writer import build_problems
from roadtest.dsl.loader import parse_yaml
from roadtest.dsl.variants import expand_doc
from roadtest.errors import ScenarioError

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
EXAMPLES = [p.read_text() for p in sorted(SCENARIOS.glob("*.yaml"))]
FUZZ = settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

KEYS = ["name", "road", "ego", "actors", "kind", "lane", "s", "speed", "route", "distance", "exit", "place",
        "ahead_of", "behaviours", "action", "trigger", "time", "rules", "id", "params", "sweep", "environment",
        "weather", "lanes", "forward", "backward", "length", "signs", "value", "traffic_lights", "phases",
        "ego.speed", "actors.0.speed", "road.length", "expect", "timeout", "country", "side", "<<"]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True),
                    st.text(max_size=12), st.sampled_from(["straight", "ego", "clear", "fog_dense", "12:00",
                                                           "keep_speed", "vehicle", "speed_limit"]))
DATA = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(st.sampled_from(KEYS), inner, max_size=6)),
                    max_leaves=30)


def load_text(text: str) -> None:
    """Load and build like the CLI does; only a ScenarioError whose every problem has a line and column may escape."""
    try:
        doc = parse_yaml(text, "fuzz.yaml")
        problems = build_problems(doc, expand_doc(doc))
    except ScenarioError as e:
        problems = e.problems
        assert problems
    assert all(p.file == "fuzz.yaml" and p.line >= 1 and p.col >= 1 for p in problems), [str(p) for p in problems]


@FUZZ
@given(st.text(max_size=300))
def test_random_text(text):
    load_text(text)


@FUZZ
@given(st.dictionaries(st.sampled_from(KEYS), DATA, max_size=8))
def test_random_structures(data):
    load_text(yaml.safe_dump(data, allow_unicode=True))


@FUZZ
@given(st.sampled_from(EXAMPLES), st.lists(st.tuples(st.sampled_from(["delete", "insert", "dup", "number"]),
                                                     st.integers(0, 10**6), st.text(max_size=6)), min_size=1, max_size=4))
def test_mutated_examples(text, edits):
    for op, at, chunk in edits:
        i = at % (len(text) + 1)
        if op == "delete":
            text = text[:i] + text[i + 1 + len(chunk):]
        elif op == "insert":
            text = text[:i] + chunk + text[i:]
        elif op == "dup":
            lines = text.splitlines(keepends=True)
            j = at % len(lines)
            text = "".join(lines[: j + 1] + lines[j:])
        else:
            text = text[:i] + str(at - 500000) + text[i:]
    load_text(text)


def _paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _paths(v, prefix + (i,))


PARSED = [yaml.safe_load(t) for t in EXAMPLES]


@FUZZ
@given(st.integers(0, len(PARSED) - 1), st.integers(0, 10**6), DATA)
def test_examples_with_one_value_replaced(which, pick, value):
    import copy

    data = copy.deepcopy(PARSED[which])
    paths = [p for p in _paths(data) if p]
    path = paths[pick % len(paths)]
    cur = data
    for part in path[:-1]:
        cur = cur[part]
    cur[path[-1]] = value
    load_text(yaml.safe_dump(data, allow_unicode=True))


@FUZZ
@given(st.integers(1, 12), st.integers(1, 12), st.sampled_from(["[", "{k: "]))
def test_alias_fans_and_nesting(levels, width, opener):
    lines = ["a0: &a0 [1]"] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels)]
    load_text("\n".join(lines) + "\n")
    close = "]" if opener == "[" else "}"
    load_text("name: n\nroad: " + opener * (levels * 10) + "1" + close * (levels * 10) + "\n")


def test_anchors_and_aliases_do_not_escape():
    load_text("a: &x [*x]\n")
    load_text("name: n\nroad: &r {kind: straight}\nego: *r\n")
    load_text("!!python/object:os.system {}\n")


def test_unhashable_preset_name():
    with pytest.raises(ScenarioError, match="environment.weather"):
        expand_doc(parse_yaml("name: n\nenvironment: {weather: []}\nroad: {kind: straight}\nego: {route: {distance: 50}}\n", "f.yaml"))


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_from_a_file(tmp_path_factory, data):
    from roadtest.dsl.validate import check_file

    f = tmp_path_factory.mktemp("fuzz") / "fuzz.yaml"
    f.write_bytes(data)
    assert all(p.line >= 1 and p.col >= 1 for p in check_file(f)), [str(p) for p in check_file(f)]
