"""The scenario schema: JSON Schema for editors, and the semantic checks a schema cannot express."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from roadtest.rules.catalogue_model import catalogue_dir
from roadtest.dsl.model import (ACTOR_DIMENSIONS, JUNCTION_KINDS, PEDESTRIAN_KINDS, STATIC_KINDS, Scenario,
                                lane_order, resolve_arms, resolve_placements)

__all__ = ["schema_json", "semantic_problems", "known_rule_ids", "RULES_DIR", "JUNCTION_KINDS"]

RULES_DIR = catalogue_dir()
_SIDE_KINDS = PEDESTRIAN_KINDS | STATIC_KINDS | {"bicycle"}
_EXITS = {"intersection": {"left", "straight", "right"}, "t_junction": {"left", "right"},
          "roundabout": {"left", "straight", "right"}}

Found = tuple[tuple[Any, ...], str, bool]  # (data path, message, point at the key rather than the value)


def schema_json() -> str:
    """JSON Schema of scenario files (YAML surface: km/h and degrees, as the descriptions say)."""
    schema = Scenario.model_json_schema()
    rules = schema["properties"]["rules"]
    rules["items"] = {"anyOf": [{"type": "string", "description": "Rule id."}, rules["items"]]}
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "roadtest scenario"
    return json.dumps(schema, indent=2, sort_keys=False)


def known_rule_ids() -> set[str] | None:
    """Rule ids of the catalogue (roadtest.rules.catalogue_model.load_catalogue, else roadtest/rules/catalogue/*.yaml stems).

    None when no catalogue exists at all, so rule ids cannot be checked. Cached per catalogue state
    (file names, sizes and mtimes), because parsing the catalogue costs more than a scenario.
    """
    rules = _rule_params(_stamp())
    return set(rules) if rules is not None else None


def _stamp() -> tuple[tuple[str, int, int], ...]:
    from roadtest.rules.catalogue_model import catalogue_dirs

    files = sorted(p for d in catalogue_dirs() if d.is_dir() for p in d.glob("*.yaml"))
    return tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files)


@lru_cache(maxsize=4)
def _rule_params(stamp: tuple[tuple[str, int, int], ...]) -> dict[str, frozenset[str] | None] | None:
    """Rule id -> its parameter names, from the catalogue (`stamp` keys the cache to the catalogue files)."""
    from roadtest.rules.catalogue_model import load_catalogue

    return {rid: frozenset(getattr(r, "params", None) or ()) for rid, r in load_catalogue().items()}


def _lane_ok(lane: int, scn: Scenario, arm: str | None = None) -> bool:
    return lane in lane_order(scn.road.lanes, scn.driving_side, arm)


def _lanes_text(scn: Scenario, arm: str | None = None) -> str:
    lanes = scn.road.lanes
    n_fwd, n_bwd = (lanes.forward, lanes.backward) if arm is None else (lanes.backward, lanes.forward)
    fwd = "" if not n_fwd else "1" if n_fwd == 1 else f"1..{n_fwd}"
    back = "" if not n_bwd else "-1" if n_bwd == 1 else f"-1..-{n_bwd}"
    text = f"lane {' or '.join(x for x in (fwd, back) if x)}"
    return text + (f" on the {arm} arm (lane 1 drives toward the junction)" if arm else "")


_ARMS_OF = {"intersection": ("left", "right", "opposite"), "roundabout": ("left", "right", "opposite"),
            "t_junction": ("left", "right")}


def _arm_problem(scn: Scenario, arm: str | None) -> str | None:
    """Why `arm` cannot be used on this road, or None."""
    if arm is None:
        return None
    kind = scn.road.kind
    if kind not in _ARMS_OF:
        return f"a {kind} road has no junction arms (arm needs kind intersection, t_junction or roundabout)"
    if arm not in _ARMS_OF[kind]:
        return f"a {kind} has no {arm!r} arm (expected one of {', '.join(_ARMS_OF[kind])})"
    return None


def semantic_problems(scn: Scenario, data: Any) -> list[Found]:
    """Every problem the schema cannot see: lanes, placements, overlaps, sign and rule ids."""
    return list(_road(scn, data)) + list(_ego(scn)) + list(_actors(scn, data)) + list(_rules(scn, data))


def _road(scn: Scenario, data: Any) -> Iterator[Found]:
    road, length = scn.road, scn.road.length
    from roadtest.signs.catalogue import load_signs

    signs = load_signs()
    for i, sign in enumerate(road.signs):
        where = ("road", "signs", i)
        if sign.id not in signs:
            yield where + ("id",), _unknown_sign(sign.id, signs), False
            continue
        entry = signs[sign.id]
        if entry["codes"].get(scn.country) is None:
            have = ", ".join(sorted(c for c, v in entry["codes"].items() if v))
            yield where + ("id",), f"sign {sign.id!r} has no {scn.country} code in roadtest/sign_assets/signs.yaml (expected a country among {have})", False
        if entry.get("value") == "required" and sign.value is None:
            yield where, f"sign {sign.id!r} needs a value ({entry.get('unit', '')})", False
        if entry.get("value") == "none" and sign.value is not None:
            yield where + ("value",), f"sign {sign.id!r} carries no value", False
        if sign.s > length:
            yield where + ("s",), f"s {sign.s:g} is beyond the road's end (length {length:g} m)", False
        if (why := _arm_problem(scn, sign.arm)) is not None:
            yield where + ("arm",), why, False
    for i, cw in enumerate(road.crosswalks):
        if (why := _arm_problem(scn, cw.arm)) is not None:
            yield ("road", "crosswalks", i, "arm"), why, False
    for i, tl in enumerate(road.traffic_lights):
        if (why := _arm_problem(scn, tl.arm)) is not None:
            yield ("road", "traffic_lights", i, "arm"), why, False
    if road.signal_plan is not None and road.kind not in _ARMS_OF:
        yield (("road", "signal_plan"), f"a signal plan needs a junction (kind {', '.join(_ARMS_OF)}; got {road.kind})",
               False)
    for name in ("sections", "crosswalks", "stop_lines", "traffic_lights"):
        for i, item in enumerate(getattr(road, name)):
            end = getattr(item, "s_end", getattr(item, "s", 0.0))
            if end > length:
                field = "s_end" if hasattr(item, "s_end") and name == "sections" else "s"
                yield ("road", name, i, field), f"{end:g} m is beyond the road's end (length {length:g} m)", False
    for i, line in enumerate(road.stop_lines):
        for lane in line.lanes or []:
            if not _lane_ok(lane, scn):
                yield ("road", "stop_lines", i, "lanes"), f"lane {lane} does not exist (expected {_lanes_text(scn)})", False
    ids = [t.id for t in road.traffic_lights]
    actor_ids = {a.id for a in scn.actors}
    for i, tid in enumerate(ids):
        if tid in ids[:i]:
            yield ("road", "traffic_lights", i, "id"), f"duplicate traffic light id {tid!r}", False
        elif tid in actor_ids:
            yield ("road", "traffic_lights", i, "id"), (f"traffic light id {tid!r} is also an actor's id (both name "
                                                        "a signal state in the trace; expected distinct ids)"), False
    if road.ramp is not None:
        if road.kind != "highway_merge":
            yield ("road", "ramp"), f"a ramp needs kind highway_merge (got {road.kind})", True
        elif road.ramp.merge_s + road.ramp.length > length:
            yield ("road", "ramp", "merge_s"), f"the acceleration lane ends at {road.ramp.merge_s + road.ramp.length:g} m, beyond the road's end ({length:g} m)", False
    if road.kind == "curve" and road.curve_start + road.radius * road.angle > length + 1e-6:
        yield ("road", "radius"), (f"the curve (lead-in {road.curve_start:g} m + arc {road.radius * road.angle:.1f} m) "
                                  f"is longer than the road ({length:g} m)"), False


def _ego(scn: Scenario) -> Iterator[Found]:
    ego, road = scn.ego, scn.road
    accel = road.lanes.forward + 1 if road.kind == "highway_merge" and road.ramp is not None else None
    if ego.lane == accel and road.ramp is not None:
        if not road.ramp.merge_s <= ego.s < road.ramp.merge_s + road.ramp.length:
            yield ("ego", "lane"), (f"lane {ego.lane} is the acceleration lane, from s {road.ramp.merge_s:g} to "
                                    f"{road.ramp.merge_s + road.ramp.length:g} m (got s {ego.s:g})"), False
    elif not 1 <= ego.lane <= road.lanes.forward:
        more = f" or {accel} (the acceleration lane)" if accel else ""
        yield ("ego", "lane"), f"lane {ego.lane} does not exist (expected a forward lane: {_lanes_text(scn).split(' or ')[0]}{more})", False
    if ego.s > road.length:
        yield ("ego", "s"), f"s {ego.s:g} is beyond the road's end (length {road.length:g} m)", False
    route = ego.route
    if route.exit is not None:
        if road.kind not in _EXITS:
            yield ("ego", "route", "exit"), f"an exit needs a junction road (intersection, t_junction, roundabout), got {road.kind}", False
        elif route.exit not in _EXITS[road.kind]:
            yield ("ego", "route", "exit"), f"a {road.kind} has no {route.exit!r} exit (expected {', '.join(sorted(_EXITS[road.kind]))})", False
    if route.distance is not None:
        room = road.length - ego.s if road.kind not in JUNCTION_KINDS else 2 * road.length - ego.s
        if route.distance > room + 1e-6:
            yield ("ego", "route", "distance"), f"the goal {route.distance:g} m ahead is beyond the road's end ({room:g} m left)", False
    limit = road.speed_limit or 50 / 3.6
    dist = route.distance or (road.length - ego.s + 40.0)
    if scn.expect.reach_goal and dist / (0.5 * limit) > scn.expect.timeout:
        yield ("expect", "timeout"), (f"{scn.expect.timeout:g} s is too short to drive {dist:g} m at half the "
                                      f"speed limit ({limit * 3.6:g} km/h)"), False


def _actors(scn: Scenario, data: Any) -> Iterator[Found]:
    road = scn.road
    ids = ["ego", "hero"]
    for i, a in enumerate(scn.actors):
        where = ("actors", i)
        if a.id in ids:
            yield where + ("id",), f"duplicate or reserved actor id {a.id!r}", False
        ids.append(a.id)
        p = a.place
        arm_why = _arm_problem(scn, p.arm)
        if arm_why is not None:
            yield where + ("place", "arm"), arm_why, False
        elif p.lane is not None and not _lane_ok(p.lane, scn, p.arm):
            yield where + ("place", "lane"), f"lane {p.lane} does not exist (expected {_lanes_text(scn, p.arm)})", False
        if p.s is not None and p.s > road.length:
            yield where + ("place", "s"), f"s {p.s:g} is beyond the road's end (length {road.length:g} m)", False
        if p.side is not None and a.kind not in _SIDE_KINDS:
            yield where + ("place", "side"), f"a {a.kind} goes in a lane, not on the roadside (expected lane)", False
        if a.kind in STATIC_KINDS and (a.speed > 0 or a.behaviours):
            yield where, f"a {a.kind} is static: no speed or behaviours", False
        if a.siren is not None and a.kind != "emergency":
            yield where + ("siren",), f"only an emergency vehicle has a siren (kind is {a.kind})", False
        for j, b in enumerate(a.behaviours):
            bw = where + ("behaviours", j)
            if b.action == "cross_road" and a.kind not in ("pedestrian", "bicycle", "police_officer"):
                yield bw, f"cross_road is for pedestrians and bicycles, not a {a.kind}", False
            if b.action == "cut_in" and b.target not in ids + [x.id for x in scn.actors]:
                yield bw + ("target",), f"no actor {b.target!r} to cut in front of", False
            trig = b.trigger.distance_to_position if b.trigger else None
            if trig is not None and trig.s > road.length:
                yield bw + ("trigger", "distance_to_position", "s"), f"s {trig.s:g} is beyond the road's end", False
    yield from _placements(scn)


def _placements(scn: Scenario) -> Iterator[Found]:
    known = {"ego"} | {a.id for a in scn.actors}
    where_of = {a.id: ("actors", i) for i, a in enumerate(scn.actors)}
    resolved = resolve_placements(scn)
    for a in scn.actors:
        ref = a.place.reference
        if ref is None:
            continue
        rel, target = ref
        if target not in known:
            yield where_of[a.id] + ("place", rel), f"no actor {target!r} (expected ego or one of: {', '.join(sorted(known - {'ego'})) or 'none'})", False
        elif a.id not in resolved:
            yield where_of[a.id] + ("place", rel), f"cannot place relative to {target!r}: circular reference or no lane on that side", False
        else:
            lane, side, s = resolved[a.id]
            if not 0 <= s <= scn.road.length:
                yield where_of[a.id] + ("place",), f"resolves to s {s:g}, outside the road (0..{scn.road.length:g} m)", False
    arms = resolve_arms(scn)
    placed = [("ego", "ego")] + [(a.id, a.kind) for a in scn.actors]
    for n, (aid, kind) in enumerate(placed):
        if aid not in resolved or resolved[aid][0] is None:
            continue
        lane, _, s = resolved[aid]
        for oid, okind in placed[:n]:
            if oid not in resolved or resolved[oid][0] != lane or arms.get(oid) != arms.get(aid):
                continue
            gap = (ACTOR_DIMENSIONS[kind][0] + ACTOR_DIMENSIONS[okind][0]) / 2
            if abs(resolved[oid][2] - s) < gap:
                yield where_of[aid] + ("place",), (f"overlaps {oid!r} at the start (lane {lane}, s {s:g} vs "
                                                   f"{resolved[oid][2]:g}; expected at least {gap:.1f} m apart)"), False


def raw_id_problems(data: Any) -> list[Found]:
    """Unknown rule and sign ids read from the raw data, for a file whose schema errors keep the model (and so
    semantic_problems) from being built: every located mistake of a file is reported in one pass."""
    found: list[Found] = []
    raw = data.get("rules") if isinstance(data, dict) else None
    catalogue = _rule_params(_stamp()) if isinstance(raw, list) else None
    for i, item in enumerate(raw if catalogue else []):
        rid, path = (item, ("rules", i)) if isinstance(item, str) else (
            (item.get("id"), ("rules", i, "id")) if isinstance(item, dict) else (None, ()))
        if isinstance(rid, str) and rid not in catalogue:
            found.append((path, _unknown_rule(rid, catalogue), False))
    road = data.get("road") if isinstance(data, dict) else None
    raw_signs = road.get("signs") if isinstance(road, dict) else None
    if isinstance(raw_signs, list):
        from roadtest.signs.catalogue import load_signs

        signs = load_signs()
        for i, item in enumerate(raw_signs):
            sid = item.get("id") if isinstance(item, dict) else None
            if isinstance(sid, str) and sid not in signs:
                found.append((("road", "signs", i, "id"), _unknown_sign(sid, signs), False))
    return found


def _unknown_sign(sid: str, signs: dict) -> str:
    import difflib

    close = difflib.get_close_matches(sid, list(signs), n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"expected one of {', '.join(sorted(signs))}"
    return f"unknown sign id {sid!r} ({hint})"


def _unknown_rule(rid: str, catalogue: dict) -> str:
    import difflib

    close = difflib.get_close_matches(rid, sorted(catalogue), n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"expected one of {', '.join(sorted(catalogue))}"
    return f"unknown rule id {rid!r} ({hint})"


def _rules(scn: Scenario, data: Any) -> Iterator[Found]:
    if not scn.rules:
        return
    catalogue = _rule_params(_stamp())
    if catalogue is None:
        return
    import difflib

    raw = data.get("rules") if isinstance(data, dict) else None
    for i, r in enumerate(scn.rules):
        item = raw[i] if isinstance(raw, list) and i < len(raw) else None
        if r.id not in catalogue:
            path = ("rules", i, "id") if isinstance(item, dict) else ("rules", i)
            yield path, _unknown_rule(r.id, catalogue), False
            continue
        names = catalogue[r.id]
        for key, value in r.params.items():
            where = ("rules", i, "params", key)
            if names is not None and key not in names:
                close = difflib.get_close_matches(str(key), sorted(names), n=1)
                hint = f"did you mean {close[0]!r}?" if close else f"expected one of {', '.join(sorted(names)) or 'none'}"
                yield where, f"rule {r.id!r} has no parameter {key!r} ({hint})", True
            elif isinstance(value, bool) or not isinstance(value, (int, float)):
                yield where, f"expected a number in SI units, got {value!r}", False
