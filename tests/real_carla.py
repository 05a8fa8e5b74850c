"""The real CARLA client for tests that need it (carla.Map builds without a server), or a skip naming why."""

from __future__ import annotations

import os

import pytest


def real_carla():
    """The real `carla` module; skips when only roadtest's stand-in, or nothing, is importable."""
    os.environ.setdefault("HOME", "/tmp")  # the real client crashes without HOME
    carla = pytest.importorskip("carla", reason="the real CARLA client (extra 'carla') is not installed")
    from roadtest.agents.leaderboard_compat import is_compat

    if is_compat(carla):
        pytest.skip("only roadtest's stand-in `carla` is importable, not the real client")
    return carla
