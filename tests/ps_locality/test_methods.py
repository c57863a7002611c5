"""ps-locality methods: LP <= OPT <= ALG, cross-checks, the rounding theorem, online-rr, loader."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

import optsched
from optsched.core.rng import make_rng
from optsched.core.solving import objective_tolerance
from optsched.problems.ps_locality import algorithms, load_philly_trace
from optsched.problems.ps_locality.algorithms import _loads, _sample_plan, rounding_delta, rounding_factor
from optsched.problems.ps_locality.model import build_model, offline_data, solo_slots
from tests.conftest import require_data

from .helpers import instance, job

SEEDS = range(4)
HEURISTICS = ("rr", "fifo-locality", "drf", "online-rr")


@pytest.fixture(scope="module")
def small():
    """(instance, milp result) for the 'small' preset (4 jobs, 2 machines; milp < 1 s each)."""
    out = {}
    for seed in SEEDS:
        inst = optsched.generate("ps-locality", seed=seed, preset="small")
        out[seed] = inst, optsched.solve(inst, "milp")
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_lp_le_opt_le_alg(small, seed):
    inst, opt = small[seed]
    assert opt.status == "optimal"
    tol = objective_tolerance(opt.objective)
    lp = optsched.solve(inst, "lp")
    lb = optsched.solve(inst, "lower-bound")
    assert lp.objective <= opt.objective + tol
    assert int(solo_slots(inst).sum()) <= lb.objective <= opt.objective + tol
    for method in HEURISTICS:
        r = optsched.solve(inst, method, seed=seed)
        assert r.status == "feasible", (method, r.reason)
        assert optsched.check(inst, r).feasible
        assert r.objective >= opt.objective - tol, method


@pytest.mark.parametrize("seed", SEEDS)
def test_lp_row_families_only_strengthen(small, seed):
    """Dropping rows can only lower the LP; every variant stays below OPT."""
    inst, opt = small[seed]
    full = optsched.solve(inst, "lp").objective
    for cum in (True, False):
        for act in (True, False):
            for solo in (True, False):
                v = optsched.solve(inst, "lp", options={"cumulative_rows": cum, "activity_rows": act,
                                                        "solo_cut": solo}).objective
                assert v <= full + objective_tolerance(full)
    bare = optsched.solve(inst, "lp", options={"cumulative_rows": False, "activity_rows": False,
                                               "solo_cut": False}).objective
    # without any link between completion and progress each job 'completes' in its arrival slot
    assert bare == pytest.approx(inst.num_jobs)


@pytest.mark.parametrize("seed", [2])
def test_milp_agrees_with_scipy_and_other_row_sets(small, seed):
    inst, opt = small[seed]
    assert optsched.solve(inst, "milp", backend="scipy").objective == opt.objective
    alt = optsched.solve(inst, "milp", options={"cumulative_rows": False, "solo_cut": False})
    assert alt.status == "optimal" and alt.objective == opt.objective
    alt = optsched.solve(inst, "milp", options={"activity_rows": False})
    assert alt.status == "optimal" and alt.objective == opt.objective


def test_milp_refuses_rows_that_leave_completion_free(small):
    inst, _ = small[0]
    with pytest.raises(optsched.InvalidOptionError, match="activity_rows"):
        optsched.solve(inst, "milp", options={"cumulative_rows": False, "activity_rows": False})


# -- rr -----------------------------------------------------------------------------------------
def test_rr_reports_repair_and_is_seeded(small):
    inst, opt = small[2]
    a = optsched.solve(inst, "rr", seed=11, options={"trials": 3})
    b = optsched.solve(inst, "rr", seed=11, options={"trials": 3})
    assert a.solution == b.solution
    pre = a.stats["pre_repair"]
    assert len(pre) == 3
    for trial in pre:
        assert {"max_load_ratio", "zero_capacity_rows_loaded", "overloaded_rows", "rows_beyond_bound", "short_jobs",
                "planned_worker_slots", "final_worker_slots", "objective"} <= set(trial)
    assert a.objective == min(t["objective"] for t in pre if t["objective"] is not None)
    assert a.stats["ratio_to_lp"] == pytest.approx(a.objective / a.bound)


@pytest.mark.parametrize("method,opts", [("rr", {"kappa": 0.5}), ("rr", {"trials": 0}),
                                         ("online-rr", {"window": 0}), ("online-rr", {"kappa": 0.9})])
def test_bad_options_name_the_option(small, method, opts):
    inst, _ = small[0]
    with pytest.raises(optsched.InvalidOptionError, match=f"option {next(iter(opts))}"):
        optsched.solve(inst, method, options=opts)


def test_rounding_delta_solves_its_equation():
    inst = optsched.generate("ps-locality", seed=0, preset="small")
    for kappa in (1.0, 1.5):
        d = rounding_delta(inst, kappa)
        m = inst.num_machines * inst.num_resources * inst.horizon_slots
        A = algorithms._rounding_width(inst, kappa)
        rho = float(np.min(inst.capacity / A))
        assert d * d / (2 + d) == pytest.approx(2 * math.log(m) / (kappa * rho))
        # the union bound: m * exp(-delta^2 kappa rho / (2 + delta)) = 1 / m
        assert m * math.exp(-d * d * kappa * rho / (2 + d)) == pytest.approx(1 / m)
        assert rounding_factor(inst, kappa) == pytest.approx(kappa * (1 + d))


def _lp_solution(inst):
    model = build_model(offline_data(inst), integer=False)
    sol = optsched.core.backends.get_backend(None).solve(model)
    lp = [np.clip(model.block_values(sol.x, k), 0, None) for k in "xpyqzud"]
    return [np.where(a > 1e-9, a, 0.0) for a in lp]


@pytest.mark.parametrize("kappa", [1.0, 1.5])
def test_rounded_loads_are_at_most_kappa_lp_loads_on_average(kappa):
    """The step the theorem rests on: E[load of every packing row] <= kappa * (LP load)."""
    inst = optsched.generate("ps-locality", seed=4, preset="small")
    lp = _lp_solution(inst)
    lp_load = _loads(inst, *lp[:4])
    rng = make_rng(0, "test-unbiased")
    N = 2000
    samples = np.stack([_loads(inst, *_sample_plan(inst, lp, kappa, rng)[:4]) for _ in range(N)])
    mean, sd = samples.mean(axis=0), samples.std(axis=0)
    # 5 standard errors: a one-sided z-test per row at about 3e-7, over ~100 rows
    assert np.all(mean <= kappa * lp_load + 5 * sd / math.sqrt(N) + 1e-9)


# -- the rounding theorem: one-sided binomial test --------------------------------------------
LEVEL = 0.01


def _binomial_p(inst, draws: int, seed: int):
    """Fresh trials of step 2 on the LP (each is what trial 0 of rr draws for some seed)."""
    lp = _lp_solution(inst)
    factor = rounding_factor(inst, 1.0)
    cap = inst.capacity[:, :, None]
    rng = make_rng(seed, "test-binomial")
    bad = 0
    for _ in range(draws):
        load = _loads(inst, *_sample_plan(inst, lp, 1.0, rng)[:4])
        bad += bool(np.any(load > factor * cap * (1 + 1e-6) + 1e-9))
    m = inst.num_machines * inst.num_resources * inst.horizon_slots
    return bad, binomtest(bad, draws, 1 / m, alternative="greater").pvalue


BINOMIAL_CASES = {
    "small": dict(preset="small", seed=2),            # factor ~11.5: few workers per machine
    "contended": dict(preset="contended", seed=1),    # factor ~13.5
    # one wide machine (32 GPUs) and 40 jobs of <= 2 workers: rho = 16, factor ~2.3, and the LP
    # fills the capacity (LP load / capacity = 1), so the bound is within a factor 2 of the loads
    "wide": dict(seed=0, jobs=40, machines=1, gpus_per_machine=32, max_workers=2, job_slots=3, load=1.5),
}


@pytest.mark.parametrize("case", sorted(BINOMIAL_CASES))
def test_pre_repair_violation_frequency_binomial(case):
    """H0: P(some row > kappa (1 + delta) cap) <= 1/m; rejected at level 0.01 if the theorem failed."""
    kw = dict(BINOMIAL_CASES[case])
    inst = optsched.generate("ps-locality", **kw)
    bad, p = _binomial_p(inst, 1500, kw["seed"])
    assert p >= LEVEL, f"{bad} violations in 1500 trials, p = {p}"


def test_registered_probabilistic_guarantee_over_seeds(small):
    """The registered event (rr's first trial) over independent seeds, through optsched.solve."""
    inst, _ = small[2]
    g = optsched.get_problem("ps-locality").methods["rr"].guarantee
    results = [optsched.solve(inst, "rr", seed=s, options={"trials": 1}) for s in range(40)]
    holds = sum(bool(g.event(inst, r)) for r in results)
    assert binomtest(40 - holds, 40, 1 - g.probability(inst), alternative="greater").pvalue >= LEVEL
    assert all(r.stats["rounding_factor"] == pytest.approx(g.value(inst)) for r in results)


def test_event_detects_a_violation():
    """The event is not vacuous: a load above the factor makes it false."""
    g = optsched.get_problem("ps-locality").methods["rr"].guarantee

    class R:
        stats = {"rounding_factor": 2.0, "pre_repair": [{"max_load_ratio": 2.5, "zero_capacity_rows_loaded": 0}]}
    assert g.event(None, R) is False
    R.stats = {"rounding_factor": 2.0, "pre_repair": [{"max_load_ratio": 1.9, "zero_capacity_rows_loaded": 0}]}
    assert g.event(None, R) is True
    R.stats = {"rounding_factor": 2.0, "pre_repair": [{"max_load_ratio": 1.9, "zero_capacity_rows_loaded": 1}]}
    assert g.event(None, R) is False


# -- online -------------------------------------------------------------------------------------
def test_online_rr_matches_simulator_and_reveals_jobs_online():
    inst = optsched.generate("ps-locality", seed=1, jobs=8, machines=2, load=0.8)
    r = optsched.solve(inst, "online-rr", seed=2, options={"window": 3})
    assert r.status == "feasible" and r.stats["simulator_agrees"]
    assert r.stats["lp_solves"] >= 1
    alloc = np.array(r.solution["allocations"])
    assert np.all(alloc[:, 2] >= inst.arrival[alloc[:, 0]])


def test_online_rr_needs_a_gpu_resource():
    inst = instance([job("a", 2.0)], horizon=3)
    cpu_only = inst.__class__.from_json(dict(inst.to_json(), resources=["cpu"]))
    with pytest.raises(optsched.NotApplicable, match="gpu"):
        optsched.solve(cpu_only, "online-rr")


# -- trace loader -------------------------------------------------------------------------------
LINE = "{t}\tcd x && python3 train.py\t--num_steps\t1\t{steps}\t{arr}\t{gpus}\n"


def test_trace_loader_on_written_file(tmp_path):
    path = tmp_path / "mini.trace"
    path.write_text(LINE.format(t="ResNet-50 (batch size 64)", steps=20000, arr=1200.0, gpus=4)
                    + LINE.format(t="LM (batch size 20)", steps=5000, arr=0.0, gpus=1)
                    + LINE.format(t="Transformer (batch size 128)", steps=9000, arr=4000.0, gpus=2))
    inst = load_philly_trace(path, jobs=2, machines=2, slot_s=600.0, workload_scale=0.01)
    assert [j.name for j in inst.jobs] == ["trace1", "trace0"]         # by arrival
    assert inst.arrival.tolist() == [0, 2] and inst.max_workers.tolist() == [1, 4]
    assert inst.workload.tolist() == [50.0, 200.0]
    assert "sha256" in inst.provenance
    assert optsched.solve(inst, "fifo-locality").status == "feasible"
    last = load_philly_trace(path, 1, jobs=2)
    assert last.num_jobs == 1
    with pytest.raises(optsched.InvalidOptionError, match="index"):
        load_philly_trace(path, 2, jobs=2)


@pytest.mark.data
def test_trace_loader_on_philly_data():
    path = require_data("traces/gavel_philly/2869ce.trace")
    inst = load_philly_trace(path, 3, jobs=10)
    assert inst.num_jobs == 10
    r = optsched.solve(inst, "online-rr", seed=0)
    lb = optsched.solve(inst, "lower-bound")
    assert r.status == "feasible" and r.objective >= lb.objective - objective_tolerance(lb.objective)
