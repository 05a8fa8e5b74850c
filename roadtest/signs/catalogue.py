"""The sign catalogue (roadtest/sign_assets/signs.yaml, package data): sign ids, meanings and OpenDRIVE codes per country.

Ground floor: the DSL (to place signs), the rules (to name the signs a rule needs), the faces, the exam and the
agents read it; it imports nothing of roadtest but the error root.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml

from roadtest.errors import UserError

__all__ = ["SIGNS_FILE", "load_signs", "sign_code", "sign_ids", "countries"]

SIGNS_FILE = Path(str(files("roadtest").joinpath("sign_assets", "signs.yaml")))
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml where installed: the same data, faster


@lru_cache(maxsize=None)
def _load(path: Path) -> dict[str, dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        data = yaml.load(f, Loader=_LOADER)
    return data["signs"]


def load_signs(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """Sign id -> {meaning, value: required|optional|none, unit?, codes {country: {type, subtype, note?} | None}}."""
    return _load(Path(path) if path else SIGNS_FILE)


def sign_ids() -> frozenset[str]:
    """Every sign id in the catalogue."""
    return frozenset(load_signs())


def countries() -> tuple[str, ...]:
    """Countries roadtest supports: those the sign catalogue gives codes for (sign style and driving side)."""
    return tuple(sorted({c for entry in load_signs().values() for c in (entry.get("codes") or {})}))


# names people write for a country that are not its ISO 3166 alpha-2 code: the common slip, then the alpha-3 codes
_COUNTRY_ALIASES = {"UK": "GB", "EN": "GB", "ENG": "GB", "GBR": "GB", "DEU": "DE", "GER": "DE", "FRA": "FR", "JPN": "JP",
                    "CHN": "CN", "PRC": "CN", "USA": "US"}


def suggest_country(code: object) -> str | None:
    """The supported ISO 3166 alpha-2 code someone writing `code` most likely means (UK -> GB, de -> DE), or None."""
    if not isinstance(code, str):
        return None
    c = code.strip().upper()
    c = _COUNTRY_ALIASES.get(c, c)
    return c if c in countries() and c != code else None


def sign_code(sign_id: str, country: str) -> dict[str, Any]:
    """OpenDRIVE signal code {country, type, subtype, value?, unit?} of a sign in a country."""
    signs = load_signs()
    if sign_id not in signs:
        raise UserError(f"unknown sign id {sign_id!r} (expected one of {', '.join(sorted(signs))})")
    entry = signs[sign_id]
    code = entry["codes"].get(country)
    if code is None:
        have = sorted(c for c, v in entry["codes"].items() if v)
        raise UserError(f"sign {sign_id!r} has no code for country {country} (catalogue has {', '.join(have)})")
    out = {"country": country, "type": str(code["type"]), "subtype": str(code.get("subtype", "-1"))}
    if entry.get("unit"):
        out["unit"] = entry["unit"]
    return out
