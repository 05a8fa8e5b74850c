"""Every conformance .xodr loads, its geometries are continuous, and lane coordinates round-trip."""

from __future__ import annotations

import time

import numpy as np
import pytest

from roadtest.sim.road import RoadNetwork


def _xodrs(conformance_dir):
    files = sorted(conformance_dir.rglob("*.xodr"))
    assert files, f"no .xodr under {conformance_dir}"
    return files


def test_every_esmini_xodr_loads_with_a_table(conformance_dir, capsys):
    folder = conformance_dir / "esmini" / "resources" / "xodr"
    files = sorted(folder.glob("*.xodr"))
    assert len(files) >= 10
    rows = []
    for f in files:
        t0 = time.perf_counter()
        net = RoadNetwork(f.read_bytes(), str(f))  # uncached on purpose: time a real parse + index
        dt = time.perf_counter() - t0
        lanes = sum(len(sec.lanes) - 1 for r in net.roads.values() for sec in r.sections)
        assert lanes > 0 and net.road_ids()
        rows.append(f"{f.name:36s} {dt * 1000:8.1f} ms {len(net.roads):5d} roads {lanes:5d} lanes "
                    f"{len(net.junctions):3d} junctions {len(net.signals):4d} signals {len(net.objects):4d} objects")
    with capsys.disabled():
        print("\n" + "\n".join(rows))


def test_consecutive_geometries_meet_within_1cm(conformance_dir):
    worst = (0.0, "")
    for f in _xodrs(conformance_dir):
        net = RoadNetwork.from_bytes(f.read_bytes(), str(f))
        for road in net.roads.values():
            for a, b in zip(road.geoms, road.geoms[1:]):
                x, y, _ = a.eval(np.array([a.length]))
                gap = float(np.hypot(x[0] - b.x, y[0] - b.y))
                assert gap < 0.01, f"{f.name} road {road.id}: geometry at s={a.s} ends {gap:.4f} m from the next"
                worst = max(worst, (gap, f"{f.name}:{road.id}"))
    assert worst[0] < 0.01


def test_lane_coordinates_round_trip_through_locate(conformance_dir):
    for name in ("fabriksgatan.xodr", "soderleden.xodr", "curves_elevation.xodr", "e6mini-lht.xodr"):
        f = conformance_dir / "esmini" / "resources" / "xodr" / name
        net = RoadNetwork.from_bytes(f.read_bytes(), str(f))
        n = 0
        for rid in net.road_ids():
            road = net.roads[rid]
            for s in np.linspace(0.5, road.length - 0.5, 5):
                for lane in net.lane_ids(rid, s):
                    if net.lane_width(rid, lane, s) < 0.5:
                        continue
                    p = net.lane_to_world(rid, lane, s, offset=0.3)
                    m = net.locate(p.x, p.y, p.h)
                    assert m is not None and m.on_road
                    if road.junction is not None and (m.road, m.lane) != (rid, lane):
                        # overlapping connecting roads: the match must hold the same world point
                        q = net.lane_to_world(m.road, m.lane, m.s, m.offset)
                        assert np.hypot(q.x - p.x, q.y - p.y) < 0.02
                        continue
                    assert (m.road, m.lane) == (rid, lane), f"{name}: {rid}/{lane}@{s:.1f} located as {m}"
                    assert m.s == pytest.approx(s, abs=0.01) and m.offset == pytest.approx(0.3, abs=0.01)
                    assert abs(m.heading_diff) < 0.01
                    n += 1
        assert n > 20
