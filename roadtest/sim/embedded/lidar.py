"""Lidar and radar for the built-in backend: rays cast against the very scene the cameras see.

The renderer's planar depth, from pinhole views at the sensor that together cover the rays of a tick, is the
ray cast: each ray takes the depth of the pixel it passes through and returns the surface point on that pixel's
own ray (so every point lies on the scene's geometry, at most half a pixel off the ray's nominal angle).

sensor.lidar.ray_cast gives CARLA's (N, 4) float32 [x, y, z, intensity] in the sensor frame (x forward, y right,
z up), channel by channel from upper_fov down, each channel sweeping clockwise the azimuths of this tick
(rotation_frequency x 360 degrees x tick), points_per_second x tick points in all, intensity CARLA's
exp(-atmosphere_attenuation_rate x distance). Spec keys left out take the values the leaderboard sets
(range 85 m, 64 channels, 10 Hz, +10 / -30 degrees, 600 000 points/s). CARLA's random drop-off is not
modelled: every ray that hits within range returns.

sensor.other.radar gives, as the leaderboard hands it (CARLA's detections with their columns reversed), (N, 4)
float32 [depth, altitude, azimuth, velocity]: m, rad, rad, m/s along the ray (negative when closing); rays
drawn as CARLA's radar draws them (uniform radius and angle in the horizontal_fov x vertical_fov ellipse) from a
generator seeded by the run's seed, the frame and the sensor id. Defaults: 30 x 30 degrees, 100 m, 1500 points/s.
"""

from __future__ import annotations

import math
import zlib
from typing import Any, Mapping

import numpy as np

from roadtest.errors import UserError
from roadtest.sim.sensors import LIDAR_DEFAULTS, RADAR_DEFAULTS

__all__ = ["LIDAR_DEFAULTS", "RADAR_DEFAULTS", "lidar", "radar", "laser_angles"]

_VIEW = 90.0  # degrees of azimuth per lidar view
_MAX_SIDE = 1024  # px


def _num(spec: Mapping[str, Any], key: str, default: float, low: float, high: float) -> float:
    sid, kind = spec.get("id"), spec.get("type")
    raw = spec.get(key, default)
    try:
        v = float(raw)
    except (TypeError, ValueError):
        raise UserError(f"sensor {sid!r} ({kind}): {key}={raw!r} is not a number") from None
    if not (low <= v <= high) or not math.isfinite(v):
        raise UserError(f"sensor {sid!r} ({kind}): {key}={v:g}: expected {low:g}..{high:g}")
    return v


def _level_mount(spec: Mapping[str, Any]) -> None:
    for key in ("roll", "pitch"):
        if float(spec.get(key, 0.0) or 0.0) != 0.0:
            raise UserError(f"sensor {spec.get('id')!r} ({spec.get('type')}): {key}={spec.get(key)}: the built-in "
                            "lidar and radar are mounted level (roll and pitch 0); yaw turns them")
    if float(spec.get("horizontal_fov", 360.0)) != 360.0 and spec.get("type") == "sensor.lidar.ray_cast":
        raise UserError(f"sensor {spec.get('id')!r}: horizontal_fov={spec.get('horizontal_fov')}: the built-in lidar "
                        "scans the full 360 degrees")


def laser_angles(channels: int, upper: float, lower: float) -> np.ndarray:
    """Elevation (degrees) of each channel, CARLA's: from upper_fov down to lower_fov in equal steps."""
    if channels == 1:
        return np.array([upper])
    return upper - np.arange(channels) * (upper - lower) / (channels - 1)


def _view(renderer, state, ego, spec, yaw: float, width: int, height: int, fov: float):
    """Planar depth (m) of one pinhole view at the sensor, turned `yaw` degrees (clockwise) from the vehicle's x."""
    from roadtest.sim.embedded.render.camera import CameraSpec

    cam = CameraSpec(id=f"{spec.get('id')}@{yaw:.4f}", type="sensor.camera.depth", x=float(spec.get("x", 0.0)),
                     y=float(spec.get("y", 0.0)), z=float(spec.get("z", 0.0)), yaw=yaw, width=width, height=height,
                     fov=fov)
    return renderer.render(cam, state, ego, ("depth_m",))["depth_m"], cam.focal


def _cast(depth: np.ndarray, f: float, dirs: np.ndarray) -> np.ndarray:
    """Points (view frame: forward, right, up) where rays `dirs` (N x 3, same frame, forward > 0) meet the depth
    image; NaN rows for rays off the image, into the sky or nearer than the near plane."""
    from roadtest.sim.embedded.render.camera import FAR, NEAR

    h, w = depth.shape
    u = f * dirs[:, 1] / dirs[:, 0] + w / 2.0
    v = -f * dirs[:, 2] / dirs[:, 0] + h / 2.0
    iu, iv = np.floor(u).astype(int), np.floor(v).astype(int)
    ok = (dirs[:, 0] > 1e-6) & (iu >= 0) & (iu < w) & (iv >= 0) & (iv < h)
    out = np.full((len(dirs), 3), np.nan)
    d = np.full(len(dirs), np.nan)
    d[ok] = depth[iv[ok], iu[ok]]
    ok &= (d > NEAR) & (d < FAR * 0.999)
    out[ok, 0] = d[ok]
    out[ok, 1] = d[ok] * (iu[ok] + 0.5 - w / 2.0) / f
    out[ok, 2] = -d[ok] * (iv[ok] + 0.5 - h / 2.0) / f
    return out


def _yaw(points: np.ndarray, deg: float) -> np.ndarray:
    """View-frame points into the sensor frame, the view being turned `deg` clockwise (CARLA yaw)."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    out = points.copy()
    out[:, 0] = c * points[:, 0] - s * points[:, 1]
    out[:, 1] = s * points[:, 0] + c * points[:, 1]
    return out


class _Sweep:
    """Where each lidar's rotation stands between ticks."""

    def __init__(self):
        self.angle: dict[str, float] = {}


def lidar(sim, ego, spec: Mapping[str, Any], renderer, tick: float) -> np.ndarray:
    """One tick of a ray-cast lidar: (N, 4) float32 x, y, z, intensity in the sensor frame."""
    _level_mount(spec)
    rng = _num(spec, "range", LIDAR_DEFAULTS["range"], 0.1, 1000.0)
    channels = int(_num(spec, "channels", LIDAR_DEFAULTS["channels"], 1, 256))
    freq = _num(spec, "rotation_frequency", LIDAR_DEFAULTS["rotation_frequency"], 0.01, 1000.0)
    upper = _num(spec, "upper_fov", LIDAR_DEFAULTS["upper_fov"], -89.0, 89.0)
    lower = _num(spec, "lower_fov", LIDAR_DEFAULTS["lower_fov"], -89.0, 89.0)
    pps = _num(spec, "points_per_second", LIDAR_DEFAULTS["points_per_second"], 1, 1e8)
    atten = _num(spec, "atmosphere_attenuation_rate", LIDAR_DEFAULTS["atmosphere_attenuation_rate"], 0.0, 10.0)
    if lower > upper:
        raise UserError(f"sensor {spec.get('id')!r} (sensor.lidar.ray_cast): lower_fov {lower:g} is above upper_fov {upper:g}")
    sweeps = getattr(sim, "lidar_sweeps", None)
    if sweeps is None:
        sweeps = sim.lidar_sweeps = _Sweep()
    sid = str(spec.get("id"))
    start = sweeps.angle.get(sid, 0.0)
    span = min(360.0, freq * 360.0 * tick)
    per_laser = max(int(math.floor(pps * tick / channels + 0.5)), 1)  # CARLA rounds half away from zero
    sweeps.angle[sid] = (start + span) % 360.0
    az = start + np.arange(per_laser) * (span / per_laser)  # degrees clockwise from the sensor's x
    el = laser_angles(channels, upper, lower)
    step = min(span / per_laser, (upper - lower) / max(channels - 1, 1) if channels > 1 else span / per_laser)
    width = int(min(_MAX_SIDE, max(32, math.ceil(2.0 * _VIEW / max(step, 1e-3)))))
    reach = max(abs(upper), abs(lower))
    half = math.tan(math.radians(reach)) / math.cos(math.radians(_VIEW / 2.0)) * 1.02
    height = int(min(4 * _MAX_SIDE, max(8, math.ceil(half * width))))
    if half * width > 4 * _MAX_SIDE:
        raise UserError(f"sensor {sid!r} (sensor.lidar.ray_cast): fov down to {lower:g} / up to {upper:g} degrees: "
                        "the built-in lidar reaches 75 degrees off the horizon at most")
    ce, se = np.cos(np.radians(el)), np.sin(np.radians(el))
    mount = float(spec.get("yaw", 0.0) or 0.0)
    pts = np.full((channels, per_laser, 3), np.nan)
    n_views = int(math.ceil(span / _VIEW - 1e-9))
    for k in range(n_views):
        lo = start + k * _VIEW
        centre = lo + _VIEW / 2.0
        sel = (az >= lo - 1e-9) & (az < lo + _VIEW - 1e-9)
        if not sel.any():
            continue
        depth, f = _view(renderer, sim.state, ego, spec, mount + centre, width, height, _VIEW)
        rel = np.radians(az[sel] - centre)
        dirs = np.stack([np.outer(ce, np.cos(rel)), np.outer(ce, np.sin(rel)), np.outer(se, np.ones(len(rel)))], -1)
        hit = _cast(depth, f, dirs.reshape(-1, 3))
        pts[:, sel] = _yaw(hit, centre).reshape(channels, int(sel.sum()), 3)
    flat = pts.reshape(-1, 3)
    dist = np.linalg.norm(flat, axis=1)
    keep = np.isfinite(dist) & (dist <= rng)
    out = np.empty((int(keep.sum()), 4), dtype=np.float32)
    out[:, :3] = flat[keep]
    out[:, 3] = np.exp(-atten * dist[keep])
    return out


def _hit_velocity(state, world_pts: np.ndarray) -> np.ndarray:
    """World velocity (vx, vy) of whatever each point lies on: an actor whose box holds it, else the ground (0)."""
    vel = np.zeros((len(world_pts), 2))
    for a in state.actors:
        if not getattr(a, "visible", True) or (a.vx == 0.0 and a.vy == 0.0):
            continue
        c, s = math.cos(a.h), math.sin(a.h)
        dx, dy = world_pts[:, 0] - a.x, world_pts[:, 1] - a.y
        lon, lat = c * dx + s * dy, -s * dx + c * dy
        inside = (np.abs(lon) <= a.length / 2 + 0.2) & (np.abs(lat) <= a.width / 2 + 0.2) & \
                 (world_pts[:, 2] - a.z <= a.height + 0.2)
        vel[inside] = (a.vx, a.vy)
    return vel


def radar(sim, ego, spec: Mapping[str, Any], renderer, tick: float) -> np.ndarray:
    """One tick of a radar: (N, 4) float32 [depth, altitude, azimuth, velocity], the leaderboard's column order."""
    _level_mount(spec)
    hfov = _num(spec, "horizontal_fov", RADAR_DEFAULTS["horizontal_fov"], 0.1, 170.0)
    vfov = _num(spec, "vertical_fov", RADAR_DEFAULTS["vertical_fov"], 0.1, 170.0)
    rng = _num(spec, "range", RADAR_DEFAULTS["range"], 0.1, 1000.0)
    pps = _num(spec, "points_per_second", RADAR_DEFAULTS["points_per_second"], 1, 1e7)
    n = int(pps * tick)
    seed = [int(getattr(sim, "seed", 0)), int(sim.state.frame), zlib.crc32(str(spec.get("id")).encode())]
    gen = np.random.default_rng(seed)
    radius, angle = gen.random(n), gen.random(n) * math.tau
    tx, ty = math.tan(math.radians(hfov / 2)), math.tan(math.radians(vfov / 2))
    dirs = np.stack([np.ones(n), tx * radius * np.cos(angle), ty * radius * np.sin(angle)], -1)
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    width = 256
    height = int(min(4 * _MAX_SIDE, max(8, math.ceil(width * ty / tx * 1.02))))
    mount = float(spec.get("yaw", 0.0) or 0.0)
    depth, f = _view(renderer, sim.state, ego, spec, mount, width, height, min(hfov * 1.02, 175.0))
    hit = _cast(depth, f, dirs)
    dist = np.linalg.norm(hit, axis=1)
    keep = np.isfinite(dist) & (dist <= rng)
    hit, dirs, dist = hit[keep], dirs[keep], dist[keep]
    # the sensor frame (x forward, y right, z up) in the world: the ego's heading turned by the mount's yaw
    h = ego.h - math.radians(mount)
    c, s = math.cos(h), math.sin(h)
    cx, cy = math.cos(ego.h), math.sin(ego.h)
    mx, my = float(spec.get("x", 0.0)), -float(spec.get("y", 0.0))
    origin = np.array([ego.x + cx * mx - cy * my, ego.y + cy * mx + cx * my, ego.z + float(spec.get("z", 0.0))])
    to_world = np.array([[c, s, 0.0], [s, -c, 0.0], [0.0, 0.0, 1.0]])  # columns: sensor x, y (right), z in the world
    world_dirs = dirs @ to_world.T
    world_pts = origin + hit @ to_world.T
    target = _hit_velocity(sim.state, world_pts)
    rel = target - np.array([ego.vx, ego.vy])
    velocity = rel[:, 0] * world_dirs[:, 0] + rel[:, 1] * world_dirs[:, 1]
    azimuth = np.arctan2(dirs[:, 1], dirs[:, 0])
    altitude = np.arctan2(dirs[:, 2], np.hypot(dirs[:, 0], dirs[:, 1]))
    return np.stack([dist, altitude, azimuth, velocity], -1).astype(np.float32)
