"""`roadtest signs gallery --officer`: the police officer's hand signals as the built-in camera renders them.

One column per signal state (no signal, stop, go at two moments of its wave), the camera image above and the
semantic mask (the pedestrian tag) below, the officer 10 m ahead on a plain straight road in daylight."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

__all__ = ["officer_sheet", "STATES"]

STATES = ((None, 0.0, "no signal"), ("stop", 0.0, "stop"), ("go", 0.0, "go (t = 0 s)"), ("go", 0.25, "go (t = 0.25 s)"))
_XODR = b"""<?xml version="1.0" encoding="UTF-8"?>
<OpenDRIVE><header revMajor="1" revMinor="6" name="officer-sheet"/>
  <road name="main" length="200.0" id="1" junction="-1" rule="RHT"><link/>
    <planView><geometry s="0" x="0" y="0" hdg="0" length="200.0"><line/></geometry></planView>
    <lanes><laneSection s="0">
      <left><lane id="1" type="driving" level="false"><link/><width sOffset="0" a="3.5" b="0" c="0" d="0"/>
        <roadMark sOffset="0" type="solid" color="white" weight="standard"/></lane></left>
      <center><lane id="0" type="none" level="false"><link/><roadMark sOffset="0" type="solid" color="white" weight="standard"/></lane></center>
      <right><lane id="-1" type="driving" level="false"><link/><width sOffset="0" a="3.5" b="0" c="0" d="0"/>
        <roadMark sOffset="0" type="solid" color="white" weight="standard"/></lane></right>
    </laneSection></lanes>
  </road>
</OpenDRIVE>
"""
CAM = {"type": "sensor.camera.rgb", "id": "Center", "x": 2.5, "z": 1.6, "width": 320, "height": 240, "fov": 30}


def officer_sheet() -> np.ndarray:
    """H x W x 3 uint8 RGB: each state's camera image over its pedestrian mask, labelled."""
    import cv2

    from roadtest.sim.api import ActorState, Environment, LanePos, WorldState
    from roadtest.sim.embedded.render.camera import CameraSpec
    from roadtest.sim.embedded.render.formats import TAGS
    from roadtest.sim.embedded.render.renderer import Renderer
    from roadtest.sim.road.network import RoadNetwork

    renderer = Renderer(RoadNetwork.from_bytes(_XODR, "officer-sheet.xodr"))
    cam = CameraSpec.from_spec(CAM)
    ego = ActorState(id="hero", role="ego", kind="car", x=47.5, y=-1.75, z=0.0, h=0.0, speed=0.0,
                     lane=LanePos("1", -1, 43.5, -1.75))
    officer = ActorState(id="officer", role="scenario", kind="officer", x=60.0, y=-1.75, z=0.0, h=math.pi, speed=0.0,
                         lane=LanePos("1", -1, 60.0, -1.75), length=0.4, width=0.6, height=1.8)
    env = Environment(cloudiness=0.1, sun_elevation=math.radians(50), sun_azimuth=math.radians(160), sun_intensity=1.0)
    cols = []
    try:
        for signal, t, label in STATES:
            st = WorldState(time=t, frame=0, actors=(ego, officer), signals={"officer": signal} if signal else {},
                            environment=env)
            out = renderer.render(cam, st, ego, ("rgb", "tags"))
            rgb = np.ascontiguousarray(out["rgb"][..., 2::-1])
            mask = np.where((out["tags"] == TAGS["pedestrian"])[..., None], 255, 40).astype(np.uint8).repeat(3, axis=2)
            label_row = np.full((30, cam.width, 3), 235, np.uint8)
            cv2.putText(label_row, label, (8, 21), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
            cols.append(np.vstack([label_row, rgb, mask]))
            cols.append(np.full((cols[-1].shape[0], 4, 3), 235, np.uint8))
    finally:
        renderer.release()
    return np.hstack(cols[:-1])


def officer_sheet_command(out) -> int:
    import cv2
    from pathlib import Path

    from roadtest.errors import UserError

    out = Path(out)
    if out.suffix.lower() != ".png":
        raise UserError(f"-o {out}: expected a .png file")
    img = officer_sheet()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), cv2.cvtColor(img, cv2.COLOR_RGB2BGR)):
        raise UserError(f"-o {out}: could not write the PNG")
    print(f"{out}: police officer in {len(STATES)} signal states, {img.shape[1]}x{img.shape[0]} px")
    return 0
