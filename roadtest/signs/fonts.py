"""Glyphs for sign faces, read from the glyph atlases that ship in `roadtest/sign_assets/glyphs/`.

No system font is read at run time: `scripts/render_sign_assets.py` rasterised every character a face
can show once (Latin: DejaVu Sans Bold; CJK: WenQuanYi Micro Hei; sources and hashes in glyphs.json),
and a legend is composed from those masks with the font's advances and kerning, so every machine draws
the same bytes. A character without a shipped glyph is an error (`SignAssetError`), never a blank face.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["SignAssetError", "GLYPH_DIR", "GLYPH_PX", "render", "glyph_kind", "glyph_chars", "font_report",
           "compose", "has_cjk"]

GLYPH_DIR = Path(__file__).resolve().parent.parent / "sign_assets" / "glyphs"
GLYPH_PX = 160  # the size (px per em) the atlases were rasterised at


class SignAssetError(RuntimeError):
    """A sign face needs an asset (a glyph, a face) that the package does not hold."""


def _is_cjk(s: str) -> bool:
    return any(ord(ch) > 0x2E80 for ch in s)


def glyph_kind(text: str, kind: str = "sans-bold") -> str:
    """The atlas a legend is drawn from: "cjk" when it holds any CJK character, else `kind`."""
    return "cjk" if _is_cjk(text) else kind


@lru_cache(maxsize=1)
def _index() -> dict[str, Any]:
    path = GLYPH_DIR / "glyphs.json"
    if not path.is_file():
        raise SignAssetError(f"{path}: the sign glyph index is missing (run scripts/render_sign_assets.py)")
    return json.loads(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _atlas(kind: str) -> np.ndarray:
    import cv2

    entry = _index()["kinds"].get(kind)
    if entry is None:
        raise SignAssetError(f"no glyph atlas {kind!r} in {GLYPH_DIR} (have {', '.join(sorted(_index()['kinds']))})")
    path = GLYPH_DIR / entry["atlas"]
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 2:
        raise SignAssetError(f"{path}: not a greyscale PNG glyph atlas")
    return img


def glyph_chars(kind: str) -> set[str]:
    """The characters the `kind` atlas holds."""
    return set(_index()["kinds"][kind]["glyphs"])


def compose(text: str, glyphs: dict[str, list[float]], kern: dict[str, float], atlas: np.ndarray) -> np.ndarray:
    """A tight coverage mask of `text`: each glyph's mask placed at its pen position (advance plus kerning)
    relative to a common baseline, overlaps taking the larger coverage."""
    placed = []
    pen = 0.0
    prev = None
    for ch in text:
        if ch not in glyphs:
            raise KeyError(ch)
        ax, ay, w, h, ox, oy, adv = glyphs[ch]
        if prev is not None:
            pen += kern.get(prev + ch, 0.0)
        if w > 0 and h > 0:
            placed.append((int(round(pen + ox)), int(oy), atlas[int(ay):int(ay) + int(h), int(ax):int(ax) + int(w)]))
        pen += adv
        prev = ch
    if not placed:
        raise SignAssetError(f"sign legend {text!r} has no visible glyph")
    x0 = min(x for x, _, _ in placed)
    y0 = min(y for _, y, _ in placed)
    x1 = max(x + m.shape[1] for x, _, m in placed)
    y1 = max(y + m.shape[0] for _, y, m in placed)
    out = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for x, y, m in placed:
        region = out[y - y0:y - y0 + m.shape[0], x - x0:x - x0 + m.shape[1]]
        np.maximum(region, m, out=region)
    return out


@lru_cache(maxsize=512)
def render(text: str, kind: str = "sans-bold") -> np.ndarray:
    """A tight uint8 coverage mask of `text` (one line) from the shipped atlas; read-only."""
    kind = glyph_kind(text, kind)
    entry = _index()["kinds"].get(kind)
    if entry is None:
        raise SignAssetError(f"no glyph atlas {kind!r} for sign legend {text!r}")
    missing = sorted({ch for ch in text if ch not in entry["glyphs"]})
    if missing:
        raise SignAssetError(f"sign legend {text!r} needs glyphs {''.join(missing)!r} that {GLYPH_DIR / entry['atlas']} "
                             "does not hold (add them with scripts/render_sign_assets.py)")
    out = compose(text, entry["glyphs"], entry.get("kern", {}), _atlas(kind))
    out.setflags(write=False)
    return out


def has_cjk() -> bool:
    """Whether the shipped atlases draw CJK legends (they do; kept for callers that ask)."""
    return "cjk" in _index()["kinds"]


def font_report() -> str:
    """One line naming the glyph atlases in use (for `roadtest signs list`)."""
    kinds = _index()["kinds"]
    return "glyphs: " + "; ".join(f"{k}={v['font']} ({len(v['glyphs'])} glyphs, shipped in {GLYPH_DIR.name}/{v['atlas']})"
                                  for k, v in sorted(kinds.items()))
