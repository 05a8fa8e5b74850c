"""The privileged `roadtest.objects` sensor: what an expert driver would know about the scene, in the ego frame.

`objects_view(state, network, meta, ego_id)` is a pure function of one WorldState, the parsed map (or
None) and the bundle's meta.json. Positions are in the ego frame (x forward, y left, m); distances
along the route are measured from the ego's centre, positive ahead. Speeds in m/s.

Returned dict:
  time, ego {id, x, y, h, speed, length, width, road, lane, s, offset, junction, route_s, route_d,
             route_length, route_heading_error},
  environment {fog_visual_range, friction, precipitation, precipitation_intensity, wetness, sun_intensity, sun_elevation (rad)},
  actors [{id, kind, role, x, y, h, speed, vx, vy, length, width, siren, distance, route_s, route_d,
          signal (an actor's own WorldState.signals entry, e.g. a police officer's stop/go, when it has one)}],
  lights [{id, state, distance, stop_distance}], stop_lines [{road, s, distance, lanes, stop_sign}],
  signs [{id, kind, value, unit, distance, speed_limit}], crosswalks [{road, distance_start, distance_end}],
  zones [{kind, distance_start, distance_end, speed_limit, inside}],
  junctions [{id, distance_start, distance_end, inside}]: the route's stretches on connecting roads of a junction,
  route_stops [{distance, duration}]: stops the task asks for (meta.route.stops; distance to where the ego's centre stands),
  lane {road, lane, width, speed_limit, left {lane, mark, color, crossing_allowed}, right {...},
        centerline [[x, y], ...] ahead in the ego frame},
  speed_limit (m/s posted at the ego: road, last sign passed, zone, the lowest; None when unknown), base_speed_limit
  (the same before zones), limit_in_force {value (m/s), source}: roadtest.limits' limit in force (the posted limit
  lowered by the scene's rule caps: fog, night, school and work zones), speed_limits_ahead [[distance, m/s], ...],
  passed_speed_sign {distance, speed_limit (None for an end-of-limit sign)} or None: the last speed sign behind,
  driving_side, rules (meta.rules as given), governing (meta.governing).
A light's state is WorldState.signals[signal_id], else signals[id]. Without meta.scene (a foreign
.xosc) lights, stop signs (206) and speed limits (274) come from the map's own signals.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from roadtest.sim.api import ActorState, WorldState
from roadtest.sim.route_path import RoutePath, to_ego_frame, wrap_angle as _wrap
from roadtest.units import speed_si

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI

__all__ = ["ObjectsSensor", "objects_view", "lane_ahead", "sign_speed_limit", "ACTOR_RANGE"]

ACTOR_RANGE = 120.0  # m, actors farther than this from the ego are left out
FEATURE_RANGE = 250.0  # m along the route, scene features farther ahead are left out
_NO_META: Mapping[str, Any] = MappingProxyType({})  # one shared empty meta, so its memo entry is reused
_ON_ROUTE = 8.0  # m, a feature within this lateral distance of the route lies on it


def sign_speed_limit(sign: Mapping[str, Any]) -> float | None:
    """m/s of a speed-limit sign (value with unit km/h, mph or m/s; km/h when none), else None."""
    kind = str(sign.get("kind") or sign.get("id") or "").lower()
    if "speed" not in kind or "min" in kind or "end" in kind:
        return None
    value = sign.get("value")
    if value is None:
        return None
    return speed_si(value, sign.get("unit"))


def lane_ahead(network: RoadNetworkAPI, road: str, lane: int, s: float, distance: float = 50.0, step: float = 2.0) -> list[tuple[float, float]]:
    """World centre points of a lane and its first successors, from s ahead for `distance` m."""
    pts: list[tuple[float, float]] = []
    try:
        direction = network.lane_direction(road, lane)
        length = network.road_length(road)
        travelled, guard = 0.0, 0
        while travelled <= distance and guard < 400:
            guard += 1
            if -1e-6 <= s <= length + 1e-6:
                p = network.lane_to_world(road, lane, min(max(s, 0.0), length))
                pts.append((p.x, p.y))
                s += direction * step
                travelled += step
                continue
            succ = network.successors(road, lane)
            if not succ:
                break
            over = (s - length) if direction > 0 else -s
            road, lane = succ[0]
            direction = network.lane_direction(road, lane)
            length = network.road_length(road)
            s = over if direction > 0 else length - over
    except Exception:  # noqa: BLE001 - a lane the map cannot walk just ends the polyline
        return pts
    return pts


def _env(state: WorldState) -> dict[str, Any]:
    e = state.environment
    return {"fog_visual_range": e.fog_visual_range, "friction": e.friction, "precipitation": e.precipitation,
            "precipitation_intensity": e.precipitation_intensity, "wetness": e.wetness, "sun_intensity": e.sun_intensity,
            "sun_elevation": e.sun_elevation}


class _Scene:
    """Scene features of meta.json placed on the route (distances are route arc lengths)."""

    def __init__(self, network: RoadNetworkAPI | None, meta: Mapping[str, Any], route: RoutePath | None):
        self.network, self.meta, self.route = network, meta, route
        lanes = (meta.get("route") or {}).get("lanes") or []
        self.route_lane: dict[str, int] = {}
        for seg in lanes:  # a road the route drives twice (a U-turn): the lane it drives first
            self.route_lane.setdefault(str(seg.get("road")), int(seg.get("lane", -1)))
        self.memo: dict[tuple[str, float, float | None], float | None] = {}

    def place(self, road: Any, s: float, t: float | None = None) -> float | None:
        """Route arc length of (road, s); None when it is not on the route (memoised: the scene is static)."""
        key = (str(road), float(s), None if t is None else float(t))
        if key not in self.memo:
            self.memo[key] = self._place(*key)
        return self.memo[key]

    def _place(self, road: str, s: float, t: float | None) -> float | None:
        if self.route is None or self.network is None:
            return None
        try:
            if t is not None:
                p = self.network.road_to_world(road, float(s), float(t))
            elif road in self.route_lane:
                p = self.network.lane_to_world(road, self.route_lane[road], float(s))
            else:
                p = self.network.road_to_world(road, float(s), 0.0)
        except Exception:  # noqa: BLE001 - a road the map lacks is simply not on the route
            return None
        rs, rd, _ = self.route.project(p.x, p.y)
        if abs(rd) > _ON_ROUTE or rs < -5.0 or rs > self.route.length + 30.0:
            return None
        return rs


def _actors(state: WorldState, ego: ActorState, route: RoutePath | None, ego_rs: float) -> list[dict[str, Any]]:
    out = []
    c, s = math.cos(ego.h), math.sin(ego.h)
    near = []
    for a in state.actors:
        if a.id == ego.id:
            continue
        dist = math.hypot(a.x - ego.x, a.y - ego.y)
        if dist <= ACTOR_RANGE:
            near.append((a, dist))
    on_route = (route.project_many([a.x for a, _ in near], [a.y for a, _ in near], ego_rs - ACTOR_RANGE, ego_rs + ACTOR_RANGE)
                if route is not None else [None] * len(near))
    for (a, dist), proj in zip(near, on_route):
        x, y = to_ego_frame(ego.x, ego.y, ego.h, a.x, a.y)
        vx = a.vx if (a.vx or a.vy) else a.speed * math.cos(a.h)
        vy = a.vy if (a.vx or a.vy) else a.speed * math.sin(a.h)
        item = {"id": a.id, "kind": a.kind, "role": a.role, "x": x, "y": y, "h": _wrap(a.h - ego.h), "speed": a.speed,
                "vx": c * vx + s * vy, "vy": -s * vx + c * vy, "length": a.length, "width": a.width,
                "siren": bool(a.siren), "distance": dist, "route_s": None, "route_d": None}
        if a.id in state.signals:  # a police officer's stop/go
            item["signal"] = str(state.signals[a.id]).lower()
        if proj is not None:
            rs, rd, rh = proj
            item["route_s"], item["route_d"] = rs - ego_rs, rd
            item["route_heading"] = _wrap(a.h - rh)
        out.append(item)
    out.sort(key=lambda d: d["distance"])
    return out


def _ego_frame_many(ego: ActorState, pts: np.ndarray) -> np.ndarray:
    """N x 2 world points to the ego frame (to_ego_frame for many at once, same arithmetic)."""
    c, s = math.cos(ego.h), math.sin(ego.h)
    dx, dy = pts[:, 0] - ego.x, pts[:, 1] - ego.y
    return np.column_stack([c * dx + s * dy, -s * dx + c * dy])


def _lane_info(network: RoadNetworkAPI | None, ego: ActorState, match: Any, static: "_Static") -> dict[str, Any] | None:
    if network is None or match is None:
        return None
    info: dict[str, Any] = {"road": match.road, "lane": match.lane, "s": match.s, "offset": match.offset}
    try:
        info["width"] = network.lane_width(match.road, match.lane, match.s)
        info["speed_limit"] = network.speed_limit(match.road, match.lane, match.s)
        for side, (lid, mark) in network.neighbours(match.road, match.lane, match.s).items():
            allowed = None
            if mark is not None:
                try:
                    allowed = mark.crossing_allowed(side == "right" if network.lane_direction(match.road, match.lane) > 0 else side == "left")
                except Exception:  # noqa: BLE001 - a mark without the method: judge by its type
                    allowed = None
                if allowed is None:
                    allowed = "solid" not in mark.type.split()[0] if mark.type else True
            info[side] = {"lane": lid, "mark": mark.type if mark else None, "color": mark.color if mark else None,
                          "crossing_allowed": allowed}
        ahead = static.centreline(match.road, match.lane, match.s, ego.x, ego.y)
        info["centerline"] = _ego_frame_many(ego, ahead).tolist()
    except Exception:  # noqa: BLE001 - partial lane info is still useful
        pass
    return info


class _Static:
    """What does not change during a run: the route path, scene placements and lane polylines (memoised)."""

    def __init__(self, network: RoadNetworkAPI | None, meta: Mapping[str, Any]):
        self.network, self.meta = network, meta
        waypoints = (meta.get("route") or {}).get("waypoints") or []
        self.route = RoutePath(waypoints) if len(waypoints) >= 2 else None
        self.scene = _Scene(network, meta, self.route)
        self.junctions = _route_junctions(network, meta, self.scene)
        self.lanes: dict[tuple[str, int], RoutePath | None] = {}
        self._pose: tuple[float, float, float] | None = None  # the last ego pose and what it gave (an ego at rest)
        self._at_pose: tuple[Any, ...] = ()

    def ego_place(self, ego: ActorState) -> tuple[float, float, float, Any, dict[str, Any] | None]:
        """(route s, route d, route heading, lane match, lane info) of the ego; recomputed only when its pose moved."""
        pose = (ego.x, ego.y, ego.h)
        if pose != self._pose:
            rs, rd, rh = self.route.project(ego.x, ego.y) if self.route is not None else (0.0, 0.0, ego.h)
            match = None
            if self.network is not None:
                try:
                    match = self.network.locate(ego.x, ego.y, ego.h, driving_only=True)
                except Exception:  # noqa: BLE001 - off the map: no lane info
                    match = None
            self._pose, self._at_pose = None, (rs, rd, rh, match, _lane_info(self.network, ego, match, self))
            self._pose = pose
        rs, rd, rh, match, info = self._at_pose
        return rs, rd, rh, match, _copy_lane(info)

    def lane_path(self, road: str, lane: int) -> RoutePath | None:
        """The lane centre in its driving direction, sampled every metre."""
        key = (str(road), int(lane))
        if key not in self.lanes:
            try:
                pts = np.asarray(self.network.lane_polyline(road, lane, "center", 1.0), dtype=float)
                if self.network.lane_direction(road, lane) < 0:
                    pts = pts[::-1]
                self.lanes[key] = RoutePath(pts) if len(pts) >= 2 else None
            except Exception:  # noqa: BLE001 - a map without polylines: walk it point by point instead
                self.lanes[key] = None
        return self.lanes[key]

    def centreline(self, road: str, lane: int, s: float, x: float, y: float, distance: float = 50.0) -> np.ndarray:
        """World points every 2 m along the lane (then its first successors) from the point nearest (x, y)."""
        path = self.lane_path(road, lane)
        if path is None:
            return np.asarray(lane_ahead(self.network, road, lane, s, distance), dtype=float).reshape(-1, 2)
        out: list[np.ndarray] = []
        start = path.project(x, y)[0]
        for _ in range(4):
            out.append(path.points_at(np.arange(max(start, 0.0), min(path.length, start + distance) + 1e-9, 2.0)))
            distance -= path.length - start
            succ = self.network.successors(road, lane) if distance > 0 else []
            if not succ:
                break
            road, lane = succ[0]
            path = self.lane_path(road, lane)
            if path is None:
                break
            start = 0.0
        return np.concatenate(out)


def _route_junctions(network: RoadNetworkAPI | None, meta: Mapping[str, Any], placer: _Scene) -> list[tuple[str, float, float]]:
    """(junction id, route s start, route s end) of each route lane on a junction's connecting road."""
    out: list[tuple[str, float, float]] = []
    junction_of = getattr(network, "junction_of", None)  # a map stand-in without junctions has none
    if junction_of is None or placer.route is None:
        return out
    for seg in (meta.get("route") or {}).get("lanes") or []:
        road, s0, s1 = str(seg.get("road")), float(seg.get("s_start", 0.0)), float(seg.get("s_end", 0.0))
        try:
            junction = junction_of(road)
        except Exception:  # noqa: BLE001 - a road the map lacks is no junction we know of
            continue
        if junction is None:
            continue
        a, b = placer.place(road, s0), placer.place(road, s1)
        if a is not None and b is not None:
            out.append((str(junction), min(a, b), max(a, b)))
    return out


_STATIC: dict[tuple[int, int], _Static] = {}  # memo per (map, meta) object pair: a pure cache of static data


def _static(network: RoadNetworkAPI | None, meta: Mapping[str, Any]) -> _Static:
    st = _STATIC.get((id(network), id(meta)))
    if st is not None and st.network is network and st.meta is meta:
        return st
    if len(_STATIC) >= 8:
        _STATIC.clear()
    st = _STATIC[(id(network), id(meta))] = _Static(network, meta)
    return st


class ObjectsSensor:
    """The objects sensor of one run: owns the static data of its (map, meta), so no shared memo is needed."""

    def __init__(self, network: RoadNetworkAPI | None, meta: Mapping[str, Any] | None):
        self.static = _Static(network, meta if meta is not None else _NO_META)

    def __call__(self, state: WorldState, ego_id: str) -> dict[str, Any]:
        return objects_view(state, self.static.network, self.static.meta, ego_id, static=self.static)


def _copy_lane(info: dict[str, Any] | None) -> dict[str, Any] | None:
    """A copy of a lane info dict deep enough that a caller editing it cannot change the memo."""
    if info is None:
        return None
    out = dict(info)
    for side in ("left", "right"):
        if side in out:
            out[side] = dict(out[side])
    if "centerline" in out:
        out["centerline"] = [list(p) for p in out["centerline"]]
    return out


def objects_view(state: WorldState, network: RoadNetworkAPI | None, meta: Mapping[str, Any] | None, ego_id: str,
                 static: "_Static | None" = None) -> dict[str, Any]:
    """The privileged sensor reading for one tick (see the module docstring for the fields).

    `static` is the run's cache (ObjectsSensor passes its own); without it a small memo keyed by the
    (map, meta) objects' identity is used.
    """
    meta = meta if meta is not None else _NO_META
    ego = state.actor(ego_id)
    if static is None or static.network is not network or static.meta is not meta:
        static = _static(network, meta)
    route = static.route
    ego_rs, ego_rd, ego_rh, match, lane_info = static.ego_place(ego)
    view: dict[str, Any] = {
        "time": state.time,
        "ego": {"id": ego.id, "x": ego.x, "y": ego.y, "h": ego.h, "speed": ego.speed, "length": ego.length,
                "width": ego.width, "road": match.road if match else None, "lane": match.lane if match else None,
                "s": match.s if match else None, "offset": match.offset if match else None,
                "junction": match.junction if match else None, "route_s": ego_rs, "route_d": ego_rd,
                "route_length": route.length if route else None, "route_heading_error": _wrap(ego.h - ego_rh)},
        "environment": _env(state),
        "actors": _actors(state, ego, route, ego_rs),
        "lights": [], "stop_lines": [], "signs": [], "crosswalks": [], "zones": [], "junctions": [], "route_stops": [],
        "lane": lane_info,
        "driving_side": meta.get("driving_side") or getattr(network, "driving_side", None) or "right",
        "rules": list(meta.get("rules") or []),
        "governing": meta.get("governing"),
    }
    scene = meta.get("scene") or {}
    placer = static.scene

    def ahead(rs: float | None) -> float | None:
        if rs is None:
            return None
        d = rs - ego_rs
        return d if -60.0 <= d <= FEATURE_RANGE else None

    signs = []
    last_passed: tuple[float, float | None] | None = None  # (distance, limit or None for an end sign)
    for sg in scene.get("signs") or []:
        rs = placer.place(sg.get("road"), sg.get("s", 0.0))
        kind = str(sg.get("kind") or sg.get("id") or "")
        if rs is not None and rs - ego_rs <= 0.0 and "speed" in kind.lower() and "min" not in kind.lower():
            # a passed limit stays in force until the next limit or end sign, however far behind
            if last_passed is None or rs - ego_rs > last_passed[0]:
                last_passed = (rs - ego_rs, sign_speed_limit({**sg, "kind": kind}))
        d = ahead(rs)
        if d is None:
            continue
        signs.append({"id": sg.get("id"), "kind": kind, "value": sg.get("value"), "unit": sg.get("unit"), "distance": d,
                      "speed_limit": sign_speed_limit({**sg, "kind": kind})})
    view["signs"] = sorted(signs, key=lambda d: d["distance"])
    view["passed_speed_sign"] = None if last_passed is None else {"distance": last_passed[0], "speed_limit": last_passed[1]}
    lights = []
    exit_ = (meta.get("route") or {}).get("exit")
    for lt in scene.get("lights") or []:
        road = str(lt.get("road"))
        if lt.get("lanes") and road in placer.route_lane and placer.route_lane[road] not in [int(x) for x in lt["lanes"]]:
            continue  # it faces other lanes of that road (another arm's incoming traffic)
        if lt.get("turn") not in (None, "all") and exit_ is not None and lt["turn"] != exit_:
            continue  # a turn arrow for a movement the route does not take
        d = ahead(placer.place(lt.get("road"), lt.get("s", 0.0)))
        if d is None:
            continue
        sig = state.signals.get(str(lt.get("signal_id")), state.signals.get(str(lt.get("id")), "unknown"))
        lights.append({"id": lt.get("id"), "state": sig, "distance": d,
                       "stop_distance": d, "road": lt.get("road"), "s": lt.get("s")})
    stop_lines = []
    for sl in scene.get("stop_lines") or []:
        lanes = sl.get("lanes")
        road = str(sl.get("road"))
        if lanes and road in placer.route_lane and placer.route_lane[road] not in [int(x) for x in lanes]:
            continue
        d = ahead(placer.place(road, sl.get("s", 0.0)))
        if d is None:
            continue
        stop_lines.append({"road": road, "s": sl.get("s"), "distance": d, "lanes": lanes, "stop_sign": False})
    stop_lines.sort(key=lambda d: d["distance"])
    for lt in lights:  # a light's stop position is the nearest stop line up to 40 m before it
        near = [sl for sl in stop_lines if lt["distance"] - 40.0 <= sl["distance"] <= lt["distance"] + 2.0]
        if near:
            lt["stop_distance"] = max(near, key=lambda d: d["distance"])["distance"]
    stop_signs = [sg for sg in signs if sg["kind"].lower().startswith("stop") or "stop_sign" in sg["kind"].lower()]
    for sl in stop_lines:
        governed_by_light = any(abs(lt["stop_distance"] - sl["distance"]) < 1.0 for lt in lights)
        sl["stop_sign"] = (not governed_by_light) and (
            any(-5.0 <= sl["distance"] - sg["distance"] <= 40.0 for sg in stop_signs) or not lights and not stop_signs)
    for sg in stop_signs:  # a stop sign without a drawn line: stop at the sign
        if not any(-5.0 <= sl["distance"] - sg["distance"] <= 40.0 for sl in stop_lines):
            stop_lines.append({"road": None, "s": None, "distance": sg["distance"], "lanes": None, "stop_sign": True})
    view["lights"] = sorted(lights, key=lambda d: d["distance"])
    view["stop_lines"] = sorted(stop_lines, key=lambda d: d["distance"])
    for cw in scene.get("crosswalks") or []:
        a = ahead(placer.place(cw.get("road"), cw.get("s_start", 0.0)))
        b = ahead(placer.place(cw.get("road"), cw.get("s_end", cw.get("s_start", 0.0))))
        if a is None and b is None:
            continue
        a = b if a is None else a
        b = a if b is None else b
        view["crosswalks"].append({"road": cw.get("road"), "distance_start": min(a, b), "distance_end": max(a, b)})
    for zn in scene.get("zones") or []:
        a = placer.place(zn.get("road"), zn.get("s_start", 0.0))
        b = placer.place(zn.get("road"), zn.get("s_end", 0.0))
        if a is None or b is None:
            continue
        a, b = min(a, b) - ego_rs, max(a, b) - ego_rs
        if b < -5.0 or a > FEATURE_RANGE:
            continue
        view["zones"].append({"kind": zn.get("kind"), "distance_start": a, "distance_end": b,
                              "speed_limit": zn.get("speed_limit"), "inside": a <= 0.0 <= b})
    for stop in (meta.get("route") or {}).get("stops") or []:
        d = ahead(placer.place(stop.get("road"), stop.get("s", 0.0)))
        if d is not None:
            view["route_stops"].append({"distance": d, "duration": float(stop.get("duration", 0.0))})
    for jid, a, b in static.junctions:
        a, b = a - ego_rs, b - ego_rs
        if b >= -5.0 and a <= FEATURE_RANGE:
            view["junctions"].append({"id": jid, "distance_start": a, "distance_end": b, "inside": a <= 0.0 <= b})
    if not scene and network is not None and match is not None:
        _map_signals(view, state, network, match)
    _limits(view, meta, match)
    return view


def _map_signals(view: dict[str, Any], state: WorldState, network: RoadNetworkAPI, match: Any) -> None:
    """Lights, stop signs and speed-limit signs from the map's own signals (a foreign .xosc has no meta.scene)."""
    try:
        found = network.signals_for(match.road, match.lane, match.s, FEATURE_RANGE)
    except Exception:  # noqa: BLE001 - a map without signal queries gives none
        return
    for sig, dist in found:
        kind = f"{sig.type}".lower()
        if sig.dynamic or kind in ("1000001", "1000002", "traffic_light"):
            view["lights"].append({"id": sig.id, "state": state.signals.get(sig.id, "unknown"), "distance": dist,
                                   "stop_distance": dist, "road": sig.road, "s": sig.s})
        elif kind in ("206", "stop"):
            view["stop_lines"].append({"road": sig.road, "s": sig.s, "distance": dist, "lanes": None, "stop_sign": True})
        elif kind in ("274", "speed_limit") and sig.value is not None:
            limit = sign_speed_limit({"kind": "speed_limit", "value": sig.value, "unit": sig.unit or "km/h"})
            view["signs"].append({"id": sig.id, "kind": "speed_limit", "value": sig.value, "unit": sig.unit,
                                  "distance": dist, "speed_limit": limit})


def _limits(view: dict[str, Any], meta: Mapping[str, Any], match: Any) -> None:
    """Fill speed_limit, base_speed_limit, limit_in_force and speed_limits_ahead: roadtest.limits at the ego's
    place, the speed sign latched being the last one passed along the route; the map's lane limit where the
    scene states none (a foreign .xosc)."""
    from roadtest.limits import scene_limits, travel_direction

    limits = scene_limits(meta)
    passed = view.get("passed_speed_sign")
    sign = passed["speed_limit"] if passed is not None else None
    if sign is None and limits.road_limit is None:
        sign = (view.get("lane") or {}).get("speed_limit")  # a foreign .xosc: the map's lane limit stands in
    road = None if match is None else str(match.road)
    s = 0.0 if match is None else float(match.s)
    direction = travel_direction(match.lane, view["driving_side"]) if match is not None and match.lane else 1
    view["base_speed_limit"] = limits.posted(road, s, direction, passed=sign, zones=False)[0]  # what a zone lowers
    view["speed_limit"] = limits.posted(road, s, direction, passed=sign)[0]  # the posted part: speed_limit judges it
    here = limits.in_force(road, s, direction, view["environment"], passed=sign)
    view["limit_in_force"] = {"value": here.value, "source": here.source}
    ahead = [[sg["distance"], sg["speed_limit"]] for sg in view["signs"] if sg["speed_limit"] is not None and sg["distance"] > 0.0]
    ahead += [[z["distance_start"], float(z["speed_limit"])] for z in view["zones"] if not z["inside"] and z.get("speed_limit") and z["distance_start"] > 0.0]
    view["speed_limits_ahead"] = sorted(ahead)
