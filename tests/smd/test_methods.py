"""SMD methods: milp = brute force, pruning is exact, lp-round's additive bound, SMD >= OPT,
infeasible instances, baselines."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import optsched
from optsched.core.conformance import check_method, exact_reference
from optsched.core.solving import objective_tolerance
from optsched.problems.smd import generate
from optsched.problems.smd.configurations import enumerate_configurations
from optsched.problems.smd.generate import PRESETS, tiny_instance

PROBLEM = optsched.get_problem("smd")
HEURISTICS = ("lp-round", "smd", "one-to-one", "optimus-greedy", "drf")


def brute_sized(seed: int, **changes):
    """Instances brute force enumerates: at most (3 * 2 + 1)^4 = 2401 combinations."""
    options = {"jobs": 4, "max_workers": 3, "max_parameter_servers": 2, "layers": 5, **changes}
    return generate(seed, **options)


@pytest.mark.parametrize("seed", range(8))
def test_milp_equals_brute_force(seed):
    inst = brute_sized(seed, non_deferrable=0.25 * (seed % 3), resources=1 + seed % 3)
    milp = optsched.solve(inst, "milp")
    brute = optsched.solve(inst, "brute")
    assert milp.status == brute.status == "optimal"
    # milp's objective is recomputed by the checker; brute sums the same products: 1e-6 relative
    # (solve's comparison tolerance) is far above float noise and far below any two solutions' gap
    assert abs(milp.objective - brute.objective) <= objective_tolerance(brute.objective)


@pytest.mark.parametrize("seed", range(4))
def test_milp_cross_checks(seed):
    """Pruning is exact, and SciPy's HiGHS build agrees with the default back-end."""
    inst = generate(seed, **PRESETS["smd-small"])
    ref = optsched.solve(inst, "milp")
    full = optsched.solve(inst, "milp", options={"prune": False})
    other = optsched.solve(inst, "milp", backend="scipy")
    assert ref.status == full.status == other.status == "optimal"
    for r in (full, other):  # same tolerance as above
        assert abs(r.objective - ref.objective) <= objective_tolerance(ref.objective)
    assert full.stats["columns"] > ref.stats["columns"]


def test_pruning_keeps_each_jobs_cheapest_configuration():
    inst = generate(1, **PRESETS["smd-small"])
    full, pruned = enumerate_configurations(inst, prune=False), enumerate_configurations(inst)
    np.testing.assert_array_equal(np.minimum.reduceat(full.cost, full.start[:-1]),
                                  np.minimum.reduceat(pruned.cost, pruned.start[:-1]))


@given(seed=st.integers(0, 10_000), jobs=st.integers(2, 8), resources=st.integers(1, 3),
       tightness=st.floats(0.1, 0.9), max_workers=st.integers(1, 5), max_servers=st.integers(1, 4))
def test_lp_round_additive_bound(seed, jobs, resources, tightness, max_workers, max_servers):
    inst = generate(seed, jobs=jobs, resources=resources, tightness=tightness, max_workers=max_workers,
                    max_parameter_servers=max_servers, layers=6)
    method = PROBLEM.methods["lp-round"]
    assert method.guarantee.applies(inst)[0]
    opt = optsched.solve(inst, "milp")
    assert opt.status == "optimal"
    for fill in (True, False):
        alg = optsched.solve(inst, "lp-round", options={"fill": fill})
        assert alg.status == "feasible"
        assert alg.stats["fractional_jobs"] <= inst.num_resources
        assert method.guarantee.holds(inst, alg.objective, opt.objective)
        # the per-instance form: ALG <= LP + sum over fractional jobs of their deferral penalty
        lp, extra = alg.stats["lp_value"], alg.stats["rounding_bound"]
        assert alg.objective <= lp + extra + objective_tolerance(lp + extra)
        assert lp <= opt.objective + objective_tolerance(opt.objective)


def test_lp_round_meets_fractional_jobs():
    """The rounding path is exercised: some generated LP optima are fractional."""
    fractional = [optsched.solve(generate(s, **PRESETS["smd-small"]), "lp-round").stats["fractional_jobs"]
                  for s in range(12)]
    assert max(fractional) >= 1


def test_lp_round_guarantee_does_not_apply_with_non_deferrable_jobs():
    inst = tiny_instance(1)
    ok, reason = PROBLEM.methods["lp-round"].guarantee.applies(inst)
    assert not ok and "not deferrable" in reason


@pytest.mark.parametrize("seed", range(10))
def test_heuristics_feasible_and_never_below_opt(seed):
    inst = generate(seed, **PRESETS["smd-small"], non_deferrable=0.2 if seed % 2 else 0.0)
    opt = optsched.solve(inst, "milp")
    assert opt.status == "optimal"
    for name in HEURISTICS:
        r = optsched.solve(inst, name)
        assert r.status == "feasible", (name, r.reason)
        assert "reported_objective" not in r.stats, name
        # never below OPT up to solve's comparison tolerance
        assert r.objective >= opt.objective - objective_tolerance(opt.objective), name


@pytest.mark.parametrize("inner", ["lagrangian", "lp-round", "milp"])
def test_smd_inner_steps(inner):
    inst = generate(2, **PRESETS["smd-small"])
    opt = optsched.solve(inst, "milp")
    r = optsched.solve(inst, "smd", options={"inner": inner})
    assert r.status == "feasible"
    assert r.stats["stop"] in ("converged", "no_descent", "max_outer")
    assert r.stats["inner_solves"] >= 2
    assert r.objective >= opt.objective - objective_tolerance(opt.objective)


def test_smd_rejects_bad_options():
    inst = tiny_instance(0)
    for options, field in (({"inner": "simplex"}, "option inner"), ({"damping": 0.0}, "option damping"),
                           ({"max_outer": 0}, "option max_outer")):
        with pytest.raises(optsched.core.errors.InvalidOptionError) as info:
            optsched.solve(inst, "smd", options=options)
        assert info.value.field == field


def _make_infeasible(total: bool):
    inst = generate(0, jobs=3, max_workers=2, max_parameter_servers=2)
    if total:  # each fits alone, not together
        jobs = [dataclasses.replace(j, deferrable=False) for j in inst.jobs]
        need = inst.smallest_demand.sum(axis=0)
        caps = list(np.maximum(need - 1, inst.smallest_demand.max(axis=0)))
    else:  # job 0 fits in no configuration
        jobs = [dataclasses.replace(inst.jobs[0], deferrable=False)] + list(inst.jobs[1:])
        caps = list(inst.smallest_demand[0] - 1)
    return dataclasses.replace(inst, jobs=jobs, capacities=caps)


@pytest.mark.parametrize("total", [False, True])
def test_infeasible_instances(total):
    inst = _make_infeasible(total)
    for name in PROBLEM.methods:
        r = optsched.solve(inst, name)
        assert r.status == "infeasible", name
        assert r.reason
    expected = "non-deferrable jobs need" if total else "is not deferrable and fits in no configuration"
    assert expected in optsched.solve(inst, "milp").reason


def test_baselines_shapes():
    inst = generate(3, **PRESETS["smd-small"])
    one = optsched.solve(inst, "one-to-one").solution
    assert set(one["workers"]) <= {0, 1} and one["workers"] == one["parameter_servers"]
    drf = optsched.solve(inst, "drf").solution
    # B_wk = B_ps: DRF keeps s >= w up to max_parameter_servers
    for w, s, job in zip(drf["workers"], drf["parameter_servers"], inst.jobs):
        assert w == 0 or s >= min(w, job.max_parameter_servers)


def _edge_cases() -> dict:
    base = generate(1, jobs=4, max_workers=2, max_parameter_servers=2)
    jobs = base.jobs
    return {
        "zero capacity": dataclasses.replace(base, capacities=[0.0, 0.0]),
        "a zero weight": dataclasses.replace(base, jobs=[dataclasses.replace(jobs[0], weight=0.0), *jobs[1:]]),
        "one configuration each": dataclasses.replace(
            base, jobs=[dataclasses.replace(j, max_workers=1, max_parameter_servers=1) for j in jobs]),
        "capacity never binds": dataclasses.replace(base, capacities=[1e6, 1e6]),
        "free parameter servers": dataclasses.replace(
            base, jobs=[dataclasses.replace(j, ps_demand=(0.0, 0.0)) for j in jobs]),
    }


@pytest.mark.parametrize("case", list(_edge_cases()))
def test_edge_instances_pass_the_conformance_battery(case):
    inst = _edge_cases()[case]
    reference = exact_reference(PROBLEM, inst)
    assert reference.status == "optimal"
    for method in PROBLEM.methods.values():
        check_method(PROBLEM, method, inst, reference)
