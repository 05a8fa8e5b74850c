"""The ablated expert: `expert-ignore:RULE[,RULE...]` drives as the expert except that its planner drops the
constraint it keeps for each named rule, and nothing else.

It shows that a scene tests a rule: the full expert keeps every rule there, the expert that ignores one
rule must be caught by that rule. `ABLATIONS` says, for each rule the expert has a constraint for, what
is dropped; a rule the expert has no separate constraint for (it never makes a U-turn, for instance) cannot
be ignored and is refused by name.
"""

from __future__ import annotations

from roadtest.errors import UserError

__all__ = ["ABLATIONS", "PREFIX", "parse_ignored", "ablated_name"]

PREFIX = "expert-ignore:"

# rule id -> what the expert's planner drops when it ignores that rule
ABLATIONS: dict[str, str] = {
    "speed_limit": "the road's and the signs' limits (cruises at free_speed; bends and visibility still slow it)",
    "school_zone_speed": "the school-zone cap",
    "work_zone_speed": "the work-zone cap",
    "fog_speed_limit": "the fog cap (the sight-distance speed stays)",
    "fog_expressway": "the fog caps and gaps of the expressway rule",
    "night_speed": "the night cap",
    "expressway_distance": "the expressway's minimum gaps (keeps its own 1.6 s time gap)",
    "safe_distance": "the rule's and its own time gap (follows at 0.6 s, 1.5 m standstill gap)",
    "time_to_collision": "the gentle approach to a slower lead (keeps speed, then brakes at 4 m/s^2 when needed)",
    "stop_sign": "the stops at stop lines",
    "red_light": "the stops at red lights",
    "yellow_light": "the stops at yellow lights",
    "officer_signal": "a police officer's stop and go (obeys the lights at the officer's line instead)",
    "yield_pedestrian_crosswalk": "the stops before a crosswalk in use (a pedestrian in its path is still an obstacle)",
    "yield_emergency_vehicle": "moving aside for an emergency vehicle with its siren on",
    "no_collision_vehicle": "vehicles as obstacles",
    "no_collision_vru": "pedestrians and cyclists as obstacles",
    "vru_lateral_clearance": "the clearance kept around pedestrians and cyclists (0.4 m as for cars, when following and passing)",
    "no_overtaking_solid_line": "the mark's ban on crossing when it passes a slow road user",
    "no_lane_change_tunnel": "the tunnel's ban on changing lanes when it passes a slow road user",
    "give_way_sign": "waiting at a give-way or stop sign for crossing traffic (a vehicle in its path is still an obstacle)",
    "right_of_way_unsignalised": "waiting at an unsignalised junction for a vehicle from the right (left in "
                                 "left-hand traffic; a vehicle in its path is still an obstacle)",
    "driving_side": "keeping to its own half in bends (it cuts a bend toward the oncoming lanes across a broken centre line when no one is coming)",
    "no_stopping": "moving a stop the task asks for out of a no-stopping zone (it stops where asked)",
    "no_entry": "refusing a route past a no-entry sign (it stops before the junction that leads there and waits)",
    "no_u_turn": "refusing a route that turns back where a no-U-turn sign stands (it stops before the turn and waits)",
    "min_speed_expressway": "the floor at the rule's minimum speed (where no maximum is posted it keeps its 50 km/h default)",
    "solid_line_exception": "the exception's limits (where the scene grants it, it crosses a solid line to pass any "
                            "slow road user, moving or standing, near or far); the mark's ban elsewhere stays",
    "merge_give_way": "the look behind before moving into another lane (the time gap, and the 30 m kept clear when "
                      "pulling out to pass or make way); a vehicle alongside still stops it",
}


def parse_ignored(name: str) -> list[str]:
    """The rule ids in an `expert-ignore:A,B` agent name; UserError for an unknown rule or one the expert has no constraint for."""
    from roadtest.rules.catalogue_model import load_catalogue

    ids = [r.strip() for r in name[len(PREFIX):].split(",") if r.strip()]
    if not ids:
        raise UserError(f"agent {name!r}: name the rule(s) to ignore, e.g. {PREFIX}red_light")
    return check_ignored(ids, load_catalogue(), where=f"agent {name!r}")


def check_ignored(ids: list[str], catalogue: dict, where: str = "expert config 'ignore'") -> list[str]:
    """`ids` if every one is a catalogue rule with an expert constraint; a UserError that says which is not."""
    for rid in ids:
        if rid not in catalogue:
            raise UserError(f"{where}: unknown rule {rid!r}; expected a catalogue rule id (roadtest rules list)")
        if rid not in ABLATIONS:
            raise UserError(f"{where}: the expert keeps no separate constraint for {rid!r}, so it cannot ignore it; "
                            f"rules it can ignore: {', '.join(sorted(ABLATIONS))}")
    return ids


def ablated_name(rule_id: str) -> str:
    """The agent name of the expert that ignores `rule_id`."""
    return PREFIX + rule_id
