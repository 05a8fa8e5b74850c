"""The route command of Bench2DriveZoo's UniAD / VAD agents: their RoutePlanner(4 m, 50 m) over the GPS route
that the Bench2Drive leaderboard's set_global_plan keeps (downsampled to 50 m and to every change of RoadOption).

RoutePlanner.run_step(pos): among the nodes after the first, up to 50 m of route ahead, the farthest one within
4 m of the ego is passed (the nodes before it are dropped, two always remain); the next node and its
RoadOption are returned. The model's command is that RoadOption with VOID read as LANEFOLLOW, minus 1:
0 LEFT, 1 RIGHT, 2 STRAIGHT, 3 LANEFOLLOW, 4 CHANGELANELEFT, 5 CHANGELANERIGHT.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Mapping, Sequence

import numpy as np

from roadtest.agents.baselines.inputs import gps_to_location, solve_geo_reference

__all__ = ["RoutePlanner", "model_command", "bench2drive_plan", "DOWNSAMPLE", "MIN_DISTANCE", "MAX_DISTANCE",
           "COMMAND_NAMES"]

DOWNSAMPLE = 50.0  # m, Bench2Drive's set_global_plan: downsample_route(world_plan, 50)
MIN_DISTANCE, MAX_DISTANCE = 4.0, 50.0  # m, RoutePlanner(4.0, 50.0) in their agents' _init
COMMAND_NAMES = ("LEFT", "RIGHT", "STRAIGHT", "LANEFOLLOW", "CHANGELANELEFT", "CHANGELANERIGHT")


def model_command(road_option: int) -> int:
    """The model's command (0..5) from a CARLA RoadOption value (VOID = -1 counts as LANEFOLLOW = 4)."""
    value = int(road_option)
    if value < 0:
        value = 4
    return value - 1


class RoutePlanner:
    """Route nodes (CARLA-frame x, y) with their RoadOption values; run_step(pos) -> (next node, RoadOption)."""

    def __init__(self, nodes: Sequence[Sequence[float]], options: Sequence[int], min_distance: float = MIN_DISTANCE,
                 max_distance: float = MAX_DISTANCE):
        if not nodes or len(nodes) != len(options):
            raise ValueError("RoutePlanner: expected as many RoadOptions as route nodes, and at least one node")
        self.route = deque((np.asarray(n, dtype=float)[:2], int(o)) for n, o in zip(nodes, options))
        self.min_distance, self.max_distance = float(min_distance), float(max_distance)

    def run_step(self, pos: Sequence[float]) -> tuple[np.ndarray, int]:
        if len(self.route) == 1:
            return self.route[0]
        pos = np.asarray(pos, dtype=float)
        to_pop, farthest, travelled = 0, -np.inf, 0.0
        for i in range(1, len(self.route)):
            if travelled > self.max_distance:
                break
            travelled += float(np.linalg.norm(self.route[i][0] - self.route[i - 1][0]))
            distance = float(np.linalg.norm(self.route[i][0] - pos))
            if farthest < distance <= self.min_distance:
                farthest, to_pop = distance, i
        for _ in range(to_pop):
            if len(self.route) > 2:
                self.route.popleft()
        return self.route[1]


def bench2drive_plan(waypoints: Sequence[Sequence[float]], route: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The route as their agents hold it: roadtest's route (inertial frame) through the leaderboard's 1 m plans
    with RoadOptions, downsampled to 50 m; the geo-reference solved from its first point; the planner built.

    Returns {"planner", "lat_ref", "lon_ref", "nodes" (CARLA x, y), "options" (RoadOption values)}."""
    from roadtest.agents.leaderboard_compat import install

    install()
    from leaderboard.utils.route_manipulation import downsample_route

    from roadtest.agents.leaderboard_compat.adapter import leaderboard_plans

    gps, world = leaderboard_plans(waypoints, route)
    if not gps:
        raise ValueError("the route has fewer than two distinct points")
    keep = downsample_route(world, DOWNSAMPLE)
    gps, world = [gps[i] for i in keep], [world[i] for i in keep]
    loc = world[0][0].location
    lat_ref, lon_ref = solve_geo_reference((loc.x, loc.y), gps[0][0]["lat"], gps[0][0]["lon"])
    nodes = [gps_to_location(g["lat"], g["lon"], lat_ref, lon_ref) for g, _ in gps]
    options = [int(getattr(o, "value", o)) for _, o in gps]  # CARLA's RoadOption is a plain Enum
    return {"planner": RoutePlanner(nodes, options), "lat_ref": lat_ref, "lon_ref": lon_ref,
            "nodes": [n.tolist() for n in nodes], "options": options}
