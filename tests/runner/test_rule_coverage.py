"""The ablated expert and the per-rule check on a fast subset of L1: the full expert keeps the scene's rule,
the expert ignoring that rule breaks it. Each expectation is argued from the scene file itself."""

from __future__ import annotations

import pytest
from l1_scenes import l1_bundle as _bundle, l1_scene as _scene

from roadtest.errors import UserError






def test_scenes_put_the_ignored_rule_in_play(repo_root):
    """Why the ablated expert must break each rule below, from the scene's numbers alone."""
    red = _scene(repo_root, "red_light")
    plan = red["road"]["signal_plan"]  # two-phase: the ego's axis green, yellow, all red, then the cross axis'
    fastest = red["road"]["speed_limit"] / 3.6
    assert plan["kind"] == "two_phase" and plan["offset"] == plan["green"] + plan["yellow"]  # t = 0: the ego's red begins
    red_for = plan["all_red"] + plan["cross_green"] + plan["yellow"] + plan["all_red"]
    line = red["road"]["length"] - 3.0  # generated heads stand 3 m before the junction
    assert (line - red["ego"]["s"]) / fastest < red_for  # not stopping, it reaches the line on red
    lim = _scene(repo_root, "speed_limit")
    assert lim["road"]["speed_limit"] < 90  # the ablated expert's free speed is 90 km/h
    school = _scene(repo_root, "school_zone_speed")
    assert school["road"]["sections"][0]["speed_limit"] < school["road"]["speed_limit"]  # the road's limit breaks the zone's
    vru = _scene(repo_root, "vru_lateral_clearance")
    assert vru["road"]["markings"]["center"].startswith("broken")  # passing is allowed, so the expert passes it
    assert vru["actors"][0]["speed"] < 0.7 * vru["road"]["speed_limit"]  # slow enough to be worth passing
    ttc = _scene(repo_root, "time_to_collision")
    assert ttc["actors"][0]["speed"] < ttc["road"]["speed_limit"]  # a slower lead to close on


# rule -> country: a spread over three countries keeps the subset short
SUBSET = {"red_light": "DE", "stop_sign": "US", "speed_limit": "CN", "school_zone_speed": "DE",
          "time_to_collision": "US", "safe_distance": "CN", "vru_lateral_clearance": "DE"}


@pytest.mark.parametrize("rule", sorted(SUBSET))
def test_full_expert_keeps_and_ablated_expert_breaks(repo_root, tmp_path, rule):
    from roadtest.runner.coverage import run_variant

    bundle = _bundle(repo_root, tmp_path, rule, SUBSET[rule])
    row = run_variant(str(bundle.root), tick=0.05, lane_follower=False)
    assert row["expert"]["termination"] == "completed"
    assert row["expert"]["verdicts"] == {rule: "satisfied"}
    assert row["feasible"]
    assert row["ignoring"][rule]["verdicts"] == {rule: "violated"}


def test_rule_table_counts_from_rows():
    from roadtest.runner.coverage import rule_table

    class R:
        closed_loop, closed_loop_reason = True, ""

    def row(country, full, ignored, extra=None):
        return {"variant": f"s--country-{country}", "source": "s.yaml", "country": country, "rules": ["a"],
                "feasible": full == "satisfied", "expert": {"verdicts": {"a": full}},
                "ignoring": {"a": {"verdicts": {"a": ignored, **(extra or {})}}}}

    rows = [row("CN", "satisfied", "violated"), row("DE", "satisfied", "violated", {"b": "violated"}),
            row("US", "not_applicable", "not_applicable")]
    (e,) = [x for x in rule_table(rows, {"a": R()}) if x["rule"] == "a"]
    assert (e["variants"], e["feasible"], e["not_applicable"]) == (3, 2, 1)
    assert e["countries"] == {"CN", "DE", "US"}
    assert e["caught"] == {"CN", "DE"} and e["caught_alone"] == {"CN"}


def test_agent_names_refused_clearly():
    from roadtest.agents.registry import load_agent

    assert load_agent("expert-ignore:red_light").ignore == frozenset({"red_light"})
    with pytest.raises(UserError, match="unknown rule 'no_such_rule'"):
        load_agent("expert-ignore:no_such_rule")
    from roadtest.agents.ablation import check_ignored

    from roadtest.rules.catalogue_model import load_catalogue

    new_rule = load_catalogue()["no_entry"].model_copy(update={"id": "new_rule"})  # a catalogue rule no module keeps
    with pytest.raises(UserError, match="no separate constraint for 'new_rule'"):
        check_ignored(["new_rule"], {"new_rule": new_rule})
    with pytest.raises(UserError, match="name the rule"):
        load_agent("expert-ignore:")


def test_cli_unknown_ignored_rule_exits_2(repo_root, capsys):
    from roadtest.cli import main

    rc = main(["run", str(repo_root / "scenarios" / "composed" / "L1" / "red_light.yaml"), "--agent", "expert-ignore:nope",
               "-o", "/tmp/roadtest-test-ignore-nope"])
    assert rc == 2


def test_reacting_actor_is_an_acc_controller_at_its_speed(repo_root, tmp_path):
    """`reacts: true` emits an ACCController cruising at the actor's speed (m/s), activated longitudinally at start."""
    import xml.etree.ElementTree as ET

    scene = _scene(repo_root, "yield_emergency_vehicle")
    (amb,) = [a for a in scene["actors"] if a["kind"] == "emergency"]
    assert amb["reacts"] is True
    bundle = _bundle(repo_root, tmp_path, "yield_emergency_vehicle", "CN")
    root = ET.parse(bundle.xosc).getroot()
    obj = [o for o in root.iter("ScenarioObject") if o.get("name") == amb["id"]][0]
    props = {p.get("name"): p.get("value") for p in obj.iter("Property")}
    assert props["esminiController"] == "ACCController"
    assert float(props["setSpeed"]) == pytest.approx(amb["speed"] / 3.6, abs=1e-3)
    private = [p for p in root.iter("Private") if p.get("entityRef") == amb["id"]][0]
    act = private.find(".//ActivateControllerAction")
    assert act is not None and act.get("longitudinal") == "true"


def test_ambulance_waits_behind_an_ego_that_does_not_yield(repo_root, tmp_path):
    """At no more than the limit the route takes longer than the 15 s the ambulance may stay blocked,
    so the expert ignoring it blocks it too long; the full expert makes room."""
    from roadtest.runner.coverage import run_variant

    scene = _scene(repo_root, "yield_emergency_vehicle")
    assert scene["ego"]["route"]["distance"] / (scene["road"]["speed_limit"] / 3.6) > 15.0
    bundle = _bundle(repo_root, tmp_path, "yield_emergency_vehicle", "JP")
    row = run_variant(str(bundle.root), tick=0.05, lane_follower=False)
    assert row["expert"]["verdicts"] == {"yield_emergency_vehicle": "satisfied"}
    assert row["ignoring"]["yield_emergency_vehicle"]["verdicts"] == {"yield_emergency_vehicle": "violated"}


# scene file -> (rule, country): cross traffic on a junction arm, one car with priority over the ego
JUNCTION = {("give_way_sign", "CN"): "give_way_sign", ("give_way_sign", "JP"): "give_way_sign",
            ("right_of_way_unsignalised", "US"): "right_of_way_unsignalised",
            ("right_of_way_unsignalised_jp", "JP"): "right_of_way_unsignalised"}


def test_junction_scenes_put_a_car_with_priority_on_an_arm(repo_root):
    """Right before left: the car comes from the ego's right, from its left in left-hand JP; at a give-way sign any
    crossing car has priority."""
    assert _scene(repo_root, "right_of_way_unsignalised")["actors"][0]["place"]["arm"] == "right"
    assert _scene(repo_root, "right_of_way_unsignalised")["sweep"]["country"] == ["CN", "DE", "US", "FR"]  # priorite a droite in FR too
    assert _scene(repo_root, "right_of_way_unsignalised_jp")["actors"][0]["place"]["arm"] == "left"
    assert _scene(repo_root, "right_of_way_unsignalised_jp")["sweep"]["country"] == ["JP"]
    give = _scene(repo_root, "give_way_sign")
    assert [s["id"] for s in give["road"]["signs"]] == ["yield"] and give["actors"][0]["place"]["arm"] in ("left", "right")


@pytest.mark.parametrize("scene, country", sorted(JUNCTION))
def test_expert_gives_way_and_the_ablated_expert_is_caught(repo_root, tmp_path, scene, country):
    """The full expert waits until the car has passed; the one ignoring the rule enters with it under the rule's
    3 s away and is caught by the rule's monitor, not by a crash (the car brakes for it: both runs complete)."""
    from roadtest.runner.coverage import run_variant

    rule = JUNCTION[(scene, country)]
    bundle = _bundle(repo_root, tmp_path, scene, country)
    row = run_variant(str(bundle.root), tick=0.05, lane_follower=False)
    assert row["expert"]["termination"] == "completed" and row["feasible"]
    assert row["expert"]["verdicts"] == {rule: "satisfied"}
    assert row["ignoring"][rule]["verdicts"] == {rule: "violated"}
    assert row["ignoring"][rule]["termination"] == "completed"
