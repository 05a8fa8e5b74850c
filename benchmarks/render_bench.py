"""Camera rendering speed: frames per second at 800x600 and 1600x900 by day, night + rain and dense fog; the
six-camera UniAD/VAD rig per tick; how a frame's cost grows with the number of actors and with the road's size.

Each figure is the median of --repeat runs of --frames frames (render + read-back of the BGRA image), as wall
frames/s and as CPU frames/s (1 / CPU seconds of this process per frame, llvmpipe's threads included: what one
core would give). Ratios are against the day 800x600 baseline of the same command. The machine's core count and
load average are printed. Run: python3 benchmarks/render_bench.py [--frames 40] [--repeat 3]
(LP_NUM_THREADS=1 makes llvmpipe render on one thread.)
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from roadtest.sim.api import ActorState, Environment, LanePos, WorldState  # noqa: E402
from roadtest.sim.embedded.render.camera import CameraSpec  # noqa: E402
from roadtest.sim.embedded.render.rigs import UNIAD_RIG  # noqa: E402

DAY = Environment(cloudiness=0.1, sun_elevation=math.radians(55), sun_azimuth=math.radians(160), sun_intensity=1.0)
NIGHT_RAIN = Environment(cloudiness=1.0, precipitation="rain", precipitation_intensity=0.9, fog_visual_range=1000.0,
                         wetness=1.0, sun_elevation=-0.6, sun_intensity=0.0)
FOG = Environment(cloudiness=0.9, fog_visual_range=50.0, sun_elevation=math.radians(30), sun_intensity=0.1)


def xodr(length: float, lanes: int = 2) -> bytes:
    """A straight road with `lanes` driving lanes each way and sidewalks, `length` m along x."""
    def lane(i: int, kind: str = "driving", mark: str = "broken") -> str:
        w = 2.0 if kind == "sidewalk" else 3.5
        rm = f'<roadMark sOffset="0" type="{mark}" color="white" weight="standard"/>' if kind != "sidewalk" else ""
        return f'<lane id="{i}" type="{kind}" level="false"><link/><width sOffset="0" a="{w}" b="0" c="0" d="0"/>{rm}</lane>'
    left = "".join(lane(i, mark="solid" if i == lanes else "broken") for i in range(1, lanes + 1)) + lane(lanes + 1, "sidewalk")
    right = "".join(lane(-i, mark="solid" if i == lanes else "broken") for i in range(1, lanes + 1)) + lane(-lanes - 1, "sidewalk")
    signs = "".join(f'<signal s="{s:.0f}" t="-{3.5 * lanes + 2.5}" id="s{k}" name="speed_limit" dynamic="no" orientation="+" '
                    f'zOffset="2" country="DE" type="274" subtype="-1" value="{50 + 10 * (k % 5)}" unit="km/h"/>'
                    for k, s in enumerate(np.arange(40.0, length, 80.0)))
    return (f'<?xml version="1.0"?><OpenDRIVE><header revMajor="1" revMinor="6"/>'
            f'<road name="r" length="{length}" id="1" junction="-1"><link/><planView><geometry s="0" x="0" y="0" hdg="0" '
            f'length="{length}"><line/></geometry></planView><lanes><laneSection s="0"><left>{left}</left><center>'
            f'<lane id="0" type="none" level="false"><roadMark sOffset="0" type="solid" color="yellow"/></lane></center>'
            f'<right>{right}</right></laneSection></lanes><signals>{signs}</signals></road></OpenDRIVE>').encode()


def actors(n: int, length: float) -> list[ActorState]:
    """The ego near the start plus n cars spread ahead over both directions (seeded)."""
    rng = np.random.default_rng(0)
    out = [ActorState(id="ego", role="ego", kind="car", x=20.0, y=-1.75, z=0.0, h=0.0, speed=10.0,
                      lane=LanePos("1", -1, 20.0, -1.75))]
    for i in range(n):
        lane = int(rng.choice([-2, -1, 1, 2]))
        x = float(rng.uniform(25.0, min(length, 400.0)))
        t = math.copysign((abs(lane) - 0.5) * 3.5, lane)
        kind = ("car", "car", "car", "truck", "bus", "motorcycle", "pedestrian")[i % 7]
        size = {"car": (4.5, 1.8, 1.5), "truck": (8.0, 2.5, 3.2), "bus": (11.0, 2.5, 3.0),
                "motorcycle": (2.0, 0.8, 1.4), "pedestrian": (0.5, 0.5, 1.75)}[kind]
        out.append(ActorState(id=f"a{i}", role="background", kind=kind, x=x, y=t, z=0.0, h=0.0 if lane < 0 else math.pi,
                              speed=8.0, length=size[0], width=size[1], height=size[2], lane=LanePos("1", lane, x, t)))
    return out


def timed(render, frames: int, repeat: int) -> tuple[float, float]:
    """(wall fps, CPU fps) medians over `repeat` runs of `frames` frames; render(i) draws frame i."""
    render(0)
    walls, cpus = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        for i in range(frames):
            render(i)
        walls.append(frames / (time.perf_counter() - w0))
        cpus.append(frames / max(time.process_time() - c0, 1e-9))
    return statistics.median(walls), statistics.median(cpus)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    from roadtest.sim.embedded.render.renderer import Renderer, gl_context
    from roadtest.sim.road.network import RoadNetwork

    t0 = time.perf_counter()
    ctx = gl_context()
    print(f"cores: {os.cpu_count()} (usable {len(os.sched_getaffinity(0))}), LP_NUM_THREADS="
          f"{os.environ.get('LP_NUM_THREADS', 'unset')}, load average {os.getloadavg()[0]:.2f}")
    print(f"GL: {ctx.info['GL_RENDERER']} ({ctx.info['GL_VERSION']}); context {time.perf_counter() - t0:.2f} s")
    t0 = time.perf_counter()
    r = Renderer(RoadNetwork.from_bytes(xodr(600.0), "bench-600m.xodr"))
    print(f"scene 600 m road: {len(r.scene.vertices)} vertices, built and uploaded in {time.perf_counter() - t0:.2f} s")
    cast = actors(10, 600.0)
    ego = cast[0]

    def scene_fps(env, w, h, frames, state_actors=cast, rend=r):
        cam = CameraSpec.from_spec({"type": "sensor.camera.rgb", "id": "c", "x": 0.8, "z": 1.6, "width": w,
                                    "height": h, "fov": 90})

        def one(i):
            st = WorldState(time=i * 0.05, frame=i, actors=tuple(replace(a, x=a.x + 0.5 * i) for a in state_actors),
                            environment=env)
            rend.render(cam, st, st.ego, ("rgb",))
        return timed(one, frames, args.repeat)

    print(f"\n{'frame':<34}{'wall fps':>10}{'CPU fps':>10}{'ratio':>8}")
    base = None
    for (w, h) in ((800, 600), (1600, 900)):
        for name, env in (("day", DAY), ("night + heavy rain", NIGHT_RAIN), ("dense fog (50 m)", FOG)):
            wall, cpu = scene_fps(env, w, h, args.frames if w == 800 else max(8, args.frames // 2))
            base = base or cpu
            print(f"{f'{w}x{h} {name}':<34}{wall:>10.1f}{cpu:>10.1f}{cpu / base:>8.2f}")

    def rig_tick(i):
        st = WorldState(time=i * 0.05, frame=i, actors=tuple(replace(a, x=a.x + 0.5 * i) for a in cast),
                        environment=DAY)
        for spec in UNIAD_RIG:
            r.render(CameraSpec.from_spec(spec), st, st.ego, ("rgb",))
    wall, cpu = timed(rig_tick, max(4, args.frames // 6), args.repeat)
    print(f"{'UniAD/VAD rig: 6 x 1600x900 / tick':<34}{wall:>10.2f}{cpu:>10.2f}{cpu / base:>8.3f}  (ticks/s)")

    print(f"\n{'cost vs actors (800x600 day)':<34}{'wall fps':>10}{'CPU fps':>10}{'ratio':>8}")
    for n in (0, 10, 50, 200):
        wall, cpu = scene_fps(DAY, 800, 600, args.frames, actors(n, 600.0))
        print(f"{f'{n} actors':<34}{wall:>10.1f}{cpu:>10.1f}{cpu / base:>8.2f}")

    print(f"\n{'cost vs road size (800x600 day)':<34}{'wall fps':>10}{'CPU fps':>10}{'ratio':>8}  vertices")
    for length in (300.0, 1000.0, 4000.0):
        t0 = time.perf_counter()
        rr = Renderer(RoadNetwork.from_bytes(xodr(length), f"bench-{length:.0f}.xodr"), ctx)
        built = time.perf_counter() - t0
        wall, cpu = scene_fps(DAY, 800, 600, args.frames, cast, rr)
        print(f"{f'{length:.0f} m road (built in {built:.1f} s)':<34}{wall:>10.1f}{cpu:>10.1f}{cpu / base:>8.2f}"
              f"  {len(rr.scene.vertices)}")
        rr.release()
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
