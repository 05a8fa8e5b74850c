"""Agents that kill their own worker process, to test lost-worker retries (test stand-ins, not drivers).

The marker folder comes from ROADTEST_TEST_DIE_DIR, which worker processes inherit from the test.
"""

from __future__ import annotations

import os
from pathlib import Path

from roadtest.agents.lane_follower import LaneFollowerAgent


class DiesOnceAgent(LaneFollowerAgent):
    """Drives as the lane follower, but the first run to reach its first tick anywhere kills its process."""

    def run_step(self, input_data, timestamp):
        marker = Path(os.environ["ROADTEST_TEST_DIE_DIR"]) / "died"
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return super().run_step(input_data, timestamp)
        os.close(fd)
        os._exit(137)


class AlwaysDiesAgent(LaneFollowerAgent):
    """Kills its process on every attempt, counting attempts in the marker folder."""

    def run_step(self, input_data, timestamp):
        folder = Path(os.environ["ROADTEST_TEST_DIE_DIR"])
        with open(folder / "attempts", "a") as f:
            f.write("x")
        os._exit(137)


class DiesInSecondRunAgent(LaneFollowerAgent):
    """Drives as the lane follower and notes its process id per run; the first process to start a second run
    kills itself at that run's first tick (a long-lived worker dying mid-run)."""

    def run_step(self, input_data, timestamp):
        folder = Path(os.environ["ROADTEST_TEST_DIE_DIR"])
        if not getattr(self, "_noted", False):
            self._noted = True
            runs = folder / f"runs-{os.getpid()}"
            served = runs.read_text().count("x") if runs.exists() else 0
            with open(runs, "a") as f:
                f.write("x")
            if served >= 1:
                try:
                    fd = os.open(folder / "died", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                except FileExistsError:
                    pass
                else:
                    os.write(fd, str(os.getpid()).encode())
                    os.close(fd)
                    os._exit(137)
        return super().run_step(input_data, timestamp)
