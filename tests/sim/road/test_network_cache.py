"""Parsed maps kept by content digest: the same bytes are parsed once per process, and a map read from another
file names that file, so what a run records never depends on which run parsed the map first."""

from __future__ import annotations

import pytest

from roadtest.errors import MapError
from roadtest.sim.road import network
from roadtest.sim.road.network import RoadNetwork

from .samples import geometry_road

HEADLESS = geometry_road("<line/>", 100.0).replace(b'<header revMajor="1" revMinor="6"/>', b"")  # read with a warning


def test_the_same_bytes_from_two_files_share_one_parse_and_name_their_own_file():
    a = RoadNetwork.from_bytes(HEADLESS, "/maps/a/road.xodr")
    b = RoadNetwork.from_bytes(HEADLESS, "/maps/b/road.xodr")
    assert a.roads is b.roads and a.index is b.index  # parsed once
    assert a.digest == b.digest
    assert [w for w in a.warnings if "no <header>" in w][0].startswith("/maps/a/road.xodr:")
    assert b.warnings == [w.replace("/maps/a/", "/maps/b/") for w in a.warnings]
    assert RoadNetwork.from_bytes(HEADLESS, "/maps/a/road.xodr") is a
    with pytest.raises(MapError, match="^/maps/b/road.xodr: unknown road id"):
        b.road("nope")


def test_other_bytes_at_the_same_path_are_parsed_anew():
    a = RoadNetwork.from_bytes(geometry_road("<line/>", 100.0), "/maps/same.xodr")
    b = RoadNetwork.from_bytes(geometry_road("<line/>", 60.0), "/maps/same.xodr")
    assert a.road_length("g") == pytest.approx(100.0) and b.road_length("g") == pytest.approx(60.0)


def test_the_cache_keeps_only_the_most_recent_maps(monkeypatch):
    monkeypatch.setattr(network, "CACHED_MAPS", 2)
    first = RoadNetwork.from_bytes(geometry_road("<line/>", 11.0), "m11")
    RoadNetwork.from_bytes(geometry_road("<line/>", 12.0), "m12")
    assert RoadNetwork.from_bytes(geometry_road("<line/>", 11.0), "m11") is first  # used again: now most recent
    RoadNetwork.from_bytes(geometry_road("<line/>", 13.0), "m13")
    assert RoadNetwork.from_bytes(geometry_road("<line/>", 11.0), "m11") is first
    assert first.digest in network._CACHE and len(network._CACHE) <= 2
