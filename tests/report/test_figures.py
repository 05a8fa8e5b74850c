"""The report's figures: two rules violated on one plot are shaded in clearly different colours."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np

from roadtest.report import figures


def _lab(rgb) -> np.ndarray:
    """sRGB (0..255) to CIE L*a*b* (D65), by the published formulas."""
    c = np.asarray(rgb, dtype=float) / 255.0
    c = np.where(c > 0.04045, ((c + 0.055) / 1.055) ** 2.4, c / 12.92)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ c
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_lab_by_hand():
    assert np.allclose(_lab((255, 255, 255)), (100, 0, 0), atol=0.05)
    assert np.allclose(_lab((255, 0, 0)), (53.24, 80.09, 67.20), atol=0.1)  # the standard sRGB red


def _run(verdicts: dict[str, str]):
    ego = SimpleNamespace(speed=10.0)
    states = [SimpleNamespace(time=t * 0.5, ego=ego) for t in range(41)]
    rules = [SimpleNamespace(id=rid, verdict=v, episodes=[SimpleNamespace(start=2.0 + 6 * k, duration=4.0)])
             for k, (rid, v) in enumerate(verdicts.items())]
    return SimpleNamespace(states=states, signals=None, rules=rules)


def _shown(hexcolour: str, alpha: float) -> np.ndarray:
    rgb = np.array([int(hexcolour[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)
    return alpha * rgb + (1 - alpha) * 255.0  # over the plot's white


def test_two_violated_speed_rules_are_shaded_in_clearly_different_colours(tmp_path, monkeypatch):
    run = _run({"speed_limit": "violated", "fog_speed_limit": "violated", "school_zone": "excused"})
    monkeypatch.setattr(figures, "_speed_rules", lambda r: r.rules)
    svg = figures.speed_figure(run, tmp_path / "speed.svg").read_text()
    patterns = dict(re.findall(r'<pattern id="(\w+)"[^>]*>\s*<rect [^>]*fill="(#[0-9a-f]{6})"', svg))  # hatched: face in the rect
    fills = re.findall(r"fill: (#[0-9a-f]{6}|url\(#(\w+)\)); fill-opacity: ([0-9.]+)", svg)
    spans = sorted({(patterns[p] if p else c, float(a)) for c, p, a in fills if float(a) < 1.0})
    assert len(spans) == 3, spans  # one shade per rule, each in the legend too
    shown = [_lab(_shown(c, a)) for c, a in spans]
    for i in range(3):
        for j in range(i + 1, 3):
            assert np.linalg.norm(shown[i] - shown[j]) > 25, (spans[i], spans[j])  # CIE76: clearly different
    # the rule keeps its shade in its own robustness row
    shades = figures.rule_shades(run)
    assert shades["speed_limit"][0] != shades["fog_speed_limit"][0]
    assert shades["speed_limit"][1] != shades["fog_speed_limit"][1]  # and a hatch tells them apart in grey
