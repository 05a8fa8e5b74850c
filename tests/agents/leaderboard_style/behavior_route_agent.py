"""A leaderboard agent that drives with CARLA's BehaviorAgent along the route (test material, roadtest's own
stand-in for the community's privileged agents): it finds the hero through CarlaDataProvider, plans the
leaderboard's world plan with CARLA's route planner and lets BehaviorAgent ('normal') follow it.

The plan runs on EXTEND metres past the route's end where the road goes on: BehaviorAgent fails on an empty plan
(its incoming waypoint is None), and its local planner empties the plan a few metres before the last point,
while the evaluator ends the route only once the ego is there. With the plan spent it brakes."""

import carla
from agents.navigation.behavior_agent import BehaviorAgent
from leaderboard.autoagents import autonomous_agent
from srunner.scenariomanager.carla_data_provider import CarlaDataProvider

EXTEND = 20.0  # m of road past the route's end kept in the plan


def get_entry_point():
    return "BehaviorRouteAgent"


class BehaviorRouteAgent(autonomous_agent.AutonomousAgent):
    def setup(self, path_to_conf_file):
        self.track = autonomous_agent.Track.SENSORS
        self._agent = None

    def sensors(self):
        return [{"type": "sensor.speedometer", "reading_frequency": 20, "id": "SPEED"}]

    def run_step(self, input_data, timestamp):
        if self._agent is None:
            hero = CarlaDataProvider.get_hero_actor()
            self._agent = BehaviorAgent(hero, behavior="normal")
            cmap = CarlaDataProvider.get_map()
            plan, prev = [], None
            for transform, _ in self._global_plan_world_coord:
                wp = cmap.get_waypoint(transform.location)
                if prev is not None:
                    plan.extend(self._agent.trace_route(prev, wp))
                prev = wp
            last, option = plan[-1]
            for _ in range(int(EXTEND / 2.0)):
                ahead = last.next(2.0)
                if not ahead:
                    break
                last = ahead[0]
                plan.append((last, option))
            self._agent.set_global_plan(plan)
            return carla.VehicleControl()
        if self._agent.done():
            return carla.VehicleControl(throttle=0.0, brake=1.0)
        return self._agent.run_step()
