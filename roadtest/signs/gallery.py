"""`roadtest signs gallery` and `roadtest signs list`: one country's faces on a grid, labelled with ids and codes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from roadtest.errors import UserError
from roadtest.signs.faces import COUNTRIES, face_ids, sign_face, sign_meta

__all__ = ["gallery_image", "gallery_command", "list_command", "GALLERY_VALUES"]

# Values shown in the gallery (catalogue units: km/h, m, t); speed limits appear at several values.
GALLERY_VALUES = {"speed_limit": (30, 50, 80, 120), "end_speed_limit": (50,), "minimum_speed": (60,),
                  "height_limit": (3.8,), "weight_limit": (7.5,)}
CELL, FACE, LABEL = 200, 150, 40


def gallery_image(country: str) -> np.ndarray:
    """H x W x 3 uint8 RGB sheet: every face of `country` on a mid-grey ground, id and OpenDRIVE code below."""
    import cv2

    country = _country(country)
    items = [(sid, v) for sid in face_ids(country) for v in GALLERY_VALUES.get(sid, (None,))]
    cols = 7
    rows = (len(items) + cols - 1) // cols
    sheet = np.full((rows * (CELL + LABEL) + 50, cols * CELL, 3), 150, np.uint8)
    cv2.putText(sheet, f"roadtest sign faces: {country} ({len(face_ids(country))} signs)", (10, 34),
                cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 2, cv2.LINE_AA)
    for k, (sid, v) in enumerate(items):
        x0, y0 = (k % cols) * CELL, 50 + (k // cols) * (CELL + LABEL)
        face = sign_face(sid, country, v, FACE).astype(np.float32)
        h, w = face.shape[:2]
        ox, oy = x0 + (CELL - w) // 2, y0 + (CELL - h) // 2
        a = face[..., 3:] / 255.0
        region = sheet[oy:oy + h, ox:ox + w].astype(np.float32)
        sheet[oy:oy + h, ox:ox + w] = np.round(face[..., :3] * a + region * (1 - a)).astype(np.uint8)
        meta = sign_meta(sid, country)
        label = sid + (f" {v:g}" if v is not None else "")
        code = f"{meta['type']}" + ("" if meta["subtype"] == "-1" else f" {meta['subtype']}")
        for j, (text, scale) in enumerate(((label, 0.45), (code, 0.42))):
            cv2.putText(sheet, text, (x0 + 6, y0 + CELL + 8 + 18 * j), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 1, cv2.LINE_AA)
    return sheet


def _country(country: str) -> str:
    c = (country or "").upper()
    if c not in COUNTRIES:
        from roadtest.signs.catalogue import suggest_country

        close = suggest_country(country)
        hint = f"did you mean {close!r}? " if close else ""
        raise UserError(f"--country {country!r}: no sign faces for it ({hint}expected one of {', '.join(COUNTRIES)})")
    return c


def gallery_command(country: str, out: Path) -> int:
    import cv2

    img = gallery_image(country)
    out = Path(out)
    if out.suffix.lower() != ".png":
        raise UserError(f"-o {out}: expected a .png file")
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), cv2.cvtColor(img, cv2.COLOR_RGB2BGR)):
        raise UserError(f"-o {out}: could not write the PNG")
    print(f"{out}: {len(face_ids(_country(country)))} {_country(country)} signs, {img.shape[1]}x{img.shape[0]} px")
    return 0


def list_command(country: str | None) -> int:
    """One line per (sign, country): id, country, OpenDRIVE type/subtype, shape, rules."""
    from roadtest.signs.fonts import font_report

    countries = [_country(country)] if country else list(COUNTRIES)
    for c in countries:
        for sid in face_ids(c):
            m = sign_meta(sid, c)
            sub = "" if m["subtype"] == "-1" else f"/{m['subtype']}"
            print(f"{c}  {sid:<24} {m['type'] + sub:<32} {m['shape']:<18} {','.join(m['rules']) or '-'}")
    print(font_report())
    return 0
