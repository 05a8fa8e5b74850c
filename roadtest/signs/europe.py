"""Faces under the Vienna convention as Germany (StVO), France (IISR) and Great Britain (TSRGD) draw them:
red-ringed prohibition discs, red-bordered warning triangles, blue mandatory discs, white-bordered
yellow priority diamond. The countries differ in proportions, units (GB in mph), the bar across
prohibitions (GB and FR cross their turn and U-turn symbols, DE does not) and circulation direction."""

from __future__ import annotations

from typing import Callable

from roadtest.signs import symbols as sy
from roadtest.signs.canvas import Canvas, circle, diamond, rect, rotate, triangle
from roadtest.signs.parts import (Face, Style, blue_disc, blue_square, end_bars, end_board, give_way, limit_text, mph,
                                  ring_disc, slash, stop_octagon, warning)

__all__ = ["recipes", "STYLES"]

STYLES = {
    "DE": Style(red=(196, 30, 58), blue=(0, 84, 159), yellow=(245, 182, 0), ring=0.085, squeeze=0.72, slash=False),
    "FR": Style(red=(200, 16, 46), blue=(0, 85, 164), yellow=(252, 196, 0), ring=0.09, squeeze=0.8, slash=True),
    "GB": Style(red=(218, 41, 28), blue=(0, 94, 184), yellow=(255, 206, 0), ring=0.105, squeeze=0.9, slash=True,
                warn_border_w=0.09),
}

DISC = ("circle", 1.0, 1.0)
TRI = ("triangle", 1.0, 0.866)
INV = ("inverted_triangle", 1.0, 0.866)
SQ = ("square", 1.0, 1.0)


def _fmt(v: float, unit: str, country: str) -> str:
    s = f"{v:g}"
    return (s.replace(".", ",") if country in ("DE", "FR") else s) + unit


def recipes(country: str) -> dict[str, Face]:
    st = STYLES[country]
    gb = country == "GB"
    r: dict[str, Face] = {}

    def add(sid: str, shape: tuple[str, float, float], colours: tuple[str, ...], draw: Callable[[Canvas, float | None], None]) -> None:
        r[sid] = Face(shape[0], shape[1], shape[2], draw, colours)

    def speed(cv: Canvas, v: float | None) -> None:
        ring_disc(cv, st)
        limit_text(cv, st, str(mph(v or 50) if gb else int(v or 50)))
    add("speed_limit", DISC, ("red", "white", "black"), speed)

    def end_bars_of(cv: Canvas) -> None:
        # FR: one broad bar; DE: a band of four thin bars
        end_bars(cv, st, (0.0,), 0.04) if country == "FR" else end_bars(cv, st, (-0.075, -0.025, 0.025, 0.075), 0.011)

    def end_speed(cv: Canvas, v: float | None) -> None:
        if gb:  # national speed limit applies: plain white disc, black diagonal bar
            end_board(cv, st, 0.015)
            end_bars(cv, st, (0.0,), 0.07, 0.015)
            return
        end_board(cv, st)
        limit_text(cv, st, str(int(v or 50)), st.grey)
        end_bars_of(cv)
    add("end_speed_limit", DISC, ("white", "black", "grey"), end_speed)

    def minimum(cv: Canvas, v: float | None) -> None:
        blue_disc(cv, st)
        limit_text(cv, st, str(mph(v or 30) if gb else int(v or 30)), st.white)
    add("minimum_speed", DISC, ("blue", "white"), minimum)

    add("stop", ("octagon", 1.0, 1.0), ("red", "white"), lambda cv, v: stop_octagon(cv, st, squeeze=0.85))
    def yield_(cv: Canvas, v: float | None) -> None:
        give_way(cv, st, border=0.11 if gb else 0.1)
        if gb:  # TSRGD diagram 602: the legend GIVE over WAY in black in the triangle's wide part
            cv.text("GIVE", 0.32, 0.175, 0.68, 0.295, st.black, squeeze=0.9)
            cv.text("WAY", 0.38, 0.32, 0.62, 0.42, st.black, squeeze=0.9)
    add("yield", INV, ("red", "white", "black") if gb else ("red", "white"), yield_)

    def cars(cv: Canvas, left: tuple[int, int, int], right: tuple[int, int, int]) -> None:
        cv.fill(sy.car_rear(0.31, 0.52, 0.3), left)
        cv.fill(sy.car_rear(0.69, 0.52, 0.3), right)

    def no_overtaking(cv: Canvas, v: float | None) -> None:
        ring_disc(cv, st)
        # the overtaking car is the one on the offside: left in right-hand traffic, right in GB
        cars(cv, st.black, st.red) if gb else cars(cv, st.red, st.black)
    add("no_overtaking", DISC, ("red", "white", "black"), no_overtaking)

    if not gb:
        def end_no_overtaking(cv: Canvas, v: float | None) -> None:
            end_board(cv, st)
            cars(cv, st.grey, st.grey)
            end_bars_of(cv)
        add("end_no_overtaking", DISC, ("white", "black", "grey"), end_no_overtaking)

        def priority(cv: Canvas, v: float | None) -> None:
            cv.fill(diamond(0.5, 0.5, 0.5, 0.02), st.black)
            cv.fill(diamond(0.5, 0.5, 0.49, 0.02), st.white)
            cv.fill(diamond(0.5, 0.5, 0.33, 0.0), st.yellow)
        add("priority_road", ("diamond", 1.0, 1.0), ("yellow", "white", "black"), priority)

    def no_entry(cv: Canvas, v: float | None) -> None:
        cv.fill(circle(0.5, 0.5, 0.5), st.red)
        cv.fill(rect(0.18, 0.40, 0.82, 0.60), st.white)
    add("no_entry", DISC, ("red", "white"), no_entry)

    def prohibition(sym, size=0.62):
        def draw(cv: Canvas, v: float | None) -> None:
            ring_disc(cv, st)
            cv.fill(sy.place(sym, 0.5, 0.5, size), st.black)
            if st.slash:
                slash(cv, st, 0.09)
        return draw
    add("no_u_turn", DISC, ("red", "white", "black"), prohibition(sy.mirror(sy.u_turn()) if gb else sy.u_turn()))
    if country != "DE":  # StVO forbids turns with mandatory-direction signs (209, 211, 214), not a prohibition disc
        add("no_left_turn", DISC, ("red", "white", "black"), prohibition(sy.turn(right=False)))
        add("no_right_turn", DISC, ("red", "white", "black"), prohibition(sy.turn(right=True)))

    def no_park(cross: bool):
        def draw(cv: Canvas, v: float | None) -> None:
            ring_disc(cv, st, inner=st.blue, ring=st.ring * 1.1)
            slash(cv, st, 0.1, ring=st.ring * 1.1)
            if cross:
                cv.fill(rotate(rect(0.08, 0.45, 0.92, 0.55), -45, origin=(0.5, 0.5)), st.red)
        return draw
    add("no_parking", DISC, ("blue", "red"), no_park(False))
    add("no_stopping", DISC, ("blue", "red"), no_park(True))

    def warn(sym, size=0.42, colour=None, fill=None):
        return lambda cv, v: warning(cv, st, sym, colour, size, fill)
    add("school_zone", TRI, ("red", "white", "black"), warn(sy.children(), 0.44))
    works_fill = st.yellow if country == "FR" else None  # FR temporary signs (AK) have a yellow field
    add("work_zone", TRI, ("red", "yellow" if works_fill else "white", "black"), warn(sy.worker(), 0.42, fill=works_fill))
    add("pedestrians_warning", TRI, ("red", "white", "black"), warn(sy.pedestrian(), 0.42))
    add("slippery_road", TRI, ("red", "white", "black"), warn(sy.skid(), 0.42))
    add("curve_left", TRI, ("red", "white", "black"), warn(sy.curve(right=False, head=gb), 0.46))
    add("curve_right", TRI, ("red", "white", "black"), warn(sy.curve(right=True, head=gb), 0.46))
    add("lane_ends", TRI, ("red", "white", "black"), warn(sy.narrows(right=True), 0.42))
    if country != "FR":
        add("merge", TRI, ("red", "white", "black"), warn(sy.merge(from_right=False) if gb else sy.narrows_both(), 0.42))
    if country == "DE":
        add("fog_warning", TRI, ("red", "white", "black"), warn(sy.fog(), 0.38, colour=st.grey))

    def signals(cv: Canvas, v: float | None) -> None:
        warning(cv, st, sy.light_housing(), st.black, 0.44)
        for lamp, c in zip(sy.light_lamps(), (st.red, st.yellow, st.green)):
            cv.fill(sy.place(lamp, 0.5, 0.866 * 0.6, 0.44), c)
    add("traffic_signals_ahead", TRI, ("red", "white", "black", "yellow", "green"), signals)

    if gb:
        add("tunnel", TRI, ("red", "white", "black"), warn(sy.tunnel(), 0.40))
    else:
        def tunnel(cv: Canvas, v: float | None) -> None:
            blue_square(cv, st)
            cv.fill(sy.place(sy.tunnel(), 0.5, 0.55, 0.7), st.white)
        add("tunnel", SQ, ("blue", "white"), tunnel)

    def crossing(cv: Canvas, v: float | None) -> None:
        if gb:  # GB warns of a crossing with the red triangle; zebra crossings have beacons, not a sign face
            warning(cv, st, sy.pedestrian(), st.black, 0.36)
            cv.fill(sy.place(sy.zebra(), 0.5, 0.866 * 0.6, 0.42), st.black)
            return
        blue_square(cv, st)
        cv.fill(triangle(0.5, 0.47, 0.86, True, 0.03), st.white)
        cv.fill(sy.place(sy.pedestrian(), 0.52, 0.52, 0.44), st.black)
        cv.fill(sy.place(sy.zebra(0.9, 5), 0.5, 0.56, 0.5), st.black)
    add("pedestrian_crossing", TRI if gb else SQ, ("red", "white", "black") if gb else ("blue", "white", "black"), crossing)

    def keep(right: bool):
        return lambda cv, v: blue_disc(cv, st, sy.keep_arrow(right), 0.62, white_rim=True)
    add("keep_right", DISC, ("blue", "white"), keep(True))
    add("keep_left", DISC, ("blue", "white"), keep(False))

    def roundabout(cv: Canvas, v: float | None) -> None:
        sym = sy.mirror(sy.roundabout()) if gb else sy.roundabout()  # GB circulates clockwise
        if country == "FR":  # AB25: danger triangle with the circulating arrows
            warning(cv, st, sym, st.black, 0.40)
        else:
            blue_disc(cv, st, sym, 0.78, white_rim=True)
    add("roundabout", TRI if country == "FR" else DISC, ("red", "white", "black") if country == "FR" else ("blue", "white"), roundabout)

    def height(cv: Canvas, v: float | None) -> None:
        ring_disc(cv, st)
        cv.fill(sy.place(sy.height_marks(), 0.5, 0.5, 0.8), st.black)
        v = v or 3.8
        text = f"{int(v / 0.3048)}'{int(round((v / 0.3048 % 1) * 12))}\"" if gb else _fmt(v, "m", country)
        cv.text(text, 0.17, 0.37, 0.83, 0.63, st.black, squeeze=st.squeeze)
    add("height_limit", DISC, ("red", "white", "black"), height)

    def weight(cv: Canvas, v: float | None) -> None:
        ring_disc(cv, st)
        cv.text(_fmt(v or 7.5, "T" if gb else "t", country), 0.17, 0.34, 0.83, 0.66, st.black, squeeze=st.squeeze)
    add("weight_limit", DISC, ("red", "white", "black"), weight)
    return r
