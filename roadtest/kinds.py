"""Kinds of road user, written once: the world's kinds, the other spellings a trace may carry, and the scenario's.

Every consumer (rule signals, the leaderboard's criteria, the expert, the DSL's checks, the renderer) takes
the set it needs from here instead of writing its own list, so a new kind is one line. Ground floor: this
module imports nothing of roadtest.
"""

from __future__ import annotations

from typing import Iterable

__all__ = [
    "MOTOR_VEHICLES", "CYCLES", "WALKERS", "VRUS", "STATIC", "WORLD_KINDS", "SPELLINGS", "spelt",
    "SCENARIO_KINDS", "scenario_kinds", "RULE_VRUS", "RULE_NON_VEHICLES", "LEADERBOARD_VEHICLES",
    "LEADERBOARD_WALKERS", "LEADERBOARD_STATIC", "NOT_TRAFFIC", "OFFICERS",
]

# The kinds WorldState carries (the built-in simulator normalises every entity to one of them)
MOTOR_VEHICLES = frozenset({"car", "truck", "bus", "motorcycle", "emergency"})
CYCLES = frozenset({"bicycle"})
WALKERS = frozenset({"pedestrian", "officer"})
VRUS = WALKERS | CYCLES  # vulnerable road users: what the rules protect as pedestrians and cyclists
STATIC = frozenset({"static"})
WORLD_KINDS = MOTOR_VEHICLES | VRUS | STATIC

# Other spellings a trace may carry (CARLA blueprints, esmini categories, hand-written traces): the world kind each means
SPELLINGS: dict[str, str] = {
    "vehicle": "car", "van": "car", "trailer": "truck",
    "walker": "pedestrian", "police_officer": "officer", "cyclist": "bicycle",
    "cone": "static", "barrier": "static", "prop": "static", "obstacle": "static", "traffic": "static",
}


def spelt(world: Iterable[str]) -> frozenset[str]:
    """World kinds with every other spelling of them: the set a membership test on a trace's kind needs."""
    w = frozenset(world)
    return w | frozenset(s for s, k in SPELLINGS.items() if k in w)


# The scenario DSL's actor kinds and the world kind each becomes
SCENARIO_KINDS: dict[str, str] = {
    "vehicle": "car", "truck": "truck", "bus": "bus", "emergency": "emergency", "motorcycle": "motorcycle",
    "bicycle": "bicycle", "pedestrian": "pedestrian", "police_officer": "officer",
    "cone": "static", "barrier": "static", "broken_down_vehicle": "car",
}


def scenario_kinds(world: Iterable[str]) -> frozenset[str]:
    """The DSL kinds that become one of these world kinds."""
    w = frozenset(world)
    return frozenset(k for k, v in SCENARIO_KINDS.items() if v in w)


# The rule monitors: a cyclist is a vulnerable road user, never a lead vehicle
RULE_VRUS = spelt(VRUS)
RULE_NON_VEHICLES = RULE_VRUS | spelt(STATIC)
# The leaderboard's criteria (CollisionTest, MinimumSpeedRouteTest) differ on purpose: CARLA spawns cyclists
# as vehicle.* blueprints and reports hitting one as collisions_vehicle, so there a bicycle is a vehicle
LEADERBOARD_VEHICLES = spelt(MOTOR_VEHICLES | CYCLES)
LEADERBOARD_WALKERS = spelt(WALKERS)
LEADERBOARD_STATIC = spelt(STATIC)
NOT_TRAFFIC = LEADERBOARD_WALKERS | LEADERBOARD_STATIC  # what the leaderboard's surrounding-traffic speed skips
OFFICERS = spelt({"officer"})
