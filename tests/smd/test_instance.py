"""SMD instances: validation naming the field, JSON round trip, and the checker by hand."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

import optsched
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.problems.smd import SmdInstance, SmdJob, check, generate


def one_job(**changes) -> SmdInstance:
    job = SmdJob(name="a", weight=2.0, forward_s=[1.0], backward_s=[2.0], parameter_bytes=[10.0], epochs=1,
                 dataset_samples=10, minibatch=3, max_workers=2, max_parameter_servers=1,
                 worker_demand=[1.0], ps_demand=[1.0])
    fields = dict(resources=["gpu"], capacities=[3.0], worker_bandwidth=20.0, ps_bandwidth=20.0,
                  round_length=5.0, jobs=[job])
    fields.update(changes)
    return SmdInstance(**fields)


def test_checker_objective_by_hand():
    inst = one_job()
    # (1, 1): k = 2 * max(1/20, 1/20) = 0.1; tau = 1 + max(2, 0) + 10 * 0.1 = 4; ceil(10 / 3) = 4
    # iterations; JCT = 16; weighted 32
    report = check(inst, {"workers": [1], "parameter_servers": [1]})
    assert report.feasible and report.objective == pytest.approx(32.0, rel=1e-12)
    # (2, 1): k = 2 * max(1/20, 2/20) = 0.2; tau = 1 + 2 + 2 = 5; ceil(10 / 6) = 2; 2 * 2 * 5 = 20
    report = check(inst, {"workers": [2], "parameter_servers": [1]})
    assert report.feasible and report.objective == pytest.approx(20.0, rel=1e-12)
    # deferred: defer = round_length + JCT(1, 1) = 5 + 16; weighted 42
    report = check(inst, {"workers": [0], "parameter_servers": [0]})
    assert report.feasible and report.objective == pytest.approx(42.0, rel=1e-12)


def test_checker_reports_each_violation():
    inst = one_job(capacities=[2.0])
    report = check(inst, {"workers": [2], "parameter_servers": [1]})
    assert not report.feasible
    assert any("exceeds capacity" in v for v in report.violations)
    report = check(inst, {"workers": [3], "parameter_servers": [1]})
    assert not report.feasible and "outside" in report.violations[0]
    fixed = one_job(jobs=[dataclasses.replace(one_job().jobs[0], deferrable=False)])
    report = check(fixed, {"workers": [0], "parameter_servers": [0]})
    assert not report.feasible and "not deferrable" in report.violations[0]
    assert not check(inst, {"workers": [1]}).feasible
    assert not check(inst, {"workers": [1.0], "parameter_servers": [1]}).feasible


def test_explicit_defer_cost_is_used():
    inst = one_job(jobs=[dataclasses.replace(one_job().jobs[0], defer_cost=7.5)])
    assert check(inst, {"workers": [0], "parameter_servers": [0]}).objective == 15.0


@pytest.mark.parametrize("changes,field", [
    ({"worker_bandwidth": 0.0}, "worker_bandwidth"),
    ({"ps_bandwidth": -1.0}, "ps_bandwidth"),
    ({"ps_bandwidth": math.inf}, "ps_bandwidth"),
    ({"capacities": [1.0, 2.0]}, "capacities"),
    ({"capacities": [-1.0]}, "capacities[0]"),
    ({"round_length": -1.0}, "round_length"),
    ({"jobs": []}, "jobs"),
])
def test_invalid_instance_names_the_field(changes, field):
    with pytest.raises(InvalidInstanceError) as info:
        one_job(**changes)
    assert info.value.field == field


@pytest.mark.parametrize("changes,field", [
    ({"backward_s": [1.0, 2.0]}, "jobs[0].backward_s"),
    ({"parameter_bytes": [-1.0]}, "jobs[0].parameter_bytes[0]"),
    ({"minibatch": 0}, "jobs[0].minibatch"),
    ({"max_parameter_servers": 0}, "jobs[0].max_parameter_servers"),
    ({"worker_demand": [1.0, 1.0]}, "jobs[0].worker_demand"),
    ({"defer_cost": -2.0}, "jobs[0].defer_cost"),
    ({"weight": math.nan}, "jobs[0].weight"),
])
def test_invalid_job_names_the_field(changes, field):
    job = one_job().jobs[0]
    data = {**job.to_dict(), **changes}
    with pytest.raises(InvalidInstanceError) as info:
        one_job(jobs=[data])
    assert info.value.field == field


def test_json_round_trip_and_unknown_field():
    inst = generate(3, jobs=4, non_deferrable=0.5)
    again = SmdInstance.from_json(inst.to_json())
    assert again == inst and again.sha256() == inst.sha256()
    data = inst.to_json()
    data["jobs"][1]["colour"] = 1
    with pytest.raises(InvalidInstanceError) as info:
        SmdInstance.from_json(data)
    assert info.value.field == "jobs[1].colour"


def test_generator_is_deterministic_and_presets_exist():
    assert generate(5) == generate(5)
    assert generate(5) != generate(6)
    problem = optsched.get_problem("smd")
    assert {"tiny", "smd-small", "smd-large"} <= set(problem.presets)
    large = problem.presets["smd-large"]
    assert large["jobs"] == 1000 and large["max_workers"] * large["max_parameter_servers"] == 2000


def test_generator_rejects_bad_options():
    with pytest.raises(InvalidOptionError) as info:
        generate(0, tightness=0.0)
    assert info.value.field == "tightness"
    with pytest.raises(InvalidOptionError) as info:
        generate(0, profiles="/nonexistent/models")
    assert info.value.field == "profiles"


def test_generator_reads_layer_profiles(tmp_path):
    """Jobs take their layers and batch size from optsched profile files (the models/ format)."""
    from optsched.workloads.profiles import Profile

    for name, n in (("netA", 3), ("netB", 5)):
        Profile(name=name, batch_size=16, layer_names=[f"l{k}" for k in range(n)],
                forward_s=[0.001 * (k + 1) for k in range(n)], backward_s=[0.002] * n,
                parameter_bytes=[1e6] * n, activation_bytes=[0.0] * n, stash_bytes=[0.0] * n).save(tmp_path / f"{name}.json")
    inst = generate(4, jobs=6, profiles=str(tmp_path))
    assert {len(j.forward_s) for j in inst.jobs} <= {3, 5}
    assert all(j.minibatch == 16 for j in inst.jobs)
    assert all(("netA" in j.name) == (len(j.forward_s) == 3) for j in inst.jobs)
    assert inst.provenance.endswith("profiles netA, netB")  # which profiles, not where
    assert optsched.solve(inst, "milp").status == "optimal"


MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.mark.skipif(not any(MODELS.glob("*.json")), reason="models/ holds no profiles yet")
def test_generator_reads_the_repository_models():
    from optsched.workloads.profiles import load_profile

    profiles = {load_profile(f).name: load_profile(f) for f in sorted(MODELS.glob("*.json"))}
    inst = generate(0, jobs=6, profiles=str(MODELS))
    for job in inst.jobs:
        profile = profiles[job.name.split("-", 1)[1]]
        assert job.forward_s == profile.forward_s and job.parameter_bytes == profile.parameter_bytes
        assert job.minibatch == max(1, round(profile.batch_size))
    assert optsched.solve(inst, "milp").status == "optimal"
