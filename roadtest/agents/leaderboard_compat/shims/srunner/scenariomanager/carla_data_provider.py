"""Stand-in CarlaDataProvider: scenario_runner's static accessors answered from roadtest's built-in world.

The leaderboard fills scenario_runner's CarlaDataProvider before it builds the agent; roadtest fills this one
(world.install_data_provider) when srunner is not installed. Every accessor reads the current tick. What is
not here (spawning, the client, the traffic manager, the route planner) is refused by name: NotProvided.
"""

from __future__ import annotations

import math

from roadtest.agents.leaderboard_compat.world import NotProvided

__all__ = ["CarlaDataProvider"]


class _Refusing(type):
    def __getattr__(cls, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotProvided(f"CarlaDataProvider.{name}")


class CarlaDataProvider(metaclass=_Refusing):
    """scenario_runner's CarlaDataProvider, the calls a driving agent makes."""

    _world = None
    _map = None
    _sync_flag = True
    _random_seed = 2000
    _latest_scenario = ""

    @classmethod
    def _install(cls, world) -> None:
        cls._world, cls._map = world, None

    @classmethod
    def _log(cls, name: str):
        if cls._world is None:
            raise NotProvided(f"CarlaDataProvider.{name}", "no run is in progress")
        cls._world.calls[f"CarlaDataProvider.{name}"] += 1
        return cls._world

    @classmethod
    def get_world(cls):
        return cls._log("get_world")

    @classmethod
    def get_map(cls, world=None):
        w = cls._log("get_map")
        if cls._map is None:
            cls._map = w.carla_map()
        return cls._map

    @classmethod
    def get_hero_actor(cls):
        return cls._log("get_hero_actor").hero

    @classmethod
    def get_actors(cls):
        """(id, actor) pairs of the actor pool, as scenario_runner's iteritems."""
        return iter([(a.id, a) for a in cls._log("get_actors")._movers()])

    @classmethod
    def get_all_actors(cls):
        w = cls._log("get_all_actors")
        return w.get_actors()

    @classmethod
    def actor_id_exists(cls, actor_id) -> bool:
        return any(a.id == actor_id for a in cls._log("actor_id_exists")._movers())

    @classmethod
    def get_actor_by_id(cls, actor_id):
        return next((a for a in cls._log("get_actor_by_id")._movers() if a.id == actor_id), None)

    @classmethod
    def get_actor_by_name(cls, role_name: str):
        return next((a for a in cls._log("get_actor_by_name")._movers() if a.attributes["role_name"] == role_name), None)

    @classmethod
    def get_location(cls, actor):
        cls._log("get_location")
        return actor.get_location()

    @classmethod
    def get_transform(cls, actor):
        cls._log("get_transform")
        return actor.get_transform()

    @classmethod
    def get_velocity(cls, actor) -> float:
        """Speed (m/s), as scenario_runner's calculate_velocity: the length of the velocity in the ground plane."""
        cls._log("get_velocity")
        v = actor.get_velocity()
        return math.hypot(v.x, v.y)

    @classmethod
    def is_sync_mode(cls) -> bool:
        cls._log("is_sync_mode")
        return True

    @classmethod
    def get_random_seed(cls) -> int:
        cls._log("get_random_seed")
        return cls._random_seed

    @classmethod
    def get_latest_scenario(cls) -> str:
        cls._log("get_latest_scenario")
        return cls._latest_scenario

    @classmethod
    def get_next_traffic_light(cls, actor, use_cached_location=True):
        return cls._log("get_next_traffic_light").light_ahead(actor._alive())

    @staticmethod
    def get_trafficlight_trigger_location(traffic_light):
        """The trigger volume's centre in the world, as scenario_runner's (its turned (0, 0, z) adds nothing)."""
        import carla

        area = traffic_light.get_transform().transform(traffic_light.trigger_volume.location)
        return carla.Location(area.x, area.y, area.z)
