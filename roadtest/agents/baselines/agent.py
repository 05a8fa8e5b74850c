"""The `e2e-server` agent: UniAD, VAD or any end-to-end model behind a model server (roadtest-e2e protocol).

It asks for Bench2DriveZoo's rig (six 1600x900 cameras, IMU, GNSS, speedometer), builds each tick the inputs
their agents build (rig calibration, q20 JPEGs, can_bus, route command and target point), sends them to the
server, and follows the returned trajectory with their PID and post-processing (UniAD's 5 m/s throttle cut
on for UniAD). Config (`--agent-config FILE`): see DEFAULTS.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from roadtest.agents.base import AutonomousAgent, load_config, sensor_data, sensor_spec
from roadtest.agents.baselines.client import ModelClient, ModelServerError
from roadtest.agents.baselines.e2e_server import CAMERAS
from roadtest.agents.baselines.inputs import can_bus, ego_state, jpeg_bytes, lidar2global, target_in_lidar
from roadtest.agents.baselines.pid import UNIAD_SPEED_CUT, PIDController, postprocess
from roadtest.agents.baselines.rig import UNIAD_RIG, calibration, lidar2ego
from roadtest.agents.baselines.route import COMMAND_NAMES, bench2drive_plan, model_command
from roadtest.errors import UserError
from roadtest.sim.api import Control

__all__ = ["E2EServerAgent", "DEFAULTS", "MODELS"]

MAX_TRAJECTORY_M = 1000.0  # m: a planned point further than this (3 s ahead) is a broken answer, not a plan
MODELS = ("uniad", "uniad_tiny", "vad", "other")
DEFAULTS: dict[str, Any] = {
    "url": "http://127.0.0.1:8765",  # the server started by e2e_server.py
    "model": "uniad",  # uniad | uniad_tiny | vad | other: picks the post-processing Bench2DriveZoo applies
    "throttle_cut": "auto",  # m/s above which throttle is 0; auto = 5 for UniAD, none for the others; null = off
    "timeout": 60.0,  # s for each call (a model's first call warms up CUDA: keep it generous)
    "token_env": None,  # name of an environment variable holding the server's token (servers off loopback)
    "infer_every": 1,  # ticks between inferences; > 1 is a deviation (the last plan is followed in between)
    "want_objects": False,  # ask the server for detected objects too
    "max_concurrency": 1,  # runs at once per server: one session holds the model's temporal memory
}


def _merge(given: Mapping[str, Any], source: str = "agent config") -> dict[str, Any]:
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise UserError(f"{source}: unknown key(s) {unknown}; expected some of {sorted(DEFAULTS)}")
    c = {**DEFAULTS, **given}
    if c["model"] not in MODELS:
        raise UserError(f"{source}: model: expected one of {', '.join(MODELS)}, got {c['model']!r}")
    if not isinstance(c["url"], str) or not c["url"].startswith(("http://", "https://")):
        raise UserError(f"{source}: url: expected http://host:port, got {c['url']!r}")
    for key, lo in (("timeout", 0.0), ("infer_every", 1)):
        v = c[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < lo or (key == "infer_every" and v != int(v)):
            raise UserError(f"{source}: {key}: expected a {'whole ' if key == 'infer_every' else ''}number of at least "
                            f"{lo}, got {v!r}")
    cut = c["throttle_cut"]
    if cut == "auto":
        c["throttle_cut"] = UNIAD_SPEED_CUT if c["model"].startswith("uniad") else None
    elif cut is not None and (isinstance(cut, bool) or not isinstance(cut, (int, float)) or cut < 0):
        raise UserError(f"{source}: throttle_cut: expected auto, null or a speed in m/s, got {cut!r}")
    if c["token_env"] is not None and not os.environ.get(str(c["token_env"])):
        raise UserError(f"{source}: token_env: environment variable {c['token_env']!r} is not set")
    return c


class E2EServerAgent(AutonomousAgent):
    """An end-to-end model served over HTTP, driven as Bench2DriveZoo's UniAD / VAD agents drive it."""

    takes_route = True  # set_global_plan(waypoints, route meta): the junction's RoadOption for the command

    @classmethod
    def check_config(cls, path: str | Path) -> None:
        """Raise UserError for a config that setup() would refuse, before any worker starts."""
        _merge(load_config(path), str(path))

    @classmethod
    def server_scope(cls, path: str | Path) -> dict[str, Any]:
        """The model server and its run limit, for the runner's server limits."""
        c = _merge(load_config(path), str(path))
        return {"url": c["url"], "max_concurrency": c["max_concurrency"]}

    def setup(self, path_to_conf_file: Any) -> None:
        source = str(path_to_conf_file) if isinstance(path_to_conf_file, (str, Path)) else "agent config"
        self.config = _merge(load_config(path_to_conf_file), source)
        c = self.config
        token = os.environ.get(str(c["token_env"])) if c["token_env"] else None
        self.client = ModelClient(c["url"], float(c["timeout"]), token)
        self.route_meta: Mapping[str, Any] = {}
        self.route: dict[str, Any] | None = None
        self.pid = PIDController()
        self.calib = calibration(UNIAD_RIG)
        self.l2e = lidar2ego()
        self.step = -1
        self.t0: float | None = None
        self.trajectory: np.ndarray | None = None
        self.last_answer: dict[str, Any] = {}

    def set_global_plan(self, global_plan_world_coord, route: Mapping[str, Any] | None = None) -> None:
        super().set_global_plan(global_plan_world_coord)
        self.route_meta = dict(route or {})

    def sensors(self) -> list[dict[str, Any]]:
        return [dict(s) for s in UNIAD_RIG] + [
            sensor_spec("sensor.other.imu", "IMU", x=-1.4, sensor_tick=0.05),
            sensor_spec("sensor.other.gnss", "GPS", x=-1.4, sensor_tick=0.01),
            {"type": "sensor.speedometer", "id": "SPEED", "reading_frequency": 20},
        ]

    def _start(self, timestamp: float) -> None:
        if not self.global_plan or len(self.global_plan) < 2:
            raise ModelServerError("e2e-server needs the scenario's route (meta.route.waypoints) for its command")
        self.route = bench2drive_plan(self.global_plan, self.route_meta)
        self.t0 = float(timestamp)
        self.session = f"roadtest-{os.getpid()}-{id(self):x}"
        self.client.reset({"session": self.session, "model": self.config["model"], "calibration": self.calib,
                           "route": {"nodes": self.route["nodes"], "road_options": self.route["options"]}})

    def run_step(self, input_data: Mapping[str, Any], timestamp: float) -> Control:
        if self.route is None:
            self._start(timestamp)
        self.step += 1
        gnss, imu = sensor_data(input_data, "GPS"), sensor_data(input_data, "IMU")
        speed = float((sensor_data(input_data, "SPEED") or {}).get("speed", 0.0))
        state = ego_state(gnss, imu, speed, self.route["lat_ref"], self.route["lon_ref"])
        node, option = self.route["planner"].run_step(state["pos"])
        command = model_command(option)
        cb = can_bus(state)
        target = target_in_lidar(node, cb, state["compass"])
        if self.trajectory is None or self.step % int(self.config["infer_every"]) == 0:
            l2g = lidar2global(cb, self.l2e)
            images = {}
            for cid in CAMERAS:
                img = sensor_data(input_data, cid)
                if img is None:
                    raise ModelServerError(f"camera {cid} gave no image this tick")
                images[cid] = base64.b64encode(jpeg_bytes(np.asarray(img))).decode("ascii")
            answer = self.client.infer({
                "session": self.session, "step": self.step, "timestamp": float(timestamp) - self.t0,
                "images": images, "image_format": "jpeg", "calibration": self.calib, "can_bus": cb.tolist(),
                "command": command, "road_option": int(option), "target_point": target.tolist(),
                "l2g_r_mat": l2g[:3, :3].tolist(), "l2g_t": l2g[:3, 3].tolist(),
                "want_objects": bool(self.config["want_objects"])})
            self.trajectory = self._trajectory(answer, self.client.shown)
            self.last_answer = answer
        steer, throttle, brake, meta = self.pid.control_pid(self.trajectory, speed, target)
        steer, throttle, brake = postprocess(steer, throttle, brake, speed, self.config["throttle_cut"])
        ox = self.l2e[0, 3]
        self.planned = tuple((float(y + ox), float(-x)) for x, y in self.trajectory)  # ego frame: x forward, y left
        self.text = f"command {COMMAND_NAMES[command]}"
        return Control(throttle=throttle, steer=steer, brake=brake)

    @staticmethod
    def _trajectory(answer: Mapping[str, Any], server: str = "") -> np.ndarray:
        """The answer's [x, y] points, refused (naming the server) unless N >= 2 finite points near the car."""
        try:
            traj = np.asarray(answer["trajectory"], dtype=float)
        except (KeyError, TypeError, ValueError):
            raise ModelServerError(f"model server {server} answer has no numeric 'trajectory' (keys: {sorted(answer)})") from None
        if traj.ndim != 2 or traj.shape[0] < 2 or traj.shape[1] < 2 or not np.all(np.isfinite(traj[:, :2])):
            raise ModelServerError(f"model server {server} trajectory must be N >= 2 finite [x, y] points, got shape {traj.shape}")
        far = np.abs(traj[:, :2]) > MAX_TRAJECTORY_M
        if far.any():
            i = int(np.argwhere(far)[0][0])
            raise ModelServerError(f"model server {server} trajectory point {i} {traj[i, :2].tolist()} is more than "
                                   f"{MAX_TRAJECTORY_M:g} m from the car")
        return traj[:, :2]
