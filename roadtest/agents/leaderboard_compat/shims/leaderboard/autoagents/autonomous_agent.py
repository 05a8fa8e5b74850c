"""The leaderboard 2.0 agent base class (Track, AutonomousAgent) with the evaluator's calling convention.

roadtest is the evaluator: it builds the agent as AutonomousAgent(host, port, debug), hands it the route
with set_global_plan(gps_plan, world_plan), calls setup(config), reads sensors(), then calls
run_step(input_data, timestamp) every tick and destroy() at the end.
"""

from __future__ import annotations

from enum import Enum

import carla
from leaderboard.utils.route_manipulation import downsample_route

__all__ = ["Track", "AutonomousAgent"]


class Track(Enum):
    SENSORS = "SENSORS"
    MAP = "MAP"
    SENSORS_QUALIFIER = "SENSORS_QUALIFIER"
    MAP_QUALIFIER = "MAP_QUALIFIER"


class AutonomousAgent:
    """Base of a leaderboard agent; subclasses override setup, sensors, run_step and destroy."""

    def __init__(self, carla_host=None, carla_port=None, debug=False):
        self.track = Track.SENSORS
        self._global_plan = None  # [({'lat', 'lon', 'z'}, RoadOption)], downsampled
        self._global_plan_world_coord = None  # [(carla.Transform, RoadOption)], downsampled
        self.wallclock_t0 = None

    def setup(self, path_to_conf_file):
        """Read the configuration and set self.track."""

    def sensors(self):
        """The sensor suite: dicts with type, id, x, y, z, roll, pitch, yaw (+ width, height, fov...)."""
        return []

    def run_step(self, input_data, timestamp):
        """The control for this tick."""
        return carla.VehicleControl()

    def destroy(self):
        """Clean up at the end of the route."""

    @staticmethod
    def get_ros_version():
        return -1

    def set_global_plan(self, global_plan_gps, global_plan_world_coord):
        """Keep the route, downsampled to its turns and a point at least every 200 m, as the leaderboard does."""
        keep = downsample_route(global_plan_world_coord, 200)
        self._global_plan_world_coord = [(global_plan_world_coord[i][0], global_plan_world_coord[i][1]) for i in keep]
        self._global_plan = [global_plan_gps[i] for i in keep]
