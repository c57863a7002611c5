"""Ada-Grouper under preemption: memory, information (past only), switch accounting."""

from __future__ import annotations

import numpy as np
import pytest

from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.problems.pipeline_adaptive.adagrouper import (AdaGrouperSetting, AdaptivePolicy, BandwidthTrace,
                                                            FixedPolicy, OraclePolicy, example_setting,
                                                            preemption_trace, run_policy)

SETTING = example_setting(iterations=60)


def traces(n=3, periods=30):
    return [preemption_trace(seed, links=SETTING.stages - 1, periods=periods, period=5.0, base_bandwidth=1.25e9)
            for seed in range(n)]


def test_memory_never_exceeded():
    memory = np.asarray(SETTING.memory_bytes)
    for trace in traces():
        for policy in (FixedPolicy(1), AdaptivePolicy(), OraclePolicy(trace), FixedPolicy(8)):
            run = run_policy(SETTING, trace, policy)
            assert np.all(run.peak_memory <= memory), policy.name
            # and per iteration, recomputed from the chosen group sizes
            for g in set(run.group_sizes.tolist()):
                assert np.all(SETTING.memory_use(g, SETTING.microbatches_for[g]) <= memory)


def test_group_sizes_that_do_not_fit_are_never_candidates():
    tight = AdaGrouperSetting(**{**{f: getattr(SETTING, f) for f in (
        "forward_per_sample", "backward_per_sample", "overhead", "allreduce", "activation_bytes_per_sample",
        "stash_bytes_per_sample", "global_batch", "group_sizes", "switch_cost", "iterations",
        "nominal_bandwidth")}, "memory_bytes": (16 * 40e6,) * 4})
    assert 8 not in tight.candidates
    with pytest.raises(InvalidOptionError, match="group_size"):
        run_policy(tight, traces(1)[0], FixedPolicy(8))


def test_adaptive_policy_uses_only_past_periods():
    """Changing the trace from period P on cannot change any decision taken before P starts."""
    base = traces(1, periods=40)[0]
    P = 12
    other = base.bandwidth.copy()
    other[P:] = np.random.default_rng(5).uniform(0.05, 1.0, other[P:].shape) * 1.25e9
    a = run_policy(SETTING, base, AdaptivePolicy())
    b = run_policy(SETTING, BandwidthTrace(base.period, other), AdaptivePolicy())
    before = a.starts < P * base.period
    assert before.sum() > 5
    n = int(before.sum())
    assert np.array_equal(a.group_sizes[:n], b.group_sizes[:n])
    # the oracle, which reads the future, is allowed to differ; the adaptive one was not given it
    assert a.group_sizes.size == b.group_sizes.size == SETTING.iterations


def test_switch_cost_is_charged_once_per_change():
    trace = traces(1)[0]
    for policy in (AdaptivePolicy(), OraclePolicy(trace)):
        run = run_policy(SETTING, trace, policy)
        changes = int(np.sum(run.group_sizes[1:] != run.group_sizes[:-1]))
        assert run.switches == changes
        bare = [SETTING.iteration_time(g, trace.bandwidth[trace.period_index(t)])
                for g, t in zip(run.group_sizes, run.starts)]
        charged = np.asarray(run.iteration_times) - np.asarray(bare)
        # charges are exactly 0 or the switch cost (floating subtraction of equal sums: 1e-12 s)
        assert np.allclose(charged[1:], np.where(run.group_sizes[1:] != run.group_sizes[:-1],
                                                 SETTING.switch_cost, 0.0), atol=1e-12)
        assert run.total_time == pytest.approx(float(np.sum(run.iteration_times)), rel=1e-12)


def test_trace_and_setting_validation():
    with pytest.raises(InvalidInstanceError, match="bandwidth"):
        BandwidthTrace(1.0, np.zeros((3, 2)))
    with pytest.raises(InvalidInstanceError, match="links"):
        run_policy(SETTING, BandwidthTrace(1.0, np.ones((3, 2))), FixedPolicy(1))
    with pytest.raises(InvalidInstanceError, match="switch_cost"):
        example_setting(switch_cost=-1.0)


@pytest.mark.parametrize("P", [8, 12, 16])
def test_adaptive_policy_does_not_see_the_current_period(P):
    """Changing only period P's bandwidth cannot change a decision taken during period P: the
    policy sees the periods that ended before an iteration starts, not the one it starts in. The
    runs agree on every iteration that starts before P ends (those in P last another time under
    the other bandwidth, so their count may differ; each one's choice depends on the same
    history and the same current size). The change (the link 20 times slower, then 4 times
    faster) makes another group size the fastest, so a policy reading period P would choose
    differently."""
    base = traces(1, periods=40)[0]
    runs = []
    for factor in (1.0, 0.05, 4.0):
        bw = base.bandwidth.copy()
        bw[P] *= factor
        runs.append(run_policy(SETTING, BandwidthTrace(base.period, bw), AdaptivePolicy()))
    first, *others = runs
    for other in others:
        n = min(int(np.sum(first.starts < (P + 1) * base.period)), int(np.sum(other.starts < (P + 1) * base.period)))
        assert np.sum(first.starts >= P * base.period) and n > np.sum(first.starts < P * base.period)
        assert np.array_equal(first.group_sizes[:n], other.group_sizes[:n])
