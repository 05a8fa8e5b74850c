"""Sign faces are shipped assets: drawn from the package's glyph atlases with no system font, identical to the
reference faces in roadtest/sign_assets/faces/, and a legend that cannot be drawn is an error."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from roadtest.signs import fonts
from roadtest.signs.faces import sign_face

ROOT = Path(__file__).resolve().parents[2]
FACES = ROOT / "roadtest" / "sign_assets" / "faces"
INDEX = json.loads((FACES / "faces.json").read_text(encoding="utf-8"))
# every face with a legend in a font: the CJK ones and GB's give way, the faces a missing font blanked
LEGENDS = ["JP/stop.png", "JP/yield.png", "JP/no_overtaking.png", "JP/end_no_overtaking.png", "CN/stop.png",
           "CN/yield.png", "CN/emergency_lane.png", "GB/yield.png", "US/stop.png", "DE/speed_limit@50.png"]

# the runtime with every way to a system font shut: Pillow cannot be imported, fontconfig points to an empty dir
_NO_FONTS = """
import sys, json, hashlib
sys.modules['PIL'] = None
sys.modules['matplotlib'] = None
from roadtest.signs.faces import sign_face
names = json.loads(sys.argv[1])
out = {}
for name in names:
    c, rest = name.split('/')
    sid, _, v = rest[:-4].partition('@')
    out[name] = hashlib.sha256(sign_face(sid, c, float(v) if v else None, 256).tobytes()).hexdigest()
print(json.dumps(out))
"""


def _no_font_run(names: list[str], tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "FONTCONFIG_PATH": str(tmp_path), "FONTCONFIG_FILE": str(tmp_path / "none.conf"),
           "XDG_DATA_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", _NO_FONTS, json.dumps(names)], capture_output=True, text=True, env=env,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def _png(name: str) -> np.ndarray:
    img = cv2.imread(str(FACES / name), cv2.IMREAD_UNCHANGED)
    return cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA)


def test_legend_faces_without_any_system_font_match_the_shipped_pngs(tmp_path):
    got = _no_font_run(LEGENDS, tmp_path)
    for name in LEGENDS:
        png = _png(name)
        assert got[name] == INDEX["faces"][name] == hashlib.sha256(png.tobytes()).hexdigest(), name


@pytest.mark.slow
def test_every_face_without_any_system_font_matches_the_shipped_png(tmp_path):
    names = sorted(INDEX["faces"])
    assert len(names) == len(list(FACES.glob("*/*.png"))) > 150
    got = _no_font_run(names, tmp_path)
    bad = [n for n in names if got[n] != INDEX["faces"][n]
           or hashlib.sha256(_png(n).tobytes()).hexdigest() != INDEX["faces"][n]]
    assert bad == []


def _white(px: np.ndarray) -> np.ndarray:
    return (px[..., 3] == 255) & (px[..., :3].min(axis=2) > 200)


def test_jp_stop_and_slow_down_differ_in_their_legend():
    stop, slow = sign_face("stop", "JP", None, 128), sign_face("yield", "JP", None, 128)
    assert stop.shape == slow.shape
    legend = (slice(12, 48), slice(25, 103))  # the band of 止まれ / 徐行 in the inverted triangle's wide part
    assert _white(stop[legend]).mean() > 0.08 and _white(slow[legend]).mean() > 0.08   # white kanji on red
    assert (_white(stop[legend]) != _white(slow[legend])).mean() > 0.08


def test_gb_give_way_carries_its_legend():
    gb, de = sign_face("yield", "GB", None, 128), sign_face("yield", "DE", None, 128)
    field = (slice(15, 60), slice(40, 88))
    black = lambda px: (px[..., 3] == 255) & (px[..., :3].max(axis=2) < 80)  # noqa: E731
    assert black(gb[field]).mean() > 0.1 and black(de[field]).mean() == 0.0


def test_a_legend_without_shipped_glyphs_is_an_error():
    with pytest.raises(fonts.SignAssetError, match="needs glyphs '§'"):
        fonts.render("§")
    with pytest.raises(fonts.SignAssetError, match="'鬱'"):
        fonts.render("止鬱")


def test_glyph_index_names_its_sources():
    idx = json.loads((fonts.GLYPH_DIR / "glyphs.json").read_text(encoding="utf-8"))
    assert {k: v["font"] for k, v in idx["kinds"].items()} == {"sans-bold": "DejaVu Sans Bold", "cjk": "WenQuanYi Micro Hei"}
    for v in idx["kinds"].values():
        assert len(v["sha256"]) == 64 and (fonts.GLYPH_DIR / v["atlas"]).is_file()
    assert set("止まれ徐行追越し禁止ここまで停让应急车道") <= fonts.glyph_chars("cjk")
    assert set("0123456789GIVEWAYSTOP.,m") <= fonts.glyph_chars("sans-bold")
