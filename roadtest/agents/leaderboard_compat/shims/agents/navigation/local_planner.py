"""RoadOption: the topological step of a route, with CARLA's values."""

from enum import IntEnum

__all__ = ["RoadOption"]


class RoadOption(IntEnum):
    VOID = -1
    LEFT = 1
    RIGHT = 2
    STRAIGHT = 3
    LANEFOLLOW = 4
    CHANGELANELEFT = 5
    CHANGELANERIGHT = 6
