"""Signs stand as their OpenDRIVE signal mounts them: zOffset lifts the face's lower edge, width and height size
it (in the face's own aspect), and a face above 4.5 m hangs from a gantry; the DSL writes `z` and `size`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import render_scene as rs

from roadtest.sim.embedded.render.formats import TAGS
from roadtest.sim.embedded.render.scene import build_scene
from roadtest.sim.road.network import RoadNetwork

SIGNALS = b"""<signals>
      <signal s="60.0" t="-9.5" id="urban" name="speed_limit" dynamic="no" orientation="+" zOffset="3.0"
              country="DE" type="274" subtype="-1" value="50" unit="km/h" height="0.6" width="0.6"/>
      <signal s="120.0" t="-5.25" id="gantry" name="speed_limit" dynamic="no" orientation="+" zOffset="5.5"
              country="DE" type="274" subtype="-1" value="80" unit="km/h" height="1.2" width="1.2"/>
      <signal s="180.0" t="-9.5" id="plain" name="speed_limit" dynamic="no" orientation="+"
              country="DE" type="274" subtype="-1" value="30" unit="km/h"/>
    </signals>"""



def _raw(path: Path) -> dict:
    """The fog scene's YAML as written (km/h at the surface): re-validating a dumped model would convert twice."""
    import yaml

    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))

def _network() -> RoadNetwork:
    xodr = rs.XODR[:rs.XODR.index(b"<signals>")] + SIGNALS + rs.XODR[rs.XODR.index(b"</signals>") + len(b"</signals>"):]
    return RoadNetwork.from_bytes(xodr, "mount-test.xodr")


def _face_z(verts: np.ndarray, origin: np.ndarray, x: float) -> tuple[float, float]:
    """(lowest, highest) world z of the sign-tagged vertices near road s = x (the road runs along x)."""
    sel = (np.abs(verts[:, 12] - TAGS["traffic_sign"]) < 0.5) & (np.abs(verts[:, 0] + origin[0] - x) < 1.0)
    z = verts[sel, 2] + origin[2]
    return float(z.min()), float(z.max())


def test_signal_keeps_zoffset_width_and_height():
    net = _network()
    sig = {s.id: s for r in net.roads.values() for s in r.signals}
    assert (sig["urban"].z_offset, sig["urban"].width, sig["urban"].height) == (3.0, 0.6, 0.6)
    assert (sig["plain"].z_offset, sig["plain"].width, sig["plain"].height) == (None, None, None)


def test_faces_are_rendered_at_their_mounting_heights():
    scene = build_scene(_network())
    v, o = scene.vertices, scene.origin
    assert _face_z(v, o, 60.0) == pytest.approx((3.0, 3.6), abs=1e-4)     # urban pole: 3 m, 0.6 m face
    assert _face_z(v, o, 120.0) == pytest.approx((5.5, 6.7), abs=1e-4)    # gantry: 5.5 m, 1.2 m face
    assert _face_z(v, o, 180.0) == pytest.approx((2.0, 2.8), abs=1e-4)    # nothing given: 2.0 m, 0.8 m
    poles = (np.abs(v[:, 12] - TAGS["pole"]) < 0.5) & (np.abs(v[:, 0] + o[0] - 120.0) < 3.0)
    assert (v[poles, 1] + o[1]).min() < -10.0  # the gantry's post stands beyond the road's right edge (t = -10.5 + ...)


def test_dsl_writes_the_mount(tmp_path: Path):
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.loader import load_variants
    from roadtest.dsl.model import Scenario

    v = load_variants(Path(__file__).resolve().parents[4] / "scenarios" / "fog_truck_solid_line.yaml")[0]
    data = _raw(Path(__file__).resolve().parents[4] / "scenarios" / "fog_truck_solid_line.yaml")
    data["road"]["signs"] = [{"id": "no_overtaking", "s": 40, "side": "kerb", "z": 3.0, "size": 0.6},
                             {"id": "fog_warning", "s": 25, "side": "overhead"}]
    b = load_bundle(write_bundle(dataclasses.replace(v, scenario=Scenario.model_validate(data)), tmp_path))
    net = RoadNetwork.from_bytes(Path(b.xodr).read_bytes(), "b.xodr")
    mounts = sorted((s.z_offset, s.width) for r in net.roads.values() for s in r.signals)
    assert mounts == [(3.0, 0.6), (5.5, 0.8)]
