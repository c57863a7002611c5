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
from optsched.core.errors import InvalidInstanceError, InvalidOptionError, NotApplicable
from optsched.problems.rar_online import (PRESETS, THEOREM_G, OnlineJob, RarOnlineInstance, Utility, generate,
                                         load_gavel_online)
from optsched.problems.rar_online.gadget import GadgetPolicy
from optsched.problems.rar_online.instance import evaluate
from optsched.problems.rar_online.model import build_model, column_count
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
    with pytest.raises(NotApplicable, match="milp needs"):
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
    with pytest.raises(InvalidOptionError, match="buckets"):
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


@pytest.mark.parametrize("edit,field", [
    (lambda d: d["jobs"][0].update(max_workers=99), "jobs[0].max_workers"),
    (lambda d: d["jobs"][0].update(compute_s=-1.0), "jobs[0].compute_s"),
    (lambda d: d.update(slot_s=0.01), "jobs[0]"),
    (lambda d: d["jobs"][0]["utility"].update(kind="linear", slope=-2.0), "jobs[0].utility.slope"),
])
def test_cli_exit_2_names_the_field(tmp_path, capsys, edit, field):
    data = optsched.generate("rar-online", 0, preset="tiny").to_json()
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["solve", "rar-online", str(path)]) == 2
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


# -- graph network (links) ----------------------------------------------------------------------
LINE = (("s0", "s1", 1e9), ("s1", "s2", 1e9))


def line_instance(**changes) -> RarOnlineInstance:
    """Three 1-GPU servers on a line s0 - s1 - s2 (links of 1e9 bytes/s), 10 s slots.

    m = 1e8 bytes, compute 1 s, r_j = 0.6e9. Two workers spread: tau = (1e8 / 2) * 2 / 0.6e9
    + (1e8 / 2) / 1e10 + 1 = 1.1717 s -> 8 it/slot x 2 = 16 worker-iterations per slot; one worker:
    tau = 1 s -> 10 per slot (two inside a server would give 18, but no server holds two GPUs).
    """
    job = OnlineJob(arrival=0, iterations=16, max_workers=2, model_bytes=1e8, compute_s=1.0,
                    reserved_bandwidth=0.6e9, utility=Utility(kind="step", value=4.0, deadline=1))
    other = OnlineJob(arrival=0, iterations=16, max_workers=2, model_bytes=1e8, compute_s=1.0,
                      reserved_bandwidth=0.6e9, utility=Utility(kind="linear", value=3.0, slope=1.0))
    base = dict(servers=(1, 1, 1), uplinks=(), links=LINE, jobs=(job, other), slot_s=10.0, horizon=2,
                intra_bandwidth=1e10, reduction_speed=1e10)
    return RarOnlineInstance(**(base | changes))


def test_graph_routes_and_footprints_by_hand():
    inst = line_instance()
    assert inst.progress_table[0][1].tolist() == [0, 0, 16] and inst.progress_table[0][0].tolist() == [0, 10, 18]
    # fixed routes: s0-s2 crosses both links; a ring over {s0, s2} (s0 -> s2 -> s0) crosses each link
    # once per direction, so it reserves r_j once on each (capacities are per direction)
    assert inst.route(0, 2) == (0, 1) and inst.route(0, 1) == (0,) and inst.route(2, 1) == (1,)
    assert inst.footprint([0, 2]) == (0, 1) and inst.footprint([1, 2]) == (1,) and inst.footprint([2]) == ()
    assert inst.footprint([0, 1, 2]) == (0, 1)


def test_graph_checker_per_link_load_by_hand():
    inst = line_instance()
    # slot 0: job 0 over {s0, s2} reserves 0.6e9 on s0-s1 and on s1-s2 (16 it: C = 1, earns 4); job 1
    # alone on s1 reserves nothing (10 + 10 >= 16 over slots 0-1: C = 2, earns 3 - 2 = 1)
    ok = {"allocations": [[0, 0, [[0, 1], [2, 1]]], [1, 0, [[1, 1]]], [1, 1, [[1, 1]]]]}
    report = optsched.check(inst, ok)
    assert report.feasible, report.violations
    assert report.details["completion"] == [1, 2]
    assert report.objective == pytest.approx(4.0 + 1.0)
    # job 0 over {s0, s2} and job 1 over {s0, s1} in slot 1: s0-s1 carries 0.6e9 + 0.6e9 = 1.2e9 > 1e9,
    # s1-s2 only 0.6e9 (server 0 is also over capacity: two GPUs on a 1-GPU server)
    bad = {"allocations": [[0, 1, [[0, 1], [2, 1]]], [1, 1, [[1, 1], [0, 1]]]]}
    violations, *_ = evaluate(inst, bad["allocations"])
    assert any("link s0-s1 slot 1" in v and "1.2e+09" in v for v in violations), violations
    assert not any("s1-s2" in v for v in violations)
    # with s0-s1 at 1.2e9 both fit (GPU violation aside: s0 is used twice)
    wide = line_instance(links=(("s0", "s1", 1.2e9), ("s1", "s2", 1e9)))
    violations, *_ = evaluate(wide, bad["allocations"])
    assert not any("link" in v for v in violations) and any("server 0 slot 1" in v for v in violations)
    # a switch between servers: routes pass through it
    star = line_instance(links=(("s0", "sw", 1e9), ("s1", "sw", 1e9), ("s2", "sw", 0.5e9)))
    assert star.footprint([0, 2]) == (0, 2)
    assert not optsched.check(star, {"allocations": [[0, 0, [[0, 1], [2, 1]]]]}).feasible  # 0.6e9 > 0.5e9
    assert optsched.check(star, {"allocations": [[0, 0, [[0, 1], [1, 1]]]]}).feasible


LINE4 = (("s0", "s1", 1e9), ("s1", "s2", 1e9), ("s2", "s3", 1e9))


@pytest.mark.parametrize("changes,expected", [
    ({}, 5.0),                                                                     # job 0 spread in slot 0
    (dict(links=(("s0", "s1", 0.5e9), ("s1", "s2", 0.5e9))), 1.0),                # no spread possible
    (dict(servers=(1, 1, 1, 1), links=LINE4, horizon=1), 6.0),                     # {s0,s1} and {s2,s3}
    (dict(servers=(1, 1, 1, 1), links=(("s0", "s1", 0.5e9), *LINE4[1:]), horizon=1), 4.0),  # one spread
])
def test_graph_milp_equals_brute_force(changes, expected):
    inst = line_instance(**changes)
    r = optsched.solve(inst, "milp")
    assert r.status == "optimal"
    assert optsched.check(inst, r.solution).feasible
    assert brute_force(inst) == pytest.approx(expected)
    assert r.objective == pytest.approx(expected, rel=1e-9)
    assert column_count(inst) == build_model(inst).num_cols
    assert optsched.solve(inst, "lp").objective >= expected - 1e-9
    for m in ("gadget", "gadget-exact", "fifo", "tiresias-las"):
        alg = optsched.solve(inst, m)
        assert optsched.check(inst, alg.solution).feasible and alg.objective <= r.objective + 1e-9


@pytest.mark.parametrize("links,field", [
    ((("s0", "s1", 1e9), ("s2", "sw", 1e9)), "links"),                      # disconnected
    ((("s0", "s1", 1e9), ("s1", "s2", -1.0)), "links[1]"),                  # negative capacity
    ((("s0", "s1", 1e9), ("s1", "s2", 0.0)), "links[1]"),                   # zero capacity
    ((("s0", "s1", 1e9), ("s1", "s5", 1e9)), "links[1]"),                   # unknown server
    ((("s0", "s1", 1e9),), "links"),                                         # s2 missing
    ((("s0", "s0", 1e9), ("s1", "s2", 1e9), ("s0", "s1", 1e9)), "links[0]"),  # self-loop
    ((("s0", "s1", 1e9), ("s1", "s0", 1e9), ("s1", "s2", 1e9)), "links[1]"),  # duplicate
])
def test_invalid_graphs_name_the_field(links, field):
    with pytest.raises(InvalidInstanceError) as exc:
        line_instance(links=links)
    assert exc.value.field == field


def test_graph_needs_empty_uplinks_and_json_round_trips(tmp_path, capsys):
    with pytest.raises(InvalidInstanceError) as exc:
        line_instance(uplinks=(1e9, 1e9, 1e9))
    assert exc.value.field == "uplinks"
    inst = line_instance()
    again = RarOnlineInstance.from_json(json.loads(inst.dumps()))
    assert again == inst and again.links == LINE
    assert "links" not in hand_instance().to_json()  # flat JSON (and its SHA-256) unchanged
    data = inst.to_json()
    data["links"][0][2] = -5.0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["solve", "rar-online", str(path)]) == 2
    assert "'links[0]'" in capsys.readouterr().err


@pytest.mark.parametrize("preset,seeds", [("tiny-tree", range(4)), ("small-tree", range(2))])
def test_tree_generator_methods_respect_links(preset, seeds):
    for seed in seeds:
        inst = optsched.generate("rar-online", seed, preset=preset)
        assert inst.is_graph and inst.uplinks == () and any(u == "core" or v == "core" for u, v, _ in inst.links)
        flat = generate(seed, **{k: v for k, v in PRESETS[preset].items() if k not in ("network", "racks")})
        assert flat.jobs == inst.jobs  # the same job draws as the flat network
        exact = optsched.solve(inst, "milp")
        lp = optsched.solve(inst, "lp")
        assert exact.status == "optimal" and lp.objective >= exact.objective - 1e-6 * max(1.0, abs(exact.objective))
        other = optsched.solve(inst, "milp", backend="scipy")
        assert other.status == "optimal" and other.objective == pytest.approx(exact.objective, rel=1e-6, abs=1e-9)
        for m in ("gadget", "gadget-exact", "fifo", "tiresias-las"):
            r = optsched.solve(inst, m)
            assert optsched.check(inst, r.solution).feasible and r.objective <= exact.objective + 1e-9
        ok, why = THEOREM_G.applies(inst)
        assert not ok and "graph" in why


def test_graph_exact_embeddings_are_the_cheapest():
    rng = np.random.default_rng(3)
    inst = optsched.generate("rar-online", 1, preset="small-tree")
    S, L = len(inst.servers), len(inst.link_capacity)
    policy = GadgetPolicy(inst, exact=True)
    j = max(range(inst.num_jobs), key=lambda j: inst.jobs[j].max_workers)
    wmax, r = inst.jobs[j].max_workers, inst.jobs[j].reserved_bandwidth
    for _ in range(20):
        free = rng.integers(0, 4, size=S).astype(float)
        link_ok = rng.random(L) < 0.8
        gpu_price, link_price = rng.random(S), rng.random(L)
        found = policy._graph_embeddings(j, free, link_ok, gpu_price, link_price)
        for split in itertools.product(*(range(int(f) + 1) for f in free)):
            w, used = sum(split), [s for s, x in enumerate(split) if x]
            if not 1 <= w <= wmax or not all(link_ok[k] for k in inst.footprint(used)):
                continue
            spread = len(used) >= 2
            cost = sum(x * gpu_price[s] for s, x in enumerate(split)) + r * sum(link_price[k]
                                                                                for k in inst.footprint(used))
            assert found[w, spread][0] <= cost * (1 + 1e-12)
