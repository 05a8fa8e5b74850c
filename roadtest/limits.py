"""The limit in force: the one computation of the highest speed the law allows at a place and moment.

Two parts, both read from meta.json: the posted limit (the road's limit, the last speed-limit sign passed on
the road, the limit of a zone the place is in: the lowest) and the caps of the scene's rules (fog_speed_limit
and fog_expressway below their visibility, night_speed with the sun below the horizon, school_zone_speed and
work_zone_speed inside their zones, any rule with a max_speed under its visibility_threshold). The monitors,
the expert, background traffic, the clip panel, the report's speed plot and the min-speed excuse all read
it from here. SI throughout (m/s, m); a ground-floor module: it imports only the sim API and units.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from roadtest.units import canonical_unit, speed_si, to_si

__all__ = ["Limit", "SceneLimits", "scene_limits", "param_si", "rule_cap", "sign_limit", "is_night", "travel_direction",
           "vehicle_limit", "ZONE_RULES"]


def param_si(params: Mapping[str, Any], key: str, default: float | None = None) -> float | None:
    """A rule parameter in SI units: a plain number (already SI) or {value, unit}."""
    v = params.get(key)
    if v is None:
        return default
    if isinstance(v, Mapping):
        if v.get("value") is None:
            return default
        unit = v.get("unit")
        return to_si(v["value"], unit) if unit and canonical_unit(unit) else float(v["value"])
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def is_night(env: Any) -> bool:
    """Night as night_speed reads it: the sun below the horizon (without an elevation, a dim sun)."""
    get = env.get if isinstance(env, Mapping) else (lambda k, d=None: getattr(env, k, d))
    if get("sun_elevation") is not None:
        return float(get("sun_elevation")) < 0.0
    return float(get("sun_intensity", 1.0)) < 0.2


def rule_cap(rule_id: str, params: Mapping[str, Any], visibility: float, night: bool) -> float | None:
    """The speed cap (m/s) a rule of the scene sets now from the weather and light, None when it sets none.
    Zone rules (school_zone_speed, work_zone_speed) cap by place: SceneLimits.in_force applies them."""
    p = lambda k, d=None: param_si(params, k, d)  # noqa: E731
    if rule_id == "fog_speed_limit":
        return p("fog_speed", 30 / 3.6) if visibility <= (p("visibility_threshold", 50.0) or 50.0) else None
    if rule_id == "fog_expressway":
        for i in (3, 2, 1):
            if visibility < (p(f"vis{i}") or -1.0):
                return p(f"speed{i}")
        return None
    if rule_id == "night_speed":
        return p("night_speed") if night else None
    if rule_id in ZONE_RULES:
        return None
    generic = p("max_speed") or p("speed_limit")
    threshold = p("visibility_threshold")
    return generic if generic is not None and (threshold is None or visibility <= threshold) else None


ZONE_RULES = {"school_zone_speed": ("school_zone", "school_speed"), "work_zone_speed": ("work_zone", "work_speed")}


def sign_limit(sign: Mapping[str, Any]) -> float | None:
    """The limit (m/s) a meta.scene sign posts: a speed-limit sign's value; None for any other sign."""
    k = str(sign.get("kind") or sign.get("type") or sign.get("id") or "").lower()
    if "speed" not in k or "min" in k or "end" in k or sign.get("value") is None:
        return None
    return speed_si(sign["value"], sign.get("unit"))


@dataclass(frozen=True)
class Limit:
    """A limit in force (m/s) and what sets it: "road", "sign", "zone" or a rule id; value None: none known."""

    value: float | None
    source: str = ""
    posted: float | None = None  # the posted part alone (road, sign, zone)


@dataclass(frozen=True)
class SceneLimits:
    """What of a meta.json sets limits, resolved once."""

    road_limit: float | None
    signs: tuple[tuple[str | None, float, float, int], ...]  # (road, s, m/s, +1 with s / -1 against / 0 either)
    zones: tuple[tuple[str | None, float, float, float | None, str], ...]  # (road, s0, s1, own limit, kind)
    rules: tuple[tuple[str, Mapping[str, Any]], ...]  # (rule id, params)

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any]) -> "SceneLimits":
        sc = meta.get("scene") or {}
        signs = []
        for sg in sc.get("signs") or []:
            v = sign_limit(sg)
            if v is not None:
                d = {"forward": 1, "backward": -1}.get(str(sg.get("direction")), 0)
                signs.append((None if sg.get("road") is None else str(sg["road"]), float(sg.get("s", 0.0)), v, d))
        zones = tuple((None if z.get("road") is None else str(z["road"]), float(z.get("s_start", 0.0)),
                       float(z.get("s_end", 0.0)), float(z["speed_limit"]) if z.get("speed_limit") else None,
                       str(z.get("kind", ""))) for z in sc.get("zones") or [])
        rules = tuple((str(r.get("id") if isinstance(r, Mapping) else r),
                       ((r.get("params") if isinstance(r, Mapping) else None) or {})) for r in meta.get("rules") or [])
        return cls(float(sc["speed_limit"]) if sc.get("speed_limit") else None, tuple(signs), zones, rules)

    def zone_limit(self, road: str | None, s: float) -> float | None:
        """The lowest own limit of the zones containing (road, s); None outside any or when they set none."""
        if road is None:
            return None
        lims = [lim for r, a, b, lim, _ in self.zones if lim is not None and (r is None or r == road) and a <= s <= b]
        return min(lims) if lims else None

    def last_sign(self, road: str | None, s: float, direction: int) -> float | None:
        """The limit of the nearest speed-limit sign at or behind s on `road` for travel `direction` (+1 with s)."""
        if road is None:
            return None
        best = None
        for r, ss, v, d in self.signs:
            if r is not None and r != road or d not in (0, direction):
                continue
            behind = (s - ss) * direction
            if behind >= 0 and (best is None or behind < best[0]):
                best = (behind, v)
        return best[1] if best else None

    def posted(self, road: str | None, s: float, direction: int = 1, *,
               passed: float | None | bool = False, zones: bool = True) -> tuple[float | None, str]:
        """(posted limit, its source): the lowest of road limit, last sign passed and zone limit (`zones` False:
        without it). `passed`, when given (a value or None), is the sign limit the caller latched itself instead
        of the nearest sign behind."""
        sign = self.last_sign(road, s, direction) if passed is False else passed
        best: tuple[float | None, str] = (None, "")
        for v, src in ((self.road_limit, "road"), (sign, "sign"), (self.zone_limit(road, s) if zones else None, "zone")):
            if v is not None and (best[0] is None or v < best[0]):
                best = (v, src)
        return best

    def caps(self, road: str | None, s: float, visibility: float, night: bool,
             ignore: frozenset[str] = frozenset()) -> list[tuple[float, str]]:
        """(cap, rule id) of every rule capping the speed at (road, s) now; rules in `ignore` skipped."""
        out = []
        for rid, params in self.rules:
            if rid in ignore:
                continue
            if rid in ZONE_RULES:
                kind, key = ZONE_RULES[rid]
                cap = param_si(params, key)
                if cap is not None and road is not None and any(
                        k == kind and (r is None or r == road) and a <= s <= b for r, a, b, _, k in self.zones):
                    out.append((cap, rid))
                continue
            cap = rule_cap(rid, params, visibility, night)
            if cap is not None:
                out.append((cap, rid))
        return out

    def in_force(self, road: str | None, s: float, direction: int, environment: Any, *,
                 passed: float | None | bool = False, ignore: frozenset[str] = frozenset()) -> Limit:
        """The limit in force at (road, s) travelling `direction` under `environment` (a sim Environment or the
        objects view's dict): the posted limit and every rule cap, the lowest binding."""
        get = environment.get if isinstance(environment, Mapping) else (lambda k, d=None: getattr(environment, k, d))
        vis = float(get("fog_visual_range", 1e5) or 1e5)
        posted, src = self.posted(road, s, direction, passed=passed)
        best = (posted, src)
        for cap, rid in self.caps(road, s, vis, is_night(environment), ignore):
            if best[0] is None or cap < best[0]:
                best = (cap, rid)
        return Limit(best[0], best[1], posted)


_CACHE: list[tuple[Mapping[str, Any], SceneLimits]] = []


def scene_limits(meta: Mapping[str, Any]) -> SceneLimits:
    """SceneLimits of a meta.json, remembered for the last few meta objects (callers ask once per tick)."""
    for m, sl in _CACHE:
        if m is meta:
            return sl
    sl = SceneLimits.from_meta(meta)
    _CACHE.insert(0, (meta, sl))
    del _CACHE[8:]
    return sl


def vehicle_limit(limits: SceneLimits | None, map_limit: float | None, road: str | None, s: float, direction: int,
                  environment: Any) -> float | None:
    """The limit in force (m/s) for a vehicle other than the ego (background traffic, reacting actors): the map's
    lane limit at (road, s) lowered by the scene's limit in force there (posted limit, nearest sign behind, zones,
    rule caps); None when neither knows one."""
    here = limits.in_force(road, s, direction, environment if environment is not None else {}).value \
        if limits is not None else None
    return lowest((map_limit, here))


def travel_direction(lane: int, driving_side: str = "right") -> int:
    """+1 when traffic in OpenDRIVE lane `lane` moves with increasing s (right lanes in right-hand traffic)."""
    return 1 if ((lane < 0) if driving_side != "left" else (lane > 0)) else -1


def lowest(values: Sequence[float | None]) -> float | None:
    vs = [v for v in values if v is not None]
    return min(vs) if vs else None
