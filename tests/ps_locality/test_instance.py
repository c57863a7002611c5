"""ps-locality: instance validation, JSON round trip, checker, hand-solved optima, CLI."""

from __future__ import annotations

import json

import pytest

import optsched
from optsched.cli import main
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.problems.ps_locality import PsLocalityInstance, check, offered_load
from optsched.problems.ps_locality.instance import solution_arrays, solution_from_arrays

from .helpers import instance, job, two_jobs_one_gpu


# -- validation ---------------------------------------------------------------------------------
def _data():
    return json.loads(two_jobs_one_gpu().dumps())


@pytest.mark.parametrize("path,value,field", [
    (("jobs", 0, "workload"), -2.0, "jobs[0].workload"),
    (("jobs", 0, "workload"), 0.0, "jobs[0].workload"),
    (("bandwidth_ex",), 0.0, "bandwidth_ex"),
    (("bandwidth_in",), 0.0, "bandwidth_in"),
    (("jobs", 1, "worker_demand"), [2.0], "jobs[1].worker_demand"),       # no machine has 2 GPUs
    (("jobs", 1, "ps_demand"), [5.0], "jobs[1].ps_demand"),
    (("jobs", 0, "arrival"), 5, "jobs[0].arrival"),                        # horizon is 5 slots
    (("jobs", 0, "max_workers"), 0, "jobs[0].max_workers"),
    (("jobs", 0, "ps_fan"), 0, "jobs[0].ps_fan"),
    (("jobs", 0, "compute_slots"), -0.1, "jobs[0].compute_slots"),
    (("jobs", 0, "worker_demand"), [1.0, 1.0], "jobs[0].worker_demand"),
    (("machines", 0, "capacity"), [-1.0], "machines[0].capacity"),
    (("horizon_slots",), 0, "horizon_slots"),
])
def test_invalid_fields_are_named(path, value, field):
    data = _data()
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(InvalidInstanceError) as exc:
        PsLocalityInstance.from_json(data)
    assert exc.value.field.startswith(field), exc.value


def test_local_bandwidth_not_below_remote():
    with pytest.raises(InvalidInstanceError, match="bandwidth_in"):
        instance([job("a", 1.0)], b_in=10.0, b_ex=100.0)


def test_round_trip_and_derived_rates():
    inst = instance([job("a", 3.0, compute_slots=0.1, gradient_mb=5.0)], b_in=100.0, b_ex=10.0)
    again = PsLocalityInstance.from_json(json.loads(inst.dumps()))
    assert again == inst and again.sha256() == inst.sha256()
    # e = tau + 2 g / b: 0.1 + 10 / 100 and 0.1 + 10 / 10
    assert inst.e_in[0] == pytest.approx(0.2) and inst.e_ex[0] == pytest.approx(1.1)


# -- checker ------------------------------------------------------------------------------------
def test_checker_objective_from_cumulative_progress():
    inst = two_jobs_one_gpu()
    sol = {"allocations": [[0, 0, 0, 1, 1, 0, 0], [1, 0, 1, 1, 1, 0, 0], [1, 0, 2, 1, 1, 0, 0],
                           [1, 0, 3, 1, 1, 0, 0]]}
    rep = check(inst, sol)
    assert rep.feasible, rep.violations
    assert rep.details["completion"] == [0, 3]
    assert rep.objective == 5.0          # (0 - 0 + 1) + (3 - 0 + 1)


def test_solution_arrays_round_trip():
    inst = two_jobs_one_gpu()
    rows = [[0, 0, 0, 1, 1, 0, 0], [1, 0, 1, 1, 1, 0, 0], [1, 0, 3, 0, 0, 1, 1]]
    x, p, y, q = solution_arrays(inst, {"allocations": rows})
    assert x.shape == (2, 1, 5) and x[1, 0, 1] == 1 and y[1, 0, 3] == 1 and q.sum() == 1
    assert solution_from_arrays(x, p, y, q) == {"allocations": rows}


@pytest.mark.parametrize("rows,needle", [
    ([[0, 0, 0, 1, 1, 0, 0], [1, 0, 0, 1, 1, 0, 0]], "gpu load 2 exceeds capacity 1"),
    ([[0, 0, 0, 1, 0, 0, 0]], "co-located PS"),
    ([[0, 0, 0, 0, 0, 1, 0]], "spread PS"),
    ([[0, 0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 1, 1]], "both co-located and spread"),
    ([[1, 0, 0, 1, 1, 0, 0], [1, 0, 1, 1, 1, 0, 0]], "reaches only 4 of 6"),
    ([[0, 0, 0, 1, 1, 0, 0], [0, 0, 0, 1, 1, 0, 0]], "listed more than once"),
    ([[0, 0, 7, 1, 1, 0, 0]], "slot 7 out of range"),
    ([[0, 0, 0, -1, 1, 0, 0]], "negative count"),
])
def test_checker_flags_each_violation(rows, needle):
    rep = check(two_jobs_one_gpu(), {"allocations": rows})
    assert not rep.feasible
    assert any(needle in v for v in rep.violations), rep.violations


def test_checker_mode_worker_cap_and_arrival():
    inst = instance([job("a", 8.0, arrival=1, max_workers=2, ps_fan=2)], machines=2, gpus=2.0, horizon=4)
    rep = check(inst, {"allocations": [[0, 0, 0, 1, 1, 0, 0]]})
    assert any("before its arrival" in v for v in rep.violations)
    rep = check(inst, {"allocations": [[0, 0, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0, 0]]})
    assert any("on 2 machines" in v for v in rep.violations)
    rep = check(inst, {"allocations": [[0, 0, 1, 0, 0, 2, 1], [0, 1, 1, 0, 0, 1, 1]]})
    assert any("exceed max_workers 2" in v for v in rep.violations)
    assert not check(inst, {"wrong": []}).feasible


# -- exact optima worked out by hand --------------------------------------------------------------
@pytest.mark.parametrize("backend", ["highs", "scipy"])
def test_milp_shortest_first_on_one_gpu(backend):
    r = optsched.solve(two_jobs_one_gpu(), "milp", backend=backend)
    assert r.status == "optimal" and r.objective == 5.0


@pytest.mark.parametrize("b_ex,expected", [
    # one job, 2 workers, two machines with 1 GPU each: co-located runs 1 worker at e_in = 0.52,
    # spread runs 2 workers at e_ex; V = 7.9 mini-batches
    (100.0, 3),   # e_ex = 0.5 + 2 / 100 = 0.52: spread does 2 / 0.52 = 3.85 per slot -> 3 slots
    (1.0, 4),     # e_ex = 2.5: spread does 0.8 per slot; co-located 1 / 0.502 = 1.99 -> 4 slots
])
def test_milp_chooses_locality_mode(b_ex, expected):
    inst = instance([job("a", 7.9, gradient_mb=1.0, max_workers=2, ps_fan=2)], machines=2, gpus=1.0,
                    horizon=8, b_in=1000.0, b_ex=b_ex)
    r = optsched.solve(inst, "milp")
    assert r.status == "optimal" and r.objective == expected
    lp = optsched.solve(inst, "lp")
    assert lp.objective <= expected + 1e-6


def test_short_horizon_is_infeasible_with_reason():
    inst = instance([job("a", 2.0), job("b", 6.0)], horizon=2)     # b alone needs 3 slots
    for method in ("milp", "lp", "rr", "fifo-locality", "drf", "online-rr", "lower-bound"):
        r = optsched.solve(inst, method)
        assert r.status == "infeasible", method
        assert "job 1" in r.reason and "horizon" in r.reason


def test_jointly_infeasible_horizon():
    # each job fits alone in 4 slots, but the single GPU cannot serve both (1 + 3 + 3 > 4 slots)
    inst = instance([job("a", 2.0), job("b", 6.0), job("c", 6.0)], horizon=4)
    assert optsched.solve(inst, "milp").status == "infeasible"
    rr = optsched.solve(inst, "rr", seed=3)
    assert rr.status == "infeasible" and rr.reason


# -- generator ----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_contended_preset_load_and_determinism(seed):
    inst = optsched.generate("ps-locality", seed=seed, preset="contended")
    assert (inst.num_jobs, inst.num_machines, inst.horizon_slots) == (6, 3, 24)
    assert offered_load(inst) >= 1.5
    assert optsched.generate("ps-locality", seed=seed, preset="contended") == inst


@pytest.mark.parametrize("seed", range(4))
def test_generated_load_reaches_target_with_poisson_arrivals(seed):
    inst = optsched.generate("ps-locality", seed=seed, jobs=12, machines=3, load=0.8)
    assert offered_load(inst) >= 0.8
    assert inst.arrival.max() > 0       # arrivals spread out at this load


def test_generator_rejects_a_short_horizon():
    with pytest.raises(InvalidOptionError, match="horizon_slots"):
        optsched.generate("ps-locality", seed=0, preset="contended", horizon_slots=3)


# -- CLI ----------------------------------------------------------------------------------------
def test_cli_round_trip(tmp_path, capsys):
    inst_file, res_file, mps = tmp_path / "i.json", tmp_path / "r.json", tmp_path / "m.mps"
    assert main(["generate", "ps-locality", "--seed", "1", "--preset", "tiny", "-o", str(inst_file)]) == 0
    assert main(["solve", "ps-locality", str(inst_file), "--method", "rr", "--option", "trials=2",
                 "-o", str(res_file)]) == 0
    assert main(["check", "ps-locality", str(inst_file), str(res_file)]) == 0
    assert main(["export", "ps-locality", str(inst_file), "-o", str(mps)]) == 0
    assert mps.stat().st_size > 0


def test_cli_exit_codes(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    data = _data()
    data["jobs"][0]["workload"] = -1
    bad.write_text(json.dumps(data))
    assert main(["solve", "ps-locality", str(bad), "--method", "milp"]) == 2
    short = tmp_path / "short.json"
    instance([job("a", 2.0), job("b", 6.0)], horizon=2).save(short)
    assert main(["solve", "ps-locality", str(short), "--method", "milp"]) == 3
    sol = tmp_path / "sol.json"
    sol.write_text(json.dumps({"allocations": [[0, 0, 0, 1, 0, 0, 0]]}))
    assert main(["check", "ps-locality", str(short), str(sol)]) == 1
    capsys.readouterr()
