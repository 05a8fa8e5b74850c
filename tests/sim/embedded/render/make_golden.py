"""Write the golden frames (golden/<preset>_<day|night>.png) of test_render_golden.py; look at them before committing.

    PYTHONPATH=. python tests/sim/embedded/render/make_golden.py
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import render_scene as rs  # noqa: E402

from roadtest.dsl.model import WEATHER_PRESETS, sun_elevation  # noqa: E402
from roadtest.sim.api import ActorState, Environment  # noqa: E402
from roadtest.sim.embedded.render.camera import CameraSpec  # noqa: E402

CAM = CameraSpec.from_spec({"type": "sensor.camera.rgb", "id": "golden", "x": 2.5, "z": 1.6, "width": 192,
                            "height": 128, "fov": 90})
WHEN = {"day": "12:00", "night": "23:00"}


def environment(preset: str, when: str) -> Environment:
    """The Environment a scenario with this preset and time gets (sun intensity 1 - cloudiness, as emitted)."""
    p = WEATHER_PRESETS[preset]
    el = sun_elevation(WHEN[when])
    return Environment(cloudiness=p["cloudiness"], precipitation="dry" if p["precipitation"] == "none" else p["precipitation"],
                       precipitation_intensity=p["precipitation_intensity"], fog_visual_range=p["fog_visual_range"],
                       wetness=p["wetness"], sun_elevation=el, sun_azimuth=math.radians(160),
                       sun_intensity=max(0.0, 1.0 - p["cloudiness"]) if el > 0 else 0.0)


def frame(renderer, preset: str, when: str) -> np.ndarray:
    """The golden scene: the ego 20 m before the sign, a car 14 m ahead braking, a pedestrian on the sidewalk."""
    car = ActorState(id="lead", role="scenario", kind="car", x=52.0, y=rs.LANE_T, z=0.0, h=0.0, speed=5.0, ax=-3.0,
                     length=4.5, width=1.8, height=1.5)
    walker = ActorState(id="walker", role="scenario", kind="pedestrian", x=48.0, y=-8.0, z=0.12, h=math.pi / 2,
                        speed=1.2, length=0.5, width=0.5, height=1.75)
    st = rs.state([rs.ego(35.0), car, walker], environment(preset, when), time=1.0, frame=20)
    return renderer.render(CAM, st, st.ego, ("rgb",))["rgb"]


if __name__ == "__main__":
    import cv2

    out = Path(__file__).parent / "golden"
    out.mkdir(exist_ok=True)
    r = rs.renderer()
    for preset in sorted(WEATHER_PRESETS):
        for when in WHEN:
            cv2.imwrite(str(out / f"{preset}_{when}.png"), frame(r, preset, when)[:, :, :3])
    print(f"wrote {2 * len(WEATHER_PRESETS)} frames to {out}")
