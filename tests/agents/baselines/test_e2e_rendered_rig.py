"""The e2e-server agent on the built-in simulator's own cameras: six rendered 1600x900 views reach the server.

Needs the camera renderer (roadtest.sim.embedded.render); on a branch without it the module is skipped."""

from __future__ import annotations

import base64
import threading

import cv2
import numpy as np
import pytest

pytest.importorskip("roadtest.sim.embedded.render.cameras", reason="the camera renderer is not on this branch")

from e2e_standin_models import FixedCurveStandInModel  # noqa: E402
from roadtest.agents.baselines.e2e_server import CAMERAS, make_server  # noqa: E402


def test_the_rendered_rig_reaches_the_server_at_1600x900(repo_root, tmp_path):
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import iter_target
    from roadtest.runner.episode import run_episode
    from roadtest.sim.api import SimSettings

    model = FixedCurveStandInModel()
    server = make_server(model, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        ((_, result),) = list(iter_target(repo_root / "scenarios" / "straight_speed_limit.yaml"))
        bundle = load_bundle(write_bundle(result[0], tmp_path))
        trace = run_episode(bundle, 0, "e2e-server", SimSettings(max_time=0.15), "embedded",
                            agent_config={"url": f"http://127.0.0.1:{server.server_address[1]}"})
    finally:
        server.shutdown()
        server.server_close()
    assert len(model.requests) == len(trace.agent) >= 3
    imgs = {c: cv2.imdecode(np.frombuffer(base64.b64decode(model.requests[-1]["images"][c]), np.uint8),
                            cv2.IMREAD_COLOR) for c in CAMERAS}
    assert all(img.shape == (900, 1600, 3) for img in imgs.values())
    # the model's arrays are RGB: the sky (top rows of the front view) is bluer than it is red
    sky = imgs["CAM_FRONT"][:60].reshape(-1, 3).mean(axis=0)
    assert sky[2] > sky[0] + 20
    # six different views: no two cameras sent the same picture
    means = [float(np.abs(imgs[a].astype(int) - imgs[b].astype(int)).mean()) for i, a in enumerate(CAMERAS)
             for b in CAMERAS[i + 1:]]
    assert min(means) > 5.0
