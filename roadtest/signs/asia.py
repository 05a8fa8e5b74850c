"""Faces of China (GB 5768.2) and Japan (road-sign order 道路標識令).

CN: red-ringed prohibitions with black symbols and a red bar, yellow warning triangles with black
borders, blue mandatory discs and blue indication panels, the octagonal 停 stop sign, a 让 give-way
triangle. JP: red-ringed regulatory discs with blue figures, blue mandatory discs, yellow warning
diamonds, the inverted red 止まれ triangle; an "end" is the restriction's sign above an end plate
(ここまで). The kanji come from the shipped glyph atlas (see `roadtest.signs.fonts`).
"""

from __future__ import annotations

from roadtest.signs import symbols as sy
from roadtest.signs.canvas import Canvas, arrow, circle, rect, rotate, triangle, union
from roadtest.signs.parts import Face, Style, blue_disc, blue_square, end_bars, end_board, limit_text, ring_disc, slash, warning

__all__ = ["recipes", "STYLES"]

STYLES = {
    "CN": Style(red=(210, 30, 40), blue=(0, 75, 160), yellow=(255, 200, 0), ring=0.1, warn_fill=(255, 200, 0),
                warn_border=(20, 20, 20), warn_border_w=0.06, warn_rim=True, squeeze=0.78, slash=True),
    "JP": Style(red=(215, 25, 35), blue=(0, 70, 155), yellow=(255, 205, 0), ring=0.1, warn_shape="diamond",
                warn_fill=(255, 205, 0), digits=(0, 70, 155), squeeze=0.78, slash=True),
}
DISC = ("circle", 1.0, 1.0)
SQ = ("square", 1.0, 1.0)
PLATE = ("circle_with_plate", 0.75, 1.0)


def recipes(country: str) -> dict[str, Face]:
    st = STYLES[country]
    jp = country == "JP"
    warn_shape = ("diamond", 1.0, 1.0) if jp else ("triangle", 1.0, 0.866)
    r: dict[str, Face] = {}

    def add(sid, shape, colours, draw):
        r[sid] = Face(shape[0], shape[1], shape[2], draw, colours)

    def speed_disc(cv: Canvas, v: float | None) -> None:
        ring_disc(cv, st)
        limit_text(cv, st, str(int(v or 50)))

    def with_end_plate(draw):
        """JP: the restriction's disc above a white plate reading ここまで (up to here)."""
        def plate(cv: Canvas, v: float | None) -> None:
            sub = _Sub(cv, 0.75)
            draw(sub, v)
            cv.fill(rect(0.0, 0.78, 0.75, 1.0, 0.01), st.black)
            cv.fill(rect(0.012, 0.79, 0.738, 0.988, 0.008), st.white)
            cv.text("ここまで", 0.07, 0.83, 0.68, 0.95, st.black)
        return plate

    add("speed_limit", DISC, ("red", "white", "blue" if jp else "black"), speed_disc)
    if jp:
        add("end_speed_limit", PLATE, ("red", "white", "blue", "black"), with_end_plate(speed_disc))
    else:
        def end_speed(cv: Canvas, v: float | None) -> None:
            end_board(cv, st, 0.03)
            limit_text(cv, st, str(int(v or 50)))
            end_bars(cv, st, (-0.06, 0.0, 0.06), 0.014, 0.03)
        add("end_speed_limit", DISC, ("white", "black"), end_speed)

    def minimum(cv: Canvas, v: float | None) -> None:
        blue_disc(cv, st)
        limit_text(cv, st, str(int(v or 50)), st.white, (0.2, 0.24, 0.8, 0.66) if jp else None)
        if jp:
            cv.fill(rect(0.24, 0.71, 0.76, 0.77), st.white)
    add("minimum_speed", DISC, ("blue", "white"), minimum)

    if jp:
        def priority(cv: Canvas, v: float | None) -> None:  # 405 優先道路: the wide road's arrow across a narrow road
            blue_square(cv, st)
            cv.fill(rect(0.14, 0.50, 0.86, 0.56), st.white)
            cv.fill(arrow([(0.5, 0.86), (0.5, 0.14)], 0.16, 0.26), st.white)
        add("priority_road", SQ, ("blue", "white"), priority)

        def inverted(text: str):
            def draw(cv: Canvas, v: float | None) -> None:
                cv.fill(triangle(0.5, 0.433, 1.0, False, 0.05), st.white)
                cv.fill(triangle(0.5, 0.433 - 0.01, 0.94, False, 0.04), st.red)
                cv.text(text, 0.22, 0.12, 0.78, 0.34, st.white)
            return draw
        add("stop", ("inverted_triangle", 1.0, 0.866), ("red", "white"), inverted("止まれ"))
        add("yield", ("inverted_triangle", 1.0, 0.866), ("red", "white"), inverted("徐行"))
    else:
        from roadtest.signs.parts import give_way, stop_octagon
        add("stop", ("octagon", 1.0, 1.0), ("red", "white"), lambda cv, v: stop_octagon(cv, st, "停"))

        def yield_(cv: Canvas, v: float | None) -> None:
            give_way(cv, st, border=0.11)
            cv.text("让", 0.36, 0.12, 0.64, 0.40, st.black)
        add("yield", ("inverted_triangle", 1.0, 0.866), ("red", "white", "black"), yield_)

        def priority(cv: Canvas, v: float | None) -> None:  # 会车先行: you go first against oncoming traffic
            blue_square(cv, st)
            cv.fill(arrow([(0.36, 0.84), (0.36, 0.16)], 0.12, 0.22), st.white)
            cv.fill(arrow([(0.66, 0.20), (0.66, 0.84)], 0.08, 0.16), st.red)
        add("priority_road", SQ, ("blue", "white", "red"), priority)

        def emergency(cv: Canvas, v: float | None) -> None:
            cv.fill(rect(0, 0, 1.0, 0.5, 0.04), st.white)
            cv.fill(rect(0.015, 0.015, 0.985, 0.485, 0.03), st.blue)
            cv.text("应急车道", 0.08, 0.12, 0.92, 0.38, st.white)
        add("emergency_lane", ("rectangle", 1.0, 0.5), ("blue", "white"), emergency)

    def cars(cv: Canvas, left, right) -> None:
        cv.fill(sy.car_rear(0.31, 0.52, 0.3), left)
        cv.fill(sy.car_rear(0.69, 0.52, 0.3), right)

    def no_overtaking(cv: Canvas, v: float | None) -> None:
        ring_disc(cv, st)
        if jp:
            cv.text("追越し", 0.2, 0.3, 0.8, 0.48, st.blue)
            cv.text("禁止", 0.28, 0.54, 0.72, 0.72, st.blue)
        else:
            cars(cv, st.red, st.black)  # the overtaking car on the offside (left in right-hand traffic)
    add("no_overtaking", DISC, ("red", "white", "blue" if jp else "black"), no_overtaking)
    if jp:
        add("end_no_overtaking", PLATE, ("red", "white", "blue", "black"), with_end_plate(no_overtaking))
    else:
        def end_no_overtaking(cv: Canvas, v: float | None) -> None:
            end_board(cv, st, 0.03)
            cars(cv, st.grey, st.grey)
            end_bars(cv, st, (-0.06, 0.0, 0.06), 0.014, 0.03)
        add("end_no_overtaking", DISC, ("white", "black", "grey"), end_no_overtaking)

    def no_entry(cv: Canvas, v: float | None) -> None:
        cv.fill(circle(0.5, 0.5, 0.5), st.red)
        cv.fill(rect(0.16, 0.41, 0.84, 0.59), st.white)
    add("no_entry", DISC, ("red", "white"), no_entry)

    def prohibition(sym, size=0.6):
        def draw(cv: Canvas, v: float | None) -> None:
            ring_disc(cv, st)
            cv.fill(sy.place(sym, 0.5, 0.5, size), st.black)
            slash(cv, st, 0.09)
        return draw
    add("no_u_turn", DISC, ("red", "white", "black"), prohibition(sy.mirror(sy.u_turn()) if jp else sy.u_turn()))
    if jp:  # 指定方向外進行禁止: a blue disc shows the directions that remain allowed
        def allowed(right_allowed: bool):
            def draw(cv: Canvas, v: float | None) -> None:
                side = sy.turn(right=right_allowed)
                blue_disc(cv, st, union(sy.straight_arrow(), side), 0.6, white_rim=True)
            return draw
        add("no_left_turn", DISC, ("blue", "white"), allowed(True))
        add("no_right_turn", DISC, ("blue", "white"), allowed(False))
    else:
        add("no_left_turn", DISC, ("red", "white", "black"), prohibition(sy.turn(right=False)))
        add("no_right_turn", DISC, ("red", "white", "black"), prohibition(sy.turn(right=True)))

    def no_park(cross: bool):
        def draw(cv: Canvas, v: float | None) -> None:
            ring_disc(cv, st, inner=st.blue)
            slash(cv, st, 0.1)
            if cross:
                cv.fill(rotate(rect(0.08, 0.45, 0.92, 0.55), -45, origin=(0.5, 0.5)), st.red)
        return draw
    add("no_parking", DISC, ("blue", "red"), no_park(False))
    add("no_stopping", DISC, ("blue", "red"), no_park(True))

    wcol = ("yellow", "black")

    def warn(sym, size=0.42, colour=None):
        return lambda cv, v: warning(cv, st, sym, colour, size * (1.1 if jp else 1.0))
    add("school_zone", warn_shape, wcol, warn(sy.children(), 0.44))
    add("work_zone", warn_shape, wcol, warn(sy.worker(), 0.42))
    add("pedestrians_warning", warn_shape, wcol, warn(sy.exclamation() if jp else sy.pedestrian(), 0.42))
    add("slippery_road", warn_shape, wcol, warn(sy.skid(), 0.42))
    add("curve_left", warn_shape, wcol, warn(sy.curve(right=False), 0.44))
    add("curve_right", warn_shape, wcol, warn(sy.curve(right=True), 0.44))
    add("merge", warn_shape, wcol, warn(sy.merge(from_right=not jp), 0.42))
    add("lane_ends", warn_shape, wcol, warn(sy.narrows(right=not jp), 0.42))
    if not jp:
        add("tunnel", warn_shape, wcol, warn(sy.tunnel(), 0.40))
        add("fog_warning", warn_shape, wcol, warn(sy.fog(), 0.40))

    def signals(cv: Canvas, v: float | None) -> None:
        cy = 0.5 if jp else 0.866 * 0.6
        housing, lamps = sy.light_housing(), sy.light_lamps()
        if jp:  # Japanese signal heads hang horizontally
            housing, lamps = rotate(housing, 90, origin=(0, 0)), [rotate(l, 90, origin=(0, 0)) for l in lamps[::-1]]
        warning(cv, st, housing, st.black, 0.46)
        for lamp, c in zip(lamps, (st.red, (255, 170, 0), (0, 160, 80))):
            cv.fill(sy.place(lamp, 0.5, cy, 0.46), c)
    add("traffic_signals_ahead", warn_shape, ("yellow", "black", "red", "green"), signals)

    def crossing(cv: Canvas, v: float | None) -> None:
        blue_square(cv, st)
        if jp:
            cv.fill(triangle(0.5, 0.47, 0.86, True, 0.03), st.white)
            cv.fill(sy.place(sy.pedestrian(), 0.52, 0.52, 0.44), st.black)
            cv.fill(sy.place(sy.zebra(0.9, 5), 0.5, 0.56, 0.5), st.black)
        else:
            cv.fill(sy.place(sy.pedestrian(), 0.5, 0.42, 0.6), st.white)
            cv.fill(sy.place(sy.zebra(0.9, 5), 0.5, 0.46, 0.8), st.white)
    add("pedestrian_crossing", SQ, ("blue", "white", "black") if jp else ("blue", "white"), crossing)

    def keep(right: bool):
        return lambda cv, v: blue_disc(cv, st, sy.keep_arrow(right), 0.62, white_rim=True)
    add("keep_right", DISC, ("blue", "white"), keep(True))
    add("keep_left", DISC, ("blue", "white"), keep(False))
    add("roundabout", DISC, ("blue", "white"),
        lambda cv, v: blue_disc(cv, st, sy.mirror(sy.roundabout()) if jp else sy.roundabout(), 0.78, white_rim=True))

    fig = st.digits

    def height(cv: Canvas, v: float | None) -> None:
        ring_disc(cv, st)
        cv.fill(sy.place(sy.height_marks(), 0.5, 0.5, 0.78), fig)
        cv.text(f"{v or 3.8:g}m", 0.18, 0.38, 0.82, 0.62, fig, squeeze=st.squeeze)
    add("height_limit", DISC, ("red", "white", "blue" if jp else "black"), height)

    def weight(cv: Canvas, v: float | None) -> None:
        ring_disc(cv, st)
        cv.text(f"{v or 10:g}t", 0.2, 0.34, 0.8, 0.66, fig, squeeze=st.squeeze)
    add("weight_limit", DISC, ("red", "white", "blue" if jp else "black"), weight)
    return r


class _Sub:
    """A view of a canvas whose unit square is the top `size` x `size` part (a disc above a plate)."""

    def __init__(self, cv: Canvas, size: float):
        from roadtest.signs.canvas import scale

        self._cv, self._s, self._scale = cv, size, scale
        self.w = self.h = 1.0

    def fill(self, g, color) -> None:
        self._cv.fill(self._scale(g, self._s, self._s, origin=(0, 0)), color)

    def text(self, s, x0, y0, x1, y1, color, **kw) -> None:
        k = self._s
        self._cv.text(s, x0 * k, y0 * k, x1 * k, y1 * k, color, **kw)
