"""The one list of road-user kinds: every consumer's set is derived from it and agrees with the others."""

from typing import get_args

from roadtest import kinds


def test_world_kinds_are_what_the_builtin_simulator_gives():
    from roadtest.sim.embedded.simulator import _KINDS

    assert set(_KINDS.values()) == kinds.WORLD_KINDS


def test_every_other_spelling_means_a_world_kind():
    assert set(kinds.SPELLINGS.values()) <= kinds.WORLD_KINDS
    assert not set(kinds.SPELLINGS) & kinds.WORLD_KINDS


def test_scenario_kinds_are_the_dsl_kinds():
    from roadtest.dsl.model import ACTOR_DIMENSIONS, PEDESTRIAN_KINDS, ActorKind

    assert set(get_args(ActorKind)) == set(kinds.SCENARIO_KINDS) == set(ACTOR_DIMENSIONS) - {"ego"}
    assert PEDESTRIAN_KINDS == {"pedestrian", "police_officer"}


def test_monitors_and_leaderboard_differ_only_on_the_bicycle():
    """A cyclist is a vulnerable road user to the rule monitors, a vehicle to the CARLA leaderboard's criteria."""
    rule_vehicles = {k for k in kinds.WORLD_KINDS if k not in kinds.RULE_NON_VEHICLES}
    lb_vehicles = kinds.WORLD_KINDS & kinds.LEADERBOARD_VEHICLES
    assert lb_vehicles - rule_vehicles == {"bicycle"}
    assert rule_vehicles == {"car", "truck", "bus", "motorcycle", "emergency"}


def test_consumers_read_the_shared_sets():
    from roadtest.agents import officer, overtake
    from roadtest.dsl import rule_context
    from roadtest.metrics import leaderboard, min_speed, scenario_criteria
    from roadtest.rules import signals
    from roadtest.sim.embedded.render import dynamic

    assert signals.VRUS == {"pedestrian", "bicycle", "officer", "police_officer", "walker", "cyclist"}
    assert signals.NON_VEHICLES >= signals.VRUS | {"static", "cone", "barrier", "prop"}
    assert leaderboard._VEHICLES is kinds.LEADERBOARD_VEHICLES and "bicycle" in leaderboard._VEHICLES
    assert min_speed._NOT_VEHICLES == kinds.NOT_TRAFFIC and "bicycle" not in min_speed._NOT_VEHICLES
    assert scenario_criteria.OBSTACLE_KINDS >= {"static", "obstacle", "barrier", "cone", "prop"}
    assert overtake.VRUS == {"bicycle", "pedestrian", "officer"}
    assert officer._KINDS == {"officer", "police_officer"}
    assert rule_context._VEHICLES == {"vehicle", "truck", "bus", "emergency", "motorcycle", "broken_down_vehicle"}
    assert set(dynamic._VEHICLES) == {"car", "emergency", "truck", "bus", "motorcycle"}
