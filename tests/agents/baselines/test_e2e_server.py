"""The e2e-server agent against the model server over loopback, with stand-in models (e2e_standins.py).

What the server receives is compared with hand-computed values; a server that stalls, fails or dies ends the
run as agent_error with its message. The smoke drive uses the renderer's cameras; the failure cases and the
whole-suite run use the test-only flat images of FakeCameraStandInSimulator (the renderer costs ~1 s a tick here).
"""

from __future__ import annotations

import base64
import math
import subprocess
import sys
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from e2e_standin_models import CURVE, FailingStandInModel, FixedCurveStandInModel, StallingStandInModel
from e2e_standins import camera_colour, fake_image
from roadtest.agents.baselines.client import ModelClient, ModelServerError
from roadtest.agents.baselines.e2e_server import CAMERAS, PROTOCOL, TOKEN_HEADER, make_server

HERE = Path(__file__).resolve().parent
FAKE_BACKEND = "e2e_standins:FakeCameraStandInSimulator"


@pytest.fixture
def serve():
    """serve(model, token=None) -> url of a loopback server on a free port, shut down after the test."""
    servers = []

    def start(model, token=None):
        server = make_server(model, "127.0.0.1", 0, token, name=type(model).__name__)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append((server, model))
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server, model in servers:
        if hasattr(model, "release"):
            model.release.set()
        server.shutdown()
        server.server_close()


def _bundle(repo_root, tmp_path, name="straight_speed_limit.yaml"):
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import iter_target

    ((_, result),) = list(iter_target(repo_root / "scenarios" / name))
    return load_bundle(write_bundle(result[0], tmp_path))


def _inputs(x, y, heading, speed, acc=(0.0, 0.0, 9.81), gyro=(0.0, 0.0, 0.0)):
    """Leaderboard sensor data of an ego at inertial (x, y) with `heading` (rad CCW from east)."""
    from roadtest.agents.baselines.rig import UNIAD_RIG
    from roadtest.sim.frames import compass_from_heading
    from roadtest.sim.sensors import gnss_from_xy

    g = gnss_from_xy(x, y, 0.0)
    data = {"GPS": (0, np.array([g["lat"], g["lon"], g["alt"]])),
            "IMU": (0, np.array([*acc, *gyro, compass_from_heading(heading)])), "SPEED": (0, {"speed": speed})}
    for i, spec in enumerate(UNIAD_RIG):
        data[spec["id"]] = (0, fake_image(spec, i))
    return data


def test_the_server_receives_bench2drivezoo_inputs(serve):
    from roadtest.agents.registry import load_agent
    from test_e2e_inputs import B2D_LIDAR2CAM, B2D_LIDAR2IMG

    model = FixedCurveStandInModel()
    agent = load_agent("e2e-server", {"url": serve(model), "timeout": 10})
    agent.set_global_plan([(0.0, 0.0), (300.0, 0.0)], {})  # straight east: LANEFOLLOW all along
    agent(_inputs(0.0, 0.0, 0.0, 0.0), 3.0)
    agent(_inputs(10.0, 0.5, 0.0, 4.5, acc=(0.3, 0.2, 9.81), gyro=(0.0, 0.0, 0.1)), 3.05)
    assert len(model.resets) == 1 and len(model.requests) == 2
    assert model.resets[0]["calibration"]["lidar2img"]["CAM_BACK"] == pytest.approx(
        np.asarray(B2D_LIDAR2IMG["CAM_BACK"]), abs=1e-5)
    req = model.requests[1]
    assert req["protocol"] == PROTOCOL and req["step"] == 1 and req["timestamp"] == pytest.approx(0.05)
    assert list(req["images"]) == list(CAMERAS)
    for i, cam in enumerate(CAMERAS):
        img = cv2.imdecode(np.frombuffer(base64.b64decode(req["images"][cam]), np.uint8), cv2.IMREAD_COLOR)
        assert img.shape == (900, 1600, 3)
        b, g, r = camera_colour(i)  # channel 0 holds red: their BGR2RGB before encoding
        assert abs(int(np.median(img[..., 0])) - r) <= 4 and abs(int(np.median(img[..., 2])) - b) <= 4
        np.testing.assert_allclose(req["calibration"]["lidar2img"][cam], B2D_LIDAR2IMG[cam], rtol=1e-8, atol=1e-5)
        np.testing.assert_allclose(req["calibration"]["lidar2cam"][cam], B2D_LIDAR2CAM[cam], atol=1e-8)
    # can_bus by hand: the route starts at the origin, so their geo-reference is (0, 0): position (10, 0.5);
    # heading east: yaw 0, quaternion (1, 0, 0, 0); acceleration y and the gyro negated
    assert req["can_bus"] == pytest.approx([10.0, 0.5, 0, 1, 0, 0, 0, 4.5, 0, 0, 0.3, -0.2, 9.81, 0, 0, -0.1, 0, 0],
                                           abs=1e-6)
    assert req["command"] == 3 and req["road_option"] == 4  # LANEFOLLOW
    # the next node kept by the 50 m downsampling lies on the route ahead: left of an ego 0.5 m north of it
    tx, ty = req["target_point"]
    assert tx == pytest.approx(0.5, abs=1e-6) and 30.0 < ty < 50.0
    assert req["l2g_t"] == pytest.approx([10.0 - 0.39, 0.5, 1.84], abs=1e-6)
    # the plan in roadtest's ego frame (x forward, y left) from the lidar-frame curve
    assert agent.last_output.planned[0] == pytest.approx((2.5 - 0.39, -CURVE[0][0]))


def test_the_agent_drives_a_smoke_scenario_through_the_loopback_server(serve, repo_root, tmp_path):
    """On the built-in simulator's rendered cameras (about 1-2 s per tick here: half a simulated second)."""
    from roadtest.runner.episode import run_episode
    from roadtest.sim.api import SimSettings, Termination

    model = FixedCurveStandInModel()
    cfg = tmp_path / "uniad.yaml"
    cfg.write_text(f"url: {serve(model)}\nmodel: uniad\ntimeout: 20\n")
    bundle = _bundle(repo_root, tmp_path)
    trace = run_episode(bundle, 0, "e2e-server", SimSettings(max_time=0.5), "embedded", agent_config=str(cfg))
    assert trace.termination is not Termination.AGENT_ERROR, trace.reason
    ticks = len(trace.agent)
    assert ticks >= 9 and len(model.requests) == ticks  # one inference per tick, as their agents
    imgs = {c: cv2.imdecode(np.frombuffer(base64.b64decode(model.requests[-1]["images"][c]), np.uint8),
                            cv2.IMREAD_COLOR) for c in CAMERAS}
    assert list(imgs) == list(model.requests[-1]["images"]) and all(i.shape == (900, 1600, 3) for i in imgs.values())
    sky = imgs["CAM_FRONT"][:60].reshape(-1, 3).mean(axis=0)
    assert sky[2] > sky[0] + 20  # the model's arrays are RGB: the rendered sky is bluer than it is red
    pairs = [float(np.abs(imgs[a].astype(int) - imgs[b].astype(int)).mean()) for i, a in enumerate(CAMERAS)
             for b in CAMERAS[i + 1:]]
    assert min(pairs) > 5.0  # six different views
    ego0, ego1 = trace.states[0].ego, trace.states[-1].ego
    assert math.hypot(ego1.x - ego0.x, ego1.y - ego0.y) > 3.0  # it drove on
    # 12.5 m/s at the start: the plan asks 5 m/s and UniAD's cut stops the throttle above 5 m/s, so it brakes
    assert trace.agent[0].control.brake == 1.0 and trace.agent[0].control.throttle == 0.0
    assert ego1.speed < ego0.speed
    assert {a.text for a in trace.agent} == {"command LANEFOLLOW"}


def test_infer_every_n_ticks_is_a_documented_deviation(serve, repo_root, tmp_path):
    from roadtest.runner.episode import run_episode
    from roadtest.sim.api import SimSettings

    model = FixedCurveStandInModel()
    trace = run_episode(_bundle(repo_root, tmp_path), 0, "e2e-server", SimSettings(max_time=1.0), FAKE_BACKEND,
                        agent_config={"url": serve(model), "infer_every": 5})
    assert len(model.requests) == math.ceil(len(trace.agent) / 5)


def _agent_error(bundle, cfg):
    from roadtest.runner.episode import EpisodeError, run_episode
    from roadtest.sim.api import SimSettings, Termination

    with pytest.raises(EpisodeError) as info:
        run_episode(bundle, 0, "e2e-server", SimSettings(max_time=3.0), FAKE_BACKEND, agent_config=cfg)
    assert info.value.status == "agent_error" and info.value.trace.termination is Termination.AGENT_ERROR
    return info.value.reason


def test_a_stalling_server_ends_the_run_as_agent_error(serve, repo_root, tmp_path):
    model = StallingStandInModel(answers=2)
    reason = _agent_error(_bundle(repo_root, tmp_path), {"url": serve(model), "timeout": 0.5})
    assert "gave no answer within 0.5 s" in reason and "/infer" in reason
    assert len(model.requests) == 2


def test_a_run_against_a_server_that_drips_its_answers_ends_within_the_deadline(repo_root, tmp_path):
    from raw_http_standin import RawServer, drip, http_head

    ok = b'{"protocol": "roadtest-e2e/1"}'
    calls = []

    def script(conn):  # /reset answers at once, every /infer drips a byte per 0.1 s (never late per read)
        calls.append(1)
        if len(calls) == 1:
            conn.sendall(http_head(length=len(ok)) + ok)
        else:
            drip(http_head(length=len(ok)) + ok, every=0.1)(conn)

    bundle = _bundle(repo_root, tmp_path)
    with RawServer(script) as srv:
        t0 = time.monotonic()
        reason = _agent_error(bundle, {"url": srv.url, "timeout": 0.5})
        took = time.monotonic() - t0
    assert f"ModelServerError: model server {srv.url}/infer gave no answer within 0.5 s" in reason
    assert took < 5.0, took  # dripping the ~90-byte answer takes 9 s; one 0.5 s deadline ends the run


def test_a_failing_model_ends_the_run_with_its_message(serve, repo_root, tmp_path):
    reason = _agent_error(_bundle(repo_root, tmp_path), {"url": serve(FailingStandInModel()), "timeout": 5})
    assert "answered 500" in reason and "RuntimeError: CUDA out of memory (stand-in)" in reason


def test_a_server_that_dies_mid_run_ends_it_as_agent_error(repo_root, tmp_path):
    server = HERE.parents[2] / "roadtest" / "agents" / "baselines" / "e2e_server.py"
    env = {"PYTHONPATH": str(HERE), "PATH": "/usr/bin:/bin"}  # -S: no site-packages, so no roadtest, no numpy
    proc = subprocess.Popen([sys.executable, "-S", str(server), "--model", "e2e_standin_models:DyingStandInModel",
                             "--model-arg", "steps=4", "--port", "0"], stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert f"{PROTOCOL} serving" in line, line
        url = line.split(" on ")[-1].strip()
        reason = _agent_error(_bundle(repo_root, tmp_path), {"url": url, "timeout": 5})
        assert proc.wait(5) == 3  # the stand-in killed its server at the 4th inference
        assert "/infer" in reason and ("dropped the connection" in reason or "unreachable" in reason)
    finally:
        proc.kill()
        proc.wait()


def test_no_server_at_all_is_an_agent_error_with_the_address(repo_root, tmp_path):
    reason = _agent_error(_bundle(repo_root, tmp_path), {"url": "http://127.0.0.1:9", "timeout": 2})
    assert "http://127.0.0.1:9/reset unreachable" in reason


def test_token_protocol_and_health(serve):
    model = FixedCurveStandInModel()
    url = serve(model, token="s3cret")
    with pytest.raises(ModelServerError, match=f"answered 401: missing or wrong {TOKEN_HEADER}"):
        ModelClient(url, 2).health()
    assert ModelClient(url, 2, token="s3cret").health()["protocol"] == PROTOCOL
    import json
    import urllib.error
    import urllib.request

    req = urllib.request.Request(url + "/infer", data=json.dumps({"protocol": "roadtest-e2e/0"}).encode(),
                                 headers={TOKEN_HEADER: "s3cret", "Content-Type": "application/json"}, method="POST")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=2)
    assert info.value.code == 400 and "this server speaks 'roadtest-e2e/1'" in info.value.read().decode()
    client = ModelClient(url, 2, token="s3cret")
    client.reset({"session": "run-a"})
    with pytest.raises(ModelServerError, match="answered 409: session 'run-b' is not this server's current session"):
        client.infer({"session": "run-b"})
    with pytest.raises(SystemExit, match="without a token"):
        make_server(model, "0.0.0.0", 0, None)


def test_agent_config_on_the_command_line(repo_root, tmp_path):
    cfg = tmp_path / "uniad.yaml"
    cfg.write_text("model: uniad\nthrottle_cut: fast\n")
    out = subprocess.run([sys.executable, "-m", "roadtest.cli", "run", str(repo_root / "scenarios" / "straight_speed_limit.yaml"),
                          "--agent", "e2e-server", "--agent-config", str(cfg), "-o", str(tmp_path / "out")],
                         capture_output=True, text=True, cwd=repo_root, timeout=120)
    assert out.returncode == 2 and "uniad.yaml: throttle_cut: expected auto, null or a speed in m/s, got 'fast'" in out.stderr
    assert "Traceback" not in out.stderr


def test_the_server_script_is_python_3_8_and_stdlib_only_at_import():
    import ast

    path = HERE.parents[2] / "roadtest" / "agents" / "baselines" / "e2e_server.py"
    tree = ast.parse(path.read_text(), str(path), feature_version=(3, 8))  # Bench2DriveZoo's env is 3.8
    top = {a.name.split(".")[0] for n in tree.body if isinstance(n, ast.Import) for a in n.names}
    top |= {n.module.split(".")[0] for n in tree.body if isinstance(n, ast.ImportFrom) and n.module}
    assert top <= set(sys.stdlib_module_names) | {"__future__"}, top


@pytest.mark.slow
def test_roadtest_run_drives_the_smoke_suite_through_the_server(serve, repo_root, tmp_path):
    """`roadtest run SUITE --agent e2e-server --agent-config FILE` end to end, in worker processes; one inference
    every 20 ticks (the documented deviation) keeps it to minutes on the fake cameras."""
    import json
    import os

    model = FixedCurveStandInModel()
    cfg = tmp_path / "uniad.yaml"
    cfg.write_text(f"url: {serve(model)}\nmodel: uniad\ninfer_every: 20\ntimeout: 30\n")
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo_root), str(HERE)])}
    run = subprocess.run([sys.executable, "-m", "roadtest.cli", "run", str(repo_root / "scenarios/suites/smoke.yaml"),
                          "--agent", "e2e-server", "--agent-config", str(cfg), "--backend", FAKE_BACKEND, "-j", "1",
                          "-o", str(out)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=1200)
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 5, run.stderr[-2000:]
    for r in records:  # driven to the end: completed, or failed on what the scenario expects; never a crash
        assert r["status"] in ("completed", "failed"), (r["run_id"], r["status"], r["reason"])
        assert r["ticks"] > 100
    assert len(model.resets) == 5 and len(model.requests) >= sum(r["ticks"] for r in records) // 20
