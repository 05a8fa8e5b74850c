"""Background walkers: a seeded share crosses at the map's crosswalks, waiting for a gap; vehicles yield."""

from __future__ import annotations

import pytest

from roadtest.sim.embedded.traffic import Traffic

from test_junction_traffic import _map, _overlap

DT = 0.1


@pytest.fixture(scope="module")
def zebra(tmp_path_factory, repo_root):
    net = _map(tmp_path_factory.mktemp("zebra"), example="crosswalk_pedestrian", repo_root=repo_root)
    (cw,) = [o for o in net.objects if o.type == "crosswalk"]
    return net, cw


def _run(net, cw, seconds: float, share: float, seed: int = 1):
    """(crossings as (start time, walker, from lane, to lane), walker-vehicle overlaps, vehicles stopped for walkers)."""
    tr = Traffic(net, {"pedestrians": 12, "crossing_share": share, "density": 20}, seed=seed)
    crossings, started, overlaps, yielded, over_road = [], {}, set(), set(), set()
    for _ in range(int(seconds / DT)):
        tr.decide((), {}, DT)
        tr.integrate(DT)
        tr.refill([])
        for w in tr.walkers:
            if w.mode == "cross" and w.id not in started:
                started[w.id] = (round(tr.time, 2), w.lane)
            elif w.mode != "cross" and w.id in started:
                t0, lane0 = started.pop(w.id)
                crossings.append((t0, w.id, lane0, w.lane))
        actors = tr.actor_states()
        walkers = [a for a in actors if a.kind == "pedestrian"]
        cars = [a for a in actors if a.kind != "pedestrian"]
        over_road |= {a.lane.lane for a in walkers if net.lane_type(a.lane.road, a.lane.lane, a.lane.s) == "driving"}
        for p in walkers:
            for c in cars:
                if abs(p.x - c.x) < 6 and abs(p.y - c.y) < 6 and _overlap(p, c):
                    overlaps.add((p.id, c.id))
        if any(w.mode == "cross" for w in tr.walkers):
            yielded |= {v.id for v in tr.vehicles if v.speed < 0.5 and 0 < (cw.s - v.s) * v.dir < 15.0}
    return crossings, overlaps, yielded, over_road


def test_walkers_cross_at_the_crosswalk_in_gaps_and_vehicles_yield(zebra):
    net, cw = zebra
    crossings, overlaps, yielded, over_road = _run(net, cw, 90.0, share=1.0)
    assert len(crossings) >= 2
    assert all((a > 0) != (b > 0) for _, _, a, b in crossings)  # from one sidewalk to the other
    assert over_road == {-1, 1}  # while crossing they are on the driving lanes, both directions
    assert yielded, "some vehicle stopped before the crosswalk while a walker was on it"
    assert not overlaps


def test_no_walker_crosses_with_share_zero_and_the_seed_fixes_the_crossings(zebra):
    net, cw = zebra
    assert _run(net, cw, 40.0, share=0.0)[0] == []
    a, b = _run(net, cw, 40.0, share=1.0), _run(net, cw, 40.0, share=1.0)
    assert a[0] and a[0] == b[0]


def test_a_walker_at_the_kerb_waits_for_a_vehicle_that_does_not_yield_to_pass(zebra):
    """The ego (an obstacle to traffic, under its agent's control) is not assumed to stop: the walker lets it pass."""
    from roadtest.sim.embedded.traffic import Obstacle

    net, cw = zebra
    tr = Traffic(net, {"pedestrians": 1, "crossing_share": 1.0}, seed=0)
    (w,) = tr.walkers
    w.lane = next(lane for lane in net.lane_ids(cw.road, cw.s) if net.lane_type(cw.road, lane, cw.s) == "sidewalk")
    w.s, w.dir, w.speed, w.mode = cw.s - 1.0, 1, 1.2, "walk"
    ego_lane = next(lane for lane in (-1, 1) if net.lane_direction(cw.road, lane) == 1)
    ego_s, modes = cw.s - 45.0, []
    for _ in range(int(15 / DT)):
        ego = Obstacle("hero", cw.road, ego_lane, ego_s, 8.0, 4.5)
        tr.decide((ego,), {}, DT)
        tr.integrate(DT)
        ego_s += 8.0 * DT
        modes.append((w.mode, ego_s))
    first_wait = next(i for i, (m, _) in enumerate(modes) if m == "wait")
    first_cross = next(i for i, (m, _) in enumerate(modes) if m == "cross")
    assert first_wait < first_cross
    assert modes[first_cross][1] > cw.s + 2.0, "it started across only once the ego had passed the crosswalk"
