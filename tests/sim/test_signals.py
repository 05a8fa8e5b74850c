"""Signal states as WorldState spells them, from colour words and esmini's lamp lists (red;yellow;green)."""

from __future__ import annotations

from roadtest.sim.signals import signal_colour


def test_signal_states_are_normalised_to_colours():
    assert signal_colour("off;off;on") == "green"
    assert signal_colour("on;off;off") == "red"
    assert signal_colour("on;on;off") == "red_yellow"
    assert signal_colour("on;off") == "red" and signal_colour("off;on") == "green"
    assert signal_colour("Amber") == "yellow" and signal_colour("off;off;off") == "off"
