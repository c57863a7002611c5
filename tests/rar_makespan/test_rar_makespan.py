"""rar-makespan: instance rules, the checker's simulation by hand, milp vs brute force, SJF-BCO's
Theorem 5 and lemmas, the MobiHoc generator and the trace importers."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, strategies as st

import optsched
from optsched.cli import main
from optsched.core.errors import InvalidInstanceError, InvalidOptionError, NotApplicable
from optsched.problems.rar_makespan import PRESETS, THEOREM5, RarJob, RarMakespanInstance, generate, simulate
from optsched.problems.rar_makespan.algorithms import estimated_durations, sjf_bco_plan
from optsched.problems.rar_makespan.generate import MOBIHOC_MIX, load_gavel_rar, load_tiresias_rar
from optsched.problems.rar_makespan.model import area_lower_bound, build_model, column_count
from tests.conftest import require_data


def hand_instance(iterations_b=20, xi1=1.0) -> RarMakespanInstance:
    """Two 2-GPU jobs on 2 servers x 2 GPUs; times worked out in the tests below.

    m = 1e8 bytes, chunk 5e7. Inside a server (b_in = 1e9): 0.1 + 0.05 + 1 = 1.15 s -> 8 it/slot.
    Spread alone (b_ex = 1e8): 1.0 + 0.05 + 1 = 2.05 s -> 4 it/slot. Spread, both rings on both
    servers: p = 2, cont = 2, pen = 2, B = 5e7: 2.0 + 0.05 + 1 = 3.05 s -> 3 it/slot.
    """
    jobs = (RarJob(gpus=2, iterations=20, model_bytes=1e8, compute_s=1.0, estimate_slots=3),
            RarJob(gpus=2, iterations=iterations_b, model_bytes=1e8, compute_s=1.0,
                   estimate_slots=-(-iterations_b // 8)))
    return RarMakespanInstance(servers=(2, 2), jobs=jobs, slot_s=10.0, intra_bandwidth=1e9, inter_bandwidth=1e8,
                               reduction_speed=1e9, contention_scale=xi1)


def test_simulation_by_hand():
    inst = hand_instance()
    inside = {"order": [0, 1], "gpus": [[[0, 0], [0, 1]], [[1, 0], [1, 1]]]}
    assert optsched.check(inst, inside).objective == 3  # ceil(20 / 8)
    queued = {"order": [1, 0], "gpus": [[[0, 0], [0, 1]], [[0, 1], [0, 0]]]}
    report = optsched.check(inst, queued)
    assert report.objective == 6 and report.details["start"] == [3, 0]  # job 1 first, then job 0
    both_spread = {"order": [0, 1], "gpus": [[[0, 0], [1, 0]], [[0, 1], [1, 1]]]}
    assert optsched.check(inst, both_spread).objective == 7  # ceil(20 / 3) under contention
    # without contention (xi1 = 0) each spread ring runs at 4 it/slot: ceil(20 / 4) = 5
    assert optsched.check(hand_instance(xi1=0.0), both_spread).objective == 5


def test_contention_ends_when_a_ring_finishes():
    inst = hand_instance(iterations_b=40)
    both_spread = {"order": [0, 1], "gpus": [[[0, 0], [1, 0]], [[0, 1], [1, 1]]]}
    # together 3 it/slot: job 0 done after 7 slots; job 1 then has 40 - 21 = 19 left at 4 it/slot
    report = optsched.check(inst, both_spread)
    assert report.details["completion"] == [7, 12]


def test_checker_rejects_bad_plans():
    inst = hand_instance()
    bad = [
        {"order": [0, 0], "gpus": [[[0, 0], [0, 1]], [[1, 0], [1, 1]]]},
        {"order": [0, 1], "gpus": [[[0, 0]], [[1, 0], [1, 1]]]},
        {"order": [0, 1], "gpus": [[[0, 0], [0, 0]], [[1, 0], [1, 1]]]},
        {"order": [0, 1], "gpus": [[[0, 0], [0, 2]], [[1, 0], [1, 1]]]},
        {"order": [0, 1]},
    ]
    for plan in bad:
        report = optsched.check(inst, plan)
        assert not report.feasible and report.violations, plan


@pytest.mark.parametrize("change,field", [
    (lambda i: dataclasses.replace(i, jobs=(dataclasses.replace(i.jobs[0], gpus=5), i.jobs[1])), "jobs[0].gpus"),
    (lambda i: i.to_json() | {"jobs": [dict(i.jobs[0].to_dict(), model_bytes=-1.0), i.jobs[1].to_dict()]},
     "jobs[0].model_bytes"),
    (lambda i: dataclasses.replace(i, slot_s=2.0), "jobs[0]"),  # tau up to 3.05 s > 2 s
    (lambda i: dataclasses.replace(i, jobs=(dataclasses.replace(i.jobs[0], estimate_slots=9), i.jobs[1])),
     "jobs[0].estimate_slots"),
])
def test_invalid_instances_name_the_field(change, field):
    inst = hand_instance()
    with pytest.raises(InvalidInstanceError) as exc:
        out = change(inst)
        if isinstance(out, dict):
            RarMakespanInstance.from_json(out)
    assert exc.value.field == field


def test_cli_exit_2_on_invalid_instance(tmp_path, capsys):
    data = hand_instance().to_json()
    data["jobs"][0]["gpus"] = 9
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["solve", "rar-makespan", str(path), "--method", "sjf-bco"]) == 2
    assert "jobs[0].gpus" in capsys.readouterr().err


def contention_free(inst: RarMakespanInstance) -> RarMakespanInstance:
    """The same jobs with xi1 = xi2 = 0 (estimates re-derived: rho changes with the overhead)."""
    loose = dataclasses.replace(inst, contention_scale=0.0, server_overhead_s=0.0, estimate_lower=1e-9,
                                estimate_upper=1e9)
    jobs = tuple(dataclasses.replace(job, estimate_slots=float(loose.fastest_slots(j)))
                 for j, job in enumerate(inst.jobs))
    return dataclasses.replace(loose, jobs=jobs, estimate_lower=1.0, estimate_upper=1.0)


@pytest.mark.parametrize("seed", range(6))
def test_milp_equals_brute_without_contention(seed):
    inst = contention_free(generate(seed, **PRESETS["tiny"]))
    brute = optsched.solve(inst, "brute")
    milp = optsched.solve(inst, "milp")
    assert milp.status == "optimal" and brute.status == "optimal"
    assert milp.objective == brute.objective  # integral slots: exact equality
    assert optsched.solve(inst, "milp", backend="scipy").objective == brute.objective


@pytest.mark.parametrize("seed", range(6))
def test_milp_bounds_the_contended_optimum(seed):
    inst = generate(seed, **PRESETS["tiny"])
    assert optsched.solve(inst, "milp").objective <= optsched.solve(inst, "brute").objective


@pytest.mark.parametrize("seed", range(3))
def test_theorem5_on_small_instances_against_the_milp_bound(seed):
    # OPT >= the milp bound, so ALG <= factor * bound implies Theorem 5 (ALG <= factor * OPT);
    # the conformance suite checks it against the exact OPT on tiny instances
    inst = generate(seed, **PRESETS["small"], estimate_error=0.2)
    ok, _ = THEOREM5.applies(inst)
    alg = optsched.solve(inst, "sjf-bco")
    bound = optsched.solve(inst, "milp", time_limit=20)  # a limit keeps a valid dual bound
    assert ok and bound.objective is not None
    assert alg.objective <= THEOREM5.value(inst) * bound.objective
    assert bound.objective <= alg.objective


@pytest.mark.parametrize("seed", range(2))
def test_theorem5_on_the_mobihoc_setup_against_the_area_bound(seed):
    # OPT >= area bound (a proven lower bound), so ALG <= factor * area bound implies Theorem 5
    inst = generate(seed, **PRESETS["mobihoc"], estimate_error=0.2)
    alg = optsched.solve(inst, "sjf-bco").objective
    lower = area_lower_bound(inst)
    assert lower <= alg <= THEOREM5.value(inst) * lower


def test_area_bound_is_below_the_milp_bound():
    for seed in range(3):
        inst = generate(seed, **PRESETS["small"])
        assert area_lower_bound(inst) <= optsched.solve(inst, "milp").objective
        assert column_count(inst) == build_model(inst).num_cols


def test_milp_refuses_the_mobihoc_size():
    with pytest.raises(NotApplicable, match="milp needs"):
        optsched.solve(generate(0, **PRESETS["mobihoc"]), "milp")


@given(seed=st.integers(0, 10_000), error=st.sampled_from([0.0, 0.3]), servers=st.integers(2, 4))
def test_sjf_bco_lemmas(seed, error, servers):
    """[paper] lemmas in rho_hat / u units: the largest busy time is the bisection result theta*
    (to the bisection's 1e-3 relative tolerance), and the plan's makespan with estimated
    durations is at most n_g theta*."""
    inst = generate(seed, jobs=8, servers=servers, gpu_choices="2,4,8", max_job_gpus=8,
                    iterations_low=100, iterations_high=400, estimate_error=error, horizon=50)
    r = optsched.solve(inst, "sjf-bco")
    theta, below = r.stats["theta"], r.stats["theta_infeasible_below"]
    order, picks, busy = sjf_bco_plan(inst, theta, r.stats["kappa"], 1.0)
    assert busy.max() == pytest.approx(theta, rel=1e-12)
    assert below <= theta <= below + 1e-3 * max(1.0, theta) + 1e-9  # the bisection's stopping rule
    est = simulate(inst, r.solution["order"], r.solution["gpus"], durations=estimated_durations(inst))
    assert est.makespan <= inst.max_gpus * theta * (1 + 1e-9)


def test_kappa_and_spread_factor_options():
    inst = generate(3, **PRESETS["small"])
    spans = {k: optsched.solve(inst, "sjf-bco", options={"kappa": k}).objective
             for k in range(1, inst.max_gpus + 1)}
    best = optsched.solve(inst, "sjf-bco").objective
    assert best <= min(spans.values())  # trying every kappa is never worse than one of them
    with pytest.raises(InvalidOptionError, match="spread_factor"):
        optsched.solve(inst, "sjf-bco", options={"spread_factor": 0.5})
    with pytest.raises(InvalidOptionError, match="kappa"):
        optsched.solve(inst, "sjf-bco", options={"kappa": 99})


def test_mobihoc_setup():
    inst = generate(0, **PRESETS["mobihoc"])
    sizes = [job.gpus for job in inst.jobs]
    assert {g: sizes.count(g) for g in set(sizes)} == MOBIHOC_MIX
    assert len(inst.servers) == 20 and set(inst.servers) <= {4, 8, 16, 32}
    assert inst.horizon == 1200
    for j, job in enumerate(inst.jobs):
        assert 1000 <= job.iterations <= 6000
        # calibration: worst contention plus overhead at most 15% over the same spread placement
        if job.gpus >= 2:
            k = min(job.gpus, 20)
            worst = inst.tau(j, k, inst.max_sharing)
            free = contention_free(inst).tau(j, k, 1)
            assert worst <= 1.15 * free * (1 + 1e-12)


def test_generator_is_deterministic():
    assert generate(5, **PRESETS["small"]) == generate(5, **PRESETS["small"])
    assert generate(5, **PRESETS["small"]) != generate(6, **PRESETS["small"])


def test_gavel_importer_on_a_written_trace(tmp_path):
    lines = ["ResNet-50 (batch size 64)\tpython3 x\t-n\t1\t500\t0.0\t4",
             "LM (batch size 20)\tpython3 y\t-n\t0\t800\t10.0\t1",
             "A3C\tpython3 z\t-n\t0\t300\t20.0\t8"]
    path = tmp_path / "t.trace"
    path.write_text("\n".join(lines) + "\n")
    inst = load_gavel_rar(path, jobs=2, servers=2, gpus_per_server=4)
    assert [(j.gpus, j.iterations, j.job_type) for j in inst.jobs] == [(4, 500, "ResNet-50 (batch size 64)"),
                                                                       (1, 800, "LM (batch size 20)")]
    second = load_gavel_rar(path, index=1, jobs=2, servers=2, gpus_per_server=4)
    assert [j.gpus for j in second.jobs] == [8]
    with pytest.raises(InvalidOptionError, match="index"):
        load_gavel_rar(path, index=2, jobs=2)
    assert optsched.solve(inst, "sjf-bco").status == "feasible"


def test_tiresias_importer_on_a_written_csv(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text("job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
                    "0,1,0,606,vgg19,164,30\n1,8,30,133,vgg11,147,23\n")
    inst = load_tiresias_rar(path, servers=2, gpus_per_server=4)
    assert [(j.gpus, j.iterations) for j in inst.jobs] == [(1, 606), (8, 133)]
    assert optsched.solve(inst, "ls").status == "feasible"


def test_real_traces_import():
    inst = load_gavel_rar(require_data("traces/gavel_philly/7f04ca.trace"))
    assert inst.num_jobs == 160
    inst = load_tiresias_rar(require_data("traces/tiresias/60_job.csv"))
    assert inst.num_jobs == 60


@pytest.mark.parametrize("edit,field", [
    (lambda d: d["jobs"][0].update(gpus=99), "jobs[0].gpus"),
    (lambda d: d["jobs"][0].update(model_bytes=-5.0), "jobs[0].model_bytes"),
    (lambda d: d.update(slot_s=0.01), "jobs[0]"),
])
def test_cli_exit_2_names_the_field(tmp_path, capsys, edit, field):
    data = optsched.generate("rar-makespan", 0, preset="tiny").to_json()
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["solve", "rar-makespan", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"'{field}'" in err and "Traceback" not in err


def test_area_bound_uses_each_jobs_shorter_run_and_stays_below_opt():
    """Three 2-GPU jobs on two 2-GPU servers, no contention; the slow inter-server bandwidth makes a
    spread run 10 slots against 6 inside a server. OPT (brute force) runs two jobs side by side
    inside the servers, then the third: 12 slots. The area bound with each job's shorter run is
    max(6, ceil(3 x 2 x 6 / 4)) = 9 <= 12; with the longer (spread) run it would be
    ceil(3 x 2 x 10 / 4) = 15 > OPT, no bound at all."""
    from optsched.problems.rar_makespan.instance import RarJob
    from optsched.problems.rar_makespan.model import contention_free_durations

    jobs = tuple(RarJob(gpus=2, iterations=30, model_bytes=1e9, compute_s=10.0, estimate_slots=6.0) for _ in range(3))
    inst = RarMakespanInstance(servers=(2, 2), jobs=jobs, slot_s=60.0, intra_bandwidth=1e11, inter_bandwidth=2e8,
                               reduction_speed=5e10)
    assert contention_free_durations(inst) == ([6, 6, 6], [10, 10, 10])
    opt = optsched.solve(inst, "brute")
    assert opt.status == "optimal" and opt.objective == 12
    assert area_lower_bound(inst) == 9
