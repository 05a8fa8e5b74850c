"""Road builders: a scenario's `road` -> road pieces and junctions with analytic geometry (one per kind).

The main road (model.py's s) is road 1 for every kind but highway_merge, where it is split into
road 1 (before the merge), a connecting road inside junction JUNCTION_ID and road 3 (from merge_s on).
`Layout.main_to_road(s)` maps a main-road s to (road id, local s); `Layout.place(arm, s, lane)` maps a
position as the YAML gives it, on the main road or on a junction arm, to (road id, local s, OpenDRIVE lane).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from roadtest.dsl.model import JUNCTION_KINDS, centre_colour, driver_side, driving_side
from roadtest.dsl.roads_geom import LaneSpec, LinkSpec, RefLine, RoadPiece
from roadtest.errors import FieldError

__all__ = ["Connection", "JunctionSpec", "Layout", "build_layout", "mark_style", "SIDEWALK_WIDTH",
           "JUNCTION_ID", "ARM_IDS", "YAML_ARMS", "JUNCTION_KINDS"]

SIDEWALK_WIDTH = 2.0  # m
JUNCTION_ID = 1000  # no road uses it: CARLA's map builder mixes up a junction and a road of one id
ARM_IDS = {"approach": 1, "right": 2, "straight": 3, "left": 4}
YAML_ARMS = {"left": "left", "right": "right", "opposite": "straight"}  # model.Arm -> the layout's arm name
_ARM_ANGLE = {"approach": -math.pi / 2, "right": 0.0, "straight": math.pi / 2, "left": math.pi}
MERGE_JUNCTION_LENGTH = 10.0  # m of main road inside the merge junction
MERGE_TAPER = 40.0  # m over which the acceleration lane narrows to zero
CURVE_SPIRAL = 30.0  # m: longest clothoid leading into and out of a curve


def mark_style(marking: str | None, colour: str = "white") -> tuple[str, str]:
    """Model marking 'solid_solid_yellow' -> OpenDRIVE roadMark (type 'solid solid', color 'yellow'); a style
    without a colour ('solid_solid') gets `colour`."""
    if not marking or marking == "none":
        return "none", "standard"
    style, color = marking.rsplit("_", 1) if marking.endswith(("_white", "_yellow")) else (marking, colour)
    return style.replace("_", " "), color


@dataclass
class Connection:
    incoming: int
    connecting: int
    contact: str  # start | end: where the connecting road touches the incoming road
    lane_links: list[tuple[int, int]]  # (incoming lane, connecting lane)


@dataclass
class JunctionSpec:
    id: int
    name: str
    connections: list[Connection] = field(default_factory=list)


@dataclass
class Layout:
    """Every road and junction of a scenario's map, plus how to walk the ego's route across them."""

    pieces: dict[int, RoadPiece]
    junctions: list[JunctionSpec]
    fwd_sign: int  # OpenDRIVE lane id sign of forward lanes: -1 right-hand traffic, +1 left-hand
    kind: str
    main_split: list[tuple[float, int]] = field(default_factory=lambda: [(0.0, 1)])  # (main s start, road)
    movements: dict[str, int] = field(default_factory=dict)  # exit -> connecting road from the approach

    def main_to_road(self, s: float) -> tuple[int, float]:
        """Main-road s -> (road id, s on that road)."""
        road, s0 = self.main_split[0][1], 0.0
        for start, rid in self.main_split:
            if s >= start - 1e-9:
                road, s0 = rid, start
        return road, min(s - s0, self.pieces[road].length)

    @property
    def main_length(self) -> float:
        last_start, rid = self.main_split[-1]
        return last_start + self.pieces[rid].length

    def odr_lane(self, user_lane: int) -> int:
        """User lane number (1 = first forward lane) -> OpenDRIVE lane id."""
        return user_lane * self.fwd_sign

    def place(self, arm: str | None, s: float, user_lane: int | None = None,
              field: str = "arm") -> tuple[int, float, int | None]:
        """(road id, s on that road, OpenDRIVE lane id or None) of a YAML position: main-road s and user lane,
        or, on a junction arm (model.Arm), s from the arm's outer end and lane 1 driving toward the junction.

        Every arm road starts at the junction and runs outward, its forward (fwd_sign) lanes leaving the
        junction, so the arm's s is mirrored and its user lanes negated. FieldError at `field` for an arm
        the road kind does not have."""
        if arm is None:
            rid, local = self.main_to_road(s)
            return rid, local, None if user_lane is None else self.odr_lane(user_lane)
        name = YAML_ARMS.get(arm)
        if self.kind not in JUNCTION_KINDS:
            raise FieldError(field, f"a {self.kind} road has no junction arms (arm {arm!r} needs kind "
                                    f"{', '.join(JUNCTION_KINDS)})")
        if name not in ARM_IDS or ARM_IDS[name] not in self.pieces:
            have = [a for a, n in YAML_ARMS.items() if ARM_IDS[n] in self.pieces]
            raise FieldError(field, f"a {self.kind} has no {arm!r} arm (expected one of {', '.join(have)})")
        piece = self.pieces[ARM_IDS[name]]
        return piece.id, max(piece.length - s, 0.0), None if user_lane is None else -self.fwd_sign * user_lane

    def runs_with_s(self, arm: str | None) -> bool:
        """Whether a driver on `arm` heading toward the junction (the approach: along the main road) drives along +s."""
        return arm is None


def _edge_lanes(sign: int, n: int, width: float, sc, speed, outer: str | None) -> list[LaneSpec]:
    """Lanes 1..n on one side (ids sign*k) with their outer marks, then a sidewalk/shoulder if asked."""
    lanes_style, lanes_color = mark_style(sc.markings.lanes)
    edge_style, edge_color = mark_style(sc.markings.edge)
    out = []
    for k in range(1, n + 1):
        last = k == n
        out.append(LaneSpec(id=sign * k, width=width, speed=speed,
                            mark=edge_style if last else lanes_style, color=edge_color if last else lanes_color))
    if outer and n:
        out.append(LaneSpec(id=sign * (n + 1), type=outer, width=SIDEWALK_WIDTH if outer == "sidewalk" else 2.5,
                            mark="none", color="standard"))
    return out


def _center(road, country: str) -> tuple[str, str]:
    if road.lanes.backward == 0:
        return mark_style(road.markings.edge)
    return mark_style(road.markings.center or "broken", centre_colour(country))


def _sections(road, fwd_sign: int, length: float, s_offset: float, outer: str | None,
              n_fwd: int | None = None, n_bwd: int | None = None, zones: bool = True) -> list[tuple[float, list[LaneSpec]]]:
    """Lane sections of a straight piece; split where a zone with its own speed limit starts or ends."""
    n_fwd = road.lanes.forward if n_fwd is None else n_fwd
    n_bwd = road.lanes.backward if n_bwd is None else n_bwd
    cuts = {0.0}
    if zones:
        for z in road.sections:
            for b in (z.s_start - s_offset, z.s_end - s_offset):
                if 1.0 < b < length - 1.0:
                    cuts.add(b)
    out = []
    for s0 in sorted(cuts):
        speed = road.speed_limit
        for z in road.sections if zones else []:
            if z.speed_limit and z.s_start - s_offset <= s0 + 1e-6 < z.s_end - s_offset:
                speed = z.speed_limit
        lanes = (_edge_lanes(fwd_sign, n_fwd, road.lanes.width, road, speed, outer)
                 + _edge_lanes(-fwd_sign, n_bwd, road.lanes.width, road, speed, outer))
        out.append((s0, lanes))
    return out


def _piece(rid: int, name: str, ref: RefLine, sections, road, country: str, **kw) -> RoadPiece:
    cm, cc = _center(road, country)
    return RoadPiece(id=rid, name=name, ref=ref, sections=sections, center_mark=cm, center_color=cc,
                     speed=road.speed_limit, **kw)


def _zones(piece: RoadPiece, road, s_offset: float) -> None:
    for z in road.sections:
        a, b = max(z.s_start - s_offset, 0.0), min(z.s_end - s_offset, piece.length)
        if b - a > 0.1 and z.kind in ("tunnel", "bridge"):
            (piece.tunnels if z.kind == "tunnel" else piece.bridges).append((a, b - a))


def _build_linear(sc, fwd_sign: int) -> Layout:
    road = sc.road
    ref = RefLine.start(0.0, 0.0, 0.0)
    if road.kind == "straight":
        ref.line(road.length)
    else:
        # clothoid in, arc, clothoid out: the spirals add k*Ls of turn, so the arc is Ls shorter
        k = (1 if driver_side(road.direction, driving_side(sc.country)) == "left" else -1) / road.radius
        turn_len = road.radius * road.angle
        lead = min(road.curve_start, road.length)
        if lead + turn_len > road.length + 1e-6:
            raise FieldError("road", f"a {math.degrees(road.angle):.0f} deg curve of radius {road.radius:g} m after "
                            f"{lead:g} m needs a road of at least {lead + turn_len:.0f} m (length is {road.length:g})")
        ls = min(0.25 * turn_len, CURVE_SPIRAL, road.length - lead - turn_len)
        if lead > 0:
            ref.line(lead)
        if ls >= 1.0:
            ref.spiral(ls, 0.0, k).arc(turn_len - ls, k).spiral(ls, k, 0.0)
        else:  # no room left for clothoids: a plain arc
            ls = 0.0
            ref.arc(turn_len, k)
        if road.length - lead - turn_len - ls > 0.01:
            ref.line(road.length - lead - turn_len - ls)
    piece = _piece(1, "main", ref, _sections(road, fwd_sign, road.length, 0.0, "sidewalk"), road, sc.country)
    _zones(piece, road, 0.0)
    return Layout(pieces={1: piece}, junctions=[], fwd_sign=fwd_sign, kind=road.kind)


def _arm_point(angle: float, r: float) -> tuple[float, float]:
    return r * math.cos(angle), r * math.sin(angle)


def _junction_radius(road) -> float:
    return max(road.lanes.forward, road.lanes.backward) * road.lanes.width + SIDEWALK_WIDTH + 4.0


def _turn_path(ref: RefLine, h_in: float, h_out: float, r: float) -> None:
    """Quarter arcs of radius r (turns) or a straight 2r line between two arm ends of a plain junction."""
    d = (h_out - h_in + math.pi) % (2 * math.pi) - math.pi
    if abs(d) < 1e-6:
        ref.line(2 * r)
    else:
        ref.arc(r * abs(d), math.copysign(1.0 / r, d))


def _ring_path(ref: RefLine, h_in: float, h_out: float, big_r: float, ring_r: float, ccw: int) -> None:
    """Entry arc tangent onto the ring, the ring arc, and the mirrored exit arc (roundabout movement)."""
    r_e = (big_r ** 2 - ring_r ** 2) / (2 * ring_r)
    phi = math.atan2(big_r, r_e)
    delta = math.atan2(r_e, big_r)
    pos_in, pos_out = h_in + math.pi, h_out  # direction of the arm from the centre
    sweep = (ccw * (pos_out - pos_in) - 2 * delta) % (2 * math.pi)
    ref.arc(r_e * phi, -ccw / r_e)
    ref.arc(ring_r * sweep, ccw / ring_r)
    ref.arc(r_e * phi, -ccw / r_e)


def _build_junction(sc, fwd_sign: int) -> Layout:
    road = sc.road
    kind = road.kind
    arms = ["approach", "right", "left"] + ([] if kind == "t_junction" else ["straight"])
    ring = kind == "roundabout"
    nw = max(road.lanes.forward, road.lanes.backward) * road.lanes.width
    big_r = (road.radius + nw + 12.0) if ring else _junction_radius(road)
    pieces: dict[int, RoadPiece] = {}
    n_f, n_b = road.lanes.forward, road.lanes.backward
    for arm in arms:
        rid, ang = ARM_IDS[arm], _ARM_ANGLE[arm]
        if arm == "approach":
            x, y = _arm_point(ang, big_r + road.length)
            ref = RefLine.start(x, y, ang + math.pi).line(road.length)
            p = _piece(rid, arm, ref, _sections(road, fwd_sign, road.length, 0.0, "sidewalk"), road, sc.country,
                       successor=LinkSpec("junction", JUNCTION_ID))
            _zones(p, road, 0.0)
        else:
            x, y = _arm_point(ang, big_r)
            ref = RefLine.start(x, y, ang).line(road.length)
            p = _piece(rid, arm, ref, _sections(road, fwd_sign, road.length, 0.0, "sidewalk", zones=False), road,
                       sc.country, predecessor=LinkSpec("junction", JUNCTION_ID))
        pieces[rid] = p
    junction = JunctionSpec(JUNCTION_ID, kind)
    movements: dict[str, int] = {}
    next_id = 100
    for a in arms:
        for b in arms:
            if a == b:
                continue
            ra, rb = pieces[ARM_IDS[a]], pieces[ARM_IDS[b]]
            if a == "approach":
                x, y, h_in = ra.ref.end()
                in_sign, contact_in, n_in = fwd_sign, "end", n_f
            else:
                x, y, h = ra.ref.pose(0.0)
                h_in, in_sign, contact_in, n_in = h + math.pi, -fwd_sign, "start", n_b
            if b == "approach":
                h_out = rb.ref.end()[2] + math.pi
                out_sign, contact_out, n_out = -fwd_sign, "end", n_b
            else:
                h_out = rb.ref.pose(0.0)[2]
                out_sign, contact_out, n_out = fwd_sign, "start", n_f
            n = min(n_in, n_out)
            if n == 0:
                continue
            ref = RefLine.start(x, y, h_in)
            if ring:
                _ring_path(ref, h_in, h_out, big_r, road.radius, ccw=-fwd_sign)
            else:
                _turn_path(ref, h_in, h_out, big_r)
            lanes = []
            style, color = mark_style(road.markings.lanes)
            for k in range(1, n + 1):
                lanes.append(LaneSpec(id=fwd_sign * k, width=road.lanes.width, speed=road.speed_limit,
                                      mark="none" if k == n else style, color=color,
                                      predecessor=in_sign * k, successor=out_sign * k))
            cid = next_id
            next_id += 1
            pieces[cid] = RoadPiece(id=cid, name=f"{a}->{b}", ref=ref, sections=[(0.0, lanes)], center_mark="none",
                                    center_color="standard", junction=JUNCTION_ID, speed=road.speed_limit,
                                    predecessor=LinkSpec("road", ra.id, contact_in),
                                    successor=LinkSpec("road", rb.id, contact_out))
            junction.connections.append(Connection(ra.id, cid, "start", [(in_sign * k, fwd_sign * k) for k in range(1, n + 1)]))
            if a == "approach":
                movements[b] = cid
    return Layout(pieces=pieces, junctions=[junction], fwd_sign=fwd_sign, kind=kind, movements=movements)


def _build_merge(sc, fwd_sign: int) -> Layout:
    road = sc.road
    ramp = road.ramp
    if ramp is None:
        raise FieldError("road.ramp", "highway_merge needs a ramp {merge_s, length}")
    lj = min(MERGE_JUNCTION_LENGTH, ramp.merge_s / 2)
    a_len = ramp.merge_s - lj
    b_len = road.length - ramp.merge_s
    taper = min(MERGE_TAPER, b_len - ramp.length)
    if lj < 1.0 or taper < 0.0:
        raise FieldError("road.ramp", f"expected merge_s >= 2 m and merge_s + length <= {road.length:g} m "
                        f"(got merge_s {ramp.merge_s:g}, length {ramp.length:g})")
    w, n_f, n_b = road.lanes.width, road.lanes.forward, road.lanes.backward
    outer_bwd = "shoulder"
    pieces: dict[int, RoadPiece] = {}
    a = _piece(1, "main_before_merge", RefLine.start(0, 0, 0).line(a_len),
               _sections(road, fwd_sign, a_len, 0.0, None), road, sc.country, successor=LinkSpec("junction", JUNCTION_ID))
    _zones(a, road, 0.0)
    # the junction's main connecting road continues the main road's lanes
    c_lanes = [ln for ln in _sections(road, fwd_sign, lj, 0.0, None, zones=False)[0][1]]
    for ln in c_lanes:
        ln.predecessor, ln.successor = ln.id, ln.id
    c = _piece(2, "main_in_merge", RefLine.start(a_len, 0, 0).line(lj), [(0.0, c_lanes)], road, sc.country,
               junction=JUNCTION_ID, predecessor=LinkSpec("road", 1, "end"), successor=LinkSpec("road", 3, "start"))
    # road 3: main lanes plus the acceleration lane, which then tapers out
    b_secs = []
    accel_id = fwd_sign * (n_f + 1)
    steps = [(0.0, None)] + ([(ramp.length, 0.0)] if taper >= 1.0 else [])
    if ramp.length + max(taper, 0.0) < b_len - 1.0:
        steps.append((ramp.length + (taper if taper >= 1.0 else 0.0), -1.0))
    for s0, width_end in steps:
        lanes = _edge_lanes(fwd_sign, n_f, w, road, road.speed_limit, None) + \
            _edge_lanes(-fwd_sign, n_b, w, road, road.speed_limit, outer_bwd if n_b else None)
        if width_end is None or width_end == 0.0:
            edge_style, edge_color = mark_style(road.markings.edge)
            lanes[n_f - 1].mark, lanes[n_f - 1].color = "broken", "white"
            lanes.insert(n_f, LaneSpec(id=accel_id, width=w, width_end=width_end, speed=road.speed_limit,
                                       mark=edge_style, color=edge_color))
        b_secs.append((s0, lanes))
    b = _piece(3, "main_after_merge", RefLine.start(ramp.merge_s, 0, 0).line(b_len), b_secs, road, sc.country,
               predecessor=LinkSpec("junction", JUNCTION_ID))
    _zones(b, road, ramp.merge_s)
    # on-ramp (road 4) arrives parallel to the main road beside its outermost forward lane
    side = fwd_sign  # +1: ramp on the left (left-hand traffic)
    t_ramp = side * n_f * w
    alpha, r_ramp, l_line = 0.2, 150.0, 60.0
    ex, ey = a_len, t_ramp
    ax = ex - r_ramp * math.sin(alpha)
    ay = ey + side * r_ramp * (1 - math.cos(alpha))
    sx = ax - l_line * math.cos(alpha)
    sy = ay + side * l_line * math.sin(alpha)
    ramp_ref = RefLine.start(sx, sy, -side * alpha).line(l_line).arc(r_ramp * alpha, side / r_ramp)
    style, color = mark_style(road.markings.edge)
    ramp_lanes = [LaneSpec(id=fwd_sign, width=w, speed=road.speed_limit, mark=style, color=color)]
    r = RoadPiece(id=4, name="on_ramp", ref=ramp_ref, sections=[(0.0, ramp_lanes)], center_mark=style,
                  center_color=color, speed=road.speed_limit, successor=LinkSpec("junction", JUNCTION_ID))
    rc_lane = LaneSpec(id=fwd_sign, width=w, speed=road.speed_limit, mark="none", color="standard",
                       predecessor=fwd_sign, successor=accel_id)
    rc = RoadPiece(id=5, name="ramp_in_merge", ref=RefLine.start(a_len, t_ramp, 0).line(lj), sections=[(0.0, [rc_lane])],
                   center_mark="none", center_color="standard", junction=JUNCTION_ID, speed=road.speed_limit,
                   predecessor=LinkSpec("road", 4, "end"), successor=LinkSpec("road", 3, "start"))
    pieces.update({1: a, 2: c, 3: b, 4: r, 5: rc})
    fwd_links = [(fwd_sign * k, fwd_sign * k) for k in range(1, n_f + 1)]
    junction = JunctionSpec(JUNCTION_ID, "merge", [
        Connection(1, 2, "start", fwd_links),
        Connection(4, 5, "start", [(fwd_sign, fwd_sign)]),
    ])
    if n_b:
        junction.connections.append(Connection(3, 2, "end", [(-fwd_sign * k, -fwd_sign * k) for k in range(1, n_b + 1)]))
    return Layout(pieces=pieces, junctions=[junction], fwd_sign=fwd_sign, kind="highway_merge",
                  main_split=[(0.0, 1), (a_len, 2), (ramp.merge_s, 3)])


def build_layout(sc) -> Layout:
    """The map of a scenario (model.Scenario): pieces and junctions for its road kind."""
    fwd_sign = 1 if sc.driving_side == "left" else -1
    kind = sc.road.kind
    if kind in ("straight", "curve"):
        return _build_linear(sc, fwd_sign)
    if kind in ("intersection", "t_junction", "roundabout"):
        layout = _build_junction(sc, fwd_sign)
    elif kind == "highway_merge":
        layout = _build_merge(sc, fwd_sign)
    else:
        raise FieldError("road.kind", f"unsupported road kind {kind!r}")
    assert not {j.id for j in layout.junctions} & set(layout.pieces), "a junction id is a road id"
    return layout
