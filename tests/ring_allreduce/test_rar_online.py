"""rar-online: instance rules, the checker by hand, milp vs brute force and the scipy back-end,
the policies on the simulator, objective configurations and the trace importer."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math

import numpy as np
import pytest

import optsched
from optsched.cli import main
from optsched.core.errors import InvalidInstanceError
from optsched.problems.rar_online import (PRESETS, THEOREM_G, OnlineJob, RarOnlineInstance, Utility, generate,
                                         load_gavel_online)
from optsched.problems.rar_online.gadget import GadgetPolicy
from optsched.problems.rar_online.instance import evaluate
from optsched.problems.rar_online.milp import build_model, column_count
from tests.conftest import require_data


def hand_instance(**changes) -> RarOnlineInstance:
    """One server of 2 GPUs plus one of 1, uplinks of 1e9 bytes/s, 10 s slots.

    Job 0: m = 1e9 bytes, compute 1 s, r = 1e9. One worker: tau = 1 s -> 10 it/slot. Two workers
    inside a server (b_in = 1e10, red = 1e10): 0.1 + 0.05 + 1 = 1.15 s -> 8 it/slot x 2 = 16.
    Two workers spread (B = r = 1e9): 1.0 + 0.05 + 1 = 2.05 s -> 4 it/slot x 2 = 8.
    """
    job = OnlineJob(arrival=0, iterations=30, max_workers=2, model_bytes=1e9, compute_s=1.0,
                    reserved_bandwidth=1e9, utility=Utility(kind="step", value=5.0, deadline=2))
    late = OnlineJob(arrival=1, iterations=10, max_workers=1, model_bytes=1e9, compute_s=1.0,
                     reserved_bandwidth=1e9, utility=Utility(kind="linear", value=3.0, slope=1.0))
    base = dict(servers=(2, 1), uplinks=(1e9, 1e9), jobs=(job, late), slot_s=10.0, horizon=4,
                intra_bandwidth=1e10, reduction_speed=1e10)
    return RarOnlineInstance(**(base | changes))


def test_progress_table_by_hand():
    inst = hand_instance()
    assert inst.progress_table[0][0].tolist() == [0, 10, 16]
    assert inst.progress_table[0][1].tolist() == [0, 0, 8]


def test_checker_by_hand():
    inst = hand_instance()
    # job 0: 16 + 16 >= 30 inside server 0 -> completes at the end of slot 1 (C = 2 <= deadline 2): 5
    # job 1: 10 it in slot 2 on server 1 -> C = 3, delay 2: 3 - 2 = 1
    sol = {"allocations": [[0, 0, [[0, 2]]], [0, 1, [[0, 2]]], [1, 2, [[1, 1]]]]}
    report = optsched.check(inst, sol)
    assert report.feasible and report.details["completion"] == [2, 3]
    assert report.objective == pytest.approx(6.0)  # 5 + 1, exact floats
    # spread at 8 it/slot: 8 * 3 = 24 < 30 -> unfinished: earns 0
    spread = {"allocations": [[0, t, [[0, 1], [1, 1]]] for t in range(3)]}
    assert optsched.check(inst, spread).details["completion"] == [None, None]
    assert optsched.check(inst, spread).objective == 0.0
    energy = dataclasses.replace(inst, objective="energy", energy_price=0.5)
    assert optsched.check(energy, sol).objective == pytest.approx(6.0 - 0.5 * 5)  # 5 GPU-slots
    fair = dataclasses.replace(inst, objective="fairness", fairness_u0=1.0)
    assert optsched.check(fair, sol).objective == pytest.approx(math.log(6.0) + math.log(2.0))


def test_checker_violations():
    inst = hand_instance()
    bad = [
        [[0, 0, [[0, 2]]], [1, 0, [[0, 1]]]],          # job 1 before its arrival, server 0 over capacity
        [[0, 0, [[1, 2]]]],                             # server 1 has one GPU
        [[1, 1, [[0, 1]]], [0, 1, [[0, 1], [1, 1]]], [0, 1, [[0, 2]]]],  # two allocations of (0, 1)
        [[0, 0, [[0, 1], [1, 1]]], [1, 1, [[0, 1]]], [0, 5, [[0, 1]]]],  # slot out of range
    ]
    for allocations in bad:
        assert not optsched.check(inst, {"allocations": allocations}).feasible, allocations
    tight = hand_instance(uplinks=(1e9, 0.5e9))
    assert not optsched.check(tight, {"allocations": [[0, 0, [[0, 1], [1, 1]]]]}).feasible


@pytest.mark.parametrize("change,field", [
    (dict(jobs=(dataclasses.replace(hand_instance().jobs[0], max_workers=4),)), "jobs[0].max_workers"),
    (dict(jobs=(dataclasses.replace(hand_instance().jobs[0], model_bytes=-1.0),)), "jobs[0].model_bytes"),
    (dict(slot_s=1.5), "jobs[0]"),  # tau = 2.05 s spread > 1.5 s
    (dict(jobs=(dataclasses.replace(hand_instance().jobs[0],
                                    utility=Utility(kind="linear", value=1.0, slope=-0.5)),)), "jobs[0].utility.slope"),
    (dict(jobs=(dataclasses.replace(hand_instance().jobs[0],
                                    utility=Utility(kind="sigmoid", value=1.0, steepness=-1.0)),)),
     "jobs[0].utility.steepness"),
])
def test_invalid_instances_name_the_field(change, field):
    with pytest.raises(InvalidInstanceError) as exc:
        hand_instance(**change)
    assert exc.value.field == field


def test_cli_exit_2_on_increasing_utility(tmp_path, capsys):
    data = hand_instance().to_json()
    data["jobs"][1]["utility"]["slope"] = -1.0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["solve", "rar-online", str(path), "--method", "gadget"]) == 2
    assert "utility.slope" in capsys.readouterr().err


def brute_force(inst: RarOnlineInstance) -> float:
    """Every per-slot option of every job (idle, w inside a server, w spread over the servers)."""
    S, T = len(inst.servers), inst.horizon
    per_job = []
    for j, job in enumerate(inst.jobs):
        opts = [None]
        for w in range(1, job.max_workers + 1):
            opts += [{s: w} for s in range(S) if inst.servers[s] >= w]
            if w >= 2:
                for split in itertools.product(*(range(0, n + 1) for n in inst.servers)):
                    if sum(split) == w and sum(1 for x in split if x) >= 2:
                        opts.append({s: x for s, x in enumerate(split) if x})
        slots = range(job.arrival, T)
        per_job.append([[[j, t, [[s, w] for s, w in sorted(o.items())]] for t, o in zip(slots, combo) if o]
                        for combo in itertools.product(opts, repeat=len(slots))])
    best = -math.inf
    for choice in itertools.product(*per_job):
        violations, _, _, value = evaluate(inst, [a for plan in choice for a in plan])
        if not violations:
            best = max(best, value)
    return best


@pytest.mark.parametrize("objective", ["utility", "energy", "fairness"])
def test_milp_equals_brute_force(objective):
    inst = hand_instance(horizon=3, objective=objective, energy_price=0.3)
    r = optsched.solve(inst, "milp")
    assert r.status == "optimal"
    assert r.objective == pytest.approx(brute_force(inst), rel=1e-9)  # float sums of the same terms


@pytest.mark.parametrize("seed", range(4))
def test_milp_agrees_with_scipy_and_bounds_every_policy(seed):
    inst = generate(seed, **PRESETS["small"])
    exact = optsched.solve(inst, "milp")
    other = optsched.solve(inst, "milp", backend="scipy")
    lp = optsched.solve(inst, "lp")
    assert exact.status == other.status == "optimal"
    assert exact.objective == pytest.approx(other.objective, rel=1e-6)  # solver tolerances 1e-7
    assert lp.objective >= exact.objective - 1e-6 * max(1.0, abs(exact.objective))
    for m in ("gadget", "fifo", "tiresias-las"):
        r = optsched.solve(inst, m)
        assert r.status == "feasible" and r.objective <= exact.objective + 1e-9


def test_model_size_is_known_before_building():
    for preset in ("tiny", "small", "medium"):
        inst = generate(1, **PRESETS[preset])
        assert column_count(inst) == build_model(inst).num_cols
    trace_sized = generate(0, jobs=200, servers=20, gpus_per_server=8, horizon=300, max_workers=8)
    with pytest.raises(InvalidInstanceError, match="milp needs"):
        optsched.solve(trace_sized, "milp")


@pytest.mark.parametrize("objective", ["energy", "fairness"])
def test_configurations_run(objective):
    inst = generate(2, **PRESETS["small"], objective=objective, energy_price=0.05)
    for m in ("gadget", "fifo", "tiresias-las"):
        r = optsched.solve(inst, m)
        assert r.status == "feasible" and "reported_objective" not in r.stats


def test_fifo_blocks_and_las_preempts():
    # one server of 2 GPUs; a long 2-worker job arrives first, a short 1-worker job next slot
    long = OnlineJob(arrival=0, iterations=100, max_workers=2, model_bytes=0.0, compute_s=1.0,
                     reserved_bandwidth=1.0, utility=Utility(kind="step", value=1.0, deadline=10))
    short = OnlineJob(arrival=1, iterations=10, max_workers=1, model_bytes=0.0, compute_s=1.0,
                      reserved_bandwidth=1.0, utility=Utility(kind="step", value=1.0, deadline=2))
    inst = RarOnlineInstance(servers=(2,), uplinks=(0.0,), jobs=(long, short), slot_s=10.0, horizon=12,
                             intra_bandwidth=1e10, reduction_speed=1e10)
    fifo = optsched.check(inst, optsched.solve(inst, "fifo").solution)
    assert fifo.details["completion"] == [5, 6]  # 20 it/slot: 5 slots, then the short one
    las = optsched.solve(inst, "tiresias-las", options={"threshold": 2.0})
    report = optsched.check(inst, las.solution)
    assert report.details["completion"][1] == 2  # the short job preempts the long one at slot 1
    assert las.objective == 2.0


def test_gadget_options_are_checked():
    inst = generate(0, **PRESETS["tiny"])
    with pytest.raises(InvalidInstanceError, match="buckets"):
        optsched.solve(inst, "gadget", options={"buckets": 0})


def test_trace_importer_on_a_written_trace(tmp_path):
    lines = ["ResNet-50 (batch size 64)\tpython3 x\t-n\t1\t5000\t0.0\t4",
             "LM (batch size 20)\tpython3 y\t-n\t0\t8000\t30000.0\t1"]
    path = tmp_path / "t.trace"
    path.write_text("\n".join(lines) + "\n")
    inst = load_gavel_online(path, servers=2, gpus_per_server=4, extra_slots=5)
    assert [(j.arrival, j.iterations, j.max_workers) for j in inst.jobs] == [(0, 5, 4), (1, 8, 1)]
    assert inst.horizon == 6
    for m in ("gadget", "fifo", "tiresias-las"):
        assert optsched.solve(inst, m).objective > 0


def test_real_trace_imports():
    inst = load_gavel_online(require_data("traces/gavel_philly/7f04ca.trace"), jobs=50)
    assert inst.num_jobs == 50 and inst.servers == (8,) * 20


@pytest.mark.parametrize("problem,edit,field", [
    ("rar-makespan", lambda d: d["jobs"][0].update(gpus=99), "jobs[0].gpus"),
    ("rar-makespan", lambda d: d["jobs"][0].update(model_bytes=-5.0), "jobs[0].model_bytes"),
    ("rar-makespan", lambda d: d.update(slot_s=0.01), "jobs[0]"),
    ("rar-online", lambda d: d["jobs"][0].update(max_workers=99), "jobs[0].max_workers"),
    ("rar-online", lambda d: d["jobs"][0].update(compute_s=-1.0), "jobs[0].compute_s"),
    ("rar-online", lambda d: d.update(slot_s=0.01), "jobs[0]"),
    ("rar-online", lambda d: d["jobs"][0]["utility"].update(kind="linear", slope=-2.0), "jobs[0].utility.slope"),
])
def test_cli_exit_2_names_the_field(tmp_path, capsys, problem, edit, field):
    data = optsched.generate(problem, 0, preset="tiny").to_json()
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["solve", problem, str(path)]) == 2
    err = capsys.readouterr().err
    assert f"'{field}'" in err and "Traceback" not in err


def small_demand_instance(seed, jobs=120, horizon=8):
    """Per-slot demands at most 4% of a capacity (2 workers on 64-GPU servers, r_j <= 4% of an
    uplink): Theorem G's beta < 2 holds. A 4 s slot keeps F_j small enough for exact DPs."""
    return generate(seed, jobs=jobs, servers=2, gpus_per_server=64, horizon=horizon, max_workers=2,
                    reserve_fractions="0.02,0.04", arrival_span=0.6, slot_s=4.0)


@pytest.mark.parametrize("seed", range(3))
def test_theorem_g_against_the_lp_bound(seed):
    inst = small_demand_instance(seed)
    ok, why = THEOREM_G.applies(inst)
    assert ok, why
    alg = optsched.solve(inst, "gadget-exact")
    lp = optsched.solve(inst, "lp")
    assert lp.status == "optimal"
    # OPT <= LP, so ALG >= LP / factor implies Theorem G's ALG >= OPT / factor
    assert alg.objective >= lp.objective / THEOREM_G.value(inst)


@pytest.mark.parametrize("seed", range(3))
def test_theorem_g_against_the_offline_optimum(seed):
    inst = small_demand_instance(seed, jobs=16, horizon=4)
    assert THEOREM_G.applies(inst)[0]
    opt = optsched.solve(inst, "milp")
    alg = optsched.solve(inst, "gadget-exact")
    assert opt.status == "optimal"
    assert THEOREM_G.holds(inst, alg.objective, opt.objective)
    assert alg.objective <= opt.objective + 1e-9


def test_theorem_g_conditions_are_checked():
    assert not THEOREM_G.applies(generate(0, **PRESETS["tiny"]))[0]  # 2 workers on 2-GPU servers: eps = 1
    energy = dataclasses.replace(small_demand_instance(0, jobs=10), objective="energy", energy_price=0.01)
    ok, why = THEOREM_G.applies(energy)
    assert not ok and "utility" in why


def test_exact_embeddings_are_the_cheapest():
    rng = np.random.default_rng(7)
    inst = generate(1, jobs=2, servers=4, gpus_per_server=4, horizon=3, max_workers=6)
    policy = GadgetPolicy(inst, exact=True)
    for _ in range(30):
        free = rng.integers(0, 5, size=4).astype(float)
        link_ok = rng.random(4) < 0.7
        gpu_price, link_price = rng.random(4), rng.random(4)
        j = 0 if inst.jobs[0].max_workers >= inst.jobs[1].max_workers else 1
        wmax, r = inst.jobs[j].max_workers, inst.jobs[j].reserved_bandwidth
        found = policy._exact_embeddings(j, free, link_ok, gpu_price, link_price)
        for split in itertools.product(*(range(int(f) + 1) for f in free)):
            w, used = sum(split), [s for s, x in enumerate(split) if x]
            if not 1 <= w <= wmax:
                continue
            spread = len(used) >= 2
            if spread and not all(link_ok[s] for s in used):
                continue
            cost = sum(x * gpu_price[s] for s, x in enumerate(split)) + (r * sum(link_price[s] for s in used)
                                                                          if spread else 0.0)
            # the same terms summed in another order: a few ulps apart
            assert found[w, spread][0] <= cost * (1 + 1e-12)
