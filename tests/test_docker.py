"""docker/compose.yaml: N CARLA servers, one GPU each, RPC ports 3 apart (CARLA also takes port+1 and port+2),
rendering off-screen; and docker-compose's own validation where the tool is installed (CI installs it)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

COMPOSE = Path(__file__).resolve().parents[1] / "docker" / "compose.yaml"


def test_servers_get_one_gpu_each_and_ports_three_apart():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    servers = {k: v for k, v in services.items() if "carla" in str(v.get("image", ""))}
    assert len(servers) >= 2
    ports, gpus = [], []
    for name, svc in servers.items():
        assert svc["image"] == "carlasim/carla:0.9.16", name
        assert "-RenderOffScreen" in svc["command"], name
        ports.append(int(re.search(r"-carla-rpc-port=(\d+)", " ".join(svc["command"])).group(1)))
        (dev,) = svc["deploy"]["resources"]["reservations"]["devices"]
        assert len(dev["device_ids"]) == 1 and "gpu" in dev["capabilities"], name
        gpus.append(dev["device_ids"][0])
    ports.sort()
    assert all(b - a >= 3 for a, b in zip(ports, ports[1:])), ports
    assert len(set(gpus)) == len(gpus)
    assert "runner" in services and services["runner"]["build"]["dockerfile"] == "docker/runner.Dockerfile"


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose is not installed (.ci/run installs it)")
def test_docker_compose_accepts_the_file():
    r = subprocess.run(["docker-compose", "-f", str(COMPOSE), "config", "-q"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
