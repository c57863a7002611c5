"""Every ``feature-cache`` method stops at its time limit inside its replay (no wall clock: the
budget is a counter, :mod:`tests.clock_support`).

At the declared bound (10^6 nodes, 2.2 x 10^6 reads) a replay takes seconds with no clock read
before; now each loop over the reads polls every ``POLL_EVERY`` reads.
"""

from __future__ import annotations

import pytest

import optsched
from optsched.problems.feature_cache import algorithms

from ..clock_support import solve_with_counting_clock


@pytest.fixture(scope="module")
def instance():
    inst = optsched.generate("feature-cache", seed=0, preset="small")
    assert inst.num_accesses > 10 * 64
    return inst


@pytest.mark.parametrize("method, loops", [("min", 3), ("fifo", 2), ("lru", 2), ("static", 2)])
def test_each_replay_reads_the_clock(instance, monkeypatch, method, loops):
    monkeypatch.setattr(algorithms, "POLL_EVERY", 64)
    full, clock = solve_with_counting_clock(instance, method)
    assert full.status in ("optimal", "feasible")
    # every loop over the reads (next-use pass, policy, miss count) polls once per 64 reads
    assert clock.reads >= loops * (instance.num_accesses // 64)
    result, c = solve_with_counting_clock(instance, method, clock.reads // 2)
    assert result.status == "time_limit" and result.solution is None
    assert c.reads == clock.reads // 2 + 1
