"""A small known scene for the renderer's tests: a straight 300 m road along x (OpenDRIVE text written here,
not by roadtest), a DE speed-limit sign, and WorldStates built by hand with the ego where a test wants it."""

from __future__ import annotations

import math

from roadtest.sim.api import ActorState, Environment, LanePos, WorldState

XODR = b"""<?xml version="1.0" encoding="UTF-8"?>
<OpenDRIVE>
  <header revMajor="1" revMinor="6" name="render-test" version="1"/>
  <road name="main" length="300.0" id="1" junction="-1" rule="RHT">
    <link/>
    <planView><geometry s="0" x="0" y="0" hdg="0" length="300.0"><line/></geometry></planView>
    <elevationProfile><elevation s="0" a="0" b="0" c="0" d="0"/></elevationProfile>
    <lanes>
      <laneSection s="0">
        <left>
          <lane id="1" type="driving" level="false"><link/><width sOffset="0" a="3.5" b="0" c="0" d="0"/>
            <roadMark sOffset="0" type="solid" color="white" weight="standard" laneChange="none"/></lane>
        </left>
        <center><lane id="0" type="none" level="false"><link/>
          <roadMark sOffset="0" type="solid" color="yellow" weight="standard" laneChange="none"/></lane></center>
        <right>
          <lane id="-1" type="driving" level="false"><link/><width sOffset="0" a="3.5" b="0" c="0" d="0"/>
            <roadMark sOffset="0" type="broken" color="white" weight="standard" laneChange="both"/></lane>
          <lane id="-2" type="driving" level="false"><link/><width sOffset="0" a="3.5" b="0" c="0" d="0"/>
            <roadMark sOffset="0" type="solid" color="white" weight="standard" laneChange="none"/></lane>
          <lane id="-3" type="sidewalk" level="false"><link/><width sOffset="0" a="2.0" b="0" c="0" d="0"/></lane>
        </right>
      </laneSection>
    </lanes>
    <signals>
      <signal s="60.0" t="-9.5" id="sl50" name="speed_limit" dynamic="no" orientation="+" zOffset="2.0"
              country="DE" type="274" subtype="-1" value="50" unit="km/h" height="0.8" width="0.8"/>
    </signals>
  </road>
</OpenDRIVE>
"""

SIGN_S, SIGN_T = 60.0, -9.5  # m, the sign's road position (the road runs along x from the origin)
SIGN_CENTRE_Z = 2.4  # m: the renderer's signs stand with their face's bottom at 2.0 m, 0.8 m high
LANE_T = -1.75  # m, centre of lane -1

DAY = Environment(cloudiness=0.1, sun_elevation=math.radians(55), sun_azimuth=math.radians(160), sun_intensity=1.0)


def network():
    from roadtest.sim.road.network import RoadNetwork

    return RoadNetwork.from_bytes(XODR, "render-test.xodr")


def ego(x: float, y: float = LANE_T, h: float = 0.0) -> ActorState:
    return ActorState(id="hero", role="ego", kind="car", x=x, y=y, z=0.0, h=h, speed=0.0,
                      lane=LanePos("1", -1, x, y))


def state(actors, env: Environment = DAY, time: float = 0.0, frame: int = 0) -> WorldState:
    return WorldState(time=time, frame=frame, actors=tuple(actors), environment=env)


def renderer():
    """A Renderer of the test road (cameras are core: without an EGL driver this fails, naming the packages)."""
    from roadtest.sim.embedded.render.renderer import Renderer

    return Renderer(network())
