"""US faces after the MUTCD: white rectangular regulatory signs with black legends (R2-1 24 x 30 in), red
circle-and-slash prohibitions on white squares, the octagonal STOP, yellow (orange in work zones,
fluorescent yellow-green for schools) warning diamonds. Speeds in mph, heights in feet and inches."""

from __future__ import annotations

from roadtest.signs import symbols as sy
from roadtest.signs.canvas import Canvas, circle, rect, rotate
from roadtest.signs.parts import Face, Style, give_way, mph, stop_octagon, warning

__all__ = ["recipes", "STYLE"]

STYLE = Style(red=(191, 10, 48), yellow=(255, 205, 0), black=(15, 15, 15), warn_shape="diamond", squeeze=0.72,
              warn_fill=(255, 205, 0), slash=True)
ORANGE = (242, 101, 34)
FYG = (198, 226, 0)   # fluorescent yellow-green (school, pedestrian)
RECT = ("rectangle", 0.8, 1.0)
SQ = ("square", 1.0, 1.0)
DIA = ("diamond", 1.0, 1.0)


def _board(cv: Canvas) -> None:
    """White board with the thin black border of a regulatory sign."""
    cv.fill(rect(0, 0, cv.w, cv.h, 0.04), STYLE.black)
    cv.fill(rect(0.015, 0.015, cv.w - 0.015, cv.h - 0.015, 0.03), STYLE.white)
    cv.fill(rect(0.03, 0.03, cv.w - 0.03, cv.h - 0.03, 0.02), STYLE.black)
    cv.fill(rect(0.04, 0.04, cv.w - 0.04, cv.h - 0.04, 0.015), STYLE.white)


def _lines(cv: Canvas, rows: list[tuple[str, float, float]], colour=None) -> None:
    """Legend rows (text, top, bottom) across the board."""
    for text, y0, y1 in rows:
        cv.text(text, 0.10, y0, cv.w - 0.10, y1, colour or STYLE.black, squeeze=STYLE.squeeze)


def _text_sign(rows: list[tuple[str, float, float]]):
    def draw(cv: Canvas, v: float | None) -> None:
        _board(cv)
        _lines(cv, rows)
    return draw


def _prohibit(sym, size=0.56):
    def draw(cv: Canvas, v: float | None) -> None:
        _board(cv)
        cv.fill(sy.place(sym, 0.5, 0.5, size), STYLE.black)
        cv.fill(circle(0.5, 0.5, 0.42).difference(circle(0.5, 0.5, 0.35)), STYLE.red)
        cv.fill(rotate(rect(0.14, 0.465, 0.86, 0.535), 45, origin=(0.5, 0.5)), STYLE.red)
    return draw


def _warn(sym, size=0.42, fill=None, colour=None):
    return lambda cv, v: warning(cv, STYLE, sym, colour, size, fill)


def recipes(country: str) -> dict[str, Face]:
    st = STYLE
    r: dict[str, Face] = {}

    def add(sid, shape, colours, draw):
        r[sid] = Face(shape[0], shape[1], shape[2], draw, colours)

    def speed(cv: Canvas, v: float | None) -> None:
        _board(cv)
        _lines(cv, [("SPEED", 0.09, 0.25), ("LIMIT", 0.29, 0.45)])
        cv.text(str(mph(v or 56)), 0.12, 0.52, cv.w - 0.12, 0.90, st.black, squeeze=0.62)
    add("speed_limit", RECT, ("white", "black"), speed)

    def end_speed(cv: Canvas, v: float | None) -> None:
        _board(cv)
        _lines(cv, [("END", 0.12, 0.32), ("SPEED", 0.40, 0.60), ("LIMIT", 0.68, 0.88)])
    add("end_speed_limit", RECT, ("white", "black"), end_speed)

    def minimum(cv: Canvas, v: float | None) -> None:
        _board(cv)
        _lines(cv, [("MINIMUM", 0.09, 0.25), ("SPEED", 0.29, 0.45)])
        cv.text(str(mph(v or 64)), 0.12, 0.52, cv.w - 0.12, 0.90, st.black, squeeze=0.62)
    add("minimum_speed", RECT, ("white", "black"), minimum)

    add("stop", ("octagon", 1.0, 1.0), ("red", "white"), lambda cv, v: stop_octagon(cv, st, squeeze=0.8))

    def yield_(cv: Canvas, v: float | None) -> None:
        give_way(cv, st, border=0.11)
        cv.text("YIELD", 0.30, 0.15, 0.70, 0.27, st.red, squeeze=0.8)
    add("yield", ("inverted_triangle", 1.0, 0.866), ("red", "white"), yield_)

    add("no_overtaking", RECT, ("white", "black"), _text_sign([("DO", 0.10, 0.30), ("NOT", 0.40, 0.60), ("PASS", 0.70, 0.90)]))
    add("end_no_overtaking", RECT, ("white", "black"), _text_sign([("PASS", 0.12, 0.32), ("WITH", 0.40, 0.60), ("CARE", 0.68, 0.88)]))

    def no_entry(cv: Canvas, v: float | None) -> None:
        cv.fill(rect(0, 0, 1, 1, 0.04), st.white)
        cv.fill(circle(0.5, 0.5, 0.47), st.red)
        cv.fill(rect(0.1, 0.43, 0.9, 0.57), st.white)
        cv.text("DO NOT", 0.22, 0.22, 0.78, 0.36, st.white, squeeze=0.8)
        cv.text("ENTER", 0.22, 0.64, 0.78, 0.78, st.white, squeeze=0.8)
    add("no_entry", SQ, ("red", "white"), no_entry)

    add("no_u_turn", SQ, ("white", "black", "red"), _prohibit(sy.u_turn()))
    add("no_left_turn", SQ, ("white", "black", "red"), _prohibit(sy.turn(right=False)))
    add("no_right_turn", SQ, ("white", "black", "red"), _prohibit(sy.turn(right=True)))

    def no_parking(cv: Canvas, v: float | None) -> None:
        _board(cv)
        cv.text("P", 0.3, 0.25, 0.7, 0.75, st.black)
        cv.fill(circle(0.5, 0.5, 0.42).difference(circle(0.5, 0.5, 0.35)), st.red)
        cv.fill(rotate(rect(0.14, 0.465, 0.86, 0.535), 45, origin=(0.5, 0.5)), st.red)
    add("no_parking", SQ, ("white", "black", "red"), no_parking)
    add("no_stopping", RECT, ("white", "black"), _text_sign([("NO", 0.08, 0.22), ("STOPPING", 0.30, 0.44), ("ON", 0.52, 0.66), ("PAVEMENT", 0.74, 0.88)]))

    def school(cv: Canvas, v: float | None) -> None:
        house = [(0.5, 0.0), (1.0, 0.42), (1.0, 1.0), (0.0, 1.0), (0.0, 0.42)]
        from shapely.geometry import Polygon
        from roadtest.signs.canvas import rounded
        cv.fill(rounded(Polygon(house), 0.04), st.black)
        cv.fill(rounded(Polygon(house).buffer(-0.035, join_style=2), 0.03), FYG)
        cv.fill(sy.place(sy.children(), 0.5, 0.62, 0.56), st.black)
    add("school_zone", ("pentagon", 1.0, 1.0), ("fluorescent_yellow_green", "black"), school)

    def works(cv: Canvas, v: float | None) -> None:
        warning(cv, st, None, fill=ORANGE)
        for text, y0, y1 in (("ROAD", 0.27, 0.39), ("WORK", 0.44, 0.56), ("AHEAD", 0.61, 0.73)):
            cv.text(text, 0.28, y0, 0.72, y1, st.black, squeeze=0.78)
    add("work_zone", DIA, ("orange", "black"), works)
    ped = _warn(sy.pedestrian(), 0.44, fill=FYG)
    add("pedestrian_crossing", DIA, ("fluorescent_yellow_green", "black"), ped)
    add("pedestrians_warning", DIA, ("fluorescent_yellow_green", "black"), ped)

    def signals(cv: Canvas, v: float | None) -> None:
        warning(cv, st, sy.light_housing(), st.black, 0.46)
        for lamp, c in zip(sy.light_lamps(), (st.red, (255, 190, 0), st.green)):
            cv.fill(sy.place(lamp, 0.5, 0.5, 0.48), c)
    add("traffic_signals_ahead", DIA, ("yellow", "black", "red", "green"), signals)

    def keep(right: bool):
        def draw(cv: Canvas, v: float | None) -> None:
            _board(cv)
            ob = rect(0.30, 0.12, 0.50, 0.40, 0.08)
            cv.fill(ob if right else rect(0.30, 0.12, 0.50, 0.40, 0.08), st.black)
            a = sy.keep_arrow(right)
            cv.fill(sy.place(a, 0.40, 0.60, 0.50), st.black)
        return draw
    add("keep_right", RECT, ("white", "black"), keep(True))
    add("keep_left", RECT, ("white", "black"), keep(False))
    add("roundabout", DIA, ("yellow", "black"), _warn(sy.roundabout(), 0.50))
    add("merge", DIA, ("yellow", "black"), _warn(sy.merge(from_right=True), 0.46))
    add("lane_ends", DIA, ("yellow", "black"), _warn(sy.narrows(right=True), 0.46))
    add("slippery_road", DIA, ("yellow", "black"), _warn(sy.skid(), 0.46))
    add("curve_left", DIA, ("yellow", "black"), _warn(sy.curve(right=False), 0.48))
    add("curve_right", DIA, ("yellow", "black"), _warn(sy.curve(right=True), 0.48))

    def height(cv: Canvas, v: float | None) -> None:
        warning(cv, st, None)
        ft = (v or 3.8) / 0.3048
        feet, inch = int(ft), int(round((ft - int(ft)) * 12))
        feet, inch = (feet + 1, 0) if inch == 12 else (feet, inch)
        cv.fill(sy.place(sy.height_marks(), 0.5, 0.5, 0.6), st.black)
        cv.text(f"{feet}'-{inch}\"", 0.22, 0.42, 0.78, 0.58, st.black, squeeze=0.75)
    add("height_limit", DIA, ("yellow", "black"), height)

    def weight(cv: Canvas, v: float | None) -> None:
        _board(cv)
        tons = (v or 9.07) / 0.90718474  # US short tons
        _lines(cv, [("WEIGHT", 0.09, 0.25), ("LIMIT", 0.31, 0.47), (f"{tons:.0f} TONS", 0.60, 0.80)])
    add("weight_limit", RECT, ("white", "black"), weight)
    return r
