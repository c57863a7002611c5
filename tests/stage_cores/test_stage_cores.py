"""stage-cores: greedy and the integer program against enumeration; baselines; errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.problems.stage_cores import StageCoresInstance, brute_force, greedy_bottleneck, proportional_split


def _inst(rates, cores, min_cores=1):
    return StageCoresInstance(stages=tuple(f"s{i}" for i in range(len(rates))), rate_per_core=tuple(rates),
                              cores=cores, min_cores=min_cores)


@given(st.lists(st.integers(1, 50), min_size=1, max_size=4), st.integers(0, 12), st.integers(0, 2))
def test_greedy_equals_enumeration(rates, extra, min_cores):
    cores = len(rates) * min_cores + extra
    if cores < 1:
        return
    best, _ = brute_force([float(r) for r in rates], cores, min_cores)
    c = greedy_bottleneck([float(r) for r in rates], cores, min_cores)
    assert sum(c) == cores and min(r * x for r, x in zip(rates, c)) == best


@pytest.mark.parametrize("seed", range(3))
def test_milp_equals_greedy_on_both_backends(seed):
    inst = optsched.generate("stage-cores", seed=seed, cores=20, stages=3)
    g = optsched.solve(inst, "greedy").objective
    for backend in ("highs", "scipy"):
        r = optsched.solve(inst, "milp", backend=backend)
        assert r.status == "optimal" and r.objective == pytest.approx(g, rel=1e-9)


def test_baselines_by_hand():
    inst = _inst([100.0, 400.0], 5)
    # equal: 3 + 2 -> min(300, 800) = 300; proportional to 1/r: shares 0.8, 0.2 of 3 spare
    assert optsched.solve(inst, "equal").solution == {"cores": [3, 2]}
    assert proportional_split([100.0, 400.0], 5) == [3, 2]
    assert optsched.solve(inst, "greedy").objective == 400.0  # 4 + 1 cores
    assert optsched.solve(inst, "proportional").objective < 400.0


def test_infeasible_and_invalid():
    r = optsched.solve(_inst([1.0, 2.0, 3.0], 2), "greedy")
    assert r.status == "infeasible"
    with pytest.raises(InvalidInstanceError):
        _inst([1.0, -1.0], 3)
    with pytest.raises(InvalidInstanceError):
        StageCoresInstance(stages=("a", "a"), rate_per_core=(1.0, 1.0), cores=2)
    rep = optsched.check(_inst([1.0, 1.0], 3), {"cores": [3, 1]})
    assert not rep.feasible


def test_min_cores_binds_the_exact_methods():
    """Rates 100 and 1 per core, 10 cores, at least 3 each: OPT gives the fast stage its 3 and the
    slow one the other 7 (throughput 7). Without the ``c >= min_cores`` rows the fast stage would
    take 1 core and the slow one 9 (throughput 9, an allocation the instance forbids)."""
    inst = _inst([100.0, 1.0], 10, min_cores=3)
    for method in ("milp", "greedy", "brute"):
        r = optsched.solve(inst, method)
        assert r.status == "optimal", (method, r.status, r.reason)
        assert r.solution == {"cores": [3, 7]} and r.objective == 7.0, (method, r.solution, r.objective)
    r = optsched.solve(inst, "milp", backend="scipy")
    assert r.status == "optimal" and r.objective == 7.0
