"""interference-placement: hand-computed costs, MILP = brute force, back-ends, greedy steps, data."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.problems.interference_placement import PlacementInstance, PlacementJob, Resident, check, generate
from optsched.workloads.colocation import greedy_placement

from tests.conftest import require_data

# HiGHS is run at mip_rel_gap = 0; the objectives are sums of a few float products: 1e-6 relative
TOL = 1e-6


def _inst(**kw):
    base = dict(gpus_per_server=(2, 2), job_types=("a", "b"), beta=((0.5, 2.0), (0.1, 0.0)),
                forbidden=((False, False), (False, False)),
                jobs=(PlacementJob(id=0, type=0, gpus=1, weight=10.0), PlacementJob(id=1, type=1, gpus=1, weight=20.0)),
                spread_penalty=0.25, reject_cost=1000.0)
    base.update(kw)
    return PlacementInstance(**base)


def test_hand_computed_cost():
    inst = _inst()
    together = {"jobs": [{"id": 0, "servers": [[0, 1]]}, {"id": 1, "servers": [[0, 1]]}]}
    # job 0: 10 * (1 + 2.0) = 30; job 1: 20 * (1 + 0.1) = 22
    assert check(inst, together).objective == pytest.approx(52.0)
    apart = {"jobs": [{"id": 0, "servers": [[0, 1]]}, {"id": 1, "servers": [[1, 1]]}]}
    assert check(inst, apart).objective == pytest.approx(30.0)
    rejected = {"jobs": [{"id": 0, "servers": []}, {"id": 1, "servers": [[1, 1]]}]}
    assert check(inst, rejected).objective == pytest.approx(1020.0)
    # a 2-GPU job split over two servers pays the spread penalty: 10 * (1 + 0.25)
    split = _inst(jobs=(PlacementJob(id=0, type=0, gpus=2, weight=10.0),))
    assert check(split, {"jobs": [{"id": 0, "servers": [[0, 1], [1, 1]]}]}).objective == pytest.approx(12.5)


def test_resident_cost_and_checker_violations():
    inst = _inst(residents=(Resident(type=1, weight=100.0, servers=(0,)),),
                 jobs=(PlacementJob(id=0, type=0, gpus=1, weight=10.0),))
    # job 0 next to the resident: 10 * (1 + 2.0) + 100 * 0.1
    assert check(inst, {"jobs": [{"id": 0, "servers": [[0, 1]]}]}).objective == pytest.approx(40.0)
    assert check(inst, {"jobs": [{"id": 0, "servers": [[1, 1]]}]}).objective == pytest.approx(10.0)
    bad = check(inst, {"jobs": [{"id": 0, "servers": [[0, 3]]}]})
    assert not bad.feasible and any("GPUs placed" in v for v in bad.violations)
    forb = _inst(forbidden=((False, True), (True, False)))
    rep = check(forb, {"jobs": [{"id": 0, "servers": [[0, 1]]}, {"id": 1, "servers": [[0, 1]]}]})
    assert not rep.feasible and any("may not co-locate" in v for v in rep.violations)
    assert not check(inst, {"jobs": []}).feasible


@pytest.mark.parametrize("seed", range(8))
def test_milp_equals_brute_on_tiny(seed):
    inst = generate(seed, jobs=4, servers=3, gpus_per_server=2, types=3, residents=1)
    exact, brute = optsched.solve(inst, "milp"), optsched.solve(inst, "brute")
    assert exact.status == brute.status == "optimal"
    assert exact.objective == pytest.approx(brute.objective, rel=TOL)


@pytest.mark.parametrize("backend", ["scipy", "pyomo", "cvxpy"])
def test_backends_agree(backend):
    inst = generate(2, jobs=6, servers=3, gpus_per_server=4)
    ref = optsched.solve(inst, "milp")
    other = optsched.solve(inst, "milp", backend=backend)
    assert other.status == "optimal" and other.objective == pytest.approx(ref.objective, rel=TOL)


def test_least_interference_avoids_the_bad_neighbour():
    # best fit puts job 0 on server 1 (2 free) and job 1 beside it (1 free left); job 0 (type a)
    # suffers beta 2.0 next to b, so least-interference sends job 1 to server 0
    inst = _inst(gpus_per_server=(3, 2))
    assert optsched.check(inst, optsched.solve(inst, "pack").solution).objective == pytest.approx(52.0)
    pack, li = optsched.solve(inst, "pack"), optsched.solve(inst, "least-interference")
    assert li.objective < pack.objective
    assert li.objective == pytest.approx(optsched.solve(inst, "milp").objective, rel=TOL)


def test_least_interference_rejects_when_cheaper():
    inst = _inst(gpus_per_server=(2,), reject_cost=25.0, beta=((0.5, 2.0), (2.0, 0.0)))
    # job 1 next to job 0 costs 20 * 3 + 10 * 2 = 80 > 25: reject it
    li = optsched.solve(inst, "least-interference")
    assert check(inst, li.solution).details["rejected"] == 1
    assert optsched.solve(inst, "pack").objective > li.objective


def test_spread_and_pack_differ():
    inst = _inst(gpus_per_server=(1, 2), jobs=(PlacementJob(id=0, type=1, gpus=1, weight=10.0),),
                 beta=((0.0, 0.0), (0.0, 0.0)))
    snap = inst.snapshot
    assert greedy_placement(snap, "pack") == [{0: 1}]
    assert greedy_placement(snap, "spread") == [{1: 1}]


def test_weight_order_option_changes_the_result():
    # with one slot free next to a harmless neighbour, the heavy job should get it
    inst = _inst(gpus_per_server=(1, 1), residents=(Resident(type=0, weight=1.0, servers=(1,)),),
                 beta=((3.0, 3.0), (0.0, 0.0)),
                 jobs=(PlacementJob(id=0, type=1, gpus=1, weight=1.0), PlacementJob(id=1, type=0, gpus=1, weight=50.0)))
    queue = optsched.solve(inst, "least-interference")
    heavy = optsched.solve(inst, "least-interference", options={"order": "weight"})
    assert heavy.objective < queue.objective


def test_invalid_inputs_name_the_field():
    with pytest.raises(InvalidInstanceError) as e:
        _inst(beta=((0.5, -1.0), (0.1, 0.0)))
    assert e.value.field == "beta[0][1]"
    with pytest.raises(InvalidInstanceError) as e:
        _inst(jobs=(PlacementJob(id=0, type=5, gpus=1, weight=1.0),))
    assert e.value.field == "jobs[0].type"
    with pytest.raises(InvalidInstanceError) as e:
        _inst(reject_cost=0.0)
    assert e.value.field == "reject_cost"


def test_gavel_snapshot_import():
    trace = require_data("traces/gavel_philly/2869ce.trace")
    inst = load = optsched.get_problem("interference-placement").importers["gavel-snapshot"]
    inst = load(trace, jobs=6, servers=4, gpus_per_server=8)
    assert inst.num_jobs == 6 and len(inst.job_types) == 26
    exact = optsched.solve(inst, "milp")
    assert exact.status == "optimal"
    for m in ("pack", "spread", "least-interference"):
        assert optsched.solve(inst, m).objective >= exact.objective * (1 - TOL)


def test_a_split_takes_the_servers_with_the_most_free_gpus_first():
    """A 4-GPU job that fits no single server (free GPUs 1, 3, 2) is split over as few servers as
    possible, those with the most free GPUs first: 3 on server 1 and 1 on server 2, cost
    10 x (1 + 0.25) = 12.5. Taking the servers with the fewest free GPUs first would spread it over
    all three (1 + 2 + 1 GPUs), cost 10 x (1 + 2 x 0.25) = 15."""
    from optsched.workloads.colocation import Snapshot, candidates, placement_cost

    snap = Snapshot(free=(1, 3, 2), job_types=(0,), job_gpus=(4,), job_weight=(10.0,), beta=((0.5,),),
                    forbidden=((False,),), gamma=0.25, reject_cost=100.0)
    assert candidates(snap, 0, list(snap.free), {}) == [{1: 3, 2: 1}]
    for rule in ("pack", "spread", "least-interference"):
        placed = greedy_placement(snap, rule)
        assert placed == [{1: 3, 2: 1}] and placement_cost(snap, placed) == pytest.approx(12.5), rule
