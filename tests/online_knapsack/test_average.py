"""Average-case streams: the confidence interval, and the trace-derived stream (real data)."""

from __future__ import annotations

import math

import pytest

from optsched.problems.online_knapsack.average import average_ratios, mean_ci, random_streams, trace_stream
from tests.conftest import require_data


def test_mean_ci_by_hand():
    # mean 2, sample sd 1, n = 3: half-width t_{0.975, 2} / sqrt(3) = 4.302653 / 1.732051
    mean, half = mean_ci([1.0, 2.0, 3.0])
    assert mean == 2.0 and half == pytest.approx(4.302652729911275 / math.sqrt(3), rel=1e-9)
    assert mean_ci([5.0]) == (5.0, 0.0)


def test_average_ratios_are_at_least_one_and_count_value_zero_apart():
    insts = random_streams("log-uniform", range(3), requests=30, upper=16.0)
    r = average_ratios("threshold", insts)
    assert r["n"] == 3 and r["zero_alg"] == 0 and min(r["ratios"]) >= 1.0
    # fixed-price (price sqrt(L U) = 2) serves nothing of a stream of values 1: counted apart, not a ratio
    from optsched.problems.online_knapsack.instance import OnlineKnapsackInstance

    low = OnlineKnapsackInstance(lower=1.0, upper=4.0, eps=0.5, demands=[0.5, 0.25], values=[1.0, 1.0])
    r = average_ratios("fixed-price", [low, insts[0]])
    assert r["zero_alg"] == 1 and r["n"] == 1 and math.isfinite(r["mean"])


@pytest.mark.data
def test_trace_stream_follows_the_trace():
    path = require_data("traces/gavel_philly/2869ce.trace")
    from optsched.workloads.traces import load_gavel_trace

    a, b = trace_stream(path, 0, requests=40), trace_stream(path, 0, requests=40)
    assert a == b and a.num_requests == 40                 # seeded window
    jobs = sorted(load_gavel_trace(path), key=lambda j: (j.arrival_s, j.index))
    start = int(a.provenance.split("jobs ")[1].split("..")[0])
    window = jobs[start:start + 40]
    assert list(a.demands) == [min(1 / 16, j.gpus / 64) for j in window]
    # values increase with total_steps (rank order), from L to U
    by_steps = sorted(zip((j.total_steps for j in window), a.values))
    assert [v for _, v in by_steps] == sorted(v for _, v in by_steps)
    assert min(a.values) == 1.0 and max(a.values) == pytest.approx(16.0)
