"""OpenDRIVE 1.4-1.7 reader (lxml): header, roads, planView, profiles, lanes, links, junctions,
signals and objects. Malformed or unsupported input raises MapError naming element and line.

Superelevation, crossfall, lane height and road shape are read past and ignored (z comes from
<elevation> only).
"""

from __future__ import annotations

import math
import re

from lxml import etree

from roadtest.errors import MapError
from roadtest.units import speed_si
from roadtest.sim.road.api import RoadMark, Signal
from roadtest.sim.road.geometry import Arc, Geometry, Line, ParamPoly3, Piecewise, Poly, Poly3, Spiral
from roadtest.sim.road.model import Connection, Junction, Lane, LaneSection, Link, RawObject, Road

__all__ = ["parse_xodr", "ParsedMap", "GAP_TOL", "MAX_ABS", "MAX_LENGTH", "MAX_SAMPLES"]

_REQ = object()
GAP_TOL = 0.01  # m: planView pieces must meet the next piece and the road length within this
MAX_ABS = 1e9  # no number in a real map is larger (UTM northings are ~1e7 m); larger ones overflow the cubics
MAX_LENGTH = 1e6  # m: one road longer than 1000 km is a typo, and would take minutes to sample
MAX_SAMPLES = 2_000_000  # lane-centre and reference samples (0.5 m apart) a whole map may need: about 600 MB
SAMPLE_STEP = 0.5  # m: the spacing the lane index samples at (roadtest.sim.road.index.STEP)
NEGATIVE_WIDTH_TOL = GAP_TOL  # m: a lane narrower than minus this is refused (a cubic's rounding is let through)


class ParsedMap:
    """Everything read from one file: header fields, roads by id, junctions by id."""

    def __init__(self, source: str, rule: str, roads: dict[str, Road], junctions: dict[str, Junction],
                 warnings: list[str] | None = None):
        self.source, self.rule, self.roads, self.junctions = source, rule, roads, junctions
        self.warnings = warnings or []  # inconsistencies read past, each with the rule applied


class _Ctx:
    def __init__(self, source: str):
        self.source = source
        self.warnings: list[str] = []

    def warn(self, el, msg: str) -> None:
        tag = el.tag if isinstance(el.tag, str) else "?"
        self.warnings.append(f"{self.source}:{el.sourceline or 0}: <{tag}>: {msg}")

    def err(self, el, msg: str) -> MapError:
        tag = el.tag if isinstance(el.tag, str) else "?"
        return MapError(f"{self.source}:{el.sourceline or 0}: <{tag}>: {msg}")

    def f(self, el, name: str, default=_REQ) -> float:
        raw = el.get(name)
        if raw is None or raw.strip() == "":
            if default is _REQ:
                raise self.err(el, f"missing attribute '{name}' (expected a number)")
            return default
        try:
            v = float(raw)
        except ValueError:
            raise self.err(el, f"attribute {name}={raw!r} is not a number") from None
        if not math.isfinite(v):
            raise self.err(el, f"attribute {name}={raw!r} is not finite")
        if abs(v) > MAX_ABS:
            raise self.err(el, f"attribute {name}={raw!r} is out of range (expected |{name}| <= {MAX_ABS:g})")
        return v

    def i(self, el, name: str) -> int:
        raw = el.get(name)
        try:
            v = float(raw)
        except (TypeError, ValueError):
            v = math.nan
        if not (math.isfinite(v) and v.is_integer() and abs(v) <= MAX_ABS):
            raise self.err(el, f"attribute {name}={raw!r} is not an integer lane id")
        return int(v)

    def s(self, el, name: str, default=_REQ) -> str:
        raw = el.get(name)
        if raw is None:
            if default is _REQ:
                raise self.err(el, f"missing attribute '{name}'")
            return default
        return raw.strip()

    def poly(self, el, s_attr: str = "s", base: float = 0.0) -> Poly:
        return Poly(self.f(el, s_attr) - base, self.f(el, "a", 0.0), self.f(el, "b", 0.0), self.f(el, "c", 0.0),
                    self.f(el, "d", 0.0))


_LATE_DECLARATION = re.compile(rb"\A(\xef\xbb\xbf)?((?:\s|<!--.*?-->)*?)(<\?xml\s[^>]*?\?>)", re.S)


def _declaration_first(cx: _Ctx, data: bytes) -> bytes:
    """A map whose XML declaration follows a comment is not well-formed XML, yet esmini and CARLA's map builder
    (pugixml, which skips declarations) read it: the late declaration is dropped, with a warning."""
    m = _LATE_DECLARATION.match(data)
    if m is None or not m.group(2).strip():
        return data
    if re.search(rb"encoding\s*=\s*[\"'](?!utf-?8)", m.group(3), re.I):
        raise MapError(f"{cx.source}:1: the XML declaration comes after a comment and names an encoding other "
                       "than UTF-8: put the declaration first")
    cx.warnings.append(f"{cx.source}:1: the XML declaration comes after a comment (not well-formed XML): dropped, "
                       "as esmini and CARLA's map builder read the file")
    return data[:m.start(3)] + data[m.end(3):]


def parse_xodr(data: bytes, source: str = "<string>") -> ParsedMap:
    """Parse OpenDRIVE bytes into roads and junctions."""
    cx = _Ctx(source)
    data = _declaration_first(cx, data)
    try:
        # no external entities (a map must not read other local files); libxml2 caps entity amplification
        parser = etree.XMLParser(remove_comments=True, huge_tree=True, resolve_entities=False, no_network=True)
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as e:
        raise MapError(f"{source}:{e.lineno}: not well-formed XML: {e.msg}") from None
    if root.tag != "OpenDRIVE":
        raise cx.err(root, "root element must be <OpenDRIVE>")
    header = root.find("header")
    if header is None:
        # the schema requires it, but esmini and CARLA's map builder read a map without one: so does roadtest
        cx.warnings.append(f"{source}:{root.sourceline or 0}: <OpenDRIVE> has no <header>: read as OpenDRIVE 1.x")
        header = etree.Element("header")
    if header.get("revMajor", "1") != "1":
        raise cx.err(header, f"revMajor={header.get('revMajor')!r}: only OpenDRIVE 1.x is supported")
    rule = "RHT"
    roads: dict[str, Road] = {}
    for el in root.iterfind("road"):
        road = _road(cx, el)
        if road.id in roads:
            raise cx.err(el, f"duplicate road id {road.id!r}")
        roads[road.id] = road
    if not roads:
        raise cx.err(root, "no <road> elements")
    _check_budget(cx, roads)
    rules = {r.rule for r in roads.values()}
    if rules == {"LHT"}:
        rule = "LHT"
    junctions = {}
    for el in root.iterfind("junction"):
        j = _junction(cx, el, roads)
        junctions[j.id] = j
    for road in roads.values():
        for link in (road.pred, road.succ):
            if link is None:
                continue
            table = roads if link.element_type == "road" else junctions
            if link.element_id not in table:
                # esmini's rule (the standard is silent): the link is ignored and the road ends there
                cx.warnings.append(f"{source}:{road.line}: <road id={road.id!r}>: link to unknown "
                                   f"{link.element_type} {link.element_id!r} ignored: the road ends there")
                if link is road.pred:
                    road.pred = None
                else:
                    road.succ = None
    _resolve_signal_refs(cx, root, roads)
    return ParsedMap(source, rule, roads, junctions, cx.warnings)


def _samples(road: Road) -> int:
    """How many samples the lane index takes of `road`: every section, its reference line and each lane."""
    n = 0
    for sec in road.sections:
        n += (max(2, int(math.ceil((sec.s_end - sec.s) / SAMPLE_STEP)) + 1)) * len(sec.lanes)
    return n


def _check_budget(cx: _Ctx, roads: dict[str, Road]) -> None:
    """MapError, before anything is sampled, when the map needs more than MAX_SAMPLES samples; it names the
    road that needs the most, with its length, lanes and figure."""
    counts = {rid: _samples(r) for rid, r in roads.items()}
    total = sum(counts.values())
    if total <= MAX_SAMPLES:
        return
    rid = max(counts, key=counts.get)
    road = roads[rid]
    lanes = max(len(sec.lanes) - 1 for sec in road.sections)
    raise MapError(f"{cx.source}:{road.line}: <road id={rid!r}>: length {road.length:g} m with {lanes} lane(s) needs "
                   f"{counts[rid]:,} samples at {SAMPLE_STEP:g} m; the map needs {total:,}, over the "
                   f"{MAX_SAMPLES:,}-sample limit")


def _check_widths(cx: _Ctx, el, lane: int, widths: list, length: float) -> None:
    """MapError for a <width> record that makes its lane narrower than -NEGATIVE_WIDTH_TOL within the section:
    a negative width would put the lane's outer edge inside its inner one (mirrored lanes)."""
    recs = sorted(widths, key=lambda r: r.s)
    for k, w in enumerate(recs):
        end = recs[k + 1].s if k + 1 < len(recs) else length
        span = max(end - w.s, 0.0)
        ds = [0.0, span]
        if w.d:  # the cubic's turning points, where it may dip below zero between the ends
            disc = w.c * w.c - 3.0 * w.b * w.d
            if disc >= 0:
                ds += [(-w.c + sgn * math.sqrt(disc)) / (3.0 * w.d) for sgn in (1.0, -1.0)]
        elif w.c:
            ds.append(-w.b / (2.0 * w.c))
        for x in ds:
            if 0.0 <= x <= span:
                v = w.a + x * (w.b + x * (w.c + x * w.d))
                if v < -NEGATIVE_WIDTH_TOL:
                    raise cx.err(el, f"lane {lane}: <width sOffset={w.s:g}> is {v:g} m at ds={x:g}: a lane width "
                                     "must not be negative")


def _link(cx: _Ctx, el) -> Link | None:
    if el is None:
        return None
    et = cx.s(el, "elementType", "road")
    if et not in ("road", "junction"):
        raise cx.err(el, f"elementType={et!r}: expected 'road' or 'junction'")
    cp = el.get("contactPoint")
    if et == "road" and cp not in ("start", "end"):
        raise cx.err(el, f"contactPoint={cp!r}: a link to a road needs contactPoint 'start' or 'end'")
    return Link(et, cx.s(el, "elementId"), cp)


def _geometry(cx: _Ctx, el) -> Geometry:
    base = dict(s=cx.f(el, "s"), x=cx.f(el, "x"), y=cx.f(el, "y"), hdg=cx.f(el, "hdg"), length=cx.f(el, "length"))
    if base["length"] < 0:
        raise cx.err(el, f"length={base['length']}: expected >= 0")
    kids = [k for k in el if isinstance(k.tag, str) and k.tag != "userData"]
    if len(kids) != 1:
        raise cx.err(el, "a <geometry> needs exactly one of line, arc, spiral, poly3, paramPoly3")
    k = kids[0]
    if k.tag == "line":
        return Line(**base)
    if k.tag == "arc":
        return Arc(**base, k=cx.f(k, "curvature"))
    if k.tag == "spiral":
        return Spiral(**base, curv_start=cx.f(k, "curvStart"), curv_end=cx.f(k, "curvEnd"))
    if k.tag == "poly3":
        return Poly3(**base, a=cx.f(k, "a"), b=cx.f(k, "b"), c=cx.f(k, "c"), d=cx.f(k, "d"))
    if k.tag == "paramPoly3":
        pr = k.get("pRange", "normalized")
        if pr not in ("arcLength", "normalized"):
            raise cx.err(k, f"pRange={pr!r}: expected 'arcLength' or 'normalized'")
        co = {n: cx.f(k, n) for n in ("aU", "bU", "cU", "dU", "aV", "bV", "cV", "dV")}
        return ParamPoly3(**base, **co, normalized=pr == "normalized")
    raise cx.err(k, "unsupported geometry (expected line, arc, spiral, poly3 or paramPoly3)")


def _road(cx: _Ctx, el) -> Road:
    rid = cx.s(el, "id")
    length = cx.f(el, "length")
    if not 0 < length <= MAX_LENGTH:
        raise cx.err(el, f"length={length}: expected > 0 and <= {MAX_LENGTH:g} m")
    j = el.get("junction", "-1").strip()
    rule = el.get("rule", "RHT").strip().upper()
    if rule not in ("RHT", "LHT"):
        raise cx.err(el, f"rule={rule!r}: expected RHT or LHT")
    link = el.find("link")
    pred = _link(cx, link.find("predecessor")) if link is not None else None
    succ = _link(cx, link.find("successor")) if link is not None else None
    pv = el.find("planView")
    if pv is None:
        raise cx.err(el, "missing <planView>")
    gels = sorted(pv.iterfind("geometry"), key=lambda g: cx.f(g, "s"))
    geoms = [_geometry(cx, g) for g in gels]
    if not geoms:
        raise cx.err(pv, "a <planView> needs at least one <geometry>")
    last = geoms[-1]
    if last.s + last.length > MAX_LENGTH:
        raise cx.err(gels[-1], f"s={last.s:g} + length={last.length:g} ends the planView at "
                               f"{last.s + last.length:g} m, past the {MAX_LENGTH:g} m limit of a road "
                               f"(the road's own length is {length:g})")
    if abs(last.s + last.length - length) > GAP_TOL and last.s + last.length > 0:
        # the reference line is what the planView draws: the road's length follows its geometries (the standard
        # defines the length as that of the reference line; esmini warns and goes on too)
        cx.warn(el, f"length={length:g} but the planView's geometries end at s={last.s + last.length:g}: "
                    f"the road is taken as {last.s + last.length:g} m long")
        length = last.s + last.length
    for k, g in enumerate(geoms):
        end = geoms[k + 1].s if k + 1 < len(geoms) else length
        if abs(g.s + g.length - end) > GAP_TOL:
            what = f"the next geometry starts at s={end:g}" if k + 1 < len(geoms) else f"the road length is {end:g}"
            raise cx.err(gels[k], f"s={g.s:g} + length={g.length:g} = {g.s + g.length:g} but {what} "
                                  f"(gap or overlap over {GAP_TOL} m in the planView)")
    types = []
    for t in el.iterfind("type"):
        sp = t.find("speed")
        types.append((cx.f(t, "s"), cx.s(t, "type", "unknown"), _speed(cx, sp) if sp is not None else None))
    types.sort(key=lambda r: r[0])
    ep = el.find("elevationProfile")
    elev = Piecewise([cx.poly(e) for e in ep.iterfind("elevation")] if ep is not None else [])
    lanes_el = el.find("lanes")
    if lanes_el is None:
        raise cx.err(el, "missing <lanes>")
    offset = Piecewise([cx.poly(o) for o in lanes_el.iterfind("laneOffset")])
    secs_el = sorted(lanes_el.iterfind("laneSection"), key=lambda e: cx.f(e, "s"))
    if not secs_el:
        raise cx.err(lanes_el, "<lanes> needs at least one <laneSection>")
    sections = []
    for k, se in enumerate(secs_el):
        s0 = cx.f(se, "s")
        if not -GAP_TOL <= s0 <= length + GAP_TOL:
            raise cx.err(se, f"s={s0:g} lies outside the road (length {length:g})")
        s1 = cx.f(secs_el[k + 1], "s") if k + 1 < len(secs_el) else length
        sections.append(_section(cx, se, s0, s1))
    road = Road(rid, el.get("name", ""), length, None if j in ("-1", "") else j, rule, geoms, elev, offset, sections,
                types, pred, succ, line=el.sourceline or 0)
    sigs = el.find("signals")
    if sigs is not None:
        road.signals = [_signal(cx, s, rid) for s in sigs.iterfind("signal")]
    objs = el.find("objects")
    if objs is not None:
        road.objects = [_object(cx, o) for o in objs.iterfind("object")]
        road.tunnels = [(cx.f(o, "s"), cx.f(o, "length")) for o in objs.iterfind("tunnel")]
        road.bridges = [(cx.f(o, "s"), cx.f(o, "length")) for o in objs.iterfind("bridge")]
    return road


def _speed(cx: _Ctx, el) -> float | None:
    raw = el.get("max", "")
    if raw.strip() in ("no limit", "undefined", ""):
        return None
    unit = el.get("unit", "m/s")
    if unit not in ("m/s", "km/h", "mph"):  # the speed units OpenDRIVE defines
        raise cx.err(el, f"unit={unit!r}: expected m/s, km/h or mph")
    return speed_si(cx.f(el, "max"), unit)


_NO_CROSS = {"solid", "solid solid", "curb", "edge", "grass", "concrete"}
# double lines: the first word is taken as the line on the +t (left) side, so the side that sees the
# broken line may cross
_BY_TYPE = {"solid broken": "increase", "broken solid": "decrease"}


def _mark(cx: _Ctx, el, lane_id: int) -> RoadMark:
    typ = el.get("type", "none")
    lc = el.get("laneChange")
    if lc is None or typ in _NO_CROSS:  # a solid line forbids crossing whatever the attribute says
        lc = "none" if typ in _NO_CROSS else _BY_TYPE.get(typ, "both")
    if lc not in ("both", "increase", "decrease", "none"):
        raise cx.err(el, f"laneChange={lc!r}: expected both, increase, decrease or none")
    return RoadMark(type=typ, color=el.get("color", "standard"), weight=el.get("weight", "standard"),
                    lane_change=lc, side=1 if lane_id >= 0 else -1)


def _section(cx: _Ctx, el, s0: float, s1: float) -> LaneSection:
    lanes: dict[int, Lane] = {}
    for side in ("left", "center", "right"):
        sel = el.find(side)
        if sel is None:
            continue
        for le in sel.iterfind("lane"):
            lid = cx.i(le, "id")
            if (side == "left" and lid <= 0) or (side == "right" and lid >= 0) or (side == "center" and lid != 0):
                raise cx.err(le, f"lane id {lid} does not belong in <{side}>")
            if lid in lanes:
                raise cx.err(le, f"duplicate lane id {lid}")
            widths = [cx.poly(w, "sOffset") for w in le.iterfind("width")]
            borders = [cx.poly(w, "sOffset") for w in le.iterfind("border")]
            if lid != 0 and not widths and not borders:
                raise cx.err(le, f"lane {lid} has neither <width> nor <border>")
            if widths:
                _check_widths(cx, le, lid, widths, s1 - s0)
            lk = le.find("link")
            pred = [cx.i(p, "id") for p in lk.iterfind("predecessor")] if lk is not None else []
            succ = [cx.i(p, "id") for p in lk.iterfind("successor")] if lk is not None else []
            marks = sorted(((cx.f(m, "sOffset", 0.0), _mark(cx, m, lid)) for m in le.iterfind("roadMark")),
                           key=lambda r: r[0])
            speeds = sorted(((cx.f(v, "sOffset", 0.0), _speed(cx, v)) for v in le.iterfind("speed")),
                            key=lambda r: r[0])
            lanes[lid] = Lane(lid, le.get("type", "none"), Piecewise(widths) if widths else None,
                              Piecewise(borders) if borders and not widths else None, marks, speeds, pred, succ,
                              le.get("direction", "standard"))
    if 0 not in lanes:
        lanes[0] = Lane(0, "none", None, None, [], [], [], [])
    left = sorted(i for i in lanes if i > 0)
    right = sorted((i for i in lanes if i < 0), reverse=True)
    for ids in (left, right):
        if ids and [abs(i) for i in ids] != list(range(1, len(ids) + 1)):
            raise cx.err(el, f"lane ids {ids} are not consecutive from the centre lane")
    return LaneSection(s0, s1, lanes, left, right)


def _validity(cx: _Ctx, el) -> tuple[tuple[int, int], ...]:
    return tuple((cx.i(v, "fromLane"), cx.i(v, "toLane")) for v in el.iterfind("validity"))


def _signal(cx: _Ctx, el, road: str) -> Signal:
    raw = el.get("value")
    value = cx.f(el, "value") if raw not in (None, "", "-1") else None
    ori = el.get("orientation", "none")
    if ori not in ("+", "-", "none"):
        raise cx.err(el, f"orientation={ori!r}: expected '+', '-' or 'none'")
    return Signal(id=cx.s(el, "id"), road=road, s=cx.f(el, "s"), t=cx.f(el, "t", 0.0),
                  country=el.get("country", ""), type=el.get("type", ""), subtype=el.get("subtype", "-1"),
                  value=value, unit=el.get("unit"), orientation=ori, dynamic=el.get("dynamic", "no") == "yes",
                  name=el.get("name", ""), validity=_validity(cx, el), z_offset=_opt(cx, el, "zOffset"),
                  width=_opt(cx, el, "width"), height=_opt(cx, el, "height"))


def _opt(cx: _Ctx, el, name: str) -> float | None:
    """An optional numeric attribute: None when absent or empty."""
    return cx.f(el, name) if el.get(name) not in (None, "") else None


def _object(cx: _Ctx, el) -> RawObject:
    road_c, local_c = [], []
    for ol in list(el.iterfind("outline")) + list(el.iterfind("outlines/outline")):
        for c in ol.iterfind("cornerRoad"):
            road_c.append((cx.f(c, "s"), cx.f(c, "t")))
        for c in ol.iterfind("cornerLocal"):
            local_c.append((cx.f(c, "u"), cx.f(c, "v")))
        if road_c or local_c:
            break  # the first outline only
    typ = el.get("type", "none")
    name = el.get("name", "")
    if typ == "stopLine" or (typ == "roadMark" and "stop" in name.lower()):
        typ = "stopLine"
    width = cx.f(el, "width", 0.0)
    repeats = []
    for r in el.iterfind("repeat"):
        s0 = cx.f(r, "s", cx.f(el, "s"))
        length, dist = cx.f(r, "length"), cx.f(r, "distance", 0.0)
        if length < 0 or dist < 0:
            raise cx.err(r, f"length={length}, distance={dist}: expected >= 0")
        t0 = cx.f(r, "tStart", cx.f(el, "t", 0.0))
        repeats.append((s0, length, dist, t0, cx.f(r, "tEnd", t0), cx.f(r, "widthStart", width),
                        cx.f(r, "widthEnd", cx.f(r, "widthStart", width))))
    return RawObject(id=cx.s(el, "id"), type=typ, name=name, s=cx.f(el, "s"), t=cx.f(el, "t", 0.0),
                     z=cx.f(el, "zOffset", 0.0), hdg=cx.f(el, "hdg", 0.0), length=cx.f(el, "length", 0.0),
                     width=width, radius=cx.f(el, "radius", 0.0), corners_road=road_c,
                     corners_local=local_c, line=el.sourceline or 0, repeats=repeats)


def _junction(cx: _Ctx, el, roads: dict[str, Road]) -> Junction:
    conns = []
    for c in el.iterfind("connection"):
        # a direct junction (OpenDRIVE 1.7) names linkedRoad instead of a connecting road
        inc = cx.s(c, "incomingRoad", "")
        con = cx.s(c, "connectingRoad", "") or cx.s(c, "linkedRoad", "")
        for rid in (inc, con):
            if rid not in roads:
                raise cx.err(c, f"connection names unknown road {rid!r}")
        cp = c.get("contactPoint", "start")
        if cp not in ("start", "end"):
            raise cx.err(c, f"contactPoint={cp!r}: expected 'start' or 'end'")
        links = [(cx.i(ll, "from"), cx.i(ll, "to")) for ll in c.iterfind("laneLink")]
        conns.append(Connection(cx.s(c, "id", ""), inc, con, cp, links))
    return Junction(cx.s(el, "id"), el.get("name", ""), conns)


def _resolve_signal_refs(cx: _Ctx, root, roads: dict[str, Road]) -> None:
    """Copy referenced signals onto the referencing road (same id, that road's s/t/orientation)."""
    by_id: dict[str, Signal] = {}
    seen: dict[str, int] = {}
    for r in roads.values():
        for sg in r.signals:
            by_id.setdefault(sg.id, sg)
            seen[sg.id] = seen.get(sg.id, 0) + 1
    twice = sorted(i for i, n in seen.items() if n > 1)
    if twice:
        # OpenDRIVE asks signal ids to be unique; CARLA's towns reuse them: every signal is kept where it stands, a
        # reference or a state set by id reaches the first one read
        cx.warnings.append(f"{cx.source}: {len(twice)} signal id(s) used by more than one <signal> (e.g. "
                           f"{', '.join(map(repr, twice[:3]))}): all {sum(seen[i] for i in twice)} kept")
    for rel in root.iterfind("road"):
        road = roads[rel.get("id").strip()]
        for ref in rel.iterfind("signals/signalReference"):
            sid = cx.s(ref, "id")
            if sid not in by_id:
                raise cx.err(ref, f"signalReference to unknown signal {sid!r}")
            base = by_id[sid]
            ori = ref.get("orientation", base.orientation)
            road.signals.append(Signal(id=base.id, road=road.id, s=cx.f(ref, "s"), t=cx.f(ref, "t", 0.0),
                                       country=base.country, type=base.type, subtype=base.subtype, value=base.value,
                                       unit=base.unit, orientation=ori, dynamic=base.dynamic, name=base.name,
                                       validity=_validity(cx, ref) or base.validity, z_offset=base.z_offset,
                                       width=base.width, height=base.height, reference=True))
