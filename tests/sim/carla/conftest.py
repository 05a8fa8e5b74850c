"""The smoke suite's bundles, written once per session, and the real `carla` module where installed."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def smoke_bundles(tmp_path_factory) -> dict[str, Path]:
    from roadtest.runner.cli import expand, write_bundles

    out = tmp_path_factory.mktemp("smoke")
    return {variant: Path(path) for variant, path in write_bundles(expand(REPO / "scenarios/suites/smoke.yaml"), out)}


@pytest.fixture(scope="session")
def real_carla():
    carla = pytest.importorskip("carla", reason="the carla wheel (pip install 'roadtest[carla]') brings the real types")
    if not hasattr(carla, "Client"):
        pytest.skip("only roadtest's stand-in `carla` is importable")
    return carla
