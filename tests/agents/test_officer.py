"""A police officer's stop/go: the expert's constraint, the signal in the trace, and the L1/L5 officer scenes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from roadtest.agents.officer import LINE_MATCH, SETBACK, officer_command

REPO = Path(__file__).resolve().parents[2]


def _view(signal: str, officer_at: float = 40.0, lines=(41.0,), lights=()) -> dict:
    return {"actors": [{"id": "cop", "kind": "officer", "signal": signal, "route_s": officer_at, "route_d": 5.0}],
            "stop_lines": [{"distance": d} for d in lines],
            "lights": [{"id": f"L{i}", "state": "red", "stop_distance": d} for i, d in enumerate(lights)]}


def test_stop_holds_at_the_officers_line_and_go_overrules_only_its_lights():
    cmd = officer_command(_view("stop"), half=2.4)
    assert (cmd.state, cmd.line) == ("stop", 41.0)
    assert officer_command(_view("stop", lines=()), half=2.4).line == 40.0 - SETBACK  # no line: before the officer
    assert officer_command(_view("stop", lines=(40.0 + LINE_MATCH + 5,)), half=2.4).line == 40.0 - SETBACK  # not its line
    go = officer_command(_view("go", lights=(41.0, 120.0)), half=2.4)
    assert go.overrules({"stop_distance": 41.0}) and not go.overrules({"stop_distance": 120.0})
    assert officer_command(_view("stop"), half=2.4, ignore=frozenset({"officer_signal"})) is None  # the ablated expert
    assert officer_command(_view("stop", officer_at=-3.0), half=2.4) is None  # already passed


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    from roadtest.dsl.convert import convert_command

    out = tmp_path_factory.mktemp("officer")
    for f in ("L1/officer_signal.yaml", "L5/red_light_officer_signal.yaml"):
        assert convert_command(REPO / "scenarios" / "composed" / f, out) == 0
    return out


def _scene(f: str) -> dict:
    return yaml.safe_load((REPO / "scenarios" / "composed" / f).read_text())


def test_officer_signal_reaches_the_trace(bundles):
    from roadtest.bundle import load_bundle
    from roadtest.runner.episode import run_episode
    from roadtest.sim.api import SimSettings

    phases = next(a for a in _scene("L1/officer_signal.yaml")["actors"] if a["id"] == "officer")["signal"]
    stop_for = phases[0]["duration"]
    assert phases[0]["state"] == "stop" and phases[1]["state"] == "go"
    trace = run_episode(load_bundle(bundles / "l1-officer-signal--country-CN"), 0, "expert", SimSettings(tick=0.05))
    for st in trace.states:
        if st.time < stop_for - 1e-6:
            assert st.signals["officer"] == "stop"
        elif st.time > stop_for + 1e-6:
            assert st.signals["officer"] == "go"
    # the expert stands at the line while the officer says stop although its light is green
    held = [st for st in trace.states if stop_for - 2.0 <= st.time < stop_for]
    assert held and all(st.ego.speed < 0.1 and st.signals["tl_main"] == "green" for st in held)


@pytest.mark.parametrize("country", ["CN", "JP"])
def test_l1_officer_scene_expert_keeps_ablated_is_caught(bundles, country):
    from roadtest.runner.coverage import run_variant

    row = run_variant(str(bundles / f"l1-officer-signal--country-{country}"), lane_follower=False)
    assert row["feasible"] and row["expert"]["verdicts"] == {"officer_signal": "satisfied"}
    ign = row["ignoring"]["officer_signal"]
    assert ign["termination"] == "completed" and ign["verdicts"] == {"officer_signal": "violated"}
    # it crossed on green while the officer still said stop
    assert ign["first_violation"]["officer_signal"] < _scene("L1/officer_signal.yaml")["actors"][0]["signal"][0]["duration"]


def test_l5_officer_waves_through_on_red(bundles):
    from roadtest.runner.coverage import run_variant

    row = run_variant(str(bundles / "l5-red-light-officer-signal--country-CN"), lane_follower=False)
    assert row["feasible"]
    assert row["expert"]["verdicts"] == {"red_light": "excused", "officer_signal": "satisfied"}
    ign = row["ignoring"]["officer_signal"]  # obeys the light: waits at red while waved on
    assert ign["verdicts"] == {"red_light": "satisfied", "officer_signal": "violated"}


def test_an_officer_without_a_signal_never_puts_the_rule_in_force():
    from roadtest.dsl.compose import compose_scenario
    from roadtest.dsl.model import Scenario
    from roadtest.dsl.rule_context import never_in_force
    from roadtest.rules.catalogue_model import load_catalogue

    rule = load_catalogue()["officer_signal"]
    data = compose_scenario(["officer_signal"], "CN")
    assert never_in_force(Scenario.model_validate(data), rule, {}) is None  # compose gives it stop, then go
    data["actors"][0].pop("signal")
    assert "police_officer actor whose signal" in never_in_force(Scenario.model_validate(data), rule, {})
