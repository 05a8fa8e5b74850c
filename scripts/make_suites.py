"""Write the L1..L5 suites: each scenario composed with `compose_scenario`, then swept over countries and conditions.

Run from the repository root: `python3 scripts/make_suites.py`. The output is deterministic; the
files it writes (scenarios/composed/L*/, scenarios/suites/L*.yaml) are committed, so re-running it
only matters after the plan below or the composer changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from roadtest.dsl.compose import compose_scenario, fit_emergency_scene, fit_reacting_speeds, render_yaml

ROOT = Path(__file__).resolve().parents[1]
BIG3 = ["CN", "DE", "US"]
WITH_JP = ["CN", "DE", "US", "JP"]

def _catalogue() -> dict[str, Any]:
    from roadtest.rules.catalogue_model import load_catalogue

    return load_catalogue()


def _where(rule_id: str) -> list[str]:
    """The countries whose jurisdiction the rule lists, in the catalogue's order."""
    return list(_catalogue()[rule_id].jurisdictions)


# the slow truck ahead needs time to follow: a longer road and time limit
_EV = {"road": {"length": 300}, "expect": {"timeout": 120}}
# where the composed scene alone does not put the rule to the test: each rule record's l1.tweaks (the reasons
# are written there)
_L1_TWEAKS: dict[str, dict[str, Any]] = {rid: r.l1.tweaks for rid, r in _catalogue().items() if r.l1.tweaks}
# the officer waves the ego through while its light is red for 27 s (command personnel outrank the lights)
_OFFICER_GO_ON_RED = {"road": {"signal_plan": {"kind": "two_phase", "green": 20, "yellow": 3, "all_red": 2,
                                               "cross_green": 20, "offset": 23}},
                      "actors": [{"id": "officer", "kind": "police_officer", "place": {"side": "kerb", "s": 126},
                                  "signal": [{"state": "go", "duration": 60}]}]}

# rules whose L1 scene depends on the country (the driving side): (countries, tweaks) per scene, one scene file
# each, from the rule record's l1.scenes
_L1_BY_SIDE: dict[str, list[tuple[list[str], dict[str, Any]]]] = {
    rid: [(list(v.countries), v.tweaks) for v in r.l1.scenes] for rid, r in _catalogue().items() if r.l1.scenes}


def _l1() -> list[tuple[list[str], list[str], dict[str, list[Any]], dict[str, Any]]]:
    """Every rule alone, wherever it holds (a scene per driving side where the scene depends on it)."""
    out = []
    for rid in _catalogue():
        for countries, tweaks in _L1_BY_SIDE.get(rid, [(_where(rid), _L1_TWEAKS.get(rid, {}))]):
            out.append(([rid], countries, {}, tweaks))
    return out


def _merge(base: dict[str, Any], tweak: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in tweak.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


# a slow truck far ahead on a long road whose goal comes before the truck stops at the road's end
def _truck(distance: float, speed: float) -> list[dict[str, Any]]:
    return [{"id": "lead", "kind": "truck", "place": {"ahead_of": "ego", "distance": distance}, "speed": speed,
             "behaviours": [{"action": "keep_speed"}]}]


def _posted(limit: int, *signs: dict[str, Any]) -> dict[str, Any]:
    """A road posted at `limit` km/h (its sign at s = 25) with these signs beside it."""
    return {"road": {"speed_limit": limit, "signs": [{"id": "speed_limit", "s": 25, "side": "kerb", "value": limit}, *signs]}}


_PED_OFF_CROSSWALK = _L1_TWEAKS["no_collision_vru"]["actors"]
# an ambulance coming up behind that waits behind an ego that does not make room
_AMBULANCE = {"id": "ambulance", "kind": "emergency", "siren": True, "place": {"behind": "ego", "distance": 35}, "speed": 60,
              "behaviours": [{"action": "keep_speed"}], "reacts": True}
# a reacting ambulance the ego makes room for, then a pedestrian stepping onto the crosswalk ahead of the ego in
# the lane it moved to (walking at 4 km/h from 35 m: the expert can still stop before the crosswalk)
_PED_AND_AMBULANCE = {
    "road": {"length": 400, "crosswalks": [{"s": 250, "width": 4}], "signs": [{"id": "pedestrian_crossing", "s": 220, "side": "kerb"}]},
    "actors": [{"id": "ped", "kind": "pedestrian", "place": {"side": "kerb", "s": 250},
                "behaviours": [{"action": "cross_road", "speed": 4, "to": "far", "trigger": {"ego_distance": 35}}]}, _AMBULANCE],
    "expect": {"timeout": 90}}

# level -> [(rules, countries swept, extra sweep, tweaks applied to the composed scenario)]
PLAN: dict[str, list[tuple[list[str], list[str], dict[str, list[Any]], dict[str, Any]]]] = {
    "L1": _l1(),
    "L2": [
        (["speed_limit", "no_overtaking_solid_line"], BIG3, {}, {}),
        (["no_lane_change_tunnel", "speed_limit"], BIG3, {}, {}),
        (["work_zone_speed", "no_overtaking_solid_line"], BIG3, {}, {}),
        (["school_zone_speed", "speed_limit"], BIG3, {}, {}),
        (["stop_sign", "speed_limit"], BIG3, {}, {}),
        # a posted 80 under the expressway's 100, so the expert ignoring limits (90 km/h) breaks it, above the 60 minimum
        (["min_speed_expressway", "speed_limit"], BIG3, {}, _posted(80, {"id": "minimum_speed", "s": 30, "side": "kerb", "value": 60})),
        # L1's cross traffic, timed for L1's 50 km/h: the road posted at 50
        (["give_way_sign", "speed_limit"], BIG3, {}, _merge(_L1_TWEAKS["give_way_sign"], _posted(50, {"id": "yield", "s": 125, "side": "kerb"}))),
        # L1's scenes for the route rules and the bend, with a posted limit (50 where L1's timing is for 50) beside them
        (["no_u_turn", "speed_limit"], BIG3, {}, _merge(_L1_TWEAKS["no_u_turn"], _posted(30, *_L1_TWEAKS["no_u_turn"]["road"]["signs"]))),
        (["no_entry", "school_zone_speed"], BIG3, {}, _merge(_L1_TWEAKS["no_entry"], {"road": {"signs": [
            {"id": "school_zone", "s": 50, "side": "kerb"}, *_L1_TWEAKS["no_entry"]["road"]["signs"]]}})),
        (["driving_side", "speed_limit"], BIG3, {}, _merge(_L1_TWEAKS["driving_side"], _posted(50))),
    ],
    "L3": [
        (["speed_limit", "safe_distance"], BIG3, {}, {}),
        (["school_zone_speed", "yield_pedestrian_crosswalk"], BIG3, {}, {}),
        (["no_overtaking_solid_line", "safe_distance"], BIG3, {}, {}),
        (["speed_limit", "yield_pedestrian_crosswalk"], BIG3, {}, {}),
        (["time_to_collision", "school_zone_speed"], BIG3, {}, {}),
        (["no_collision_vehicle", "work_zone_speed"], BIG3, {}, {}),
        (["vru_lateral_clearance", "speed_limit"], BIG3, {}, {}),
        # L1's light timing at a posted 50: yellow comes on when the ego could still stop comfortably
        (["yellow_light", "speed_limit"], BIG3, {}, _merge(_L1_TWEAKS["yellow_light"], _posted(50))),
        # L1's pedestrian crossing away from any crosswalk
        (["no_collision_vru", "speed_limit"], BIG3, {}, _merge(_posted(30), {"road": {"crosswalks": []}, "actors": _PED_OFF_CROSSWALK})),
        (["no_stopping", "speed_limit"], BIG3, {}, _merge(_L1_TWEAKS["no_stopping"], _posted(30, *_L1_TWEAKS["no_stopping"]["road"]["signs"]))),
        # a road long enough for the expert ignoring the limit to pass the main-lane car (itself under the limit) after
        # the merge: the pass takes overtake.NEEDED_ROAD of route after WAIT s behind it
        (["merge_give_way", "speed_limit"], BIG3, {}, _merge(_merge(_L1_TWEAKS["merge_give_way"], _posted(60)),
                                                             {"road": {"length": 450}})),
        # right-hand traffic (priority from the right), L1's timing at L1's 50 km/h
        (["right_of_way_unsignalised", "speed_limit"], BIG3, {}, _merge(_L1_BY_SIDE["right_of_way_unsignalised"][0][1], _posted(50))),
        (["solid_line_exception", "speed_limit"], BIG3, {}, _L1_TWEAKS["solid_line_exception"]),
    ],
    "L4": [
        (["fog_speed_limit", "no_overtaking_solid_line", "safe_distance"], BIG3, {"environment.weather": ["fog_dense", "fog_light"]}, {}),
        (["speed_limit", "no_overtaking_solid_line", "safe_distance"], BIG3, {"environment.time": ["night", "dawn"]},
         {"environment": {"weather": "rain_heavy", "time": "23:00"}}),
        (["school_zone_speed", "yield_pedestrian_crosswalk", "speed_limit"], BIG3, {},
         {"environment": {"weather": "rain_light", "time": "23:00"}}),
        # dense fog, a cyclist to pass and L1's pedestrian crossing away from any crosswalk
        (["fog_speed_limit", "no_collision_vru", "vru_lateral_clearance"], BIG3, {}, {
            "road": {"crosswalks": [], "signs": []}, "expect": {"timeout": 90}, "actors": _PED_OFF_CROSSWALK + [
                {"id": "cyclist", "kind": "bicycle", "place": {"ahead_of": "ego", "distance": 40}, "speed": 15,
                 "behaviours": [{"action": "keep_speed"}]}]}),
        # dense fog on a CN expressway: a truck at the 40 km/h fog cap, beyond the 100 m fog gap
        (["fog_expressway", "expressway_distance", "safe_distance"], ["CN"], {},
         {"ego": {"speed": 15, "route": {"distance": 200}}, "road": {"length": 600}, "actors": _truck(130, 40), "expect": {"timeout": 90}}),
        # a night expressway, two lanes through a long tunnel, behind a 40 km/h truck: no passing, 50 m behind it
        (["expressway_distance", "no_lane_change_tunnel", "speed_limit"], ["CN"], {},
         {"environment": {"time": "23:00"}, "road": {"length": 600, "lanes": {"forward": 2}, "markings": {"lanes": "broken_white"},
                                                   "sections": [{"kind": "tunnel", "s_start": 60, "s_end": 480}]},
          "ego": {"route": {"distance": 380}}, "actors": _truck(90, 40)}),
        # a US road at night posted above the night cap (65 mph), free for 250 m up to a 60 km/h truck
        (["night_speed", "no_overtaking_solid_line", "safe_distance"], ["US"], {"environment.weather": ["clear", "rain_light"]},
         {"environment": {"time": "23:00"}, "road": {"length": 900, "speed_limit": 120}, "ego": {"speed": 90, "route": {"distance": 500}},
          "actors": _truck(250, 60), "expect": {"timeout": 90}}),
    ],
    "L5": [
        (["yield_emergency_vehicle", "no_overtaking_solid_line", "safe_distance"], WITH_JP, {}, _EV),
        (["yield_emergency_vehicle", "no_lane_change_tunnel", "safe_distance"], BIG3, {}, _EV),
        (["red_light", "officer_signal"], BIG3, {}, _OFFICER_GO_ON_RED),
        # pedestrian safety over emergency vehicles: the ego makes room, but never by entering a crosswalk in use
        (["yield_pedestrian_crosswalk", "yield_emergency_vehicle"], BIG3, {}, _PED_AND_AMBULANCE),
        # emergency vehicles over command personnel: L1's officer holds the ego's approach for 18 s with an ambulance
        # behind; the ego makes room before the line instead of standing there in the ambulance's way
        (["yield_emergency_vehicle", "officer_signal"], BIG3, {}, _merge(_L1_TWEAKS["officer_signal"], {
            "actors": [*_L1_TWEAKS["officer_signal"]["actors"], _AMBULANCE], "expect": {"timeout": 90}})),
        # traffic lights over traffic signs: stopping at red on an expressway with an at-grade junction drops below the minimum
        # (two lanes each way: every arm of a signalised junction has lanes toward it)
        (["red_light", "min_speed_expressway"], BIG3, {}, {"road": {"lanes": {"backward": 2}}}),
    ],
}


def _fit_route(sc: dict[str, Any]) -> None:
    """Keep the goal on the road after a length tweak."""
    route = sc["ego"]["route"]
    if "distance" in route:
        route["distance"] = sc["road"]["length"] - sc["ego"]["s"] - 30
    for sec in sc["road"].get("sections", []):
        sec["s_end"] = min(sec["s_end"], sc["road"]["length"] - 20)


def build() -> dict[str, int]:
    """Write every scenario and suite file; return variants per level."""
    counts = {}
    for level, items in PLAN.items():
        folder = ROOT / "scenarios" / "composed" / level
        folder.mkdir(parents=True, exist_ok=True)
        members, n = [], 0
        for k, (rules, countries, sweep, tweaks) in enumerate(items):
            base_country = countries[0]
            sc = _merge(compose_scenario(rules, base_country, countries=countries), tweaks)
            _fit_route(sc)
            if "route" in tweaks.get("ego", {}):  # a goal the tweak puts short of the road's end
                sc["ego"]["route"] = tweaks["ego"]["route"]
            if level == "L1" and rules == ["yield_emergency_vehicle"]:
                for actor in sc["actors"]:  # an ambulance that waits behind an ego that does not make room
                    actor["reacts"] = actor["kind"] == "emergency" or None
            fit_emergency_scene(sc)  # its timings depend on the road's length
            fit_reacting_speeds(sc)  # a tweak may set a reacting actor above the posted limit
            # a second scene of the same rules (another driving side) is named for its countries
            again = any(it[0] == rules for it in items[:k])
            suffix = "_" + "_".join(c.lower() for c in countries) if again else ""
            sc["name"] = f"{level.lower()}-" + "-".join(r.replace("_", "-") for r in rules) + suffix.replace("_", "-")
            sc["level"] = level
            sc["sweep"] = {"country": countries, **sweep}
            variants = len(countries)
            for vals in sweep.values():
                variants *= len(vals)
            n += variants
            fname = "_".join(rules) + suffix + ".yaml"
            note = (f"Generated by scripts/make_suites.py: compose_scenario({rules}, {base_country!r}), "
                    f"then swept over {', '.join(sc['sweep'])}; {variants} variants.")
            (folder / fname).write_text(render_yaml(sc, note))
            members.append(f"../composed/{level}/{fname}")
        suite = {"name": level, "description": _DESCR[level], "scenarios": members}
        (ROOT / "scenarios" / "suites" / f"{level}.yaml").write_text(render_yaml(suite, f"{n} variants; generated by scripts/make_suites.py"))
        counts[level] = n
    _write_table(counts)
    return counts


def _write_table(counts: dict[str, int]) -> None:
    """scenarios/composed/README.md: suites x variants x rules covered."""
    rows = ["# Composed rule suites", "",
            "Generated by `scripts/make_suites.py` (compose + sweeps); checked by `scripts/check_suites.py`",
            "(the expert must keep every rule; the expert ignoring a rule, `expert-ignore:RULE`, must break it).", "",
            "| suite | variants | scenario files | countries | rules covered |", "|---|---|---|---|---|"]
    for level, items in PLAN.items():
        rules = sorted({r for it in items for r in it[0]})
        countries = sorted({c for it in items for c in it[1]})
        rows.append(f"| {level}: {_DESCR[level]} | {counts[level]} | {len(items)} | {' '.join(countries)} | {', '.join(rules)} |")
    total_rules = sorted({r for items in PLAN.values() for it in items for r in it[0]})
    rows += [f"| all | {sum(counts.values())} | {sum(len(i) for i in PLAN.values())} | | {len(total_rules)} distinct rules |", ""]
    (ROOT / "scenarios" / "composed" / "README.md").write_text("\n".join(rows))


_DESCR = {
    "L1": "A single rule per scene.",
    "L2": "Two coexisting static rules.",
    "L3": "Static and dynamic rules together.",
    "L4": "Three or more rules under adverse weather or at night.",
    "L5": "Conflicting rules resolved by priority class.",
}

if __name__ == "__main__":
    c = build()
    print(" ".join(f"{k}={v}" for k, v in c.items()), "total", sum(c.values()))
