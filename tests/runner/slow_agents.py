"""A lane follower slowed down on purpose, so a test can interrupt a run in flight (a test stand-in, not a driver).

It touches $ROADTEST_TEST_STARTED_DIR/started at its first tick, so the test knows a worker is inside a run.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from roadtest.agents.lane_follower import LaneFollowerAgent


class SlowLaneFollowerStandIn(LaneFollowerAgent):
    """Drives as the lane follower, 0.2 s of wall-clock time per tick."""

    def run_step(self, input_data, timestamp):
        (Path(os.environ["ROADTEST_TEST_STARTED_DIR"]) / "started").touch()
        time.sleep(0.2)
        return super().run_step(input_data, timestamp)
