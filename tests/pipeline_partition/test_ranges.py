"""The random chain's declared size: 10^6 positions (the supported scale: loaded and solved
within a time limit, ``bench_pipeline_partition.py``) is accepted, one more is refused."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidOptionError
from optsched.core.params import validate_parameters
from optsched.core.registry import get_problem

PROBLEM = get_problem("pipeline-partition")


def test_a_million_positions_is_accepted_and_one_more_refused():
    options = PROBLEM.generator_options
    assert validate_parameters(PROBLEM.name, options, {"layers": 1_000_000})["layers"] == 1_000_000
    with pytest.raises(InvalidOptionError, match="layers"):
        optsched.generate("pipeline-partition", seed=0, layers=1_000_001)


def test_quadratic_baselines_refuse_past_their_memory_rule():
    """param-balanced, time-balanced and dapple hold (n + 1)^2 sums: past MINMAX_MAX_POSITIONS
    they are refused (exit 2) before allocating, not crashed by a MemoryError."""
    import numpy as np

    from optsched.core.errors import NotApplicable
    from optsched.problems.pipeline_partition.baselines import MINMAX_MAX_POSITIONS
    from optsched.problems.pipeline_partition.generate import chain_instance

    big = chain_instance(list(np.full(MINMAX_MAX_POSITIONS + 1, 1e-3)), topology="nvlink:4")
    for method in ("param-balanced", "time-balanced", "dapple"):
        ok, why = PROBLEM.get_method(method).applicable(big)
        assert not ok and str(MINMAX_MAX_POSITIONS) in why
        with pytest.raises(NotApplicable):
            optsched.solve(big, method)


class _Polls:
    def __init__(self, stop_at=None):
        self.stop_at, self.calls = stop_at, 0

    def __call__(self):
        from optsched.core.solving import TimeLimitReached

        self.calls += 1
        if self.stop_at is not None and self.calls >= self.stop_at:
            raise TimeLimitReached("stopped")


def test_baseline_dps_poll_the_clock():
    """The min-max partition polls once per part, PipeDream's DP once per (machines, position)."""
    import numpy as np

    from optsched.core.solving import TimeLimitReached
    from optsched.problems.pipeline_partition.baselines import minmax_partition, pipedream_dp

    c = np.concatenate([[0.0], np.cumsum(np.arange(1.0, 13.0))])
    polls = _Polls()
    minmax_partition(c, 4, polls)
    assert polls.calls == 3
    polls = _Polls()
    pipedream_dp(c, c * 0, 3, 1.0, polls)
    assert polls.calls == 2 * (len(c) - 2)
    with pytest.raises(TimeLimitReached):
        pipedream_dp(c, c * 0, 3, 1.0, _Polls(5))
    inst = optsched.generate("pipeline-partition", seed=0, preset="small")
    for method in ("time-balanced", "pipedream"):
        assert optsched.solve(inst, method, time_limit=1e-9).status == "time_limit"


def test_milp_size_rule_and_its_construction_polls():
    """milp applies up to MILP_MAX_ASSIGNMENTS assignment columns; its rows over positions poll
    the clock once per position (two loops), so a stop during construction ends the run."""
    import numpy as np

    from optsched.core.solving import TimeLimitReached
    from optsched.problems.pipeline_partition.generate import chain_instance
    from optsched.problems.pipeline_partition.model import MILP_MAX_ASSIGNMENTS, build_model_for

    big = chain_instance(list(np.full(MILP_MAX_ASSIGNMENTS // 4 + 1, 1e-3)), topology="nvlink:4")
    ok, why = PROBLEM.get_method("milp").applicable(big)
    assert not ok and "n x largest K" in why
    inst = optsched.generate("pipeline-partition", seed=0, preset="tiny")
    polls = _Polls()
    build_model_for(inst, 2, polls)
    n = inst.num_positions
    assert polls.calls == n + (n - 1)
    with pytest.raises(TimeLimitReached):
        build_model_for(inst, 2, _Polls(3))
    assert optsched.solve(inst, "milp", time_limit=1e-9).status == "time_limit"
