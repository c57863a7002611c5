"""Exact methods agree with each other and with brute-force enumeration; baselines never beat them."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import optsched
from optsched.core.solving import objective_tolerance
from optsched.problems.pipeline_partition.generate import chain_instance, generate
from optsched.problems.pipeline_partition.instance import check

BASELINES = ("uniform", "param-balanced", "time-balanced", "pipedream", "dapple", "order-dp")


def brute_force(inst) -> float:
    """Minimum over every plan: cut sets x ordered disjoint device groups (tiny n, N only)."""
    n, N = inst.num_positions, inst.num_devices
    best = float("inf")
    for K in inst.stage_counts():
        for cuts in itertools.combinations(range(1, n), K - 1):
            # assign each device to a stage 0..K-1 or to none (-1)
            for labels in itertools.product(range(-1, K), repeat=N):
                groups = [[d for d in range(N) if labels[d] == k] for k in range(K)]
                if any(not g or len(g) > inst.replica_limit for g in groups):
                    continue
                report = check(inst, {"cuts": list(cuts), "devices": groups})
                if report.feasible:
                    best = min(best, report.objective)
    return best


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= objective_tolerance(b)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("objective", ["bottleneck", "sync-estimate"])
def test_exact_methods_match_brute_force(seed, objective):
    topo = ["nvlink:3", "two-level:2x2:25:1", "random:3:0.2", "two-level:2x2:10:0.001"][seed]
    inst = generate(seed, layers=4, topology=topo, objective=objective, microbatches=3)
    truth = brute_force(inst)
    sub = optsched.solve(inst, "subset-dp")
    mil = optsched.solve(inst, "milp")
    assert sub.status == mil.status == "optimal"
    assert _close(sub.objective, truth) and _close(mil.objective, truth)
    d = optsched.solve(inst, "dp")
    assert d.objective >= truth - objective_tolerance(truth)
    if topo.startswith(("nvlink", "two-level")):  # uniform or clustered: dp covers every plan
        assert d.status == "optimal" and _close(d.objective, truth)


@settings(max_examples=8)
@given(seed=st.integers(0, 10_000), layers=st.integers(2, 6), devices=st.integers(2, 4),
       objective=st.sampled_from(["bottleneck", "sync-estimate"]),
       graph=st.sampled_from(["nvlink", "two-level", "random"]), fixed=st.booleans())
def test_property_dp_subset_milp(seed, layers, devices, objective, graph, fixed):
    topo = {"nvlink": f"nvlink:{devices}", "two-level": f"two-level:2x{devices // 2}:25:0.01",
            "random": f"random:{devices}:0.4"}[graph]
    stages = min(2, layers, devices) if fixed else 0
    inst = generate(seed, layers=layers, topology=topo, objective=objective, stages=stages, microbatches=4)
    mil = optsched.solve(inst, "milp")
    sub = optsched.solve(inst, "subset-dp")
    d = optsched.solve(inst, "dp")
    assert mil.status == "optimal" and sub.status == "optimal"
    # the three routes agree on uniform and clustered graphs; elsewhere dp is restricted to
    # consecutive blocks of the device order
    assert _close(sub.objective, mil.objective)
    if graph != "random" or inst.is_uniform:
        assert _close(d.objective, mil.objective) and d.status == "optimal"
    else:
        assert d.objective >= mil.objective - objective_tolerance(mil.objective)
    for name in BASELINES:
        meth = optsched.get_problem("pipeline-partition").methods[name]
        if not meth.applicable(inst)[0]:
            continue
        r = optsched.solve(inst, name)
        assert r.status in ("feasible", "optimal"), (name, r.reason)
        assert r.objective >= mil.objective - objective_tolerance(mil.objective), name
        # the checker recomputes every reported value
        rep = check(inst, r.solution)
        assert rep.feasible and _close(rep.objective, r.objective)
        assert "reported_objective" not in r.stats


def test_milp_agrees_with_scipy_backend():
    inst = generate(5, layers=4, topology="random:3:0.3", objective="sync-estimate", microbatches=3)
    a = optsched.solve(inst, "milp")
    b = optsched.solve(inst, "milp", backend="scipy")
    assert a.status == b.status == "optimal"
    assert _close(a.objective, b.objective)


def test_bisect_matches_dp_on_longer_chain():
    inst = generate(3, layers=60, topology="flat:6:10", objective="bottleneck", max_replicas=1)
    a = optsched.solve(inst, "bisect")
    b = optsched.solve(inst, "dp")
    assert a.status == b.status == "optimal"
    assert _close(a.objective, b.objective)
    fixed = generate(4, layers=40, topology="flat:5:10", objective="bottleneck", max_replicas=1, stages=5)
    assert _close(optsched.solve(fixed, "bisect").objective, optsched.solve(fixed, "dp").objective)


def test_bisect_hand_example():
    # work 1,1,1,1 into 2 stages: 2 + 2; the transfer after position 1 (10 bytes at 1000 B/s)
    # is 0.01 < 2, so the balanced cut is allowed
    inst = chain_instance([1, 1, 1, 1], stages=2, topology="flat:2:1e-6", activation=[10, 10, 10, 10],
                          max_replicas=1)
    r = optsched.solve(inst, "bisect")
    assert r.solution["cuts"] == [2] and _close(r.objective, 2.0)


def test_replication_helps_when_transfers_are_expensive():
    # one heavy position, nothing to cut: replicas are the only way to speed it up
    inst = chain_instance([6.0], topology="nvlink:3")
    r = optsched.solve(inst, "dp")
    assert r.solution["replicas"] == [3]
    assert _close(r.objective, 2.0)  # 6 / 3, no parameters so no all-reduce
