"""A CARLA leaderboard agent written as for the leaderboard (test material): it knows nothing of roadtest.

It localises from the GNSS and the IMU compass as Bench2Drive's agents do (geo-reference fitted from the
first point of the GPS plan against the world plan), follows the dense world plan with pure pursuit in
CARLA's left-handed frame and returns carla.VehicleControl. Any format the leaderboard would not deliver
(IMU not an array of 7, GNSS not (lat, lon, alt), a plan that is not Transforms) makes it raise.
"""

import math

import carla
import numpy as np
from agents.navigation.local_planner import RoadOption
from leaderboard.autoagents import autonomous_agent

EARTH_RADIUS_EQUA = 6378137.0
TARGET_SPEED = 8.0  # m/s
WHEELBASE = 2.7  # m
MAX_WHEEL_ANGLE = 0.6  # rad at steer 1


def get_entry_point():
    return "GnssRouteAgent"


class GnssRouteAgent(autonomous_agent.AutonomousAgent):
    def setup(self, path_to_conf_file):
        self.track = autonomous_agent.Track.SENSORS
        self.steps = 0
        self.destroyed = False

    def sensors(self):
        return [
            {"type": "sensor.other.imu", "x": 0.0, "y": 0.0, "z": 0.0, "roll": 0.0, "pitch": 0.0, "yaw": 0.0,
             "sensor_tick": 0.05, "id": "IMU"},
            {"type": "sensor.other.gnss", "x": 0.0, "y": 0.0, "z": 0.0, "roll": 0.0, "pitch": 0.0, "yaw": 0.0,
             "sensor_tick": 0.01, "id": "GPS"},
            {"type": "sensor.speedometer", "reading_frequency": 20, "id": "SPEED"},
        ]

    def set_global_plan(self, global_plan_gps, global_plan_world_coord):
        super().set_global_plan(global_plan_gps, global_plan_world_coord)
        self.route = [(t.location.x, t.location.y) for t, _ in global_plan_world_coord]  # dense, CARLA frame

    def _gps_to_location(self, lat, lon):
        """CARLA (x, y) of a GNSS reading around a geo-reference fitted once from the first plan point."""
        if not hasattr(self, "ref"):
            locx, locy = self._global_plan_world_coord[0][0].location.x, self._global_plan_world_coord[0][0].location.y
            lon0, lat0 = self._global_plan[0][0]["lon"], self._global_plan[0][0]["lat"]
            mx0 = lon0 * math.pi * EARTH_RADIUS_EQUA / 180.0
            my0 = math.log(math.tan((lat0 + 90.0) * math.pi / 360.0)) * EARTH_RADIUS_EQUA
            self.ref = (mx0 - locx, my0 + locy)  # geo-reference lat 0: scale 1
        mx = lon * math.pi * EARTH_RADIUS_EQUA / 180.0
        my = math.log(math.tan((lat + 90.0) * math.pi / 360.0)) * EARTH_RADIUS_EQUA
        return mx - self.ref[0], self.ref[1] - my

    def run_step(self, input_data, timestamp):
        self.steps += 1
        imu, gps, speed = input_data["IMU"][1], input_data["GPS"][1], input_data["SPEED"][1]["speed"]
        assert isinstance(imu, np.ndarray) and imu.shape == (7,), imu
        assert isinstance(gps, np.ndarray) and gps.shape == (3,), gps
        assert isinstance(self._global_plan_world_coord[0][0], carla.Transform)
        assert isinstance(self._global_plan_world_coord[0][1], RoadOption)
        compass = 0.0 if math.isnan(imu[-1]) else imu[-1]
        x, y = self._gps_to_location(gps[0], gps[1])
        yaw = compass - math.pi / 2.0  # CARLA yaw (clockwise from +x): the compass is 0 at north, -y in CARLA
        pts = np.asarray(self.route)
        d = np.hypot(pts[:, 0] - x, pts[:, 1] - y)
        i = int(np.argmin(d))
        look = max(6.0, 0.8 * speed)
        ahead = [k for k in range(i, len(pts)) if d[k] >= look]
        tx, ty = pts[ahead[0]] if ahead else pts[-1]
        # target in the vehicle frame (x forward, y right), then the pure-pursuit wheel angle (right positive)
        dx, dy = tx - x, ty - y
        fx = math.cos(yaw) * dx + math.sin(yaw) * dy
        fy = -math.sin(yaw) * dx + math.cos(yaw) * dy
        wheel = math.atan(WHEELBASE * 2.0 * fy / max(fx * fx + fy * fy, 1e-6))
        control = carla.VehicleControl()
        control.steer = float(np.clip(wheel / MAX_WHEEL_ANGLE, -1.0, 1.0))
        err = TARGET_SPEED - speed
        control.throttle = float(np.clip(0.3 * err + 0.15, 0.0, 0.75)) if err > -0.5 else 0.0
        control.brake = float(np.clip(-0.3 * err, 0.0, 1.0)) if err < -1.0 else 0.0
        control.hand_brake = False
        return control

    def destroy(self):
        self.destroyed = True
