"""Shared fixtures: repository paths and the public conformance corpus (skipped where absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CONFORMANCE = SHARED / "conformance"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def conformance_dir() -> Path:
    """../shared/conformance beside the checkout; a user's clone has none, so tests skip."""
    if not CONFORMANCE.is_dir():
        pytest.skip("../shared/conformance is not beside this checkout (only on roadtest's dev machines and CI)")
    return CONFORMANCE
