"""srpt: instance rules, checker, hand-computed schedules, lower bound, placement, predictor, traces."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import optsched
from optsched.cli import main
from optsched.problems.srpt import SrptInstance, SrptJob, check, generate, load_gavel_stream
from optsched.problems.srpt.algorithms import iteration_time_floor, srpt_total_flow
from optsched.problems.srpt.graphs import make_job_edges
from optsched.core.backends import get_backend
from optsched.problems.srpt.placement import place_greedy_kl, place_milp
from optsched.problems.srpt.predictor import IterationPredictor, prediction_errors
from tests.conftest import require_data

METHODS = ("a-srpt", "fifo", "sjf-oracle", "tiresias-las")


def job(jid, arrival, gpus, iterations, predicted=None, graph="ring", edge_bytes=0.0, compute=1.0):
    plan = {"ring": "data", "chain": "pipeline", "grid": "tensor"}[graph]
    return SrptJob(id=jid, arrival=arrival, gpus=gpus, plan=plan, graph=graph,
                   edges=make_job_edges(graph, gpus, edge_bytes), compute_s=compute, iterations=iterations,
                   predicted_iterations=predicted or iterations)


def cluster(jobs, servers=(2,), overhead=0.5, intra=1e9, inter=1e8):
    return SrptInstance(gpus_per_server=servers, intra_bandwidth=intra, inter_bandwidth=inter,
                        restart_overhead=overhead, jobs=jobs)


# -- invalid input ------------------------------------------------------------------------------
def test_empty_stream_and_oversized_job_are_rejected():
    with pytest.raises(optsched.InvalidInstanceError) as info:
        cluster([])
    assert info.value.field == "jobs"
    with pytest.raises(optsched.InvalidInstanceError) as info:
        cluster([job(0, 0.0, 3, 5)])
    assert info.value.field == "jobs[0].gpus" and "larger than the cluster" in str(info.value)
    with pytest.raises(optsched.InvalidInstanceError) as info:
        SrptJob(id=0, arrival=0, gpus=2, plan="data", graph="ring", edges=[(0, 2, 1.0)], compute_s=1,
                iterations=1, predicted_iterations=1)
    assert info.value.field == "edges[0]"
    with pytest.raises(optsched.InvalidInstanceError) as info:
        cluster([job(0, 0.0, 1, 5)], intra=1e8, inter=1e9)
    assert info.value.field == "inter_bandwidth"


@pytest.mark.parametrize("change", ["empty", "oversized"])
def test_cli_exit_2_on_invalid_stream(tmp_path, capsys, change):
    data = cluster([job(0, 0.0, 2, 5)]).to_json()
    if change == "empty":
        data["jobs"] = []
    else:
        data["jobs"][0]["gpus"] = 4
        data["jobs"][0]["edges"] = []
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["solve", "srpt", str(path), "--method", "a-srpt"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "srpt: field 'jobs" in err[0]


def test_cli_generate_solve_check(tmp_path, capsys):
    inst, res = tmp_path / "i.json", tmp_path / "r.json"
    assert main(["generate", "srpt", "--seed", "2", "--preset", "tiny", "-o", str(inst)]) == 0
    assert main(["solve", "srpt", str(inst), "--method", "a-srpt", "-o", str(res)]) == 0
    assert main(["check", "srpt", str(inst), str(res)]) == 0
    with pytest.raises(optsched.InvalidOptionError, match="placement"):
        optsched.solve(optsched.load_instance("srpt", inst), "fifo", options={"placement": "nowhere"})


# -- hand-computed schedules ----------------------------------------------------------------------
def two_jobs():
    # one server of 2 GPUs; tau = compute = 1 s (no edges); overhead 0.5 s
    return cluster([job(0, 0.0, 2, 10), job(1, 1.0, 2, 2)])


def test_a_srpt_preempts_for_the_short_job():
    # virtual sizes 10 and 2; at t = 1 job 0 has 9 left (minus the restart credit 2 * 0.5 / 2 = 0.5),
    # job 1 has 2: job 1 runs 1..3, job 0 restarts at 3, pays 0.5, does its 9 left: ends at 12.5
    r = optsched.solve(two_jobs(), "a-srpt")
    assert r.objective == pytest.approx(12.5 + 2.0, rel=1e-12)  # exact binary fractions
    segs = {j["id"]: [(s["start"], s["end"]) for s in j["segments"]] for j in r.solution["jobs"]}
    assert segs == {0: [(0.0, 1.0), (3.0, 12.5)], 1: [(1.0, 3.0)]}


@pytest.mark.parametrize("method", ["fifo", "sjf-oracle"])
def test_non_preemptive_baselines_run_in_order(method):
    assert optsched.solve(two_jobs(), method).objective == pytest.approx(10.0 + 11.0, rel=1e-12)


def test_lower_bound_by_hand():
    # virtual machine (G = 2): sizes 10 and 2 -> SRPT flows 12 and 2; isolated 10 + 2
    r = optsched.solve(two_jobs(), "lb")
    assert r.objective == pytest.approx(14.0, rel=1e-12)
    assert r.stats == {"virtual_srpt": 14.0, "sum_isolated": 12.0}


# -- checker --------------------------------------------------------------------------------------
def test_checker_flags_each_violation():
    inst = two_jobs()
    good = {"jobs": [{"id": 0, "segments": [{"start": 0.0, "end": 10.0, "servers": [0, 0]}]},
                     {"id": 1, "segments": [{"start": 10.0, "end": 12.0, "servers": [0, 0]}]}]}
    report = check(inst, good)
    assert report.feasible and report.objective == 21.0
    overlap = json.loads(json.dumps(good))
    overlap["jobs"][1]["segments"][0].update(start=9.0, end=11.0)
    assert any("GPUs in use" in v for v in check(inst, overlap).violations)
    short = json.loads(json.dumps(good))
    short["jobs"][0]["segments"][0]["end"] = 9.0
    assert any("needs 10" in v for v in check(inst, short).violations)
    # a restart pays the overhead: 5 + (5.5 - 0.5) = 10 iterations is enough, 5 + 5 is not
    split = json.loads(json.dumps(good))
    split["jobs"][0]["segments"] = [{"start": 0.0, "end": 5.0, "servers": [0, 0]},
                                    {"start": 12.0, "end": 17.5, "servers": [0, 0]}]
    assert check(inst, split).feasible
    split["jobs"][0]["segments"][1]["end"] = 17.0
    assert not check(inst, split).feasible
    gang = json.loads(json.dumps(good))
    gang["jobs"][1]["segments"][0]["servers"] = [0]
    assert any("gang" in v for v in check(inst, gang).violations)
    early = json.loads(json.dumps(good))
    early["jobs"][1]["segments"][0].update(start=0.5, end=2.5)
    assert not check(inst, early).feasible
    missing = {"jobs": good["jobs"][:1]}
    assert any("missing" in v for v in check(inst, missing).violations)


def test_checker_uses_the_placement_cut():
    # 2 GPUs on two servers: the ring edge (2 * 1e8 bytes) is cut -> tau = 1 + 2 = 3 s per iteration
    inst = cluster([job(0, 0.0, 2, 2, edge_bytes=1e8)], servers=(1, 1))
    apart = {"jobs": [{"id": 0, "segments": [{"start": 0.0, "end": 6.0, "servers": [0, 1]}]}]}
    assert check(inst, apart).feasible
    apart["jobs"][0]["segments"][0]["end"] = 5.9
    assert not check(inst, apart).feasible
    assert optsched.solve(inst, "a-srpt").objective == pytest.approx(6.0, rel=1e-12)


# -- methods on generated streams -----------------------------------------------------------------
@settings(max_examples=8)
@given(st.integers(0, 10 ** 6), st.sampled_from(["mixed", "data", "pipeline", "tensor"]))
def test_lower_bound_below_every_method(seed, plans):
    inst = generate(seed, jobs=12, servers=3, gpus_per_server=4, recurrences=4, history_runs=5, plans=plans,
                    load=1.2)
    lb = optsched.solve(inst, "lb").objective
    for method in METHODS:
        r = optsched.solve(inst, method)
        assert r.status == "feasible", r.reason
        assert lb <= r.objective * (1 + 1e-9)  # float sums of <= 12 flow times
        # the fragmentation guard: never more servers than the job needs on the empty cluster
        for entry in r.solution["jobs"]:
            g = len(entry["segments"][0]["servers"])
            for seg in entry["segments"]:
                assert len(set(seg["servers"])) == math.ceil(g / 4)


def test_exact_placement_option_runs():
    inst = generate(3, jobs=12, servers=3, gpus_per_server=4, recurrences=4, history_runs=5, load=1.2)
    exact = optsched.solve(inst, "a-srpt", options={"placement": "milp"})
    # every segment (a start or a restart) was placed by the MILP, none by another rule
    segments = sum(len(j["segments"]) for j in exact.solution["jobs"])
    assert exact.status == "feasible" and exact.stats["placement_calls"] == {"milp": segments}
    # job 0 arrives alone at t = 0 and is placed on the empty cluster by both rules
    heuristic = optsched.solve(inst, "a-srpt")
    job = inst.jobs[0]
    cut = [job.cut_bytes(r.solution["jobs"][0]["segments"][0]["servers"]) for r in (exact, heuristic)]
    assert inst.jobs[1].arrival > 0 and cut[0] <= cut[1]


def test_random_placement_is_deterministic_per_seed():
    inst = generate(4, jobs=10, servers=3, gpus_per_server=4, recurrences=3, history_runs=5, plans="data")
    a = optsched.solve(inst, "fifo", seed=1, options={"placement": "random"})
    b = optsched.solve(inst, "fifo", seed=1, options={"placement": "random"})
    assert a.solution == b.solution and a.status == "feasible"


def test_srpt_total_flow_matches_spt_when_all_arrive_together():
    sizes = [3.0, 1.0, 2.0, 5.0]
    # SPT order 1, 2, 3, 5: completions 1, 3, 6, 11
    assert srpt_total_flow([0.0] * 4, sizes) == 21.0


def test_iteration_time_floor_below_every_placement():
    """Brute force over every node -> server map on a tiny cluster (3 servers of 2 GPUs)."""
    for graph in ("ring", "chain", "grid"):
        spec = job(0, 0.0, 4, 1, graph=graph, edge_bytes=1e8)
        inst = cluster([spec], servers=(2, 2, 2))
        floor = iteration_time_floor(inst, spec)
        times = [inst.iteration_time(spec, servers) for servers in itertools.product(range(3), repeat=4)
                 if max(np.bincount(servers, minlength=3)) <= 2]
        assert floor <= min(times) * (1 + 1e-12)
        assert floor == pytest.approx(min(times), rel=1e-12)  # tight here: min cut is attainable


# -- placement ------------------------------------------------------------------------------------
@pytest.mark.parametrize("graph,gpus,free", [("ring", 5, [2, 2, 3]), ("chain", 6, [2, 3, 2]), ("grid", 6, [3, 2, 2]),
                                             ("grid", 4, [1, 2, 2])])
def test_placement_milp_matches_brute_force(graph, gpus, free):
    spec = job(0, 0.0, gpus, 1, graph=graph, edge_bytes=1.0)
    best = min(spec.cut_bytes(s) for s in itertools.product(range(len(free)), repeat=gpus)
               if all(np.bincount(s, minlength=len(free)) <= free))
    servers, status, bound = place_milp(spec, free, get_backend("highs").solve)
    assert status == "optimal" and spec.cut_bytes(servers) == best
    assert all(np.bincount(servers, minlength=len(free)) <= free)
    heuristic = place_greedy_kl(spec, free)
    assert all(np.bincount(heuristic, minlength=len(free)) <= free)
    assert spec.cut_bytes(heuristic) >= best


# -- predictor ------------------------------------------------------------------------------------
def test_forest_beats_a_global_median_on_held_out_recurring_jobs():
    rng = np.random.default_rng(0)
    kinds = [{"model": f"m{k % 3}", "batch_size": 8 * (k % 4 + 1), "gpus": 2 ** (k % 3), "plan": "data",
              "recurrence": f"r{k}", "base": float(np.exp(rng.uniform(5, 9)))} for k in range(12)]

    def runs(count):
        return [{**k, "iterations": int(k["base"] * np.exp(0.2 * rng.standard_normal()))} for k in kinds
                for _ in range(count)]
    history, held_out = runs(8), runs(2)
    forest = IterationPredictor(seed=0).fit(history)
    truth = [r["iterations"] for r in held_out]
    ours = prediction_errors(truth, forest.predict(held_out))
    naive = prediction_errors(truth, [np.median([r["iterations"] for r in history])] * len(truth))
    assert ours["n"] == 24 and ours["mape"] < 0.5 * naive["mape"]


def test_generator_is_deterministic_and_records_prediction_error():
    a = generate(3, jobs=8, servers=2, gpus_per_server=4, recurrences=3, history_runs=5)
    assert a == generate(3, jobs=8, servers=2, gpus_per_server=4, recurrences=3, history_runs=5)
    assert "MAPE" in a.provenance
    oracle = generate(3, jobs=8, servers=2, gpus_per_server=4, recurrences=3, history_runs=5, predictor="oracle")
    assert all(j.predicted_iterations == j.iterations for j in oracle.jobs)
    with pytest.raises(optsched.InvalidOptionError):
        generate(0, jobs=0)
    assert generate(2 ** 62, jobs=3, servers=1, gpus_per_server=4, recurrences=2, history_runs=4).num_jobs == 3


# -- traces ---------------------------------------------------------------------------------------
TRACE = ("ResNet-50 (batch size 64)\tpython3 train.py\t-n\t1\t{steps}\t{arrival}\t{gpus}\n")


def test_gavel_stream_from_a_small_file(tmp_path):
    path = tmp_path / "mini.trace"
    lines = [TRACE.format(steps=1000 + 10 * k, arrival=60.0 * k, gpus=[1, 4, 8][k % 3]) for k in range(12)]
    path.write_text("".join(lines))
    inst = load_gavel_stream(path, servers=2, gpus_per_server=8)
    assert inst.num_jobs == 6 and inst.jobs[0].arrival == 0.0 and inst.jobs[1].arrival == 60.0
    assert [j.iterations for j in inst.jobs] == [1060 + 10 * k for k in range(6)]
    assert all(j.graph == "ring" for j in inst.jobs)
    assert optsched.solve(inst, "a-srpt").status == "feasible"
    big = tmp_path / "big.trace"
    big.write_text("".join(lines[:6]) + TRACE.format(steps=10, arrival=999.0, gpus=32))
    with pytest.raises(optsched.InvalidInstanceError) as info:
        load_gavel_stream(big, servers=2, gpus_per_server=8)
    assert "larger than the cluster" in str(info.value)


def test_cli_imports_a_gavel_stream(tmp_path):
    path, out = tmp_path / "mini.trace", tmp_path / "stream.json"
    path.write_text("".join(TRACE.format(steps=500, arrival=10.0 * k, gpus=2) for k in range(8)))
    assert main(["import", "gavel-srpt", str(path), "-o", str(out)]) == 0
    inst = optsched.load_instance("srpt", out)
    assert inst.num_jobs == 4 and inst.total_gpus == 128  # default cluster: 16 servers x 8 GPUs


def test_gavel_stream_from_the_real_trace():
    path = require_data("traces/gavel_philly/7f04ca.trace")
    inst = load_gavel_stream(path, max_jobs=60)
    assert inst.num_jobs == 60 and "sha256" in inst.provenance
    lb = optsched.solve(inst, "lb").objective
    assert optsched.solve(inst, "a-srpt").objective >= lb
