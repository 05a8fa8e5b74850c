"""Overhead of the roadtest-e2e protocol per step at 1600x900: what the e2e-server agent adds to a model's own time.

A stand-in model (DecodeOnlyStandIn: decodes the six JPEGs as the UniAD/VAD server does, then returns a fixed
curve; no network, no GPU) is served by e2e_server.py in its own process on loopback. Per step, fastest and
median of --steps, wall-clock:
  agent step   the e2e-server agent's whole run_step (inputs, 6 x JPEG q20 encode, base64, HTTP + JSON, server
               decode, PID), against the stand-in
  in-process   the JPEG round trip Bench2DriveZoo's own agent does in-process (6 x encode + decode), the peer
and the ratio agent step / in-process. Images: seeded smoothed noise with edges (JPEG cost near a road scene's).
Run: python3 benchmarks/e2e_protocol_bench.py [--steps 20] [--url URL]  (--url: a server started elsewhere)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


class DecodeOnlyStandIn:
    """Stand-in model (not a model): decodes the six images as the real server does, answers a fixed curve."""

    def reset(self, request):
        pass

    def infer(self, request):
        from roadtest.agents.baselines.e2e_server import CAMERAS, decode_jpeg

        for cam in CAMERAS:
            decode_jpeg(request["images"][cam])
        return {"trajectory": [[0.0, 2.5 * i] for i in range(1, 7)]}


def _images(seed: int = 0):
    import cv2
    import numpy as np

    from roadtest.agents.baselines.rig import UNIAD_RIG

    rng = np.random.default_rng(seed)
    out = {}
    for spec in UNIAD_RIG:
        small = rng.integers(0, 256, (90, 160, 4), dtype=np.uint8)
        img = cv2.resize(small, (1600, 900), interpolation=cv2.INTER_LINEAR)
        img[450:, :, :3] //= 2  # a horizon
        img[..., 3] = 255
        out[spec["id"]] = img
    return out


def _inputs(images, x: float):
    import numpy as np

    from roadtest.sim.sensors import gnss_from_xy

    g = gnss_from_xy(x, 0.0, 0.0)
    data = {"GPS": (0, np.array([g["lat"], g["lon"], 0.0])), "IMU": (0, np.array([0, 0, 9.81, 0, 0, 0, np.pi / 2])),
            "SPEED": (0, {"speed": 5.0})}
    data.update({k: (0, v) for k, v in images.items()})
    return data


def _summary(times: list[float]) -> str:
    return f"fastest {1000 * min(times):7.1f} ms, median {1000 * statistics.median(times):7.1f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--url", default=None, help="a server already running (default: start the stand-in here)")
    a = ap.parse_args()
    from roadtest.agents.baselines.inputs import jpeg_roundtrip
    from roadtest.agents.registry import load_agent

    proc = None
    url = a.url
    if url is None:
        env = {**os.environ, "PYTHONPATH": f"{ROOT / 'benchmarks'}{os.pathsep}{ROOT}"}
        proc = subprocess.Popen([sys.executable, str(ROOT / "roadtest/agents/baselines/e2e_server.py"), "--model",
                                 "e2e_protocol_bench:DecodeOnlyStandIn", "--port", "0"], stdout=subprocess.PIPE,
                                text=True, env=env)
        url = proc.stdout.readline().split(" on ")[-1].strip()
    try:
        images = _images()
        agent = load_agent("e2e-server", {"url": url, "timeout": 30})
        agent.set_global_plan([(0.0, 0.0), (500.0, 0.0)], {})
        step, local = [], []
        for i in range(a.steps):
            t = time.perf_counter()
            agent(_inputs(images, 0.25 * i), 0.05 * i)
            step.append(time.perf_counter() - t)
            t = time.perf_counter()
            for img in images.values():
                jpeg_roundtrip(img)
            local.append(time.perf_counter() - t)
        server_ms = [float(agent.last_answer.get("latency_ms", 0.0))]
        kb = agent.client.last_request_bytes / 1024
        print(f"e2e protocol at 1600x900 x 6 cameras, {a.steps} steps, stand-in model (decode only), loopback")
        print(f"  agent step   {_summary(step)}   (server-side decode of the last step {server_ms[0]:.1f} ms)")
        print(f"  in-process   {_summary(local)}   (Bench2DriveZoo's own JPEG round trip)")
        print(f"  ratio agent step / in-process (medians): {statistics.median(step) / statistics.median(local):.2f}")
        print(f"  protocol overhead beyond their round trip: "
              f"{1000 * (statistics.median(step) - statistics.median(local)):.1f} ms per step"
              + f"; {kb:.0f} KiB per request")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
