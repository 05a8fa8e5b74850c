"""What stands on the road (signs, lights, stop lines, crosswalks, zones), where actors start, and the ego's route.

Everything is placed on the Layout's pieces (for the OpenDRIVE emitter) and returned as meta.json
records, so the .xodr and meta.json cannot disagree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from roadtest.dsl.model import driver_side, resolve_arms, resolve_placements
from roadtest.dsl.roads_build import ARM_IDS, SIDEWALK_WIDTH, Layout
from roadtest.dsl.roads_geom import RoadPiece
from roadtest.dsl.signal_plan import check_heads, junction_heads
from roadtest.errors import FieldError

__all__ = ["Spot", "place_scene", "resolve_places", "compute_route", "side_t", "SIGN_ID_BASE"]

SIGN_ID_BASE = 1000  # signs get numbered OpenDRIVE ids (a sign id names its kind, not one sign); lights keep their own id
END_MARGIN = 0.05  # m kept between a start position and either end of its road


@dataclass(frozen=True)
class Spot:
    """Where an entity starts: a lane (OpenDRIVE id) or a roadside point, on a road at local s."""

    road: int
    s: float  # local s on that road
    lane: int | None  # OpenDRIVE lane id; None on the roadside
    t: float  # lateral offset of the lane centre / roadside point
    x: float
    y: float
    h: float  # rad: the lane's driving direction, or the road heading on the roadside
    user_lane: int | None
    main_s: float  # s as the YAML gives it: along the main road, or along the arm from its outer end
    arm: str | None = None  # junction arm (model.Arm), None on the main road


def _extents(piece: RoadPiece, s: float) -> tuple[float, float]:
    """(left extent, right extent) of the driving lanes at s, both >= 0."""
    left = sum(ln.width for ln in piece.lanes_at(s) if ln.id > 0 and ln.type == "driving")
    right = sum(ln.width for ln in piece.lanes_at(s) if ln.id < 0 and ln.type == "driving")
    return left, right


def side_t(piece: RoadPiece, s: float, side: str, facing: str = "forward") -> float:
    """t of a roadside point (on the sidewalk) to the right/left of traffic running with (forward) or against s."""
    left, right = _extents(piece, s)
    geometric = side if facing == "forward" else ("left" if side == "right" else "right")
    return left + SIDEWALK_WIDTH / 2 if geometric == "left" else -(right + SIDEWALK_WIDTH / 2)


def _sign_code(sign_id: str, country: str) -> dict:
    from roadtest.signs.catalogue import sign_code

    return sign_code(sign_id, country)


def _fwd_validity(layout: Layout, n: int, forward: bool) -> list[tuple[int, int]]:
    sign = layout.fwd_sign if forward else -layout.fwd_sign
    a, b = sign * 1, sign * n
    return [(min(a, b), max(a, b))] if n else []


def place_scene(sc, layout: Layout) -> dict:
    """Attach signals and objects to the layout's pieces; return meta.json's `scene`."""
    road = sc.road
    n_f, n_b, w = road.lanes.forward, road.lanes.backward, road.lanes.width
    scene: dict = {"speed_limit": road.speed_limit, "signs": [], "stop_lines": [], "crosswalks": [], "lights": [],
                   "zones": [], "actors": [{"id": a.id, "kind": a.kind, "siren": a.siren_on,
                               **({"signal": [{"state": p.state, "duration": p.duration} for p in a.signal]}
                                  if a.signal else {})} for a in sc.actors]}
    for i, sign in enumerate(road.signs):
        rid, s, _ = layout.place(sign.arm, sign.s, field=f"road.signs.{i}.arm")
        piece = layout.pieces[rid]
        code = _sign_code(sign.id, sc.country)
        sides = ["kerb", "far"] if sign.side == "both" else [sign.side]
        # along the sign's own road: faces traffic driving with +s (on an arm, toward the junction is -s)
        forward = (sign.direction == "forward") == layout.runs_with_s(sign.arm)
        facing = "forward" if forward else "backward"
        for j, side in enumerate(sides):
            side = side if side == "overhead" else driver_side(side, sc.driving_side)
            if side == "overhead":
                left, right = _extents(piece, s)
                t, z = ((left / 2) if (layout.fwd_sign > 0) == forward else -(right / 2)), 5.5
            else:
                t, z = side_t(piece, s, side, facing), 2.0
            sid = SIGN_ID_BASE + 10 * i + j
            z = sign.z if sign.z is not None else z
            mount = {"width": sign.size, "height": sign.size} if sign.size is not None else {}
            piece.signals.append(dict(id=sid, s=s, t=t, z=z, **mount, country=code["country"], type=code["type"],
                                      subtype=code.get("subtype", "-1"), value=sign.value,
                                      unit=code.get("unit") if sign.value is not None else None,
                                      orientation="+" if forward else "-", name=sign.id,
                                      validity=_fwd_validity(layout, n_f if forward else n_b, forward)))
            scene["signs"].append(dict(id=sign.id, signal_id=str(sid), road=str(rid), s=s, t=t, side=side,
                                       direction=facing, arm=sign.arm, value=sign.value, unit=code.get("unit"),
                                       country_code=f"{code['country']}:{code['type']}:{code.get('subtype', '-1')}"))
    heads = junction_heads(road)
    check_heads(heads, sc.driving_side, sc.expect.timeout)
    placed = [_head_place(layout, h, n_f, n_b) for h in heads]
    stop_lines = [(*layout.main_to_road(sl.s), [layout.odr_lane(u) for u in (sl.lanes or range(1, n_f + 1))])
                  for sl in road.stop_lines] + [(rid, s, lanes) for rid, s, _, lanes in placed]
    for k, (rid, s, odr) in enumerate(stop_lines):
        piece = layout.pieces[rid]
        ts = [piece.lane_center_t(i, s) for i in odr]
        t = sum(ts) / len(ts)
        piece.objects.append(dict(id=f"stopline{k}", s=s, t=t, type="roadMark", subtype="stopLine", name="stopLine",
                                  length=0.3, width=len(odr) * w))
        scene["stop_lines"].append(dict(road=str(rid), s=s, lanes=odr))
    for k, cw in enumerate(road.crosswalks):
        rid, s, _ = layout.place(cw.arm, cw.s, field=f"road.crosswalks.{k}.arm")
        piece = layout.pieces[rid]
        left, right = _extents(piece, s)
        piece.objects.append(dict(id=f"crosswalk{k}", s=s, t=(left - right) / 2, type="crosswalk", name="crosswalk",
                                  length=cw.width, width=left + right))
        scene["crosswalks"].append(dict(road=str(rid), s_start=max(s - cw.width / 2, 0.0), s_end=s + cw.width / 2,
                                        width=cw.width, arm=cw.arm))
    for h, (rid, s, forward, lanes) in zip(heads, placed):
        tl = h.light
        piece = layout.pieces[rid]
        sid = tl.id  # the user's name is the OpenDRIVE signal id, the .xosc's trafficSignalId and the trace's key
        facing = "forward" if forward else "backward"
        piece.signals.append(dict(id=sid, s=s, t=side_t(piece, s, driver_side(tl.side, sc.driving_side), facing), z=5.0,
                                  country="OpenDRIVE", type="1000001", subtype="-1", orientation="+" if forward else "-",
                                  name=tl.id, dynamic=True, height=1.0, width=0.4,
                                  validity=_fwd_validity(layout, n_f if forward else n_b, forward)))
        scene["lights"].append(dict(id=tl.id, signal_id=str(sid), road=str(rid), s=s, offset=tl.offset,
                                    phases=[{"state": p.state, "duration": p.duration} for p in tl.phases],
                                    arm=tl.arm, turn=tl.turn, lanes=lanes))
    for z in road.sections:
        for start, rid in layout.main_split:
            piece = layout.pieces[rid]
            a, b = max(z.s_start, start), min(z.s_end, start + piece.length)
            if b > a:
                scene["zones"].append(dict(kind=z.kind, road=str(rid), s_start=a - start, s_end=b - start,
                                           speed_limit=z.speed_limit))
    return scene


def _head_place(layout: Layout, head, n_f: int, n_b: int) -> tuple[int, float, bool, list[int]]:
    """(road id, local s, faces the road's forward lanes, OpenDRIVE ids of the lanes it governs) of a light head:
    on an arm (Layout.place) it faces that arm's lanes toward the junction."""
    tl = head.light
    rid, s, _ = layout.place(tl.arm, tl.s, field=head.field + ".arm")
    forward = layout.runs_with_s(tl.arm)
    n = n_f if forward else n_b
    if n == 0:
        raise FieldError(head.field, f"{tl.id}: the {tl.arm or 'approach'} arm has no lane toward the junction")
    return rid, s, forward, [layout.place(tl.arm, tl.s, k)[2] for k in range(1, n + 1)]


def _spot(layout: Layout, user_lane: int | None, side: str | None, yaml_s: float, arm: str | None = None,
          field: str = "ego.lane") -> Spot:
    """The start spot of a YAML position (Layout.place): a lane centre heading its way, or a roadside point."""
    rid, s, lane = layout.place(arm, yaml_s, user_lane, field=field.rsplit(".", 1)[0] + ".arm")
    piece = layout.pieces[rid]
    s = min(max(s, END_MARGIN), piece.length - END_MARGIN)  # CARLA finds no waypoint at exactly s = 0 or length
    where = f"{arm} arm at s={yaml_s:.1f} m" if arm else f"s={yaml_s:.1f} m"
    if lane is not None:
        if lane not in {ln.id for ln in piece.lanes_at(s)}:
            raise FieldError(field, f"lane {user_lane}: the road has no such lane on the {where}")
        t = piece.lane_center_t(lane, s)
        x, y, h = piece.ref.point(s, t)
        h = h if lane * layout.fwd_sign > 0 else h + math.pi  # forward lanes run with s
        return Spot(rid, s, lane, t, x, y, math.atan2(math.sin(h), math.cos(h)), user_lane, yaml_s, arm)
    t = side_t(piece, s, side or "right", "forward" if layout.runs_with_s(arm) else "backward")
    x, y, h = piece.ref.point(s, t)
    return Spot(rid, s, None, t, x, y, h, None, yaml_s, arm)


def resolve_places(sc, layout: Layout) -> dict[str, Spot]:
    """Start spot of the ego ('hero') and of every actor, where dsl.model.resolve_placements (the one placement
    resolver, which validation uses too) puts them; sides are the driver's (kerb, far, left, right)."""
    raw = resolve_placements(sc)
    arms = resolve_arms(sc)
    unplaced = sorted(a.id for a in sc.actors if a.id not in raw)
    if unplaced:
        raise FieldError("actors", f"cannot place {', '.join(unplaced)}: unknown or circular reference, "
                         "or no lane on that side")
    index = {a.id: i for i, a in enumerate(sc.actors)}
    return {("hero" if k == "ego" else k): _spot(layout, lane, driver_side(side, sc.driving_side) if side else None,
                                                 s, arms.get(k), "ego.lane" if k == "ego" else f"actors.{index[k]}.place.lane")
            for k, (lane, side, s) in raw.items()}


def _sample(piece: RoadPiece, lane: int, s0: float, s1: float, step: float = 2.0) -> list[tuple[float, float]]:
    """Lane-centre points from s0 to s1, at most `step` metres apart along the lane (arcs stretch outer lanes)."""
    t_max = max(abs(piece.lane_center_t(lane, s)) for s in (s0, s1))
    stretch = max((1.0 + t_max * max(abs(g.curvature), abs(g.curvature_end or 0.0)) for g in piece.ref.segments),
                  default=1.0)
    n = max(1, math.ceil(abs(s1 - s0) * stretch / (0.98 * step)))
    pts = []
    for i in range(n + 1):
        s = s0 + (s1 - s0) * i / n
        x, y, _ = piece.ref.point(s, piece.lane_center_t(lane, s))
        pts.append((x, y))
    return pts


def compute_route(sc, layout: Layout, start: Spot) -> dict:
    """meta.json's `route`: lanes walked, waypoints every <= 2 m, length, goal and exit."""
    fs = layout.fwd_sign
    lane_user = start.user_lane or 1
    if layout.kind == "highway_merge":  # from the acceleration lane the route merges into the outermost main lane
        lane_user = min(lane_user, sc.road.lanes.forward)
    legs: list[tuple[int, int, float, float]] = []
    exit_ = None
    dist = sc.ego.route.distance
    if layout.kind in ("intersection", "t_junction", "roundabout"):
        exit_ = sc.ego.route.exit or ("straight" if "straight" in layout.movements else "right")
        if exit_ not in layout.movements:
            raise FieldError("ego.route.exit", f"a {layout.kind} has no {exit_!r} exit (expected one of "
                            f"{', '.join(sorted(layout.movements))})")
        approach = layout.pieces[ARM_IDS["approach"]]
        conn = layout.pieces[layout.movements[exit_]]
        arm = layout.pieces[ARM_IDS[exit_]]
        k = min(abs(lane_user), len(conn.sections[0][1]))
        used = (approach.length - start.s) + conn.length
        goal_s = min(max(dist - used, 1.0), arm.length - 1.0) if dist else min(30.0, arm.length - 1.0)
        legs = [(approach.id, fs * abs(lane_user), start.s, approach.length), (conn.id, fs * k, 0.0, conn.length),
                (arm.id, fs * k, 0.0, goal_s)]
    elif sc.ego.route.u_turn is not None:
        return _u_turn_route(sc, layout, start, lane_user)
    else:
        forward = lane_user > 0
        d = dist if dist else layout.main_length
        goal_main = start.main_s + d if forward else start.main_s - d
        goal_main = min(max(goal_main, 0.5), layout.main_length - 0.5)
        lo, hi = sorted((start.main_s, goal_main))
        for i, (m0, rid) in enumerate(layout.main_split):
            piece = layout.pieces[rid]
            a, b = max(lo, m0), min(hi, m0 + piece.length)
            if b > a:
                legs.append((rid, layout.odr_lane(lane_user), a - m0, b - m0))
        if not forward:
            legs = [(r, ln, b, a) for r, ln, a, b in reversed(legs)]
    return _route_meta(sc, layout, start, legs, [], exit_)


def _route_meta(sc, layout: Layout, start: Spot, legs: list[tuple[int, int, float, float]],
                turn: list[tuple[float, float]], exit_: str | None) -> dict:
    """The route dict from its legs; `turn`: points between the first leg and the rest (a U-turn's half circle)."""
    pts: list[tuple[float, float]] = []
    for k, (rid, lane, a, b) in enumerate(legs):
        for p in (turn if k == 1 else []) + _sample(layout.pieces[rid], lane, a, b):
            if not pts or math.hypot(p[0] - pts[-1][0], p[1] - pts[-1][1]) > 1e-6:
                pts.append(p)
    length = sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(pts, pts[1:]))
    rid, lane, _, s_goal = legs[-1]
    return {
        "waypoints": [[round(x, 3), round(y, 3)] for x, y in pts],
        "length": length,
        "lanes": [{"road": str(r), "lane": ln, "s_start": a, "s_end": b} for r, ln, a, b in legs],
        "goal": {"x": pts[-1][0], "y": pts[-1][1], "road": str(rid), "lane": lane, "s": s_goal},
        "exit": exit_,
        "stops": _route_stops(sc, layout, start),
    }


U_TURN_MIN = 9.0  # m between the two lane centres: a car's turning circle (about 4 m radius) with some room


def _u_turn_route(sc, layout: Layout, start: Spot, lane_user: int) -> dict:
    """Along the start lane to route.u_turn, a half circle across into the outermost oncoming lane, back to the goal."""
    if layout.kind not in ("straight", "curve") or lane_user < 0:
        raise FieldError("ego.route.u_turn", f"a U-turn route needs a straight or curve road and a forward start lane "
                                             f"(got {layout.kind}, lane {lane_user})")
    back = -sc.road.lanes.backward
    if back == 0:
        raise FieldError("ego.route.u_turn", "a one-way road has no oncoming lane to turn back into")
    u = float(sc.ego.route.u_turn)
    if not start.main_s < u < layout.main_length - U_TURN_MIN:
        raise FieldError("ego.route.u_turn", f"expected a turn between the start ({start.main_s:g} m) and "
                                             f"{layout.main_length - U_TURN_MIN:g} m, got {u:g}")
    rid, local = layout.main_to_road(u)
    piece = layout.pieces[rid]
    a_lane, b_lane = layout.odr_lane(lane_user), layout.odr_lane(back)
    (x1, y1, h), (x2, y2, _) = piece.ref.point(local, piece.lane_center_t(a_lane, local)), \
        piece.ref.point(local, piece.lane_center_t(b_lane, local))
    gap = math.hypot(x2 - x1, y2 - y1)
    if gap < U_TURN_MIN:
        raise FieldError("ego.route.u_turn", f"lanes {lane_user} and {back} are {gap:.1f} m apart; a U-turn needs at "
                                             f"least {U_TURN_MIN:g} m (start in an outer lane, or add lanes)")
    r, cx, cy = gap / 2, (x1 + x2) / 2, (y1 + y2) / 2
    ux, uy, fx, fy = (x2 - x1) / gap, (y2 - y1) / gap, math.cos(h), math.sin(h)
    turn = [(cx - r * ux * math.cos(a) + r * fx * math.sin(a), cy - r * uy * math.cos(a) + r * fy * math.sin(a))
            for a in (math.pi * k / 16 for k in range(1, 16))]
    left = float(sc.ego.route.distance) - (u - start.main_s) - math.pi * r
    goal = max(u - max(left, 1.0), 0.5)
    legs = [(rid, a_lane, start.main_s - (u - local), local), (rid, b_lane, local, max(goal - (u - local), 0.0))]
    if layout.main_to_road(start.main_s)[0] != rid or layout.main_to_road(goal)[0] != rid:
        raise FieldError("ego.route.u_turn", "the start, the turn and the goal must lie on one road piece")
    return _route_meta(sc, layout, start, legs, turn, None)


def _route_stops(sc, layout: Layout, start: Spot) -> list[dict]:
    """meta.route.stops: the stops the task asks for, as (road, local s) with their duration."""
    stop = sc.ego.route.stop
    if stop is None:
        return []
    if layout.kind not in ("straight", "curve") or not start.main_s < stop.s < layout.main_length:
        raise FieldError("ego.route.stop.s", f"expected a spot on a straight or curve road ahead of the start "
                                             f"({start.main_s:g} m) and before its end ({layout.main_length:g} m), got {stop.s:g}")
    rid, s = layout.main_to_road(stop.s)
    return [{"road": str(rid), "s": s, "duration": stop.duration}]
