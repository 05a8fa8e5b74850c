"""The expert, noting which modules its worker process had imported when the run ended (a test stand-in).

It writes them as JSON to $ROADTEST_TEST_MODULES_DIR/worker-<pid>.json at destroy(), after the run's last tick.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from roadtest.agents.expert import ExpertAgent


class ModuleNotingExpertStandIn(ExpertAgent):
    """Drives as the expert; records sys.modules at the end of each run it drives."""

    def destroy(self) -> None:
        folder = os.environ.get("ROADTEST_TEST_MODULES_DIR")
        if folder and getattr(self, "_stepped", False):
            (Path(folder) / f"worker-{os.getpid()}.json").write_text(json.dumps(sorted(sys.modules)))
        super().destroy()

    def run_step(self, input_data, timestamp):
        self._stepped = True
        return super().run_step(input_data, timestamp)
