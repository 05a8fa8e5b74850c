"""Render the sign assets that ship in roadtest/sign_assets/: the glyph atlases and the reference faces.

    PYTHONPATH=. python scripts/render_sign_assets.py           # rewrite glyphs/ and faces/
    PYTHONPATH=. python scripts/render_sign_assets.py --check   # exit 1 when the shipped assets are stale

Run once on a machine with the source fonts (Debian fonts-dejavu-core and fonts-wqy-microhei); the
runtime never reads a system font. Glyphs: every character a face can print (the legends the recipes
draw, digits and the units of valued signs, Latin capitals), rasterised with Pillow at
roadtest.signs.fonts.GLYPH_PX px per em, with each font's advances and kerning pairs, packed into one
greyscale atlas per font and indexed in glyphs/glyphs.json with the font file's SHA-256. Faces: every
country's face of every sign, at the gallery's values, 256 px, drawn through the runtime path (the shipped
glyphs), in faces/<CC>/<id>[@<value>].png; faces/faces.json lists them with the SHA-256 of their pixels.
A face that cannot be drawn stops the script.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import string
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "roadtest" / "sign_assets"
FACE_PX = 256
FONTS = {
    "sans-bold": {"font": "DejaVu Sans Bold", "file": "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
                  "package": "Debian fonts-dejavu-core", "licence": "Bitstream Vera / DejaVu font licence (free)"},
    "cjk": {"font": "WenQuanYi Micro Hei", "file": "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
            "package": "Debian fonts-wqy-microhei", "licence": "Apache-2.0 or GPLv3 with font exception"},
}
# Besides the recipes' own legends: what a valued face can print (any speed, height, weight, both decimal marks).
EXTRA = {"sans-bold": string.digits + string.ascii_uppercase + ".,'\"-/ mtkh"}


def face_values(sid: str) -> tuple:
    from roadtest.signs.gallery import GALLERY_VALUES

    return GALLERY_VALUES.get(sid, (None,))


def legends() -> dict[str, set[str]]:
    """The characters every recipe draws (at the gallery's values and every speed 5..130 km/h), per atlas."""
    from roadtest.signs import canvas, fonts
    from roadtest.signs.faces import COUNTRIES, _recipe, face_ids
    from roadtest.signs.canvas import Canvas

    seen: dict[str, set[str]] = {k: set(v) for k, v in EXTRA.items()}
    real = fonts.render

    def record(text: str, kind: str = "sans-bold"):
        seen.setdefault(fonts.glyph_kind(text, kind), set()).update(text)
        return np.full((10, 10), 255, np.uint8)

    canvas.fonts.render = record
    try:
        for c in COUNTRIES:
            for sid in face_ids(c):
                face = _recipe(sid, c)
                values = set(face_values(sid)) | (set(range(5, 135, 5)) if face_values(sid) != (None,) else set())
                for v in values:
                    face.draw(Canvas(face.w, face.h, 32), v)
    finally:
        canvas.fonts.render = real
    seen.setdefault("cjk", set()).discard(" ")
    return seen


def build_glyphs(chars: dict[str, set[str]]) -> tuple[dict, dict[str, np.ndarray]]:
    from PIL import Image, ImageDraw, ImageFont, __version__ as pil_version

    from roadtest.signs.fonts import GLYPH_PX

    index = {"px": GLYPH_PX, "renderer": f"Pillow {pil_version} (FreeType), basic layout", "kinds": {}}
    atlases = {}
    for kind, cs in sorted(chars.items()):
        src = FONTS[kind]
        path = Path(src["file"])
        if not path.is_file():
            sys.exit(f"{path}: source font missing (apt-get install {src['package'].split()[-1]})")
        font = ImageFont.truetype(str(path), GLYPH_PX, layout_engine=ImageFont.Layout.BASIC)
        masks, glyphs = {}, {}
        for ch in sorted(cs):
            adv = float(font.getlength(ch))
            l, t, r, b = font.getbbox(ch, anchor="ls")
            if r <= l or b <= t:
                glyphs[ch] = [0, 0, 0, 0, 0, 0, round(adv, 3)]
                continue
            img = Image.new("L", (r - l + 8, b - t + 8), 0)
            ImageDraw.Draw(img).text((4 - l, 4 - t), ch, fill=255, font=font, anchor="ls")
            m = np.asarray(img, np.uint8)
            ys, xs = np.nonzero(m)
            if len(ys) == 0:
                sys.exit(f"{path}: the font has no visible glyph for {ch!r} (U+{ord(ch):04X})")
            masks[ch] = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
            glyphs[ch] = [0, 0, int(masks[ch].shape[1]), int(masks[ch].shape[0]), int(xs.min() - 4 + l),
                          int(ys.min() - 4 + t), round(adv, 3)]
        # shelf-pack the masks into rows 2048 px wide
        x = y = row = 0
        for ch in sorted(masks):
            h, w = masks[ch].shape
            if x + w > 2048:
                x, y, row = 0, y + row + 2, 0
            glyphs[ch][0], glyphs[ch][1] = x, y
            x, row = x + w + 2, max(row, h)
        atlas = np.zeros((y + row, 2048), np.uint8)
        for ch, m in masks.items():
            gx, gy = glyphs[ch][0], glyphs[ch][1]
            atlas[gy:gy + m.shape[0], gx:gx + m.shape[1]] = m
        kern = {}
        for a in sorted(cs):
            for b in sorted(cs):
                k = float(font.getlength(a + b)) - float(font.getlength(a)) - float(font.getlength(b))
                if abs(k) > 1e-3:
                    kern[a + b] = round(k, 3)
        index["kinds"][kind] = {"font": src["font"], "source": str(path), "package": src["package"],
                                "licence": src["licence"], "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                                "atlas": f"{kind}.png", "glyphs": glyphs, "kern": kern}
        atlases[kind] = atlas
    return index, atlases


def render_faces() -> dict[str, np.ndarray]:
    """path under faces/ -> RGBA face, drawn through the runtime path (shipped glyphs only)."""
    from roadtest.signs.faces import COUNTRIES, face_ids, sign_face

    out = {}
    for c in COUNTRIES:
        for sid in face_ids(c):
            for v in face_values(sid):
                name = sid if v is None else f"{sid}@{v:g}"
                out[f"{c}/{name}.png"] = sign_face(sid, c, v, FACE_PX)
    return out


def face_index(faces: dict[str, np.ndarray]) -> dict:
    return {"px": FACE_PX, "faces": {k: hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()
                                     for k, v in sorted(faces.items())}}


def _write_png(path: Path, img: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if img.ndim == 3:
        img = cv2.cvtColor(img, cv2.COLOR_RGBA2BGRA)
    if not cv2.imwrite(str(path), img, [cv2.IMWRITE_PNG_COMPRESSION, 9]):
        sys.exit(f"{path}: could not write")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the shipped assets instead of writing them")
    args = ap.parse_args(argv)
    from roadtest.signs import fonts

    gdir, fdir = ASSETS / "glyphs", ASSETS / "faces"
    index, atlases = build_glyphs(legends())
    if args.check:
        shipped = json.loads((gdir / "glyphs.json").read_text(encoding="utf-8"))
        stale = [k for k in index["kinds"] if shipped["kinds"].get(k, {}).get("glyphs") != index["kinds"][k]["glyphs"]
                 or not np.array_equal(cv2.imread(str(gdir / f"{k}.png"), cv2.IMREAD_UNCHANGED), atlases[k])]
        faces = render_faces()
        want = json.loads((fdir / "faces.json").read_text(encoding="utf-8"))
        stale += [k for k, h in face_index(faces)["faces"].items() if want["faces"].get(k) != h]
        print(f"{len(atlases)} glyph atlases, {len(faces)} faces: " + (f"STALE {stale[:10]}" if stale else "up to date"))
        return 1 if stale else 0
    gdir.mkdir(parents=True, exist_ok=True)
    for kind, atlas in atlases.items():
        _write_png(gdir / f"{kind}.png", atlas)
    (gdir / "glyphs.json").write_text(json.dumps(index, ensure_ascii=False, sort_keys=True, indent=1) + "\n", encoding="utf-8")
    fonts._index.cache_clear(), fonts._atlas.cache_clear(), fonts.render.cache_clear()
    from roadtest.signs import faces as faces_mod

    faces_mod._face.cache_clear()
    faces = render_faces()
    for stale in fdir.glob("*/*.png"):
        if f"{stale.parent.name}/{stale.name}" not in faces:
            stale.unlink()
    for rel, img in faces.items():
        _write_png(fdir / rel, img)
    (fdir / "faces.json").write_text(json.dumps(face_index(faces), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    n = sum(len(v["glyphs"]) for v in index["kinds"].values())
    print(f"{gdir}: {n} glyphs in {len(atlases)} atlases; {fdir}: {len(faces)} faces at {FACE_PX} px")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
