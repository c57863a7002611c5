"""srpt at scale: the compact policies, the columnar generator, JSON load and write give exactly
what the previous implementations gave.

Reference: the outputs of the previous policies on the previous engine with the un-memoized
placement, and of the previous generator, stored in ``golden/`` (``tests/golden.md``: how they
were recorded). The comparisons are exact (equal SHA-256 of the canonical JSON, equal floats):
same schedules, same floats.
"""

from __future__ import annotations

import json

from pathlib import Path

import pytest

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.core.instance import Record
from optsched.problems.srpt import SrptInstance, generate
from tests.golden import digest, load

GOLDEN = load(Path(__file__).parent / "golden" / "srpt_generator.json")
SCHEDULES = load(Path(__file__).parent / "golden" / "srpt_schedules.json")
METHODS = ("a-srpt", "fifo", "sjf-oracle", "tiresias-las")

STREAMS = [dict(jobs=120, servers=4, gpus_per_server=4, load=1.0, recurrences=20),  # multi-server: KL placement
           dict(jobs=150, servers=4, gpus_per_server=8, plans="tensor"),
           dict(jobs=80, servers=2, gpus_per_server=8, predictor="oracle", noise=0.8)]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("stream", range(len(STREAMS)))
def test_generator_equals_the_previous_one(seed, stream):
    new, old = generate(seed, **STREAMS[stream]), GOLDEN[f"stream{stream}/seed{seed}"]
    assert new.sha256() == old["sha256"] and new.num_jobs == old["jobs"]
    # kinds share one edges tuple (the memory saving), the previous generator built one per job
    assert len({id(j.edges) for j in new.jobs}) <= 20 < old["distinct_edge_tuples"]


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("stream", range(len(STREAMS)))
@pytest.mark.parametrize("method", METHODS)
def test_schedules_equal_the_previous_implementation(seed, stream, method):
    inst = generate(seed, **STREAMS[stream])
    got = optsched.solve(inst, method)
    want = SCHEDULES[f"{method}/stream{stream}/seed{seed}"]
    assert inst.sha256() == want["instance_sha256"]
    assert got.status == "feasible"
    assert sum(len(job["segments"]) for job in got.solution["jobs"]) == want["segments"]
    assert digest(got.solution) == want["solution_sha256"]
    for key, value in want["stats"].items():
        assert got.stats[key] == value, key   # exact: JSON keeps every float's bits
    if stream == 0 and method == "a-srpt":
        assert want["stats"]["preemptions"] > 0 and want["multi_server_segments"]


def test_to_dict_and_fast_load_equal_the_generic_conversion(tmp_path):
    inst = generate(4, **STREAMS[0])
    assert inst.to_dict() == Record.to_dict(inst)
    data = json.loads(json.dumps(inst.to_json()))
    fast = SrptInstance.from_json(data)
    data.pop("format_version"), data.pop("problem")
    generic = Record.from_dict.__func__(SrptInstance, data)
    assert fast == generic == inst
    path = tmp_path / "s.json"
    inst.save(path)
    assert SrptInstance.load(path) == inst


def _mutations():
    """(description, mutate(data)) pairs: each makes the data irregular or invalid."""
    def job(k, field, value):
        def mutate(d):
            d["jobs"][k][field] = value
        return mutate

    def drop(k, field):
        def mutate(d):
            del d["jobs"][k][field]
        return mutate

    def edge(k, value):
        def mutate(d):
            k2 = [i for i, j in enumerate(d["jobs"]) if j["edges"]][k]   # the k-th job with a graph
            d["jobs"][k2]["edges"][0] = value
        return mutate

    def top(field, value):
        def mutate(d):
            d[field] = value
        return mutate

    return [("float id", job(3, "id", 1.0)), ("bool gpus", job(2, "gpus", True)), ("NaN-like arrival", job(5, "arrival", "x")),
            ("negative arrival", job(5, "arrival", -1.0)), ("huge compute", job(1, "compute_s", 1e300)),
            ("unknown plan", job(0, "plan", "expert")), ("missing iterations", drop(4, "iterations")),
            ("unknown job field", job(4, "colour", 1)), ("float edge node", edge(7, [0.0, 1, 2.0])),
            ("short edge", edge(7, [0, 1])), ("edge out of range", edge(7, [0, 99, 1.0])),
            ("negative bytes", edge(7, [0, 1, -1.0])), ("int bytes", edge(7, [0, 1, 3])),
            ("string server count", top("gpus_per_server", [4, "4", 4])), ("int bandwidth", top("intra_bandwidth", 10**11)),
            ("duplicate id", job(6, "id", 0)), ("job too large", job(6, "gpus", 64)),
            ("zero iterations", job(2, "iterations", 0)), ("unknown top field", top("colour", 1))]


@pytest.mark.parametrize("name, mutate", _mutations())
def test_irregular_data_gives_the_generic_result_or_error(name, mutate):
    data = generate(1, **STREAMS[0]).to_dict()
    data = json.loads(json.dumps(data))
    mutate(data)
    fast_error = generic_error = fast = generic = None
    try:
        fast = SrptInstance.from_dict(json.loads(json.dumps(data)))
    except InvalidInstanceError as exc:
        fast_error = (exc.field, str(exc))
    try:
        generic = Record.from_dict.__func__(SrptInstance, json.loads(json.dumps(data)))
    except InvalidInstanceError as exc:
        generic_error = (exc.field, str(exc))
    assert fast_error == generic_error
    assert fast == generic
    if name in ("int bytes", "int bandwidth"):
        assert fast is not None   # converted, not rejected
    else:
        assert fast_error is not None, name


def test_streamed_sha256_equals_the_canonical_json_digest():
    import hashlib

    from optsched.core.instance import canonical_json

    for jobs in (1, 4096, 5000):
        inst = generate(2, jobs=jobs, servers=2)
        assert inst.sha256() == hashlib.sha256(canonical_json(inst.to_json()).encode()).hexdigest()


def test_work_tolerance_covers_time_rounding_at_large_instants_only():
    from optsched.problems.srpt import SrptJob, check

    job = SrptJob(id=0, arrival=1.2e7, gpus=1, plan="data", graph="ring", edges=(), compute_s=1e-3,
                  iterations=300, predicted_iterations=300.0)
    inst = SrptInstance(gpus_per_server=(1,), intra_bandwidth=1e9, inter_bandwidth=1e9, restart_overhead=0.0,
                        jobs=[job])
    start = 1.2e7 + 0.1
    end = start + 300 / (1 / 1e-3)   # as the simulator computes it: progress start + remaining / rate
    ok = check(inst, {"jobs": [{"id": 0, "segments": [{"start": start, "end": end, "servers": [0]}]}]})
    assert ok.feasible
    short = end - 1e-6   # 1e-3 iterations short: far beyond a few ulps of 1.2e7 (1.9e-9 s)
    bad = check(inst, {"jobs": [{"id": 0, "segments": [{"start": start, "end": short, "servers": [0]}]}]})
    assert not bad.feasible and "iterations" in bad.violations[0]


def test_milp_placement_degrades_with_a_counted_reason_when_a_solve_has_no_point(monkeypatch):
    from optsched.core.solving import SolveContext

    from .test_budget import no_point

    inst = generate(0, **STREAMS[0])
    with monkeypatch.context() as mp:
        mp.setattr(SolveContext, "solve_model", no_point)
        cut = optsched.solve(inst, "a-srpt", options={"placement": "milp"})
    assert cut.status == "feasible" and optsched.check(inst, cut).feasible
    assert cut.stats["placement_milp_fallbacks"] > 0
    assert "returned no point" in cut.stats["placement_milp_fallback_reason"]
    # the fallback is the heuristic: the same schedule as a-srpt with the greedy + KL placement
    assert cut.solution == optsched.solve(inst, "a-srpt").solution
