"""What throttle and brake mean: a longitudinal model of CARLA's default car, integrated by the built-in
simulator for an agent-driven ego.

Per unit of mass, with speed v along the heading (m/s) and pedals u_t, u_b in 0..1:

    a = u_t * a_drive(v) - u_b * a_brake - (ROLL + DRAG * v^2)
    a_drive(v) = min(a_launch, p / v)   below the top speed, 0 from it on

- a_launch (m/s^2): full-throttle acceleration from rest, where grip and first-gear torque limit the push;
  LAUNCH_ACCEL unless the vehicle's OpenSCENARIO Performance maxAcceleration is lower.
- p / v: above the launch phase the engine delivers constant power p (W/kg) at the wheels, as an automatic
  gearbox keeps it near peak power, so acceleration falls with speed.
- p = v_max * (ROLL + DRAG * v_max^2): the power that full throttle needs to hold Performance maxSpeed v_max,
  so v_max is the full-throttle top speed (never below MIN_POWER; the drive is cut at v_max either way).
- ROLL = C_rr * g (rolling resistance), DRAG = rho * C_d * A / (2 m) (aerodynamic drag).
- a_brake (m/s^2): full-pedal brake deceleration, BRAKE_DECEL unless Performance maxDeceleration is lower;
  grip (road friction * g) caps both pedals.

Constants: mass 1845 kg and drag coefficient 0.3 are CARLA's VehiclePhysicsControl figures for its default
cars (vehicle.lincoln.mkz_2020 / vehicle.tesla.model3); frontal area 2.2 m^2, C_rr 0.015, launch 4.5 m/s^2
(0-100 km/h in about 7 s) and brakes 8 m/s^2 are typical of that class of sedan. With Performance maxSpeed
70 m/s (what roadtest's scenarios declare) p = 85 W/kg (158 kW): half throttle tops out near 195 km/h and
takes the car from 45 to about 100 km/h in 9 s; coasting at 100 km/h slows it by 0.32 m/s^2.
"""

from __future__ import annotations

import math

__all__ = ["MASS", "DRAG_COEFFICIENT", "FRONTAL_AREA", "ROLLING_COEFFICIENT", "AIR_DENSITY", "G", "ROLL", "DRAG",
           "LAUNCH_ACCEL", "BRAKE_DECEL", "MIN_POWER", "specific_power", "drive_accel", "resistance"]

G = 9.81  # m/s^2
MASS = 1845.0  # kg, CARLA's default car
DRAG_COEFFICIENT = 0.3  # CARLA VehiclePhysicsControl.drag_coefficient
FRONTAL_AREA = 2.2  # m^2
ROLLING_COEFFICIENT = 0.015
AIR_DENSITY = 1.225  # kg/m^3
ROLL = ROLLING_COEFFICIENT * G  # m/s^2
DRAG = 0.5 * AIR_DENSITY * DRAG_COEFFICIENT * FRONTAL_AREA / MASS  # 1/m
LAUNCH_ACCEL = 4.5  # m/s^2 at full throttle from rest
BRAKE_DECEL = 8.0  # m/s^2 at full brake (brakes alone; rolling resistance and drag add to it)
MIN_POWER = 20.0  # W/kg at the wheels, the weakest engine assumed when Performance maxSpeed is very low


def specific_power(max_speed: float) -> float:
    """Wheel power per kg (W/kg) at full throttle that holds `max_speed` (m/s) against rolling and drag."""
    return max(MIN_POWER, max_speed * (ROLL + DRAG * max_speed * max_speed))


def drive_accel(speed: float, launch: float, power: float, max_speed: float) -> float:
    """Acceleration (m/s^2) that full throttle pushes with at `speed` (m/s, >= 0), before resistances."""
    if speed >= max_speed:
        return 0.0
    return launch if speed * launch <= power else power / speed


def resistance(speed: float) -> float:
    """Rolling resistance and drag (m/s^2, >= 0) at `speed` (m/s); none at rest."""
    return 0.0 if speed == 0.0 else ROLL + DRAG * speed * speed

