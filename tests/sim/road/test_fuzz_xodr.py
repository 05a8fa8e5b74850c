"""Property tests: a mutated OpenDRIVE file gives a working network or a MapError naming element and line.

Real files (roadtest's own emitted roads, a few public maps) are mutated structurally with lxml and
byte-wise, then loaded and queried; any other exception, or a hang, is a reader bug.
"""

from __future__ import annotations

import math
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from xml_mutations import BYTE_EDITS, Seeds, edit_strategy, emitted_bundles, mutate_bytes, mutate_tree
from xml_mutations import hang_guard as _hang_guard

from roadtest.errors import MapError
from roadtest.sim.road import RoadNetwork

N = int(os.environ.get("ROADTEST_FUZZ_EXAMPLES", "0"))  # > 0: explore with more, non-derandomized examples
FUZZ = settings(max_examples=N or 60, deadline=None, derandomize=not N, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
EMITTED = ["straight_speed_limit", "red_light_intersection"]
PUBLIC = ["straight_500m_signs.xodr", "curve_r100.xodr", "jolengatan.xodr"]
HANG_S = 10  # an example that takes longer than this is a hang (infinite loop), not slowness
VALUES = ["", "abc", "nan", "inf", "-inf", "-1", "-5", "0", "1", "-2", "0.001", "1e5", "1e308", "-1e308", "1e-300",
          "3.5", "999", "start", "end", "junction", "+", "none"]
WHERE = re.compile(r":\d+: (<[\w?][^>]*>|not well-formed XML)")


@pytest.fixture(scope="session")
def emitted_maps(repo_root, tmp_path_factory) -> list[bytes]:
    """road.xodr of a few of roadtest's own scenarios, written by `roadtest convert`."""
    out = Seeds((b / "road.xodr").read_bytes() for b in emitted_bundles(repo_root, EMITTED, tmp_path_factory))
    if not out:
        pytest.skip("none of the emitted example scenarios is in this checkout")
    return out


@pytest.fixture(scope="session")
def public_maps(conformance_dir) -> list[bytes]:
    """A few esmini maps (signals, curves, a junction town) from the conformance corpus."""
    xodr = conformance_dir / "esmini" / "resources" / "xodr"
    out = [(xodr / n).read_bytes() for n in PUBLIC if (xodr / n).is_file()]
    if not out:
        pytest.skip(f"none of {PUBLIC} is in {xodr}")
    return Seeds(out)


def hang_guard(seconds: int = HANG_S):
    """Fail (instead of hanging the suite) when the body runs longer than `seconds`."""
    return _hang_guard(seconds, "the reader or a query")


def finite(p) -> bool:
    return all(math.isfinite(v) for v in (p.x, p.y, p.z, p.h))


def exercise(net: RoadNetwork) -> None:
    """A few queries on each of the first roads: poses, lanes, locate, graph, limits, polylines."""
    for rid in net.road_ids()[:4]:
        length = net.road_length(rid)
        assert length > 0
        for s in (0.0, 0.5 * length, length):
            assert finite(net.road_to_world(rid, s, 1.0)), f"road {rid} s={s}: non-finite pose"
            for lane in net.lane_ids(rid, s)[:3]:
                p = net.lane_to_world(rid, lane, s)
                assert finite(p), f"road {rid} lane {lane} s={s}: non-finite pose {p}"
                assert net.lane_width(rid, lane, s) >= 0
                net.speed_limit(rid, lane, s)
                net.neighbours(rid, lane, s)
                net.signals_for(rid, lane, s, 50.0)
                net.locate(p.x, p.y, p.h)
        for lane in net.lane_ids(rid, 0.0)[:2]:
            net.successors(rid, lane)
            net.predecessors(rid, lane)
            net.lane_polyline(rid, lane, "left", step=max(length / 20, 1.0))
    starts = [(r, ln) for r in net.road_ids()[:6] for ln in net.lane_ids(r, 0.0)[:1]]
    if len(starts) >= 2:
        (r0, l0), (r1, l1) = starts[0], starts[-1]
        for seg in net.route((r0, l0, 0.0), (r1, l1, 0.0)):
            assert seg.road in net.roads
    net.objects  # noqa: B018 (resolved at load; touching it is the check)


def load_and_query(data: bytes) -> None:
    """The property: a working network, or a MapError whose message names a line and an element."""
    with hang_guard():
        try:
            net = RoadNetwork(data, "fuzz.xodr")
        except MapError as e:
            assert str(e).startswith("fuzz.xodr:") and WHERE.search(str(e)), f"MapError without element/line: {e}"
            return
        exercise(net)


# ---- mutations -------------------------------------------------------------------------------
OPS = ["del_attr", "set_attr", "drop", "dup", "swap", "retag", "dup_id"]
EDIT = edit_strategy(OPS, VALUES)




@FUZZ
@given(pick=st.integers(0, 99), edits=st.lists(EDIT, min_size=1, max_size=3))
def test_structural_mutations_of_emitted_roads(emitted_maps, pick, edits):
    load_and_query(mutate_tree(emitted_maps[pick % len(emitted_maps)], edits))


@FUZZ
@given(pick=st.integers(0, 99), edits=st.lists(EDIT, min_size=1, max_size=3))
def test_structural_mutations_of_public_maps(public_maps, pick, edits):
    load_and_query(mutate_tree(public_maps[pick % len(public_maps)], edits))


@settings(FUZZ, max_examples=N or 30)
@given(pick=st.integers(0, 99), edits=BYTE_EDITS)
def test_bytewise_mutations(emitted_maps, pick, edits):
    load_and_query(mutate_bytes(emitted_maps[pick % len(emitted_maps)], edits))


@pytest.mark.parametrize("edit, expect", [
    (("del", "geometry", "hdg"), "<geometry>"),
    (("set", "lane", "id", "inf"), "<lane>"),  # was OverflowError (int of an infinite float)
    (("set", "validity", "fromLane", "-inf"), "<validity>"),  # was OverflowError
    (("set", "lane", "id", "1.5"), "<lane>"),
    (("set", "geometry", "x", "1e308"), "<geometry>"),  # was ValueError from the KD-tree (inf coordinates)
    (("set", "road", "length", "1e7"), "<road>"),
    (("set", "width", "a", "nan"), "<width>"),
    (("set", "road", "length", "-5"), "<road>"),
    (("drop", "planView"), "<road>"),
    (("set", "laneSection", "s", "abc"), "<laneSection>"),
])
def test_targeted_mutations_name_element_and_line(emitted_maps, edit, expect):
    """Each typical mistake is refused with the offending element and its line."""
    root = etree.fromstring(emitted_maps[0])
    el = root.find(f".//{edit[1]}")
    if edit[0] == "drop":
        el.getparent().remove(el)
    elif edit[0] == "set":
        el.set(edit[2], edit[3])
    else:
        del el.attrib[edit[2]]
    with pytest.raises(MapError) as e:
        RoadNetwork(etree.tostring(root), "fuzz.xodr")
    assert expect in str(e.value) and re.search(r"fuzz\.xodr:\d+:", str(e.value))
    line = int(str(e.value).split(":")[1])
    assert line >= 1


def test_non_finite_geometry_is_refused_even_within_number_limits(emitted_maps, monkeypatch):
    """The network's backstop: a road evaluating to inf/NaN is a MapError naming the road, not a KD-tree crash."""
    monkeypatch.setattr("roadtest.sim.road.reader.MAX_ABS", math.inf)
    data = emitted_maps[0].replace(b'<width a="3.5"', b'<width a="1e308"', 1).replace(b'b="0"', b'b="1e308"')
    with pytest.raises(MapError, match=r"fuzz\.xodr:\d+: <road id='1'>: .*non-finite"):
        RoadNetwork(data, "fuzz.xodr")


def test_unmutated_inputs_load(emitted_maps):
    """The seeds themselves are valid maps (else every mutation above tests nothing)."""
    for data in emitted_maps:
        exercise(RoadNetwork(data, "seed.xodr"))


@pytest.mark.parametrize("entities, ref", [
    ('<!ENTITY f SYSTEM "file:///etc/hostname">', "&f;"),
    ('<!ENTITY a "aaaaaaaaaa">' + "".join(f'<!ENTITY a{i} "{("&a%s;" % ("" if i == 1 else i - 1)) * 10}">'
                                          for i in range(1, 8)), "&a7;"),
])
def test_entities_neither_read_files_nor_explode(emitted_maps, entities, ref):
    """An external entity or a 'billion laughs' expansion is refused as malformed XML, at once."""
    head, body = emitted_maps[0].split(b"\n", 1)
    doctype = f"\n<!DOCTYPE OpenDRIVE [{entities}]>\n".encode()
    data = head + doctype + body.replace(b'name="', f'name="{ref}'.encode(), 1)
    with hang_guard(5), pytest.raises(MapError, match=r"fuzz\.xodr:\d+: not well-formed XML"):
        RoadNetwork(data, "fuzz.xodr")
