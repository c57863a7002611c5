"""Status honesty of online-knapsack's milp with its capacity repair: a solve, then re-solves (below the core's
guard; how the parts are stopped: ``tests/status_support.py``; the table: ``docs/status.md``)."""

from __future__ import annotations

import pytest

from tests.status_support import check_capacity_repair


@pytest.mark.parametrize("stopped", ["first", "repair", "none"])
def test_capacity_repair_status_and_bound(stopped, monkeypatch):
    """A repaired answer is never ``optimal``; its bound is the first solve's, never the repaired
    model's; a stopped re-solve is not hidden by a proven first one (``check_capacity_repair``)."""
    check_capacity_repair("online-knapsack", stopped, monkeypatch)
