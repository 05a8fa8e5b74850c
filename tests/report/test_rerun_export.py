"""roadtest replay --rerun: the .rrd loads back with the Rerun SDK and holds the run's entities and values."""

from __future__ import annotations

import numpy as np
import pytest

from roadtest.cli import main
from .runs import N_TICKS, suite

rr = pytest.importorskip("rerun", reason="rerun-sdk is the optional 'replay' extra")


def load(path) -> dict[str, list]:
    from rerun.chunk import RrdReader

    out: dict[str, list] = {}
    for c in RrdReader(str(path)).stream().to_chunks():
        out.setdefault(c.entity_path, []).append(c.to_record_batch())
    return out


def rows(batches) -> int:
    return sum(b.num_rows for b in batches)


def column(batches, name: str) -> list:
    vals = []
    for b in batches:
        vals += b.column(b.schema.get_field_index(name)).to_pylist()
    return vals


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    runs = suite(tmp_path_factory.mktemp("results"))
    out = tmp_path_factory.mktemp("rrd") / "run.rrd"
    assert main(["replay", str(runs["A"]), "--rerun", "-o", str(out)]) == 0
    return load(out)


def test_entities(recording):
    for path in ("/world/actors", "/world/route", "/world/ego/planned", "/plots/speed", "/plots/speed_limit",
                 "/plots/robustness/speed_limit", "/plots/controls/throttle", "/log/agent", "/log/events"):
        assert path in recording, path
    assert rows(recording["/world/actors"]) == N_TICKS  # one box set per tick
    assert rows(recording["/plots/speed"]) == N_TICKS


def test_values_on_the_sim_timeline(recording):
    b = recording["/plots/speed"]
    speed = [v[0] for v in column(b, "Scalars:scalars")]
    times = column(b, "sim_time")
    assert pytest.approx(np.array([t.total_seconds() for t in times])) == np.arange(N_TICKS) * 0.1
    assert speed[10] == pytest.approx((5.0 + 1.0) * 3.6)  # 5 + t m/s at t = 1 s, in km/h
    lim = [v[0] for v in column(recording["/plots/speed_limit"], "Scalars:scalars")]
    assert lim[0] == pytest.approx(50.0)
    rob = [v[0] for v in column(recording["/plots/robustness/speed_limit"], "Scalars:scalars")]
    assert rob[94] > 0 > rob[95]  # limit + 2 km/h tolerance crossed between 9.4 s and 9.5 s
    events = [x[0] for x in column(recording["/log/events"], "TextLog:text")]
    assert events == ["speed_limit violated", "collision with truck"]
    boxes = column(recording["/world/actors"], "Boxes3D:centers")
    assert len(boxes[0]) == 2  # ego and truck


def test_road_from_the_map(real_run_dir, tmp_path):
    """A run with a map gets its lane boundaries as line strips, its signs and the expert's reference."""
    out = tmp_path / "real.rrd"
    assert main(["replay", str(real_run_dir), "--rerun", "-o", str(out)]) == 0
    rec = load(out)
    assert "/world/road" in rec and "/world/signs" in rec and "/world/reference" in rec
    strips = column(rec["/world/road"], "LineStrips3D:strips")[0]
    assert len(strips) >= 2


def test_wrong_suffix(tmp_path, capsys):
    runs = suite(tmp_path / "r")
    assert main(["replay", str(runs["A"]), "--rerun", "-o", str(tmp_path / "x.mp4")]) == 2
    assert "expected a .rrd" in capsys.readouterr().err
