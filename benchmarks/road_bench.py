"""Road-model speed: load time of the largest conformance map (cold and cached) and nearest-lane
queries per second for a few hundred actors, against a naive brute-force baseline in the same process.

Run: python3 benchmarks/road_bench.py [--actors 300] [--map PATH]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from roadtest.sim.road import RoadNetwork, load_map

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"


def naive_locate(net: RoadNetwork, centres: np.ndarray, meta: list[tuple[str, int]], xy: np.ndarray):
    """Baseline: nearest lane-centre sample by brute force over every sample (no spatial index)."""
    out = []
    for x, y in xy:
        i = int(np.argmin((centres[:, 0] - x) ** 2 + (centres[:, 1] - y) ** 2))
        out.append(meta[i])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actors", type=int, default=300)
    ap.add_argument("--map", type=Path, default=None)
    ap.add_argument("--ticks", type=int, default=20)
    a = ap.parse_args()
    path = a.map or max((CONFORMANCE / "esmini" / "resources" / "xodr").glob("*.xodr"), key=lambda p: p.stat().st_size)
    data = path.read_bytes()
    import scipy.spatial  # noqa: F401  (one-time import, not part of a map load)

    t0 = time.perf_counter()
    net = RoadNetwork(data, str(path))
    cold = time.perf_counter() - t0
    load_map(path)
    t0 = time.perf_counter()
    load_map(path)
    cached = time.perf_counter() - t0
    n_lanes = sum(len(sec.lanes) - 1 for r in net.roads.values() for sec in r.sections)
    print(f"map {path.name}: {len(data) / 1024:.0f} KiB, {len(net.roads)} roads, {n_lanes} lanes, "
          f"{net.index.tree.n} index samples")
    print(f"load cold  {cold * 1000:8.1f} ms   (parse + lane graph + spatial index)")
    print(f"load cached{cached * 1e6:8.1f} us   (content digest hit)")

    # actors on driving lanes, jittered laterally, as a simulator would query them
    rng = np.random.default_rng(7)
    roads = net.road_ids()
    pts, truth, heads = [], [], []
    while len(pts) < a.actors:
        rid = roads[rng.integers(len(roads))]
        s = float(rng.uniform(0, net.road_length(rid)))
        lanes = [ln for ln in net.lane_ids(rid, s) if net.lane_type(rid, ln, s) == "driving"]
        if not lanes:
            continue
        ln = lanes[rng.integers(len(lanes))]
        p = net.lane_to_world(rid, ln, s, float(rng.uniform(-0.5, 0.5)))
        pts.append((p.x, p.y))
        heads.append(p.h)
        truth.append((rid, ln))
    xy, hh = np.array(pts), np.array(heads)

    def rate(fn, ticks):
        fn()
        t0 = time.perf_counter()
        for _ in range(ticks):
            fn()
        dt = (time.perf_counter() - t0) / ticks
        return dt, a.actors / dt

    dt_many, q_many = rate(lambda: net.locate_many(xy, hh), a.ticks)
    dt_one, q_one = rate(lambda: [net.locate(x, y, h) for (x, y), h in zip(xy, hh)], max(2, a.ticks // 4))
    P = net.index.pts
    R = net.index.ref
    centres = net.index.tree.data
    meta = [(roads[int(R["road"][P["ref"][k]])], int(P["lane"][k])) for k in range(len(centres))]
    dt_naive, q_naive = rate(lambda: naive_locate(net, centres, meta, xy), 2)
    exact = same_point = 0
    for m, tr, (x, y) in zip(net.locate_many(xy, hh), truth, xy):
        if m is not None and (m.road, m.lane) == tr:
            exact += 1
        elif m is not None:  # an overlapping lane holding the same world point (junction lanes)
            q = net.lane_to_world(m.road, m.lane, m.s, m.offset)
            same_point += bool(np.hypot(q.x - x, q.y - y) < 0.02)
    print(f"{a.actors} actors per tick:")
    print(f"  locate_many   {dt_many * 1000:8.2f} ms/tick  {q_many:10.0f} queries/s")
    print(f"  locate (loop) {dt_one * 1000:8.2f} ms/tick  {q_one:10.0f} queries/s")
    print(f"  naive brute   {dt_naive * 1000:8.2f} ms/tick  {q_naive:10.0f} queries/s  "
          f"(nearest of {len(centres)} samples, no projection)")
    print(f"  speed-up of locate_many over naive: {q_many / q_naive:.1f}x; "
          f"actor's own lane found for {exact}/{a.actors}, an overlapping lane through the same point for "
          f"{same_point}, wrong for {a.actors - exact - same_point}")


if __name__ == "__main__":
    main()
