"""The interference-placement checker's constraints (resident clash, job clash, gang, capacity), each
violated alone by a minimal change of a valid solution of a hand-built instance and named in the
message (docs/checkers.md).
"""

from tests.checker_helpers import assert_feasible, assert_only, make


def placement(jobs, residents=({"type": 1, "weight": 1.0, "servers": [0]},)):
    return make("interference-placement", {
        "gpus_per_server": [2, 2], "job_types": ["a", "b"], "beta": [[0.0, 0.0], [0.0, 0.0]],
        "forbidden": [[False, True], [True, False]], "jobs": list(jobs), "spread_penalty": 0.0,
        "reject_cost": 10.0, "residents": list(residents), "name": "", "provenance": ""})


def job(jid, type_, gpus=1):
    return {"id": jid, "type": type_, "gpus": gpus, "weight": 1.0}


def test_placement_valid_and_cost_by_hand():
    inst = placement([job(0, 0), job(1, 1)])
    # job 0 (type a) beside no resident on server 1, job 1 (type b) beside the type-b resident on 0:
    # each job's weight 1 x (1 + 0 spread), no interference (beta 0) = 2
    report = assert_feasible("interference-placement", inst, {"jobs": [{"id": 0, "servers": [[1, 1]]},
                                                                       {"id": 1, "servers": [[0, 1]]}]})
    assert report.objective == 2.0
    # job 1 rejected: 1 + reject cost 10
    rejected = assert_feasible("interference-placement", inst, {"jobs": [{"id": 0, "servers": [[1, 1]]},
                                                                         {"id": 1, "servers": []}]})
    assert rejected.objective == 11.0


def test_placement_resident_clash():
    inst = placement([job(0, 0)])
    assert_only("interference-placement", inst, {"jobs": [{"id": 0, "servers": [[0, 1]]}]},
                r"^job 0: server 0 holds a resident it may not co-locate with$")


def test_placement_job_clash():
    inst = placement([job(0, 0), job(1, 1)], residents=())
    assert_only("interference-placement", inst, {"jobs": [{"id": 0, "servers": [[1, 1]]}, {"id": 1, "servers": [[1, 1]]}]},
                r"^jobs 0 and 1 share a server but may not co-locate$")


def test_placement_gang():
    inst = placement([job(0, 0, gpus=2)], residents=())
    assert_only("interference-placement", inst, {"jobs": [{"id": 0, "servers": [[1, 1]]}]},
                r"^job 0: 1 GPUs placed, demand 2$")


def test_placement_server_capacity():
    inst = placement([job(0, 0, gpus=2), job(1, 0, gpus=1)], residents=())
    assert_only("interference-placement", inst, {"jobs": [{"id": 0, "servers": [[1, 2]]}, {"id": 1, "servers": [[1, 1]]}]},
                r"^server 1: 3 GPUs placed, 2 free$")


def test_placement_every_job_listed():
    inst = placement([job(0, 0), job(1, 0)], residents=())
    assert_only("interference-placement", inst, {"jobs": [{"id": 0, "servers": [[1, 1]]}]},
                r"^job 1 missing from the solution$")
