"""Fixtures of the report tests: one real closed-loop run shared by the modules that need a map."""

from __future__ import annotations

import pytest

from .real_run import real_run


@pytest.fixture(scope="session")
def real_run_dir(tmp_path_factory):
    return real_run(tmp_path_factory.mktemp("smoke"))
