"""Property tests: a mutated OpenSCENARIO file plays, or the engine raises a UserError, never another exception.

roadtest's own emitted scenarios and a few esmini scenarios are mutated structurally (lxml) and
byte-wise, then loaded by ScenarioEngine, initialised and stepped for a simulated second. Each crash
found this way has a minimal reproducer below: all are fixed and kept as regression cases.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from xml_mutations import BYTE_EDITS, Seeds, edit_strategy, emitted_bundles, mutate_bytes, mutate_tree
from xml_mutations import hang_guard as _hang_guard

from roadtest.errors import UserError
from roadtest.sim.xosc.engine import ScenarioEngine

N = int(os.environ.get("ROADTEST_FUZZ_EXAMPLES", "0"))  # > 0: explore with more, non-derandomized examples
FUZZ = settings(max_examples=N or 40, deadline=None, derandomize=not N, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
EMITTED = ["straight_speed_limit", "red_light_intersection"]
PUBLIC = ["cut-in_simple.xosc", "slow-lead-vehicle.xosc", "lane_change.xosc", "highway_merge.xosc",
          "synchronize.xosc", "lane_change_crest.xosc", "traffic_lights.xosc", "keep_lateral_distance.xosc"]
STEPS, TICK = 20, 0.05
SCHEMA_STEPS = 200  # schema-valid files play 10 s: long enough for their first events to start
HANG_S = 20
VALUES = ["", "abc", "nan", "inf", "-inf", "-1", "0", "1e308", "-1e308", "3.5", "999", "$nope", "hero", "Ego",
          "true", "rising", "none", "1", "greaterThan"]

@pytest.fixture(scope="session")
def emitted_scenarios(repo_root, tmp_path_factory) -> Seeds:
    """scenario.xosc of a few of roadtest's own scenarios (beside their road.xodr), from `roadtest convert`."""
    out = Seeds((b, "scenario.xosc", (b / "scenario.xosc").read_bytes())
                for b in emitted_bundles(repo_root, EMITTED, tmp_path_factory))
    if not out:
        pytest.skip("none of the emitted example scenarios is in this checkout")
    return out


@pytest.fixture(scope="session")
def public_scenarios(conformance_dir, tmp_path_factory) -> Seeds:
    """A few esmini scenarios, in a temp resources/xosc folder whose ../xodr and Catalogs link to the corpus."""
    res = conformance_dir / "esmini" / "resources"
    root = tmp_path_factory.mktemp("esmini")
    (root / "xodr").symlink_to(res / "xodr")
    (root / "xosc").mkdir()
    (root / "xosc" / "Catalogs").symlink_to(res / "xosc" / "Catalogs")
    out = Seeds((root / "xosc", n, (res / "xosc" / n).read_bytes()) for n in PUBLIC if (res / "xosc" / n).is_file())
    if not out:
        pytest.skip(f"none of {PUBLIC} is in {res / 'xosc'}")
    return out


def hang_guard(seconds: int = HANG_S):
    """Fail (instead of hanging the suite) when the body runs longer than `seconds`."""
    return _hang_guard(seconds, "the engine")


def play(path: Path) -> None:
    """Load, init and step the scenario for STEPS ticks (stopping when it finishes)."""
    eng = ScenarioEngine(path, seed=0, tick=TICK)
    eng.init()
    for k in range(STEPS):
        eng.step(round(k * TICK, 6))
        if eng.finished:
            break


def check(folder: Path, name: str, data: bytes, refuse_only_at_load: bool = False, steps: int = STEPS) -> None:
    """The property: the mutated scenario plays, or raises a UserError with a message (only while loading, when
    `refuse_only_at_load`: a file the schema accepts may be refused, never stopped mid-run)."""
    path = folder / f"fuzz_{name}"
    path.write_bytes(data)
    try:
        with hang_guard():
            try:
                eng = ScenarioEngine(path, seed=0, tick=TICK)
                eng.init()
            except UserError as e:
                assert str(e).strip(), "a UserError with an empty message"
                return
            for k in range(steps):
                try:
                    eng.step(round(k * TICK, 6))
                except UserError as e:
                    if refuse_only_at_load:
                        raise AssertionError(f"a schema-valid file stopped mid-run at {k * TICK:.2f} s: {e}") from e
                    assert str(e).strip(), "a UserError with an empty message"
                    return
                if eng.finished:
                    break
    finally:
        path.unlink()


# ---- mutations -------------------------------------------------------------------------------
OPS = ["del_attr", "set_attr", "drop", "dup", "swap", "retag"]
EDIT = edit_strategy(OPS, VALUES)


@FUZZ
@given(pick=st.integers(0, 99), edits=st.lists(EDIT, min_size=1, max_size=3))
def test_structural_mutations_of_emitted_scenarios(emitted_scenarios, pick, edits):
    folder, name, data = emitted_scenarios[pick % len(emitted_scenarios)]
    check(folder, name, mutate_tree(data, edits))


@FUZZ
@given(pick=st.integers(0, 99), edits=st.lists(EDIT, min_size=1, max_size=3))
def test_structural_mutations_of_public_scenarios(public_scenarios, pick, edits):
    folder, name, data = public_scenarios[pick % len(public_scenarios)]
    check(folder, name, mutate_tree(data, edits))


def schema_valid_edit(data: bytes, edits) -> bytes:
    """Edits the schema allows: an enumerated attribute set to another of its values, a Double attribute scaled
    (by 0 to 3) or negated, an integer moved by up to 2, on elements found by their declared XSD type."""
    from xosc_schema_enums import attribute_types, enum_attributes, typed_elements

    enums, types = enum_attributes(), attribute_types()
    root = etree.fromstring(data)
    slots = [(el, a) for el, t in typed_elements(root) for (ct, a) in sorted(enums) if ct == t]
    nums = [(el, a) for el, t in typed_elements(root) for a in sorted(el.attrib)
            if types.get((t, a)) in ("Double", "Int") and not el.get(a).startswith("$")]
    for kind, i, j, factor in edits:
        if kind == "enum" and slots:
            el, a = slots[i % len(slots)]
            t = next(t for e, t in typed_elements(root) if e is el)
            values = enums[(t, a)]
            el.set(a, values[j % len(values)])
        elif nums:
            el, a = nums[i % len(nums)]
            try:
                v = float(el.get(a))
            except ValueError:
                continue
            # an Int (a lane id, a lane count) moves by -2..2, a Double is scaled
            el.set(a, str(int(v) + j % 5 - 2) if "." not in el.get(a) and v.is_integer() else repr(v * factor))
    return etree.tostring(root)


SCHEMA_EDITS = st.lists(st.tuples(st.sampled_from(["enum", "number"]), st.integers(0, 10**6), st.integers(0, 10**6),
                                  st.sampled_from([0.0, 0.5, 1.5, 3.0, -1.0])), min_size=1, max_size=4)


@settings(FUZZ, max_examples=N or 30)
@given(pick=st.integers(0, 99), edits=SCHEMA_EDITS)
def test_schema_valid_mutations_of_public_scenarios_never_stop_mid_run(public_scenarios, pick, edits):
    """A file the schema accepts (enumerations and numbers changed within their types) is refused at load or
    plays: no exception, a UserError included, once it runs."""
    folder, name, data = public_scenarios[pick % len(public_scenarios)]
    check(folder, name, schema_valid_edit(data, edits), refuse_only_at_load=True, steps=SCHEMA_STEPS)


@settings(FUZZ, max_examples=N or 20)
@given(pick=st.integers(0, 99), edits=BYTE_EDITS)
def test_bytewise_mutations(emitted_scenarios, pick, edits):
    folder, name, data = emitted_scenarios[pick % len(emitted_scenarios)]
    check(folder, name, mutate_bytes(data, edits))


@pytest.mark.parametrize("which", ["emitted_scenarios", "public_scenarios"])
def test_unmutated_seeds_play(request, which):
    """The seeds themselves play (else every mutation above tests only the error path)."""
    for folder, name, data in request.getfixturevalue(which):
        (folder / name).write_bytes(data)
        play(folder / name)


# ---- crashes found in roadtest/sim/xosc: minimal reproducers (emitted straight_speed_limit or an esmini file) ----
def fixed(case: str, xpath: str, op: str, attr: str, value: str, seed: str = "straight"):
    """A crash the fuzzing found (an exception other than UserError) and the xosc package has since fixed."""
    return pytest.param(seed, xpath, op, attr, value, id=case)


REPRODUCERS = [
    fixed("expression-overflows", ".//AbsoluteTargetSpeed", "set", "value", "${1e308 * 10}"),
    fixed("expression-is-nan", ".//AbsoluteTargetSpeed", "set", "value", "${1e308 * 10 - 1e308 * 10}"),
    fixed("time-condition-without-value", ".//SimulationTimeCondition", "del", "value", ""),
    fixed("unknown-rule", ".//SimulationTimeCondition", "set", "rule", "hero"),
    fixed("delay-not-a-number", ".//Condition", "set", "delay", "hero"),
    fixed("speed-action-without-dynamics", ".//SpeedActionDynamics", "drop", "", ""),
    fixed("target-speed-not-a-number", ".//AbsoluteTargetSpeed", "set", "value", "abc"),
    fixed("dimension-not-a-number", ".//Dimensions", "set", "width", "abc"),
    fixed("event-count-not-a-number", ".//Event", "set", "maximumExecutionCount", "x"),
    fixed("lane-position-without-road", ".//LanePosition", "del", "roadId", ""),
    fixed("lane-position-s-not-a-number", ".//LanePosition", "set", "s", "none"),
    fixed("sun-azimuth-not-a-number", ".//Sun", "set", "azimuth", "abc"),
    fixed("rev-minor-not-an-integer", ".//FileHeader", "set", "revMinor", "x"),
    fixed("ttc-target-entity-without-ref", ".//TimeToCollisionConditionTarget/EntityRef", "del", "entityRef", "",
          seed="slow-lead-vehicle.xosc"),
    fixed("ttc-target-empty", ".//TimeToCollisionConditionTarget/EntityRef", "drop", "", "",
          seed="slow-lead-vehicle.xosc"),
    fixed("state-condition-without-ref", ".//StoryboardElementStateCondition", "del", "storyboardElementRef", "",
          seed="lane_change.xosc"),
    fixed("headway-condition-without-ref", ".//TimeHeadwayCondition", "del", "entityRef", "",
          seed="cut-in_simple.xosc"),
    fixed("relative-target-speed-without-ref", ".//RelativeTargetSpeed", "del", "entityRef", "",
          seed="highway_merge.xosc"),
]


@pytest.mark.parametrize("seed, xpath, op, attr, value", REPRODUCERS)
def test_crash_reproducer(request, seed, xpath, op, attr, value):
    """Each mutation that crashed the engine plays or gives a UserError."""
    if seed.endswith(".xosc"):
        folder, name, data = next(s for s in request.getfixturevalue("public_scenarios") if s[1] == seed)
    else:
        folder, name, data = next(s for s in request.getfixturevalue("emitted_scenarios") if s[0].name.startswith(seed))
    root = etree.fromstring(data)
    el = root.find(xpath)
    assert el is not None, f"{xpath} is not in the emitted scenario any more: update the reproducer"
    if op == "drop":
        el.getparent().remove(el)
    elif op == "del":
        del el.attrib[attr]
    else:
        el.set(attr, value)
    path = folder / "repro.xosc"
    path.write_bytes(etree.tostring(root))
    try:
        play(path)
    except UserError as e:
        assert str(e).strip()
    finally:
        path.unlink()
