"""Each registered guarantee at its exact constant: it holds as declared, and where a (near-)tight
instance is known, a constant tightened by a stated margin fails on it.

* ``test_every_guarantee_is_classified``: every method with a :class:`Guarantee` appears in
  :data:`TIGHTNESS`, either with a tight family or with the sentence saying that none is known (a
  new guarantee cannot slip by).
* ``test_guarantee_holds_at_its_declared_constant``: the declared statement against the proven OPT
  (or the declared reference value) on a seed sweep of the tiny instances (16 seeds; the
  conformance battery checks 4).
* ``test_tightened_constant_fails_on_a_tight_instance``: on the family, ALG satisfies the declared
  constant and violates the tightened one. Tightening: a multiplicative ``v`` becomes
  ``1 + (v - 1) (1 - delta)`` (``v (1 - delta)`` when ``v = 1``), an additive ``v`` becomes
  ``v (1 - delta)``; ``delta`` is stated per family and is the family's distance to the constant
  plus a margin (so a declared constant loosened by more than ``delta`` fails the test, and one
  tightened by any amount fails the declared check on the same instance).

``docs/status.md`` lists the families, the margins, and the guarantees without a known tight
instance (with the largest share of the allowance observed).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

import pytest

import optsched
from optsched.core.errors import NotApplicable
from optsched.core.registry import Guarantee
from optsched.core.solving import objective_tolerance

SEEDS = range(16)


def tightened(g: Guarantee, delta: float) -> Guarantee:
    """``g`` with its constant tightened by ``delta`` (see the module docstring)."""
    def value(inst, v=g.value):
        c = v(inst)
        if g.form == "multiplicative":
            return c * (1 - delta) if c == 1 else 1 + (c - 1) * (1 - delta)
        return c * (1 - delta)
    return dataclasses.replace(g, value=value)


@dataclass(frozen=True)
class Tight:
    """A (near-)tight family: ``make()`` yields ``(instance, REF)`` pairs (REF: the proven OPT,
    or a value on the far side of OPT that still refutes the tightened constant, see each family)."""

    make: Callable
    delta: float
    why: str


# ---- tight families ------------------------------------------------------------------------------
def _mknap_family():
    """m = 1: capacity 2N; item A (w 1, p 2), items B, C (w N, p N). The LP takes A, B and
    (N - 1) / N of C; rounding down keeps A and B (N + 2), the best single item is N, and OPT = B +
    C = 2N. OPT / ALG = 2N / (N + 2) -> 2 = m + 1."""
    from optsched.problems.mknap.instance import MknapInstance

    for n in (100, 1000):
        inst = MknapInstance(profits=[2, n, n], weights=[[1, n, n]], capacities=[2 * n])
        yield inst, optsched.solve(inst, "milp").objective


def _threshold_family():
    """The classical worst case of threshold pricing: requests of demand eps whose values follow
    the price psi(z) as the utilization z climbs to 0.95 (all accepted), then 1 / eps requests
    just below the final price (all refused). ALG = sum eps psi(k eps) ~ psi(z*) / c, while a
    feasible set (the refused requests) is worth psi(z*) (1 - 1e-9): REF here is that set's value,
    a lower bound on OPT, which is enough to refute the tightened claim OPT <= v' ALG; the declared
    claim is checked against the LP value (an upper bound on OPT). OPT / ALG = 0.9885 v at eps =
    0.002 (measured), so a 2% tightening fails."""
    from optsched.problems.online_knapsack.algorithms import threshold_price
    from optsched.problems.online_knapsack.instance import OnlineKnapsackInstance

    L, U, eps = 1.0, 16.0, 0.002
    d, v, z = [], [], 0.0
    while z + eps <= 0.95 + 1e-12:
        d.append(eps)
        v.append(threshold_price(z, L, U))  # the price the method will post: accepted
        z += eps
    top = threshold_price(z, L, U) * (1 - 1e-9)  # just below the final price: refused
    n = int(round(1 / eps))
    inst = OnlineKnapsackInstance(lower=L, upper=U, eps=eps, demands=d + [eps] * n, values=v + [top] * n)
    yield inst, top * n * eps


def _hetero_family():
    """One stage of a FLOPs (no communication) on one segment of length L = n, a slow device 0
    (F) and n - 1 fast ones (f F, f = s1 / s0): the optimal ratios put s0 = 1/n + 1e-3 units of the
    segment on device 0 and s1 = 1 + (1 - s0) / (n - 1) on each fast one. Largest remainder gives
    device 0 (the largest remainder, s0) a whole unit, so its time grows from a s0 / (L F) to
    a / (L F): ALG - OPT = (1 - s0) a / (L F) = (1 - 1/n - 1e-3) Delta. At n = 50 that is 0.979
    Delta, so a 3% smaller additive term fails."""
    import json

    p = optsched.get_problem("hetero-sharding")
    data = json.loads(p.tiny_instances(0).dumps())
    for n in (20, 50):
        s0 = 1 / n + 1e-3
        s1 = 1 + (1 - s0) / (n - 1)
        data.update(device_flops=[1e12] + [s1 / s0 * 1e12] * (n - 1), segment_lengths=[n], device_names=[],
                    name=f"rounding-tight-{n}",
                    stages=[{"name": "s0", "options": [{"name": "o0", "segment": 0, "sharded_flops": 1e12,
                                                         "replicated_flops": 0.0, "collectives": []}]}])
        inst = p.instance_type.from_json(data)
        r = optsched.solve(inst, "milp")
        assert r.status == "optimal"
        yield inst, r.objective


def _stage_cores_family():
    """greedy is exact (ratio 1): every instance with OPT > 0 is tight."""
    p = optsched.get_problem("stage-cores")
    for seed in range(3):
        inst = p.tiny_instances(seed)
        yield inst, optsched.solve(inst, "milp").objective


TIGHTNESS: dict[tuple[str, str], Tight | str] = {
    ("mknap", "lp-round"): Tight(_mknap_family, 0.01, "2N / (N + 2) at N = 1000 is 1.996: within 0.4% of 2"),
    ("online-knapsack", "threshold"): Tight(_threshold_family, 0.02, "ratio 0.9885 of the constant at eps = 0.002"),
    ("stage-cores", "greedy"): Tight(_stage_cores_family, 1e-3, "ALG = OPT"),
    ("hetero-sharding", "milp-round"): Tight(_hetero_family, 0.03, "ALG - OPT = 0.979 Delta at n = 50"),
    ("smd", "lp-round"): (
        "no tight instance known: the bound charges every one of the |Res| fractional jobs its full deferral "
        "penalty, while fill usually places them"),
    ("smd", "smd"): (
        "no tight instance known: the run stops once ALG <= (1 + target_gap) x its certified bound, and the "
        "bound is usually below OPT, so ALG / OPT is smaller still"),
    ("pipeline-partition", "tree-order-dp"): (
        "no tight instance known: b_max / b_min bounds every transfer's slow-down at once"),
    ("rar-makespan", "sjf-bco"): (
        "no tight instance known (the paper gives none): n_g phi u / l multiplies three worst cases; the statement "
        "is false at n_g = 1 (see test_rar_makespan_theorem5_is_false_at_one_gpu_per_job) and empirical for n_g >= 2"),
    ("rar-online", "gadget-exact"): (
        "no tight instance known: Theorem G's (2 - beta) / (2 alpha beta^2) is a worst-case pricing argument"),
    ("ps-locality", "rr"): (
        "probabilistic (a Chernoff bound on each packing row's load before repair): no constant to tighten by "
        "one instance; checked by its one-sided binomial test"),
}


def _guaranteed():
    return sorted((p.name, m.name) for p in optsched.list_problems().values() for m in p.methods.values()
                  if m.guarantee is not None)


def test_every_guarantee_is_classified():
    missing = [pm for pm in _guaranteed() if pm not in TIGHTNESS]
    assert not missing, f"guarantees with no tight family and no statement that none is known: {missing}"
    stale = [pm for pm in TIGHTNESS if pm not in _guaranteed()]
    assert not stale, f"classified but no longer guaranteed: {stale}"


def _opt(problem, inst, seed):
    values = []
    for m in problem.methods.values():
        if m.kind == "exact" and m.applicable(inst)[0]:
            try:
                r = optsched.solve(inst, m.name, seed=seed)
            except NotApplicable:
                continue
            if r.status == "optimal":
                values.append(r.objective)
    return values[0] if values else None


DETERMINISTIC = [pm for pm in _guaranteed() if optsched.get_problem(pm[0]).methods[pm[1]].guarantee.form
                 != "probabilistic"]


@pytest.mark.parametrize("problem,method", DETERMINISTIC, ids=[f"{p}/{m}" for p, m in DETERMINISTIC])
def test_guarantee_holds_at_its_declared_constant(problem, method):
    p = optsched.get_problem(problem)
    g = p.methods[method].guarantee
    ran = 0
    for seed in SEEDS:
        inst = p.tiny_instances(seed)
        if not p.methods[method].applicable(inst)[0] or not g.applies(inst)[0]:
            continue
        r = optsched.solve(inst, method, seed=seed)
        if r.status in ("infeasible", "error") or r.objective is None:
            assert r.status != "error", f"{problem}/{method} seed {seed}: {r.reason}"
            continue
        ref = _opt(p, inst, seed) if g.reference == "OPT" else (g.reference_value(inst) if g.reference_value else None)
        if ref is None:
            continue
        assert g.holds(inst, r.objective, ref), (
            f"{problem}/{method} seed {seed}: ALG {r.objective}, REF {ref}, threshold {g.threshold(inst, ref)}")
        ran += 1
    if not ran:
        pytest.skip(f"{problem}/{method}: the guarantee applies to none of the tiny instances of the sweep")


TIGHT = [(pm, t) for pm, t in TIGHTNESS.items() if isinstance(t, Tight)]


@pytest.mark.parametrize("key,family", TIGHT, ids=[f"{p}/{m}" for (p, m), _ in TIGHT])
def test_tightened_constant_fails_on_a_tight_instance(key, family):
    problem, method = key
    g = optsched.get_problem(problem).methods[method].guarantee
    tight = tightened(g, family.delta)
    count = 0
    for inst, ref in family.make():
        assert g.applies(inst)[0], g.applies(inst)[1]
        alg = optsched.solve(inst, method).objective
        declared_ref = ref
        if problem == "online-knapsack":  # REF is a lower bound on OPT; the declared claim against the LP
            declared_ref = optsched.solve(inst, "lp").objective
            assert declared_ref >= ref - objective_tolerance(ref)
        assert g.holds(inst, alg, declared_ref), (
            f"{problem}/{method}: declared constant fails: ALG {alg}, REF {declared_ref}")
        count += not tight.holds(inst, alg, ref, rel_tol=0.0)
    assert count, (f"{problem}/{method}: the constant tightened by {family.delta} still holds on every instance "
                   f"of the family ({family.why}): the declared constant is looser than the family shows")


def test_rar_makespan_theorem5_is_false_at_one_gpu_per_job():
    """Theorem 5 as stated (makespan <= n_g phi (u / l) OPT) is false at n_g = 1: four single-GPU
    jobs of 4, 12, 11 and 20 slots on two one-GPU servers, no contention, exact estimates. SJF-BCO
    makes 32, OPT is 24 (docs/ring_allreduce.md#theorem-5). The registered guarantee applies only
    for n_g >= 2, where it is labelled empirical."""
    from optsched.problems.rar_makespan import THEOREM5, RarMakespanInstance

    jobs = [  # durations (estimate_slots) 4, 12, 11 and 20 slots; compute and model sizes of 4 job types
        {"gpus": 1, "iterations": 22, "model_bytes": 531453344.0, "compute_s": 7.874306549760711,
         "estimate_slots": 4.0, "job_type": "vgg11"},
        {"gpus": 1, "iterations": 58, "model_bytes": 64185600.0, "compute_s": 10.696152465766085,
         "estimate_slots": 12.0, "job_type": "Recommendation"},
        {"gpus": 1, "iterations": 42, "model_bytes": 244403360.0, "compute_s": 14.602122578388991,
         "estimate_slots": 11.0, "job_type": "alexnet"},
        {"gpus": 1, "iterations": 59, "model_bytes": 113144000.0, "compute_s": 16.315899939567828,
         "estimate_slots": 20.0, "job_type": "CycleGAN"}]
    data = {"format_version": 1, "problem": "rar-makespan", "servers": [1, 1], "jobs": jobs, "slot_s": 60.0,
            "intra_bandwidth": 100e9, "inter_bandwidth": 12.5e9, "reduction_speed": 50e9,
            "contention_scale": 0.0, "server_overhead_s": 0.0, "penalty_slope": 0.5, "estimate_lower": 1.0,
            "estimate_upper": 1.0, "horizon": 1200, "name": "theorem5-counterexample",
            "provenance": "rar-makespan generator, seed 117, 4 jobs, 2 servers, gpu_choices 1,2,3"}
    inst = RarMakespanInstance.from_json(data)
    alg = optsched.solve(inst, "sjf-bco").objective
    opt = optsched.solve(inst, "brute").objective
    assert inst.max_gpus == 1 and THEOREM5.value(inst) == 1.0
    assert alg > THEOREM5.value(inst) * opt, (alg, opt)      # the statement fails here ...
    assert not THEOREM5.applies(inst)[0]                     # ... so the registered guarantee excludes it
    assert "empirical" in THEOREM5.statement


@pytest.mark.slow
@pytest.mark.parametrize("problem,method", DETERMINISTIC, ids=[f"{p}/{m}" for p, m in DETERMINISTIC])
def test_guarantee_holds_on_the_presets(problem, method):
    """The declared statement on seeds 0-39 of the problem's ``tiny`` and ``small`` presets (and, for
    rar-makespan, on seeds 0-199 of 4-job instances with 1 to 3 GPUs per job: the family where
    Theorem 5 failed at n_g = 1), against the reference method's proven OPT (5 s limit per
    instance; unproven ones are skipped). ``make bench``; about a minute on one core."""
    p = optsched.get_problem(problem)
    meth = p.methods[method]
    g = meth.guarantee
    ref_name = p.reference_method if isinstance(p.reference_method, str) else p.reference_method[0]
    families = [(p.presets[k], 40) for k in ("tiny", "small") if k in p.presets]
    if problem == "rar-makespan":  # seeds 117, 301 and 417 of a similar family broke it at n_g = 1
        families.append((dict(p.presets["tiny"], jobs=4, gpu_choices="1,2,3"), 200))
        ref_name = "brute"
    ran = 0
    for params, seeds in families:
        for seed in range(seeds):
            inst = p.generate(seed, **params)
            if not meth.applicable(inst)[0] or not g.applies(inst)[0]:
                continue
            if not p.methods[ref_name].applicable(inst)[0]:
                continue
            ref = optsched.solve(inst, ref_name, time_limit=5.0)
            alg = optsched.solve(inst, method, seed=seed)
            if ref.status != "optimal" or alg.objective is None:
                continue
            assert g.holds(inst, alg.objective, ref.objective), (
                f"{problem}/{method} {params} seed {seed}: ALG {alg.objective}, OPT {ref.objective}, "
                f"threshold {g.threshold(inst, ref.objective)}")
            ran += 1
    if not ran:
        pytest.skip(f"{problem}/{method}: applies to no preset instance with a proven OPT")
