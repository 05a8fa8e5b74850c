"""Fixtures of the VLM agent's tests: smoke bundles written once, offline switches for transformers."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).parent))

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def smoke_bundles(tmp_path_factory) -> dict[str, Path]:
    """The smoke suite's variants as bundles: {scenario name: bundle folder}."""
    from roadtest.runner.cli import resolve_target

    out = tmp_path_factory.mktemp("smoke")
    return {vid: Path(path) for vid, path in resolve_target(REPO / "scenarios" / "suites" / "smoke.yaml", out)}
