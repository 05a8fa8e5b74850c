"""Fonts for sign faces: TrueType files that ship with packages, rasterised with Pillow.

Latin: DejaVu Sans Bold (Debian fonts-dejavu-core, or the copy matplotlib bundles); condensed by the
recipes where a national face (DIN 1451, Transport, Highway Gothic) is narrower. CJK: WenQuanYi Micro Hei
(Debian fonts-wqy-microhei) or Noto Sans CJK (Debian fonts-noto-cjk). Where no TrueType font or no
Pillow is found, Latin text falls back to OpenCV's Hershey font and CJK text is left off the face.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

__all__ = ["font_path", "render", "has_cjk", "font_report"]

_CANDIDATES = {
    "sans-bold": ["truetype/dejavu/DejaVuSans-Bold.ttf", "truetype/dejavu/DejaVuSansCondensed-Bold.ttf"],
    "cjk": ["truetype/wqy/wqy-microhei.ttc", "opentype/noto/NotoSansCJK-Bold.ttc", "opentype/noto/NotoSansCJK-Regular.ttc",
            "truetype/wqy/wqy-zenhei.ttc", "truetype/droid/DroidSansFallbackFull.ttf"],
}
_ROOTS = [Path("/usr/share/fonts"), Path("/usr/local/share/fonts")]


def _matplotlib_font(name: str) -> Path | None:
    try:
        from importlib.util import find_spec

        spec = find_spec("matplotlib")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    p = Path(list(spec.submodule_search_locations)[0]) / "mpl-data" / "fonts" / "ttf" / name
    return p if p.is_file() else None


@lru_cache(maxsize=None)
def font_path(kind: str) -> Path | None:
    """The TrueType file used for `kind` ("sans-bold" or "cjk"), or None."""
    for rel in _CANDIDATES[kind]:
        for root in _ROOTS:
            if (root / rel).is_file():
                return root / rel
    return _matplotlib_font("DejaVuSans-Bold.ttf") if kind == "sans-bold" else None


def has_cjk() -> bool:
    return font_path("cjk") is not None and _pillow() is not None


def font_report() -> str:
    """One line naming the fonts in use (for `roadtest signs list`)."""
    latin = font_path("sans-bold") if _pillow() else None
    return (f"fonts: latin={latin or 'OpenCV Hershey (no TrueType font or no Pillow)'}; "
            f"cjk={font_path('cjk') if has_cjk() else 'none (CJK text left off)'}")


def _pillow():
    try:
        from PIL import ImageFont
    except ImportError:
        return None
    return ImageFont


def _is_cjk(s: str) -> bool:
    return any(ord(ch) > 0x2E80 for ch in s)


@lru_cache(maxsize=512)
def render(text: str, kind: str = "sans-bold") -> np.ndarray | None:
    """A tight uint8 coverage mask of `text` (one line), or None where no font can draw it."""
    kind = "cjk" if _is_cjk(text) else kind
    ImageFont = _pillow()
    path = font_path(kind)
    if ImageFont is None or path is None:
        return None if kind == "cjk" else _hershey(text)
    from PIL import Image, ImageDraw

    font = ImageFont.truetype(str(path), 160)
    left, top, right, bottom = font.getbbox(text)
    img = Image.new("L", (right - left + 8, bottom - top + 8), 0)
    ImageDraw.Draw(img).text((4 - left, 4 - top), text, fill=255, font=font)
    return _crop(np.asarray(img, np.uint8))


def _hershey(text: str) -> np.ndarray | None:
    import cv2

    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, 4.0, 9)
    img = np.zeros((h + base + 20, w + 20), np.uint8)
    cv2.putText(img, text, (10, h + 10), cv2.FONT_HERSHEY_DUPLEX, 4.0, 255, 9, cv2.LINE_AA)
    return _crop(img)


def _crop(m: np.ndarray) -> np.ndarray | None:
    ys, xs = np.nonzero(m)
    if len(ys) == 0:
        return None
    return np.ascontiguousarray(m[ys.min():ys.max() + 1, xs.min():xs.max() + 1])
