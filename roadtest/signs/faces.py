"""Traffic-sign faces: `sign_face(id, country, value, px)` -> RGBA image, drawn by roadtest's own recipes.

A face is H x W x 4 uint8 (RGBA, straight alpha, transparent outside the board), its longer side `px`
pixels and its aspect the real sign's (a US R2-1 is 24 x 30 in, so taller than wide). Same arguments give
the same bytes; faces are cached and returned read-only. `value` is in the catalogue's unit (km/h, m, t);
US and GB faces show speeds in mph (nearest 5) and GB/US heights in feet and inches, as those signs do.
The renderer that has only an OpenDRIVE signal uses `sign_id_for_code(country, type, subtype)` first.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from roadtest.errors import UserError
from roadtest.signs.parts import Face

__all__ = ["COUNTRIES", "sign_face", "sign_shape", "sign_meta", "sign_aspect", "face_ids", "sign_id_for_code"]

COUNTRIES = ("CN", "DE", "FR", "GB", "JP", "US")


@lru_cache(maxsize=None)
def _recipes(country: str) -> dict[str, Face]:
    if country in ("DE", "FR", "GB"):
        from roadtest.signs.europe import recipes
    elif country == "US":
        from roadtest.signs.us import recipes
    elif country in ("CN", "JP"):
        from roadtest.signs.asia import recipes
    else:
        raise UserError(f"no sign faces for country {country!r} (expected one of {', '.join(COUNTRIES)})")
    return recipes(country)


def _recipe(sign_id: str, country: str) -> Face:
    country = country.upper() if isinstance(country, str) else country
    if country not in COUNTRIES:
        raise UserError(f"no sign faces for country {country!r} (expected one of {', '.join(COUNTRIES)})")
    faces = _recipes(country)
    if sign_id not in faces:
        from roadtest.signs.catalogue import load_signs

        if sign_id not in load_signs():
            raise UserError(f"unknown sign id {sign_id!r} (expected one of {', '.join(sorted(load_signs()))})")
        raise UserError(f"sign {sign_id!r} has no {country} face (country {country} has no such standard sign; "
                        f"its faces: {', '.join(sorted(faces))})")
    return faces[sign_id]


def face_ids(country: str) -> list[str]:
    """Sign ids that have a face in `country`, sorted."""
    if country not in COUNTRIES:
        raise UserError(f"no sign faces for country {country!r} (expected one of {', '.join(COUNTRIES)})")
    return sorted(_recipes(country))


def sign_shape(sign_id: str, country: str) -> str:
    """The board's outline: circle, octagon, triangle, inverted_triangle, diamond, square, rectangle, pentagon."""
    return _recipe(sign_id, country).shape


def sign_aspect(sign_id: str, country: str) -> tuple[float, float]:
    """(width, height) of the board, the longer side 1.0 (multiply by the sign's size in metres)."""
    f = _recipe(sign_id, country)
    return f.w, f.h


def sign_meta(sign_id: str, country: str) -> dict[str, Any]:
    """Everything known about one face: OpenDRIVE code, meaning, value kind, unit, shape, colours, rules."""
    from roadtest.signs.catalogue import load_signs, sign_code

    face = _recipe(sign_id, country)
    entry = load_signs()[sign_id]
    code = entry["codes"][country]
    return {"id": sign_id, **sign_code(sign_id, country), "note": code.get("note"), "meaning": entry["meaning"],
            "value": entry["value"], "shape": code.get("shape", face.shape), "colours": list(code.get("colours", face.colours)),
            "aspect": [face.w, face.h], "rules": list(entry.get("rules", []))}


def sign_id_for_code(country: str, type_: str, subtype: str = "-1") -> str | None:
    """The sign id an OpenDRIVE signal (country, type, subtype) shows, or None if roadtest has no face for it."""
    from roadtest.signs.catalogue import load_signs

    country = (country or "").upper()
    hits = [sid for sid, e in sorted(load_signs().items())
            if (e["codes"].get(country) or {}).get("type") == str(type_) and country in COUNTRIES and sid in _recipes(country)]
    exact = [sid for sid in hits if str(load_signs()[sid]["codes"][country].get("subtype", "-1")) == str(subtype)]
    return (exact or hits or [None])[0]


def sign_face(sign_id: str, country: str, value: float | None = None, px: int = 256) -> np.ndarray:
    """RGBA uint8 face (read-only; copy it to draw on it), the longer side `px` pixels."""
    if not isinstance(px, int) or px < 8 or px > 4096:
        raise UserError(f"sign face size px={px!r} (expected an integer from 8 to 4096)")
    if value is not None:
        value = float(value)
    face = _recipe(sign_id, country)
    return _face(sign_id, country.upper(), value, px, face)


@lru_cache(maxsize=1024)
def _face(sign_id: str, country: str, value: float | None, px: int, face: Face) -> np.ndarray:
    from roadtest.signs.canvas import Canvas

    cv = Canvas(face.w, face.h, px)
    face.draw(cv, value)
    img = cv.rgba()
    img.setflags(write=False)
    return img
