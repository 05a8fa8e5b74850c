"""roadtest replay --carla: names the recorder file to the server, and exits 2 without carla, a server or a recording."""

from __future__ import annotations

import json
import sys
import types

import pytest

from roadtest.cli import main
from .runs import suite


@pytest.fixture
def carla_run(tmp_path):
    run_dir = suite(tmp_path)["A"]
    (run_dir / "carla.json").write_text(json.dumps({"recorder": "/srv/carla/rec_A.log", "ego_id": 42}))
    return run_dir


def fake_carla(monkeypatch, calls: list, server_up: bool = True, info: str = "Map: Town01\nFrames: 200"):
    class Client:
        def __init__(self, host, port):
            calls.append(("connect", host, port))

        def set_timeout(self, s):
            pass

        def get_server_version(self):
            if not server_up:
                raise RuntimeError("time-out of 10000ms while waiting for the simulator")
            return "0.9.16"

        def show_recorder_file_info(self, name, show_all):
            return info

        def replay_file(self, name, start, duration, follow_id):
            calls.append(("replay", name, start, duration, follow_id))
            return "Replaying file"

    monkeypatch.setitem(sys.modules, "carla", types.SimpleNamespace(Client=Client))


def test_replays_the_named_file_following_the_ego(carla_run, monkeypatch, capsys):
    calls: list = []
    fake_carla(monkeypatch, calls)
    assert main(["replay", str(carla_run), "--carla", "gpu7:2000"]) == 0
    assert calls == [("connect", "gpu7", 2000), ("replay", "/srv/carla/rec_A.log", 0.0, 0.0, 42)]


def test_no_server_exits_2(carla_run, monkeypatch, capsys):
    fake_carla(monkeypatch, [], server_up=False)
    assert main(["replay", str(carla_run), "--carla", "localhost:2000"]) == 2
    assert "no CARLA server answered" in capsys.readouterr().err


def test_missing_recording_on_server_exits_2(carla_run, monkeypatch, capsys):
    fake_carla(monkeypatch, [], info="File /srv/carla/rec_A.log not found on server")
    assert main(["replay", str(carla_run), "--carla", "localhost:2000"]) == 2
    assert "has no such recorder file" in capsys.readouterr().err


def test_without_carla_installed_exits_2(carla_run, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "carla", None)  # import carla raises ImportError
    assert main(["replay", str(carla_run), "--carla", "localhost:2000"]) == 2
    assert "pip install 'roadtest[carla]'" in capsys.readouterr().err


def test_embedded_run_has_no_recording(tmp_path, capsys):
    run_dir = suite(tmp_path)["A"]
    assert main(["replay", str(run_dir), "--carla", "localhost:2000"]) == 2
    assert "names no CARLA recorder file (backend embedded" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["localhost", ":2000", "host:port", "host:70000"])
def test_bad_host_port(carla_run, capsys, bad):
    assert main(["replay", str(carla_run), "--carla", bad]) == 2
    assert "expected HOST:PORT" in capsys.readouterr().err
