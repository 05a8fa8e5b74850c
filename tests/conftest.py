"""Shared fixtures: repository paths, the public conformance corpus (skipped where absent) and the Debian
packages some tests need (skipped where absent, with one reason naming the apt line; in CI they must be there)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CONFORMANCE = Path(os.environ.get("ROADTEST_CONFORMANCE", SHARED / "conformance"))


def _has_cjk_font() -> bool:
    """A CJK TrueType font for the JP and CN legends; where roadtest reads no system font (no roadtest.signs.fonts:
    faces drawn from shipped glyphs) none is needed."""
    try:
        from roadtest.signs.fonts import has_cjk
    except ImportError:
        return True
    return has_cjk()


# name -> (what it is for, the Debian packages that give it, is it here?): the README's apt line names them all
SYSTEM_PACKAGES = {
    "cjk-font": ("a CJK font for the JP and CN sign legends", "fonts-wqy-microhei", _has_cjk_font),
    "chromium": ("headless Chromium for the report page", "chromium chromium-driver",
                 lambda: bool(shutil.which("chromium") and shutil.which("chromedriver"))),
}


def require_system(name: str) -> None:
    """Skip (fail in CI, where .ci/run installs them) when a Debian package a test needs is absent."""
    what, packages, present = SYSTEM_PACKAGES[name]
    if present():
        return
    reason = f"needs {what}: sudo apt-get install {packages} (the README's apt line)"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must have it (.ci/run installs it)")
    pytest.skip(reason)


def pytest_runtest_setup(item):
    """@pytest.mark.system("cjk-font"): the test needs that system package."""
    for mark in item.iter_markers("system"):
        for name in mark.args:
            require_system(name)


@pytest.fixture(scope="session")
def system():
    """require_system, for fixtures that need a system package."""
    return require_system


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
