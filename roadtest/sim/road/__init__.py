"""OpenDRIVE road model: reader, lane geometry, lane graph, queries (see api.py)."""

from roadtest.sim.road.api import LaneMatch, LaneSegment, Pose, RoadMark, RoadNetworkAPI, RoadObject, Signal
from roadtest.sim.road.network import RoadNetwork, load_map

__all__ = ["RoadNetwork", "load_map", "RoadNetworkAPI", "Pose", "RoadMark", "LaneMatch", "LaneSegment", "Signal",
           "RoadObject"]
