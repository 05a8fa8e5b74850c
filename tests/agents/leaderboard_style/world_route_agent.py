"""A privileged leaderboard agent that asks the world what the leaderboard's npc_agent asks (test material): it
finds the hero among CarlaDataProvider.get_world().get_actors() by role_name, snaps the world plan to
CarlaDataProvider.get_map().get_waypoint, extends it with Waypoint.next, steers by pure pursuit on those
waypoints and brakes for a vehicle ahead in its lane (get_actors().filter('*vehicle*'), transforms, bounding
boxes, the map's lane of each). Unlike CARLA's is_within_distance it counts a vehicle dead ahead (angle 0)."""

import math

import carla
from leaderboard.autoagents.autonomous_agent import AutonomousAgent, Track
from srunner.scenariomanager.carla_data_provider import CarlaDataProvider

TARGET_SPEED = 8.0  # m/s
GAP = 12.0  # m of free space it keeps to a vehicle ahead
LOOKAHEAD = 6.0  # m
WHEELBASE = 2.7  # m
MAX_WHEEL_ANGLE = 0.6  # rad at steer 1


def get_entry_point():
    return "WorldRouteAgent"


class WorldRouteAgent(AutonomousAgent):
    def setup(self, path_to_conf_file):
        self.track = Track.SENSORS
        self.hero, self.path = None, []

    def sensors(self):
        return []

    def _plan(self):
        cmap = CarlaDataProvider.get_map()
        wps = [cmap.get_waypoint(t.location) for t, _ in self._global_plan_world_coord]
        last = wps[-1]
        for _ in range(10):  # 20 m of road past the route's end, where the road goes on
            ahead = last.next(2.0)
            if not ahead:
                break
            last = ahead[0]
            wps.append(last)
        return [w.transform.location for w in wps]

    def _lead_gap(self, tf):
        """Free space (m) to the nearest vehicle ahead in the hero's lane, None if none within 50 m."""
        cmap = CarlaDataProvider.get_map()
        own = cmap.get_waypoint(tf.location)
        fwd, best = tf.get_forward_vector(), None
        for v in CarlaDataProvider.get_world().get_actors().filter("*vehicle*"):
            if v.id == self.hero.id:
                continue
            loc = v.get_location()
            wp = cmap.get_waypoint(loc)
            if wp is None or (wp.road_id, wp.lane_id) != (own.road_id, own.lane_id):
                continue
            ahead = (loc.x - tf.location.x) * fwd.x + (loc.y - tf.location.y) * fwd.y
            gap = ahead - v.bounding_box.extent.x - self.hero.bounding_box.extent.x
            if 0.0 < ahead < 50.0 and (best is None or gap < best):
                best = gap
        return best

    def run_step(self, input_data, timestamp):
        if self.hero is None:
            for actor in CarlaDataProvider.get_world().get_actors():
                if actor.attributes.get("role_name") == "hero":
                    self.hero = actor
            self.path = self._plan()
            return carla.VehicleControl()
        tf = self.hero.get_transform()
        loc, yaw = tf.location, math.radians(tf.rotation.yaw)
        while len(self.path) > 1 and self.path[0].distance(loc) < LOOKAHEAD:
            self.path.pop(0)
        target = self.path[0]
        dx, dy = target.x - loc.x, target.y - loc.y
        lat = -math.sin(yaw) * dx + math.cos(yaw) * dy  # + to the right in CARLA's frame
        d2 = max(dx * dx + dy * dy, 1e-6)
        steer = max(-1.0, min(1.0, math.atan(2.0 * WHEELBASE * lat / d2) / MAX_WHEEL_ANGLE))
        v = self.hero.get_velocity()
        speed = math.hypot(v.x, v.y)
        gap = self._lead_gap(tf)
        want = TARGET_SPEED if gap is None else max(0.0, min(TARGET_SPEED, 0.5 * (gap - GAP) + 0.0))
        if speed > want + 0.3:
            return carla.VehicleControl(throttle=0.0, steer=steer, brake=min(1.0, 0.3 + 0.3 * (speed - want)))
        return carla.VehicleControl(throttle=0.6 if speed < want - 0.3 else 0.3, steer=steer, brake=0.0)
