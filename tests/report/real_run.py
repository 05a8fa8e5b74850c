"""A real closed-loop run for the replay and report tests: the lane-follower on the speed-limit scenario."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "scenarios" / "straight_speed_limit.yaml"


def real_run(out: Path) -> Path:
    """Run it into `out` (once; reused when already there) and return its run folder."""
    from roadtest.cli import main

    runs = out / "runs"
    if not runs.is_dir():
        assert main(["run", str(SCENARIO), "--agent", "lane-follower", "--out", str(out)]) in (0, 1)
    (run_dir,) = list(runs.iterdir())
    return run_dir
