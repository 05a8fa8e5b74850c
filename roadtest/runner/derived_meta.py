"""What the metrics need, derived from a third-party OpenSCENARIO file that came without roadtest's meta.json.

Such files are regulation tests whose ego controller stands in for the system under test. The route is where
the file sends its ego: one run under the scenario's own controller gives the roads it takes (its routing
actions, when it has them, else its lane followed, through the same junction exits, for the distance it
drives before the storyboard ends). The map gives the speed limits (per road stretch, as zones) and its signals
(speed-limit signs, traffic lights, stop signs, stop lines). The default rules are those that hold on any drive:
no collision with a vehicle or a vulnerable road user, and the speed limit, red light and stop sign where the
map has them. meta["derived"] says what was derived and from what.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from roadtest.bundle import Bundle
    from roadtest.sim.api import Trace
    from roadtest.sim.road.api import RoadNetworkAPI

from roadtest.names import disk_name

__all__ = ["derive_meta", "meta_from_run", "scenario_map", "store_derived", "derived_for_run", "needs_derivation", "map_scene", "default_rules", "DEFAULT_RULES",
           "LIGHT_TYPES", "STOP_TYPES", "LIMIT_TYPES"]

DEFAULT_RULES = ("no_collision_vehicle", "no_collision_vru")
LIGHT_TYPES = frozenset({"1000001", "1000002", "1000011", "1000009"})  # OpenDRIVE/StVO traffic-light signal types
STOP_TYPES = frozenset({"206", "R1-1"})  # stop sign: StVO 206, MUTCD R1-1
LIMIT_TYPES = frozenset({"274", "R2-1"})  # maximum speed: StVO 274, MUTCD R2-1
SAMPLE = 5.0  # m between speed-limit samples along a road
WAYPOINT_STEP = 2.0  # m, as meta.route.waypoints promises
MAX_SEGMENTS = 500


def needs_derivation(meta: dict[str, Any]) -> bool:
    """A bundle whose meta has neither a route nor rules (a bare .xosc, a distribution's variant)."""
    return not meta.get("route") and not meta.get("rules")


def _has_routing(xosc: Path, ego: str) -> bool:
    """Whether the file gives its ego a routing action (in Init or in a maneuver group it acts in)."""
    from roadtest.sim.xosc.parser import parse_xml

    root = parse_xml(xosc)
    for p in root.iter("Private"):
        if p.get("entityRef") == ego and p.find(".//RoutingAction") is not None:
            return True
    for mg in root.iter("ManeuverGroup"):
        if any(r.get("entityRef") == ego for r in mg.iter("EntityRef")) and mg.find(".//RoutingAction") is not None:
            return True
    return False


def _scripted_run(bundle, tick: float):
    """The file's own ego to the storyboard's end (no agent, no traffic); (trace, map)."""
    from roadtest.sim.api import SimSettings
    from roadtest.sim.embedded import EmbeddedSimulator
    from roadtest.sim.loop import LoopError, drive

    sim = EmbeddedSimulator().load(bundle, 0, SimSettings(tick=tick, traffic=False))
    try:
        drive(sim)
    except LoopError as e:
        raise e.cause from e.cause.__cause__  # the failure itself: callers tell failures apart by their type
    finally:
        sim.close()
    return sim.trace, sim.network


def _visited(trace: Trace) -> tuple[list[tuple[str, int, float]], float]:
    """The ego's (road, lane, s) per tick on the map, and the distance it drove (m)."""
    pts, dist, prev = [], 0.0, None
    for st in trace.states:
        e = st.ego
        if e is None:
            continue
        if prev is not None:
            dist += math.hypot(e.x - prev.x, e.y - prev.y)
        prev = e
        if e.lane is not None:
            pts.append((str(e.lane.road), int(e.lane.lane), float(e.lane.s)))
    return pts, dist


def _runs(pts: list[tuple[str, int, float]]):
    """The ego's stretches on one (road, lane): LaneSegments in the order it drove them."""
    from roadtest.sim.road.api import LaneSegment

    out: list[LaneSegment] = []
    start = 0
    for i in range(1, len(pts) + 1):
        if i == len(pts) or pts[i][:2] != pts[start][:2]:
            r, ln, s0 = pts[start]
            out.append(LaneSegment(r, ln, s0, pts[i - 1][2]))
            start = i
    return [s for s in out if abs(s.s_end - s.s_start) > 0.05] or out[:1]


def _lane_followed(net: RoadNetworkAPI, start: tuple[str, int, float], length: float, roads: list[str]):
    """The start lane followed for `length` m; at a fork, the successor on the next road the ego took."""
    from roadtest.sim.road.api import LaneSegment

    road, lane, s = start
    segs: list[LaneSegment] = []
    left, k = length, 0
    while left > 1e-6 and len(segs) < MAX_SEGMENTS:
        d = net.lane_direction(road, lane)
        end = net.road_length(road) if d > 0 else 0.0
        take = min(abs(end - s), left)
        segs.append(LaneSegment(road, lane, s, s + d * take))
        left -= take
        if left <= 1e-6:
            break
        nxt = net.successors(road, lane)
        if not nxt:
            break
        ahead = roads[k + 1:] if k + 1 < len(roads) else []
        choice = next((n for n in nxt if ahead and str(n[0]) == ahead[0]), nxt[0])
        if ahead and str(choice[0]) == ahead[0]:
            k += 1
        road, lane = str(choice[0]), int(choice[1])
        s = 0.0 if net.lane_direction(road, lane) > 0 else net.road_length(road)
    return segs


def _distance_asked(xosc: Path, ego: str) -> tuple[float, str] | None:
    """How far a file whose ego waits for its driver asks it to drive: scenario_runner's DrivenDistanceTest
    criterion (its distance_success), else the longest TraveledDistanceCondition on the ego; None when neither."""
    from roadtest.sim.xosc.parser import load_scenario

    sc = load_scenario(xosc)
    asked = [c.value for c in sc.criteria if c.name == "DrivenDistanceTest" and c.value > 0]
    if asked:
        return max(asked), "scenario_runner's DrivenDistanceTest criterion"
    found = []
    for cond in sc.root.iter("ByEntityCondition"):
        refs = {r.get("entityRef") for r in cond.iterfind("TriggeringEntities/EntityRef")}
        tdc = cond.find("EntityCondition/TraveledDistanceCondition")
        if ego in refs and tdc is not None:
            try:
                found.append(float(tdc.get("value", "0")))
            except ValueError:
                continue
    found = [v for v in found if v > 0]
    return (max(found), "the longest TraveledDistanceCondition on the ego") if found else None


def _route(trace: Trace, net: RoadNetworkAPI, routing: bool, xosc: Path | None = None) -> tuple[dict[str, Any], str]:
    pts, dist = _visited(trace)
    asked = _distance_asked(xosc, str(trace.info.get("ego"))) if pts and dist < 0.5 and xosc else None
    if not pts or (dist < 0.5 and asked is None):
        return {}, "none: the ego does not move on the map under the scenario's own controller"
    roads = [r for i, (r, _, _) in enumerate(pts) if i == 0 or pts[i - 1][0] != r]
    if asked is not None:
        # an ego left to its driver (scenario_runner's external control): its start lane, for what the file asks
        segs = _lane_followed(net, pts[0], asked[0], roads)
        how = f"the ego's start lane followed for the {asked[0]:.0f} m asked by {asked[1]} (the ego waits for its driver)"
    elif routing:
        segs, how = _runs(pts), "the ego's routing actions (the roads and lanes it takes under them)"
    else:
        segs, how = _lane_followed(net, pts[0], dist, roads), \
            f"the ego's start lane followed for the {dist:.0f} m it drives before the storyboard ends"
    path = net.path(segs, step=WAYPOINT_STEP)
    xy = [[float(p[0]), float(p[1])] for p in path]
    length = float(sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(xy, xy[1:])))
    last = segs[-1]
    goal = {"x": xy[-1][0], "y": xy[-1][1], "road": last.road, "lane": last.lane, "s": last.s_end}
    lanes = [{"road": g.road, "lane": g.lane, "s_start": g.s_start, "s_end": g.s_end} for g in segs]
    return {"waypoints": xy, "length": length, "lanes": lanes, "goal": goal, "exit": None}, how


def _limit_zones(net: RoadNetworkAPI, route_lanes: dict[str, int]) -> list[dict[str, Any]]:
    """Stretches of constant speed limit on every road (the route's lane on route roads, else a driving lane)."""
    zones = []
    for road in net.road_ids():
        L = net.road_length(road)
        n = max(1, int(math.ceil(L / SAMPLE)))
        cur, s0 = None, 0.0
        for i in range(n + 1):
            s = min(L, i * SAMPLE)
            lane = route_lanes.get(road)
            try:
                ids = net.lane_ids(road, min(s, L - 1e-6))
                if lane not in ids:
                    lane = next((x for x in ids if x != 0 and net.lane_type(road, x, min(s, L - 1e-6)) == "driving"),
                                None)
                v = net.speed_limit(road, lane, min(s, L - 1e-6)) if lane is not None else None
            except Exception:  # noqa: BLE001 - a stretch the map cannot answer for has no known limit
                v = None
            if v != cur or i == n:
                if cur is not None:
                    zones.append({"kind": "speed_limit", "road": road, "s_start": s0, "s_end": s, "speed_limit": cur})
                cur, s0 = v, s
    return zones


def map_scene(net: RoadNetworkAPI, route: dict[str, Any]) -> dict[str, Any]:
    route_lanes = {str(g["road"]): int(g["lane"]) for g in route.get("lanes") or []}
    signs, lights, stop_lines = [], [], []
    for sg in net.placed_signals:  # each sign where it stands, ids shared or not
        kind = str(sg.type)
        if sg.dynamic or kind in LIGHT_TYPES:
            lights.append({"id": sg.id, "signal_id": sg.id, "road": sg.road, "s": sg.s})
        elif kind in STOP_TYPES or sg.name.lower() in ("stop", "stop_sign"):
            signs.append({"id": sg.id, "kind": "stop", "road": sg.road, "s": sg.s, "t": sg.t})
        elif (kind in LIMIT_TYPES or "speed" in sg.name.lower()) and sg.value:
            signs.append({"id": sg.id, "kind": "speed_limit", "road": sg.road, "s": sg.s, "t": sg.t,
                          "value": sg.value, "unit": sg.unit or "km/h"})
    for ob in net.objects:
        if ob.type.lower().replace("_", "") == "stopline":
            stop_lines.append({"road": ob.road, "s": ob.s})
    return {"signs": signs, "lights": lights, "stop_lines": stop_lines, "zones": _limit_zones(net, route_lanes)}


def default_rules(scene: dict[str, Any], country: str | None) -> list[dict[str, Any]]:
    from roadtest.rules.catalogue_model import catalogue_dir, load_rule_file
    from roadtest.rules.in_meta import RuleInForce

    ids = list(DEFAULT_RULES)
    if any(z.get("speed_limit") for z in scene["zones"]) or any(s["kind"] == "speed_limit" for s in scene["signs"]):
        ids.append("speed_limit")
    if scene["lights"]:
        ids.append("red_light")
    if any(s["kind"] == "stop" for s in scene["signs"]):
        ids.append("stop_sign")
    return [RuleInForce.from_rule(load_rule_file(catalogue_dir() / f"{rid}.yaml"), country).to_meta() for rid in ids]


def derive_meta(bundle, tick: float = 0.05) -> dict[str, Any]:
    """meta.json for a bundle that has none, from one run of the file's own ego (see meta_from_run)."""
    trace, net = _scripted_run(bundle, tick)
    return meta_from_run(bundle, trace, net)


def scenario_map(bundle):
    """The map a scenario's LogicFile names (None without one), as its run loads it."""
    from roadtest.sim.road import load_map
    from roadtest.sim.xosc.parser import load_scenario

    logic = load_scenario(bundle.xosc).logic_file
    return load_map(logic) if logic is not None and Path(logic).is_file() else None


def meta_from_run(bundle: Bundle, trace: Trace, net: RoadNetworkAPI | None) -> dict[str, Any]:
    """Ego, route, scene and default rules from a run of the file's own ego on map `net`, and `derived` saying how."""
    ego = trace.info.get("ego")
    meta: dict[str, Any] = dict(bundle.meta)
    derived: dict[str, Any] = {"from": "the scenario file and its map (no roadtest meta.json)"}
    if net is None or ego is None:
        derived["route"] = "none: " + ("the file has no map" if net is None else "no ego found")
        meta.update({"rules": [], "derived": derived})
        if ego is not None:
            meta["ego"] = {"entity": ego}
        return meta
    route, how = _route(trace, net, _has_routing(Path(bundle.xosc), ego), Path(bundle.xosc))
    scene = map_scene(net, route)
    country = meta.get("country")
    rules = default_rules(scene, country)
    derived.update({"route": how, "speed_limits": f"{len(scene['zones'])} stretch(es) of the map's speed records"
                    + (f" and {sum(s['kind'] == 'speed_limit' for s in scene['signs'])} sign(s)" if scene["signs"] else ""),
                    "signals": {"lights": len(scene["lights"]), "stop_signs": sum(s["kind"] == "stop" for s in scene["signs"]),
                                "stop_lines": len(scene["stop_lines"])},
                    "rules": [r["id"] for r in rules]})
    meta.setdefault("driving_side", getattr(net, "driving_side", "right"))
    meta.update({"ego": {"entity": ego, **(meta.get("ego") or {})}, "route": route, "scene": {**scene, **(meta.get("scene") or {})},
                 "rules": rules, "governing": None, "derived": derived})
    return meta


def _cache(out: Path, variant: str, tick: float) -> Path:
    folder = Path(out) / "derived"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{disk_name(variant)}__t{tick:g}.meta.json"


def _store(path: Path, meta: dict[str, Any]) -> None:
    import json
    import os

    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(meta))
    os.replace(tmp, path)


def store_derived(out: Path, variant: str, tick: float, meta: dict[str, Any]) -> None:
    """Keep a meta derived from a run of the file's own ego for the variant's other runs."""
    _store(_cache(out, variant, tick), meta)


def derived_for_run(bundle, out: Path, variant: str, tick: float) -> dict[str, Any]:
    """derive_meta, computed once per (variant, tick) and kept under OUT/derived/ for the other seeds and agents."""
    import json

    path = _cache(out, variant, tick)
    if path.exists():
        try:
            return json.loads(path.read_text())
        except ValueError:  # a damaged cache entry is derived again
            pass
    meta = derive_meta(bundle, tick)
    _store(path, meta)
    return meta
