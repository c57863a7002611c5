"""optsched's vectorized PipeDream recurrence against a line-by-line transliteration of
PipeDream's ``compute_partitioning`` (one level, final level, fewer machines allowed, no memory
constraint, no activation compression) on random chains."""

from __future__ import annotations

import numpy as np
import pytest

from optsched.problems.pipeline_partition.baselines import pipedream_dp


def pipedream_reference(times, params, num_machines, bandwidth):
    """PipeDream's loops, transliterated (states = chain positions; predecessors of j = 0..j-1)."""
    n = len(times)
    cum_t = np.concatenate([[0.0], np.cumsum(times)])
    cum_p = np.concatenate([[0.0], np.cumsum(params)])

    def compute(i, j):  # positions i..j inclusive (PipeDream's compute_times[i][j])
        return cum_t[j + 1] - cum_t[i]

    def param(i, j):
        return cum_p[j + 1] - cum_p[i]

    A = [[(None, None, None)] * num_machines for _ in range(n)]
    for j in range(n):
        for m in range(num_machines):
            comm = (4 * m * param(0, j)) / (bandwidth * (m + 1))
            A[j][m] = ((compute(0, j) + comm) / (m + 1), None, m + 1)
    for m in range(1, num_machines):
        for j in range(1, n):
            best, split, used = A[j][m]
            if A[j][m - 1][0] < best:
                best, split, used = A[j][m - 1]
            for k in range(j):
                for mp in range(1, m + 1):
                    last = (compute(k + 1, j) + 4 * (mp - 1) * param(k + 1, j) / (bandwidth * mp)) / mp
                    if A[k][m - mp][0] is None:
                        continue
                    t = max(A[k][m - mp][0], last)
                    if best is None or best > t:
                        best, split, used = t, (k, m - mp), mp
            A[j][m] = (best, split, used)
    return A[n - 1][num_machines - 1][0]


@pytest.mark.parametrize("seed", range(5))
def test_port_matches_transliteration(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    machines = int(rng.integers(1, 6))
    times = rng.uniform(0.001, 0.02, n)
    params = rng.uniform(0, 5e7, n)
    bandwidth = 1.25e9
    expected = pipedream_reference(times, params, machines, bandwidth)
    work = np.concatenate([[0.0], np.cumsum(times)])
    par = np.concatenate([[0.0], np.cumsum(params)])
    value, bounds, reps = pipedream_dp(work, par, machines, bandwidth)
    # the same arithmetic in the same order, except numpy's prefix sums: 1e-12 relative
    assert value == pytest.approx(expected, rel=1e-12)
    assert bounds[0][0] == 0 and bounds[-1][1] == n and sum(reps) <= machines
    # the returned plan achieves the value under PipeDream's cost model
    stage = [((work[e] - work[s]) + 4 * (r - 1) * (par[e] - par[s]) / (bandwidth * r)) / r
             for (s, e), r in zip(bounds, reps)]
    assert max(stage) == pytest.approx(value, rel=1e-12)
