"""The trace's first state is after the storyboard's zero-length start, as esmini logs it: what starts at time 0
(a teleport, a trajectory's start) is already there when the agent first looks, and nothing has moved yet."""

from __future__ import annotations

import pytest

from roadtest.bundle import load_bundle
from roadtest.sim.api import SimSettings
from roadtest.sim.embedded import EmbeddedSimulator
from xosc_docs import event, lane_teleport, scenario, sim_time, straight_road, trigger

TICK = 0.05


def _teleport(s: float) -> str:
    return (f'<PrivateAction><TeleportAction><Position><LanePosition roadId="1" laneId="-1" s="{s}" offset="0"/>'
            '</Position></TeleportAction></PrivateAction>')


def _sim(tmp_path, body: str):
    (tmp_path / "road.xodr").write_text(straight_road())
    text = scenario(body, init=lane_teleport("Ego", -1, 10, 10.0), stop=trigger("StopTrigger", sim_time(5)))
    text = text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    (tmp_path / "s.xosc").write_text(text)
    return EmbeddedSimulator().load(load_bundle(tmp_path / "s.xosc"), 0, SimSettings(tick=TICK, max_time=5.0))


def _x(sim, st) -> float:
    """The Ego's reference point along x (the state holds its bounding-box centre)."""
    return st.actor("Ego").x - sim.trace.info["bbox_cx"]["Ego"]


def test_an_event_without_a_start_trigger_is_in_the_first_state(tmp_path):
    sim = _sim(tmp_path, event("Jump", _teleport(50.0)))
    first = sim.trace.states[0]
    assert first.time == 0.0 and _x(sim, first) == pytest.approx(50.0, abs=1e-6)
    st = sim.step(None)
    assert _x(sim, st) == pytest.approx(50.0 + 10.0 * TICK, abs=1e-6)  # one tick on from there, not two


def test_an_event_triggered_later_is_not(tmp_path):
    sim = _sim(tmp_path, event("Jump", _teleport(50.0), trigger("StartTrigger", sim_time(0.01))))
    assert _x(sim, sim.trace.states[0]) == pytest.approx(10.0, abs=1e-6)
    sim.step(None)
    sim.step(None)  # the teleport lands this tick and the entity stays there for it, as in esmini
    assert _x(sim, sim.state) == pytest.approx(50.0, abs=1e-6)
    sim.step(None)
    assert _x(sim, sim.state) == pytest.approx(50.0 + 10.0 * TICK, abs=1e-6)
