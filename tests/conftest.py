"""Shared fixtures: repository paths and the public conformance corpus (skipped where absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CONFORMANCE = Path(os.environ.get("ROADTEST_CONFORMANCE", SHARED / "conformance"))


@pytest.hookimpl(tryfirst=True)  # before the mark plugin applies -m
def pytest_collection_modifyitems(config, items):
    """Every test that reads the corpus (through conformance_dir) carries the `conformance` marker."""
    for item in items:
        if "conformance_dir" in getattr(item, "fixturenames", ()) and item.get_closest_marker("conformance") is None:
            item.add_marker(pytest.mark.conformance)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def conformance_dir() -> Path:
    """../shared/conformance beside the checkout (or $ROADTEST_CONFORMANCE); a user's clone has none, so tests skip."""
    if not CONFORMANCE.is_dir():
        pytest.skip("../shared/conformance is not beside this checkout (only on roadtest's dev machines and CI)")
    return CONFORMANCE
