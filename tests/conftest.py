"""Shared test configuration: the hypothesis profiles, the real-data helper and the skip summary.

Profiles: ``ci`` (default; deterministic, few examples, no deadline: these machines are shared and
noisy) and ``dev`` (more examples). Choose with ``HYPOTHESIS_PROFILE``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", deadline=None, max_examples=15, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

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
    where = os.environ.get("OPTSCHED_DATA_DIR") or "unset"
    terminalreporter.write_line(
        f"optsched: {len(missing)} test(s) skipped for missing data (OPTSCHED_DATA_DIR={where})")
