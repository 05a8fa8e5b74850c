"""Hostile OpenDRIVE maps: a road too long to sample, a geometry far past its road, negative lane widths. Each is
a MapError naming the road or lane and its figure, raised from the header before anything is allocated."""

from __future__ import annotations

import resource
import time

import pytest

from roadtest.errors import MapError
from roadtest.sim.road.network import RoadNetwork
from roadtest.sim.road.reader import MAX_SAMPLES, parse_xodr


def _xodr(road_length=100.0, geom_length=None, lanes=1, width="3.5", width_b="0"):
    geom_length = road_length if geom_length is None else geom_length
    right = "".join(f'<lane id="{-i}" type="driving"><width sOffset="0" a="{width}" b="{width_b}" c="0" d="0"/></lane>'
                    for i in range(1, lanes + 1))
    return (f'<?xml version="1.0"?><OpenDRIVE><header revMajor="1" revMinor="6"/>'
            f'<road id="7" length="{road_length}" junction="-1"><planView>'
            f'<geometry s="0" x="0" y="0" hdg="0" length="{geom_length}"><line/></geometry></planView>'
            f'<lanes><laneSection s="0"><center><lane id="0" type="none"/></center><right>{right}</right>'
            f'</laneSection></lanes></road></OpenDRIVE>').encode()


def test_an_ordinary_road_loads():
    net = RoadNetwork(_xodr(), "ok.xodr")
    assert net.road_ids() == ["7"]


def test_a_road_of_the_accepted_maximum_length_is_refused_by_the_sampling_budget_at_once():
    t0 = time.perf_counter()
    with pytest.raises(MapError) as info:
        RoadNetwork(_xodr(road_length=1e6, lanes=2), "long.xodr")  # before: 8.8 s and 2.4 GB, then a hang
    assert time.perf_counter() - t0 < 1.0
    # 1e6 m / 0.5 m + 1 = 2,000,001 samples for the reference line and each of the 2 lanes
    assert str(info.value) == ("long.xodr:1: <road id='7'>: length 1e+06 m with 2 lane(s) needs 6,000,003 samples "
                               f"at 0.5 m; the map needs 6,000,003, over the {MAX_SAMPLES:,}-sample limit")


def test_a_geometry_of_1e9_m_on_a_road_of_360_m_is_refused_naming_it():
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(MapError) as info:
        RoadNetwork(_xodr(road_length=360.0, geom_length=1e9), "far.xodr")  # before: a 14.9 GiB allocation
    assert str(info.value) == ("far.xodr:1: <geometry>: s=0 + length=1e+09 ends the planView at 1e+09 m, past the "
                               "1e+06 m limit of a road (the road's own length is 360)")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0 < 200_000  # kB: nothing large allocated


def test_a_geometry_just_within_the_limit_still_meets_the_budget():
    with pytest.raises(MapError, match="<road id='7'>: length 900000 m with 1 lane"):
        parse_xodr(_xodr(road_length=360.0, geom_length=9e5), "far.xodr")


def test_a_negative_lane_width_is_refused():
    with pytest.raises(MapError) as info:
        parse_xodr(_xodr(width="-3.5"), "neg.xodr")
    assert str(info.value) == ("neg.xodr:1: <lane>: lane -1: <width sOffset=0> is -3.5 m at ds=0: a lane width must "
                               "not be negative")


def test_a_width_that_tapers_below_zero_inside_its_section_is_refused():
    with pytest.raises(MapError, match=r"lane -1: <width sOffset=0> is -1.5 m at ds=100"):
        parse_xodr(_xodr(width="3.5", width_b="-0.05"), "taper.xodr")


def test_a_width_that_tapers_to_zero_is_kept():
    assert parse_xodr(_xodr(width="3.5", width_b="-0.035"), "taper.xodr").roads["7"].length == 100.0
