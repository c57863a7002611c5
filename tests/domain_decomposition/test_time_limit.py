"""``chain`` and ``dp`` stop at their time limit inside the chain partition (no wall clock: the
budget is a counter, :mod:`tests.clock_support`). At the declared bound of 100,000 ranks the DP
ran 15 s on a 5 s limit with no clock read: it now reads the clock once per rank, the searches
before every probe."""

from __future__ import annotations

import pytest

import optsched

from ..clock_support import solve_with_counting_clock


@pytest.mark.parametrize("method, per_rank", [("dp", True), ("chain", False)])
def test_the_partition_reads_the_clock(method, per_rank):
    inst = optsched.generate("domain-decomposition", seed=0, ranks=40)
    full, clock = solve_with_counting_clock(inst, method)
    assert full.status == "optimal"
    assert clock.reads >= (inst.num_ranks - 1 if per_rank else 3)
    result, c = solve_with_counting_clock(inst, method, clock.reads // 2)
    assert result.status == "time_limit" and result.solution is None
    assert c.reads == clock.reads // 2 + 1


@pytest.mark.parametrize("method", ["nicol", "bisect", "dp"])
def test_every_search_of_the_chain_partition_polls(method):
    from optsched.core.errors import TimeLimitReached
    from optsched.problems.domain_decomposition.algorithms import chain_owner

    from ..clock_support import Polls

    inst = optsched.generate("domain-decomposition", seed=0, ranks=40)
    count = Polls()
    chain_owner(inst, method=method, poll=count)
    assert count.calls >= (3 if method == "bisect" else inst.num_ranks - 1)
    with pytest.raises(TimeLimitReached):
        chain_owner(inst, method=method, poll=Polls(count.calls // 2))
