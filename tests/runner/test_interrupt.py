"""Ctrl-C during `roadtest run`: no worker traceback (`Process roadtest-...:`), a line saying how to resume, exit 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
AGENT = f"{Path(__file__).parent / 'slow_agents.py'}:SlowLaneFollowerStandIn"


def test_ctrl_c_stops_quietly_and_says_resume_continues(tmp_path):
    out = tmp_path / "res"
    env = dict(os.environ, ROADTEST_TEST_STARTED_DIR=str(tmp_path), PYTHONPATH=str(REPO))
    # a new session: the test sends SIGINT to the whole process group, as a terminal's Ctrl-C does
    proc = subprocess.Popen([sys.executable, "-m", "roadtest", "run", str(REPO / "scenarios" / "fog_sweep.yaml"),
                             "--agent", AGENT, "--out", str(out), "-j", "2"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "started").exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.1)
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Process roadtest-" not in err and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert f"interrupted; 0 of 4 run(s) recorded in {out / 'results.jsonl'}" in err, err
    assert f"--out {out} --resume runs the rest" in err, err
