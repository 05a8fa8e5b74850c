"""The one table of units roadtest converts at its surfaces (YAML, rule catalogue, OpenDRIVE, sign records).

Inside roadtest everything is SI (m, s, m/s, m/s^2, rad); a unit other than SI appears only where a user
or a file writes it, and is converted here.
"""

from __future__ import annotations

import math

__all__ = ["UNITS", "KMH", "MPH", "FT", "canonical_unit", "si_factor", "to_si", "speed_si"]

KMH = 1 / 3.6  # m/s per km/h
MPH = 0.44704  # m/s per mph (exact: 1609.344 m / 3600 s)
FT = 0.3048  # m per foot (exact)

# unit -> (its SI unit, factor to SI: value * factor); "1" is dimensionless.
UNITS: dict[str, tuple[str, float]] = {
    "km/h": ("m/s", KMH),
    "mph": ("m/s", MPH),
    "m/s": ("m/s", 1.0),
    "m": ("m", 1.0),
    "km": ("m", 1000.0),
    "ft": ("m", FT),
    "s": ("s", 1.0),
    "m/s^2": ("m/s^2", 1.0),
    "deg": ("rad", math.pi / 180),
    "rad": ("rad", 1.0),
    "1": ("1", 1.0),
}
_ALIASES = {"kmh": "km/h", "kph": "km/h", "mps": "m/s", "m/s2": "m/s^2", "degree": "deg", "degrees": "deg"}


def canonical_unit(unit: str) -> str | None:
    """The UNITS key a unit string means (case and spaces ignored, common aliases accepted), else None."""
    u = str(unit).strip().lower().replace(" ", "")
    u = _ALIASES.get(u, u)
    return u if u in UNITS else None


def si_factor(unit: str) -> float:
    """Factor from a unit to its SI unit; ValueError for a unit not in UNITS."""
    u = canonical_unit(unit)
    if u is None:
        raise ValueError(f"unknown unit {unit!r}; expected one of {', '.join(UNITS)}")
    return UNITS[u][1]


def to_si(value: float, unit: str) -> float:
    """A value in one of UNITS converted to SI."""
    return float(value) * si_factor(unit)


def speed_si(value: float, unit: str | None = None) -> float:
    """A speed as a sign or record writes it, in m/s; km/h when it names no unit (as signs are posted)."""
    u = canonical_unit(unit) if unit else "km/h"
    if u is None or UNITS[u][0] != "m/s":
        raise ValueError(f"unknown speed unit {unit!r}; expected km/h, mph or m/s")
    return float(value) * UNITS[u][1]
