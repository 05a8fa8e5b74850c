"""Post-encroachment time on a hand-worked crossing: the k-d tree candidates, the separating-axis filter and the
GEOS test together must find the one pair of ticks whose boxes share ground, and the least time between them."""

from __future__ import annotations

import pytest

from roadtest.rules.margins import _is_vru, post_encroachment_time
from roadtest.sim.api import ActorState, Trace, WorldState

TICK = 0.05


def _run(walker_at) -> Trace:
    """Ego 4 m x 2 m along y = 0 at 10 m/s from x = 0; a 0.5 m walker placed by walker_at(t), for 10 s."""
    states = []
    for k in range(201):
        t = k * TICK
        wx, wy = walker_at(t)
        ego = ActorState("ego", "ego", "car", 10.0 * t, 0.0, 0.0, 0.0, 10.0, length=4.0, width=2.0)
        walker = ActorState("w", "scenario", "pedestrian", wx, wy, 0.0, 1.5707963, 0.0, length=0.5, width=0.5)
        states.append(WorldState(t, k, (ego, walker)))
    return Trace(states=states, tick=TICK)


def test_pet_is_the_time_from_the_ego_leaving_to_the_walker_arriving():
    # The ego's box covers x = 30 while |10 t - 30| < 2 + 0.25: its last such tick is t = 3.20 (front edge gone
    # past at 3.25, where the gap is 2.5 m). The walker stands on that spot only from t = 6.00 to 8.00, 50 m off
    # the road before and after: PET = 6.00 - 3.20 = 2.80 s.
    pet = post_encroachment_time(_run(lambda t: (30.0, 0.0) if 6.0 - 1e-9 <= t <= 8.0 + 1e-9 else (30.0, 50.0)),
                                 _is_vru)
    assert pet == pytest.approx(2.80, abs=1e-9)


def test_pet_is_the_run_length_when_paths_never_meet_and_zero_on_contact():
    # 1.25 m beside the ego's side: boxes 1 + 0.25 apart across, never touching -> the run's 10 s.
    assert post_encroachment_time(_run(lambda t: (30.0, 1.3)), _is_vru) == pytest.approx(10.0)
    # standing in the ego's path the whole run: the boxes overlap at the same tick -> 0 s.
    assert post_encroachment_time(_run(lambda t: (30.0, 0.0)), _is_vru) == 0.0
