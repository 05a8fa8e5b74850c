"""Stand-in GameTime: the leaderboard's game clock, read from roadtest's built-in world (one tick ahead of the
state's time, as the leaderboard's clock after the first world tick)."""

from __future__ import annotations

import datetime

__all__ = ["GameTime"]


class GameTime:
    @staticmethod
    def _world():
        from srunner.scenariomanager.carla_data_provider import CarlaDataProvider

        return CarlaDataProvider._world

    @staticmethod
    def get_time() -> float:
        w = GameTime._world()
        return w.elapsed if w is not None else 0.0

    @staticmethod
    def get_frame() -> int:
        w = GameTime._world()
        return w.frame if w is not None else 0

    @staticmethod
    def get_wallclocktime():
        return datetime.datetime.now()

    @staticmethod
    def get_carla_time() -> float:
        return GameTime.get_time()
