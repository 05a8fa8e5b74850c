"""Compose atomic rules into one scene: check their contexts coexist, merge what the scene needs, record who governs.

`compose_scenario(rule_ids, country)` is deterministic: the same rules and country give the same
scenario dictionary (the scenario language of roadtest/dsl/model.py, YAML units); `compose_command`
writes it as YAML and loads it back with the scenario loader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import yaml

from roadtest.rules.catalogue_model import CONTEXT_FACTS, Rule, get_rule, load_catalogue
from roadtest.errors import UserError
from roadtest.dsl.model import driving_side

__all__ = ["Composition", "merge_contexts", "compose_scenario", "compose_command", "render_yaml", "fit_emergency_scene",
           "fit_reacting_speeds"]

DEFAULT_FACTS = {"road": "urban", "junction": "none", "center_marking": "dashed", "lane_change": "permitted",
                 "visibility": "normal", "light": "day", "zone": "none", "traffic": "two_way"}
# roadtest's default limits per road kind, km/h at the YAML surface
DECORATIVE = frozenset({"tunnel", "pedestrian_crossing", "school_zone", "work_zone"})
ROAD_LIMIT = {"urban": 50, "rural": 80, "expressway": 100}
# an ambulance behind the ego and a slower lead ahead in one lane: lead distance ahead of the ego, m;
# gap the ambulance keeps behind the lead (centre to centre), m; the ambulance's braking, m/s^2
EV_LEAD_AHEAD, EV_GAP, EV_BRAKE = 80, 25, 4


@dataclass
class Composition:
    """The merged context of several rules: one value per fact, the scene's needs, and who governs."""

    rules: list[str]
    country: str
    facts: dict[str, str]
    actors: list[str] = field(default_factory=list)
    signs: list[str] = field(default_factory=list)
    governing: str | None = None
    conflicts: list[dict[str, Any]] = field(default_factory=list)


def merge_contexts(rules: Sequence[Rule], country: str) -> Composition:
    """Intersect every rule's accepted fact values; a fact with no common value is a UserError naming both rules."""
    from roadtest.rules.evaluate import governing_rule

    for r in rules:
        if country not in r.jurisdictions:
            raise UserError(f"rule {r.id} has no jurisdiction {country}; it is catalogued for "
                            f"{', '.join(sorted(r.jurisdictions))} ({r.file})")
    allowed: dict[str, tuple[set[str], str]] = {}
    for r in rules:
        for fact, vals in r.context.facts.items():
            if fact not in allowed:
                allowed[fact] = (set(vals), r.id)
                continue
            have, by = allowed[fact]
            common = have & set(vals)
            if not common:
                raise UserError(
                    f"rules {by} and {r.id} cannot share one scene: {by} needs {fact} = {' or '.join(sorted(have))}, "
                    f"{r.id} needs {fact} = {' or '.join(vals)} (mutually exclusive contexts)")
            allowed[fact] = (common, by)
    facts = {}
    for fact, options in CONTEXT_FACTS.items():
        if fact in allowed:
            vals = allowed[fact][0]
            pref = DEFAULT_FACTS[fact]
            facts[fact] = pref if pref in vals else next(v for v in options if v in vals)
        else:
            facts[fact] = DEFAULT_FACTS[fact]
    if facts["center_marking"] == "solid" and facts["lane_change"] == "permitted" and "lane_change" not in allowed:
        facts["lane_change"] = "forbidden"
    actors = list(dict.fromkeys(a for r in rules for a in r.context.actors))
    signs = list(dict.fromkeys(s for r in rules for s in r.context.signs))
    cat = {r.id: r for r in rules}
    governing, conflicts = governing_rule([r.id for r in rules], cat)
    return Composition([r.id for r in rules], country, facts, actors, signs, governing, conflicts)


def _marking(style: str) -> str:
    """The centre line's style without a colour, so each country a composed scene is swept over draws its own."""
    return {"solid": "solid", "dashed": "broken", "none": "none"}[style]


def compose_scenario(rule_ids: Sequence[str], country: str = "CN", catalogue: dict[str, Rule] | None = None,
                     name: str | None = None, countries: Sequence[str] = ()) -> dict[str, Any]:
    """A scenario (YAML units) whose scene satisfies every composed rule's context.

    `countries`: every country the scenario will be swept over; warning signs that one of them lacks
    are left out (they inform, the rules do not depend on them).
    """
    if not rule_ids:
        raise UserError("compose: expected at least one rule id")
    country = country.upper()
    cat = catalogue if catalogue is not None else load_catalogue()
    rules = [get_rule(r, cat) for r in dict.fromkeys(rule_ids)]
    comp = merge_contexts(rules, country)
    f, ids = comp.facts, set(comp.rules)
    junction = f["junction"]
    kind = {"none": "straight", "stop_sign": "t_junction", "traffic_light": "intersection",
            "unsignalised": "intersection", "merge": "highway_merge"}[junction]
    at_junction = kind in ("t_junction", "intersection")
    length = 130 if at_junction else 260
    fwd = 2 if (f["lane_change"] == "permitted" and ("emergency_vehicle" in comp.actors or f["road"] == "expressway")
                or junction == "merge") else 1
    backward = 0 if f["traffic"] == "one_way" or f["road"] == "expressway" else 1
    limit = ROAD_LIMIT[f["road"]]
    if "speed_limit" in ids and f["road"] == "urban":
        limit = 30  # a posted limit below the usual urban figure, so the sign matters
    road: dict[str, Any] = {"kind": kind, "length": length, "lanes": {"forward": fwd, "backward": backward, "width": 3.5},
                            "speed_limit": limit,
                            "markings": {"center": _marking(f["center_marking"])}}
    if fwd > 1:
        road["markings"]["lanes"] = "solid_white" if f["lane_change"] == "forbidden" else "broken_white"
    if kind == "highway_merge":
        road["ramp"] = {"merge_s": 80, "length": 120}
    line_s = length - 3
    signs: list[dict[str, Any]] = []
    if "speed_limit" in comp.signs:
        signs.append({"id": "speed_limit", "s": 25, "side": "kerb", "value": limit})
    if "minimum_speed" in comp.signs:
        signs.append({"id": "minimum_speed", "s": 30, "side": "kerb", "value": 60 if country != "JP" else 50})
    if "no_overtaking" in comp.signs:
        signs.append({"id": "no_overtaking", "s": 30, "side": "kerb"})
    if f["zone"] != "none":
        zone: dict[str, Any] = {"kind": f["zone"], "s_start": 60, "s_end": 180 if not at_junction else 110}
        if f["zone"] in ("school_zone", "work_zone"):
            zone["speed_limit"] = 30
            signs.append({"id": f["zone"], "s": 50, "side": "kerb"})
        elif f["zone"] == "tunnel":
            signs.append({"id": "tunnel", "s": 50, "side": "kerb"})
        road["sections"] = [zone]
    if junction == "stop_sign":
        road["stop_lines"] = [{"s": line_s}]
        signs.append({"id": "stop", "s": line_s - 2, "side": "kerb"})
    elif junction == "traffic_light":
        # every approach gets its heads; the ego's (tl_main, at line_s) is red for 12 s, green 20 s, yellow 3 s
        road["signal_plan"] = {"kind": "two_phase", "green": 20, "yellow": 3, "all_red": 1, "cross_green": 7,
                               "offset": 23}
    elif junction == "unsignalised" and "yield" in comp.signs:
        signs.append({"id": "yield", "s": line_s - 2, "side": "kerb"})
    if "no_entry" in comp.signs:
        signs.append({"id": "no_entry", "s": length - 60, "side": "kerb"})
    if "no_u_turn" in comp.signs:
        signs.append({"id": "no_u_turn", "s": 40, "side": "kerb"})
    if "pedestrian_crossing" in comp.actors or "pedestrian_crossing" in comp.signs:
        road["crosswalks"] = [{"s": 100 if not at_junction else length - 15, "width": 4}]
        signs.append({"id": "pedestrian_crossing", "s": road["crosswalks"][0]["s"] - 30, "side": "kerb"})
    signs = [s for s in signs if s["id"] not in DECORATIVE or _has_sign(s["id"], [country, *countries])]
    if signs:
        road["signs"] = signs
    actors: list[dict[str, Any]] = []
    for need in comp.actors:
        actors.extend(_actors_for(need, road))
    env = {"weather": "fog_dense" if f["visibility"] == "low" else "clear",
           "time": "23:00" if f["light"] == "night" else "12:00"}
    turn = "left" if driving_side(country) == "left" else "right"  # the near-side turn: no oncoming traffic to cross
    ego_s = 45 if "emergency_vehicle" in comp.actors else 10
    route = {"exit": turn if kind == "t_junction" else "straight"} if at_junction else {"distance": length - ego_s - 30}
    ego_speed = {"urban": 30, "rural": 50, "expressway": 70}[f["road"]]
    scenario: dict[str, Any] = {
        "name": name or "-".join(r.replace("_", "-") for r in comp.rules) + f"-{country.lower()}",
        "description": "Composed by `roadtest compose` from " + ", ".join(comp.rules) + f" for {country}"
                       + (f"; {comp.governing} governs where they conflict" if comp.governing else "") + ".",
        "country": country,
        "level": _level(rules, f),
        "tags": ["composed"] + sorted({r.perceptual_type for r in rules}),
        "environment": env,
        "road": road,
        "ego": {"lane": 1, "s": ego_s, "speed": ego_speed, "route": route},
        "actors": actors,
        "rules": list(comp.rules),
        "expect": {"reach_goal": True, "timeout": 60},
    }
    if not actors:
        del scenario["actors"]
    fit_emergency_scene(scenario)
    fit_reacting_speeds(scenario)
    return scenario


def _has_sign(sign_id: str, countries: Sequence[str]) -> bool:
    from roadtest.signs.catalogue import load_signs

    codes = (load_signs().get(sign_id) or {}).get("codes") or {}
    return all(codes.get(c) for c in countries)


def _level(rules: Sequence[Rule], facts: dict[str, str]) -> str:
    """L1..L5 from the composed rules and the scene's conditions (DriveCombo's levels): L5 rules in conflict,
    L4 three or more under low visibility or at night, L1 one rule, L3 static with dynamic rules, else L2."""
    from roadtest.rules.evaluate import governing_rule

    if governing_rule([r.id for r in rules], {r.id: r for r in rules})[1]:
        return "L5"
    if len(rules) >= 3 and (facts["visibility"] == "low" or facts["light"] == "night"):
        return "L4"
    if len(rules) == 1:
        return "L1"
    kinds = {r.perceptual_type for r in rules}
    return "L3" if kinds == {"static", "dynamic"} else "L2"


def _actors_for(need: str, road: dict[str, Any]) -> list[dict[str, Any]]:
    length = road["length"]
    if need in ("slow_lead", "lead_vehicle"):
        kind, speed = ("truck", 15) if need == "slow_lead" else ("vehicle", 25)
        return [{"id": "lead", "kind": kind, "place": {"ahead_of": "ego", "distance": 40}, "speed": speed,
                 "behaviours": [{"action": "keep_speed"}]}]
    if need == "pedestrian_crossing":
        s = road["crosswalks"][0]["s"]
        return [{"id": "ped", "kind": "pedestrian", "place": {"side": "kerb", "s": s},
                 "behaviours": [{"action": "cross_road", "speed": 4, "to": "far", "trigger": {"ego_distance": 20}}]}]
    if need == "emergency_vehicle":
        return [{"id": "ambulance", "kind": "emergency", "siren": True, "place": {"behind": "ego", "distance": 35},
                 "speed": 60, "behaviours": [{"action": "keep_speed"}]}]
    if need == "cyclist":
        return [{"id": "cyclist", "kind": "bicycle", "place": {"ahead_of": "ego", "distance": 40}, "speed": 15,
                 "behaviours": [{"action": "keep_speed"}]}]
    if need == "officer":
        # it holds the ego's approach 3 s into the default plan's green (12 s red), then waves it on
        return [{"id": "officer", "kind": "police_officer", "place": {"side": "kerb", "s": length - 4},
                 "signal": [{"state": "stop", "duration": 15}, {"state": "go", "duration": 45}]}]
    if need == "oncoming_vehicle":
        return [{"id": "oncoming", "kind": "vehicle", "place": {"lane": -1, "s": length - 20}, "speed": 30,
                 "behaviours": [{"action": "keep_speed"}]}]
    if need == "merging_vehicle" and road.get("ramp"):
        return [{"id": "merger", "kind": "vehicle", "place": {"lane": 2, "s": road["ramp"]["merge_s"] - 40},
                 "speed": 60, "behaviours": [{"action": "keep_speed"}]}]
    # cross traffic (a car on a junction arm, `place: {arm: ...}`) is timed against the ego's approach and its arm
    # depends on the driving side: scripts/make_suites.py adds it per scene
    return []


def fit_emergency_scene(scenario: dict[str, Any]) -> None:
    """Keep a storyboard ambulance from driving through a slower lead in its lane (neither reacts to the other).

    The lead is put EV_LEAD_AHEAD ahead of the ego, so the ambulance has passed the ego before it gets
    there; the ambulance slows to the lead's speed EV_GAP behind it, and stops before the lead stops at
    the road's end; the ego's goal is put short of where the ambulance stops. Call it again after
    changing the road's length.
    """
    actors = scenario.get("actors") or []
    amb = next((a for a in actors if a["id"] == "ambulance"), None)
    lead = next((a for a in actors if a["id"] == "lead"), None)
    if amb is None or lead is None or amb["speed"] <= lead["speed"]:
        return
    lead["place"] = {**lead["place"], "distance": EV_LEAD_AHEAD}
    va, vl = amb["speed"] / 3.6, lead["speed"] / 3.6
    ego_s, length = scenario["ego"]["s"], scenario["road"]["length"]
    gap = amb["place"]["distance"] + EV_LEAD_AHEAD  # centre to centre at t = 0
    braking = (va - vl) ** 2 / (2 * EV_BRAKE)  # metres the ambulance gains on the lead while slowing
    slow = (gap - EV_GAP - braking) / (va - vl)
    at_end = (length - ego_s - EV_LEAD_AHEAD) / vl  # the lead reaches the dead end and stands there
    stop = at_end - 1.0
    amb["behaviours"] = [b for b in amb["behaviours"] if b["action"] == "keep_speed"] + [
        {"action": "change_speed", "to": lead["speed"], "rate": EV_BRAKE, "trigger": {"time": round(slow, 1)}},
        {"action": "stop", "rate": EV_BRAKE, "trigger": {"time": round(stop, 1)}}]
    amb_stop = length - EV_GAP - vl * 1.0 + vl * vl / (2 * EV_BRAKE)
    route = scenario["ego"]["route"]
    if "distance" in route:
        route["distance"] = min(route["distance"], int(amb_stop - EV_GAP - ego_s))


def fit_reacting_speeds(scenario: dict[str, Any]) -> None:
    """Retime a reacting actor (`reacts: true`) set faster than the road's posted limit: it drives under the limit in
    force (an emergency vehicle on call excepted), so it is set at the limit, and its start on the ego's road is
    moved so that it passes the ego's start at the same time as before, s' = s_ego + (s - s_ego) v'/v: the time gap
    to the ego at t = 0, the measure merging and give-way rules judge, is kept. Behaviour speeds above the limit
    are lowered to it. Call it again after changing the road's limit or the actor."""
    limit = (scenario.get("road") or {}).get("speed_limit")
    ego_s = (scenario.get("ego") or {}).get("s")
    for a in scenario.get("actors") or []:
        if not a.get("reacts") or not limit or (a.get("kind") == "emergency" and a.get("siren")):
            continue
        for b in a.get("behaviours") or []:
            if (b.get("speed") or 0) > limit and b.get("action") != "cross_road":
                b["speed"] = limit
        v = a.get("speed") or 0
        if v <= limit:
            continue
        place = a.get("place") or {}
        if ego_s is not None and "s" in place and not place.get("arm"):
            place["s"] = round(ego_s + (place["s"] - ego_s) * limit / v, 1)
        elif place.get("distance") is not None and not place.get("arm"):
            place["distance"] = round(place["distance"] * limit / v, 1)
        a["speed"] = limit


def render_yaml(scenario: dict[str, Any], note: str = "") -> str:
    """The scenario as block YAML, short mappings inline, with a header comment."""

    class _Dumper(yaml.SafeDumper):
        pass

    def _repr_dict(d: yaml.SafeDumper, data: dict) -> yaml.Node:
        flat = all(not isinstance(v, (dict, list)) for v in data.values()) and len(data) <= 6
        return d.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=flat)

    def _repr_list(d: yaml.SafeDumper, data: list) -> yaml.Node:
        flat = all(not isinstance(v, (dict, list)) for v in data)
        return d.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flat)

    _Dumper.add_representer(dict, _repr_dict)
    _Dumper.add_representer(list, _repr_list)
    body = yaml.dump(scenario, Dumper=_Dumper, sort_keys=False, width=120, allow_unicode=True)
    head = "".join(f"# {line}\n" for line in note.splitlines()) if note else ""
    return head + body


def compose_command(rule_ids: Sequence[str], country: str, out: Path) -> int:
    """`roadtest compose`: write the composed scenario, then load it back with the scenario loader."""
    scenario = compose_scenario(list(rule_ids), country)
    cat = load_catalogue()
    comp = merge_contexts([cat[r] for r in scenario["rules"]], country.upper())
    note = [f"roadtest compose {' '.join(rule_ids)} --country {country.upper()}",
            "facts: " + ", ".join(f"{k}={v}" for k, v in comp.facts.items())]
    for c in comp.conflicts:
        note.append(f"conflict: {c['governs']} governs over {c['yields']} ({c['reason']})")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_yaml(scenario, "\n".join(note)))
    from roadtest.dsl.loader import load_scenario_file

    load_scenario_file(out)
    print(f"wrote {out}: {scenario['level']}, rules {', '.join(scenario['rules'])}"
          + (f"; {comp.governing} governs" if comp.governing else ""))
    return 0
