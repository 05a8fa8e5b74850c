"""Building blocks shared by the national recipes: a country's palette and the common sign boards
(ringed disc, warning triangle or diamond, blue disc, blue square, give-way triangle, stop octagon)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from shapely.geometry.base import BaseGeometry

from roadtest.signs.canvas import Canvas, circle, diamond, octagon, rect, rotate, triangle
from roadtest.signs.symbols import place

__all__ = ["Style", "Face", "ring_disc", "slash", "warning", "blue_disc", "blue_square", "give_way", "stop_octagon",
           "end_board", "end_bars", "limit_text", "mph"]

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Style:
    """A country's palette and proportions (fractions of the face's size)."""
    red: RGB = (200, 20, 30)
    blue: RGB = (0, 80, 160)
    yellow: RGB = (250, 200, 0)
    black: RGB = (20, 20, 20)
    white: RGB = (255, 255, 255)
    green: RGB = (0, 150, 70)
    orange: RGB = (245, 130, 30)
    grey: RGB = (120, 120, 120)
    ring: float = 0.085          # red ring width / diameter
    warn_shape: str = "triangle"  # or "diamond"
    warn_fill: RGB = (255, 255, 255)
    warn_border: RGB = (200, 20, 30)
    warn_border_w: float = 0.075  # border width / side
    warn_rim: bool = False        # a thin rim of the field colour outside the border (CN)
    digits: RGB = (20, 20, 20)
    squeeze: float = 0.85         # narrowing of digits (national faces are condensed)
    slash: bool = False           # prohibitions cross their symbol with a red bar
    light_colours: bool = True    # traffic-light pictogram drawn red/amber/green


@dataclass(frozen=True)
class Face:
    """One face recipe: its board's outline name, size in sign units and the painter."""
    shape: str
    w: float
    h: float
    draw: Callable[[Canvas, float | None], None]
    colours: tuple[str, ...] = field(default_factory=tuple)


def ring_disc(cv: Canvas, st: Style, inner: tuple[int, int, int] | None = None, ring: float | None = None) -> None:
    cv.fill(circle(0.5, 0.5, 0.5), st.red)
    cv.fill(circle(0.5, 0.5, 0.5 - (ring or st.ring)), inner or st.white)


def slash(cv: Canvas, st: Style, width: float = 0.085, ring: float | None = None) -> None:
    """The red diagonal bar from top-left to bottom-right inside the ring."""
    r = 0.5 - (ring or st.ring) + 0.01
    bar = rotate(rect(0.5 - r, 0.5 - width / 2, 0.5 + r, 0.5 + width / 2), 45, origin=(0.5, 0.5))
    cv.fill(bar, st.red)


def end_board(cv: Canvas, st: Style, rim: float = 0.01) -> None:
    """White disc with a thin black rim: the board of an end-of-restriction sign."""
    cv.fill(circle(0.5, 0.5, 0.5), st.black)
    cv.fill(circle(0.5, 0.5, 0.5 - rim), st.white)


def end_bars(cv: Canvas, st: Style, offsets: tuple[float, ...], half_width: float, rim: float = 0.01) -> None:
    """Black diagonal bars (bottom-left to top-right) across an end board, at `offsets` from its centre line."""
    clip = circle(0.5, 0.5, 0.5 - rim)
    for off in offsets:
        bar = rect(0.0, 0.5 + off - half_width, 1.0, 0.5 + off + half_width)
        cv.fill(rotate(bar, -45, origin=(0.5, 0.5)).intersection(clip), st.black)


def warning(cv: Canvas, st: Style, sym: BaseGeometry | None = None, colour: RGB | None = None, size: float = 0.42,
            fill: RGB | None = None) -> None:
    """Warning board (triangle apex up or diamond) with an optional pictogram."""
    fill = fill or st.warn_fill
    if st.warn_shape == "diamond":
        cv.fill(diamond(0.5, 0.5, 0.5, 0.04), st.black)
        cv.fill(diamond(0.5, 0.5, 0.5 - 0.035, 0.03), fill)
        cv.fill(diamond(0.5, 0.5, 0.5 - 0.055, 0.025), st.black)
        cv.fill(diamond(0.5, 0.5, 0.5 - 0.075, 0.02), fill)
        cy, size = 0.5, size * 1.05
    else:
        h = 0.866
        cv.fill(triangle(0.5, h / 2, 1.0, True, 0.05), fill if st.warn_rim else st.warn_border)
        b = st.warn_border_w
        if st.warn_rim:
            rim = 1.0 - 2 * 0.02 * 3 ** 0.5
            cv.fill(triangle(0.5, h - 0.02 - rim * 0.866 / 2, rim, True, 0.04), st.warn_border)
            b += 0.02
        side = 1.0 - 2 * b * 3 ** 0.5
        cv.fill(triangle(0.5, h - b - side * 0.866 / 2, side, True, 0.03), fill)
        cy = h * 0.6
    if sym is not None:
        cv.fill(place(sym, 0.5, cy, size), colour or st.black)


def blue_disc(cv: Canvas, st: Style, sym: BaseGeometry | None = None, size: float = 0.62, white_rim: bool = False) -> None:
    if white_rim:
        cv.fill(circle(0.5, 0.5, 0.5), st.white)
        cv.fill(circle(0.5, 0.5, 0.475), st.blue)
    else:
        cv.fill(circle(0.5, 0.5, 0.5), st.blue)
    if sym is not None:
        cv.fill(place(sym, 0.5, 0.5, size), st.white)


def blue_square(cv: Canvas, st: Style, w: float = 1.0, h: float = 1.0) -> None:
    cv.fill(rect(0, 0, w, h, 0.05), st.white)
    cv.fill(rect(0.025, 0.025, w - 0.025, h - 0.025, 0.035), st.blue)


def give_way(cv: Canvas, st: Style, inner: tuple[int, int, int] | None = None, border: float = 0.12) -> None:
    """Inverted triangle, red border `border` wide, white (or `inner`) field; face height = 0.866."""
    h = 0.866
    cv.fill(triangle(0.5, h / 2, 1.0, False, 0.05), st.red)
    side = 1.0 - 2 * border * 3 ** 0.5
    cv.fill(triangle(0.5, border + side * 0.866 / 2, side, False, 0.03), inner or st.white)


def stop_octagon(cv: Canvas, st: Style, text: str = "STOP", rim: bool = True, squeeze: float = 0.9) -> None:
    cv.fill(octagon(0.5, 0.5, 0.5 / 0.9239), st.white if rim else st.red)
    cv.fill(octagon(0.5, 0.5, 0.47 / 0.9239), st.red)
    if text:
        box = (0.12, 0.34, 0.88, 0.66) if len(text) > 1 else (0.2, 0.2, 0.8, 0.8)
        cv.text(text, *box, st.white, squeeze=squeeze)


def limit_text(cv: Canvas, st: Style, text: str, colour: RGB | None = None, box: tuple[float, float, float, float] | None = None) -> None:
    """Digits centred in a ringed disc, sized as national speed-limit faces are."""
    x0, y0, x1, y1 = box or ((0.16, 0.28, 0.84, 0.72) if len(text) > 2 else (0.2, 0.27, 0.8, 0.73))
    cv.text(text, x0, y0, x1, y1, colour or st.digits, squeeze=st.squeeze)


def mph(kmh: float) -> int:
    """A km/h value as the mph figure a US or UK sign would show (nearest 5 mph)."""
    return int(5 * round(kmh / 1.609344 / 5))
