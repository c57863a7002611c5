"""Shared test configuration: the hypothesis profiles, the real-data helper and the skip summary.

Profiles (``tests/hypothesis_profiles.py``): ``ci`` (default; deterministic, few examples, no
deadline: these machines are shared and noisy), ``dev`` (more examples) and ``bench`` (``make
bench``: fresh random seeds, many more examples, the seed of a failure printed). Choose with
``HYPOTHESIS_PROFILE``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hypothesis_profiles import *  # noqa: E402,F401,F403  (ci / dev / bench profiles and their hooks)

DATA_SKIP_PREFIX = "data:"


def require_data(relative: str) -> Path:
    """The path of a real data file, or skip the test (reason starts with 'data:')."""
    from optsched.core.data import DataUnavailable, data_file

    try:
        return data_file(relative)
    except DataUnavailable as exc:
        pytest.skip(f"{DATA_SKIP_PREFIX} {exc}")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = terminalreporter.stats.get("skipped", [])
    missing = [r for r in skipped if DATA_SKIP_PREFIX in str(getattr(r, "longrepr", ""))]
    where = os.environ.get("OPTSCHED_DATA_DIR")
    if not where:
        from optsched.core.data import data_dir, default_data_dir

        where = f"unset; user cache {default_data_dir()}" + ("" if data_dir() else ": absent, 'optsched data fetch --all' fills it")
    terminalreporter.write_line(
        f"optsched: {len(missing)} test(s) skipped for missing data (OPTSCHED_DATA_DIR={where})")
