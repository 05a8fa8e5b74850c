"""Traffic-signal states as WorldState gives them, whatever spelling the scenario or the player used."""

from __future__ import annotations

__all__ = ["signal_colour", "COLOURS"]

COLOURS = ("red", "yellow", "green")  # the lamps of a three-lamp head, top to bottom


def signal_colour(state: str) -> str:
    """A signal state as WorldState gives it: red, yellow, red_yellow, green or off.

    Accepts colour words and esmini's lamp lists ("off;off;on" = red;yellow;green lamps; two lamps = red;green).
    """
    st = str(state).strip().lower()
    if ";" in st:
        lamps = [p.strip() in ("on", "flashing", "1", "true") for p in st.split(";")]
        names = COLOURS if len(lamps) == 3 else ("red", "green") if len(lamps) == 2 else ()
        lit = [n for n, on in zip(names, lamps) if on]
        return "_".join(lit) if lit else "off"
    for word in ("red", "yellow", "amber", "green"):
        if word in st:
            return "yellow" if word == "amber" else word
    return st or "off"
