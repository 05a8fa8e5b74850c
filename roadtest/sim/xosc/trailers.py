"""Towed trailers on their hitch, traffic signal controller phases, and Environment elements: world state helpers."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from roadtest.sim.api import Environment
from roadtest.sim.xosc.positions import locate, wrap

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI

__all__ = ["place_trailers", "connect", "environment_from", "SignalControllers"]


def place_trailers(entities: dict[str, Any], net: RoadNetworkAPI | None, straight: bool) -> None:
    """Each towed trailer's coupler sits on its tow's hitch, the trailer pointing at it (straight behind at init)."""
    for root in [e for e in entities.values() if e.trailer and e.tow is None]:
        tow = root
        seen = {tow.name}
        while tow.trailer and tow.trailer in entities and tow.trailer not in seen:
            tr = entities[tow.trailer]
            seen.add(tr.name)
            hx = tow.x + (tow.hitch_dx or 0.0) * math.cos(tow.h)
            hy = tow.y + (tow.hitch_dx or 0.0) * math.sin(tow.h)
            c = tr.coupler_dx or 0.0
            vx, vy = tr.x - hx, tr.y - hy
            d = math.hypot(vx, vy)
            if straight or d < 1e-9:
                vx, vy, d = -math.cos(tow.h), -math.sin(tow.h), 1.0
            tr.x, tr.y = hx + vx / d * c, hy + vy / d * c
            tr.h = wrap(math.atan2(vy, vx) + math.pi)
            tr.speed = tow.speed
            tr.lane = locate(net, tr.x, tr.y, tr.z, tr.h).lane
            tow = tr


def connect(entities: dict[str, Any], motions: dict[str, Any], net: RoadNetworkAPI | None, tow: str, trailer: str | None) -> None:
    """Hitch `trailer` to `tow`, or unhitch what `tow` pulls when trailer is None (it then stands)."""
    from roadtest.sim.xosc.motion import place

    t = entities[tow]
    if trailer is None:
        if t.trailer in entities:
            tr = entities[t.trailer]
            tr.tow, tr.speed = None, 0.0
            place(tr, motions[tr.name], locate(net, tr.x, tr.y, tr.z, tr.h), net)
        t.trailer = None
        return
    t.trailer = trailer
    entities[trailer].tow = tow


# FractionalCloudCover (1.2+): eighths of the sky covered; nineOktas is "sky obscured" (WMO code 9), full cover here
OKTAS = {f"{n}Oktas": min(i, 8) / 8 for i, n in enumerate(
    ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"))}


def environment_from(env: Any, current: Environment) -> Environment:
    """An <Environment> element (TimeOfDay, Weather, RoadCondition) applied over the current environment."""
    kw: dict[str, Any] = {}
    tod = env.find("TimeOfDay")
    if tod is not None and tod.get("dateTime"):
        kw["time_of_day"] = tod.get("dateTime")[:19]
    w = env.find("Weather")
    if w is not None:
        if w.get("fractionalCloudCover"):
            kw["cloudiness"] = OKTAS.get(w.get("fractionalCloudCover"), 0.0)
        elif w.get("cloudState"):
            kw["cloudiness"] = {"free": 0.0, "cloudy": 0.5, "overcast": 0.9, "rainy": 0.9}.get(w.get("cloudState"), 0.3)
        p = w.find("Precipitation")
        if p is not None:
            kw["precipitation"] = p.get("precipitationType", "dry")
            kw["precipitation_intensity"] = float(p.get("intensity", p.get("precipitationIntensity", "0")) or 0)
        fog = w.find("Fog")
        if fog is not None:
            kw["fog_visual_range"] = float(fog.get("visualRange", "100000"))
        sun = w.find("Sun")
        if sun is not None:
            kw["sun_elevation"] = float(sun.get("elevation", "1.0"))
            kw["sun_azimuth"] = float(sun.get("azimuth", "0"))
            lux = float(sun.get("intensity", sun.get("illuminance", "100000")) or 0)
            kw["sun_intensity"] = lux if lux <= 1.0 else min(lux / 100000.0, 1.0)  # lux: full sun is about 1e5
    rc = env.find("RoadCondition")
    if rc is not None:
        kw["friction"] = float(rc.get("frictionScaleFactor", "1.0"))
    return replace(current, **kw)


class SignalControllers:
    """TrafficSignalController phases cycling by their durations after the controller's delay."""

    def __init__(self, controllers: list[Any]):
        self.c: dict[str, dict] = {}
        for c in controllers:
            phases = [(p.get("name", ""), float(p.get("duration", "0") or 0),
                       [(s.get("trafficSignalId"), s.get("state")) for s in p.findall("TrafficSignalState")])
                      for p in c.findall("Phase")]
            self.c[c.get("name", "")] = {"phases": phases, "delay": float(c.get("delay", "0") or 0), "index": -1, "t0": 0.0}

    def phase(self, name: str) -> str | None:
        c = self.c.get(name)
        return c["phases"][c["index"]][0] if c and c["index"] >= 0 else None

    def set_phase(self, name: str, phase: str, now: float, signals: dict[str, str]) -> None:
        """TrafficSignalControllerAction: jump to a phase now."""
        c = self.c.get(name)
        for i, p in enumerate(c["phases"] if c else []):
            if p[0] == phase:
                c["index"], c["t0"] = i, now
                for sid, st in p[2]:
                    signals[sid] = st

    def update(self, t: float, signals: dict[str, str]) -> None:
        """Advance every controller to time t and write its phase's signal states."""
        for c in self.c.values():
            phases = c["phases"]
            if not phases or t < c["delay"] - 1e-9:
                continue
            if c["index"] < 0:
                c["index"], c["t0"] = 0, c["delay"]
            else:
                while t - c["t0"] >= phases[c["index"]][1] - 1e-9 and phases[c["index"]][1] > 0:
                    c["t0"] += phases[c["index"]][1]
                    c["index"] = (c["index"] + 1) % len(phases)
            for sid, st in phases[c["index"]][2]:
                signals[sid] = st
