"""The expert's constraints are registered by rule id; what the ablated expert can ignore is derived from that
registry and the catalogue records, so the two must agree rule for rule."""

import pytest

from roadtest.errors import UserError


def test_every_registered_rule_is_a_catalogue_rule_with_an_ablation_text_and_back():
    from roadtest.agents.constraints import kept_by, registered
    from roadtest.rules.catalogue_model import catalogue_dir, load_catalogue

    cat = load_catalogue(catalogue_dir())
    assert set(registered()) <= set(cat), "a module keeps a constraint for a rule the catalogue does not have"
    for rid, rule in cat.items():
        assert bool(kept_by(rule)) == bool(rule.ablation), rid


def test_ablations_name_the_module_kept_rules_with_their_record_text():
    from roadtest.agents.ablation import ablations
    from roadtest.agents.constraints import registered
    from roadtest.rules.catalogue_model import catalogue_dir, load_catalogue

    abl = ablations(load_catalogue(catalogue_dir()))
    assert abl["red_light"] == "the stops at red lights"
    assert registered()["red_light"] == ("roadtest.agents.expert",)
    assert set(registered()["no_collision_vru"]) == {"roadtest.agents.expert", "roadtest.agents.overtake"}
    assert registered()["fog_speed_limit"] == ("roadtest.agents.rules",)


def test_a_rule_with_a_max_speed_needs_no_registration_and_one_without_is_refused():
    from roadtest.agents.ablation import ablations, check_ignored
    from roadtest.rules.catalogue_model import Param, load_catalogue

    base = load_catalogue()["no_entry"]
    capped = base.model_copy(update={"id": "capped", "ablation": "", "params": {"max_speed": Param(value=30, unit="km/h")}})
    plain = base.model_copy(update={"id": "plain", "ablation": ""})
    cat = {"capped": capped, "plain": plain}
    assert ablations(cat) == {"capped": "its speed cap (the rule's max_speed or speed_limit)"}
    assert check_ignored(["capped"], cat) == ["capped"]
    with pytest.raises(UserError, match="no separate constraint for 'plain'"):
        check_ignored(["plain"], cat)


def test_rule_limits_caps_at_a_generic_max_speed_and_the_ablated_expert_drops_it():
    from roadtest.agents.rules import rule_limits

    view = {"rules": [{"id": "capped", "params": {"max_speed": 10.0}},
                      {"id": "fog_speed_limit", "params": {"visibility_threshold": 50.0, "fog_speed": 8.0}}],
            "environment": {"fog_visual_range": 40.0}}
    assert rule_limits(view).max_speed == 8.0  # the lower of the two caps
    assert rule_limits(view, frozenset({"fog_speed_limit"})).max_speed == 10.0
    assert rule_limits(view, frozenset({"fog_speed_limit", "capped"})).max_speed is None
