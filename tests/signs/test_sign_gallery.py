"""`roadtest signs gallery` / `roadtest signs list`."""

from __future__ import annotations

import cv2

from roadtest.cli import main
from roadtest.signs.faces import face_ids


def test_gallery_writes_a_png_of_the_country(tmp_path):
    out = tmp_path / "g.png"
    assert main(["signs", "gallery", "--country", "DE", "-o", str(out)]) == 0
    img = cv2.imread(str(out))
    # 29 DE faces + 3 more speed-limit values = 32 cells, 7 per row -> 5 rows of 240 px + a 50 px title.
    assert len(face_ids("DE")) == 29
    assert img.shape == (5 * 240 + 50, 7 * 200, 3)


def test_gallery_bad_input_exits_2(tmp_path, capsys):
    assert main(["signs", "gallery", "--country", "XX", "-o", str(tmp_path / "g.png")]) == 2
    assert "expected one of CN, DE, FR, GB, JP, US" in capsys.readouterr().err
    assert main(["signs", "gallery", "--country", "JP", "-o", str(tmp_path / "g.jpg")]) == 2
    assert not (tmp_path / "g.png").exists()


def test_list(capsys):
    assert main(["signs", "list", "--country", "GB"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(face_ids("GB")) + 1
    assert any(l.split()[:3] == ["GB", "stop", "601.1"] for l in lines)
    assert main(["signs", "list", "--country", "ZZ"]) == 2
