"""Maps that esmini and CARLA's map builder read though they bend the rules: a comment before the XML declaration,
no <header>, signal ids used twice. Each is read with a warning naming what was bent; nothing is dropped."""

from __future__ import annotations

import pytest

from roadtest.errors import MapError
from roadtest.runner.derived_meta import map_scene
from roadtest.sim.road.network import RoadNetwork

from .samples import geometry_road, two_lane_junction

STRAIGHT = geometry_road("<line/>", 100.0)


def test_a_comment_before_the_declaration_is_read_past():
    net = RoadNetwork(b"<!-- exported by a tool -->\n" + STRAIGHT, "late.xodr")
    plain = RoadNetwork(STRAIGHT, "plain.xodr")
    assert net.lane_to_world("g", -1, 50.0) == plain.lane_to_world("g", -1, 50.0)
    assert any("declaration comes after a comment" in w for w in net.warnings)
    assert not any("declaration" in w for w in plain.warnings)


def test_a_late_declaration_of_another_encoding_is_refused():
    data = b"<!-- c -->" + STRAIGHT.replace(b'<?xml version="1.0"?>', b'<?xml version="1.0" encoding="ISO-8859-1"?>')
    with pytest.raises(MapError, match="encoding other than UTF-8"):
        RoadNetwork(data, "latin.xodr")


def test_a_map_without_header_is_read_as_opendrive_1():
    data = STRAIGHT.replace(b'<header revMajor="1" revMinor="6"/>', b"")
    net = RoadNetwork(data, "headless.xodr")
    assert net.road_length("g") == pytest.approx(100.0)
    assert any("no <header>" in w for w in net.warnings)


def test_signals_sharing_an_id_are_all_kept():
    """two_lane_junction has signals s1 (stop, road 1 s=90) and s2 (limit 30, road 1 s=20); give road 2 a stop
    sign with id s1 as well: three signs stand, and the scene lists both stops."""
    extra = (b'<signals><signal s="60" t="-4" id="s1" name="stop" dynamic="no" orientation="+" country="DE" '
             b'type="206" subtype="-1" value="-1"/></signals></road>')
    data = two_lane_junction()
    head, sep, tail = data.rpartition(b'<road name="r2"')
    road2, close, rest = tail.partition(b"</road>")
    data = head + sep + road2 + extra + rest
    net = RoadNetwork(data, "twice.xodr")
    assert sorted((sg.road, sg.s) for sg in net.placed_signals) == [("1", 20.0), ("1", 90.0), ("2", 60.0)]
    stops = sorted((g["road"], g["s"]) for g in map_scene(net, {})["signs"] if g["kind"] == "stop")
    assert stops == [("1", 90.0), ("2", 60.0)]
    assert any("used by more than one <signal>" in w for w in net.warnings)
