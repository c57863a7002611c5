"""The interference-online checker's constraints (arrival <= start <= end, the gang's GPUs, every
job once, clashing types never share a server, server capacity over time, the work done by the
end), each violated alone by a minimal change of a valid schedule of a hand-built instance
(docs/checkers.md)."""

from tests.checker_helpers import assert_feasible, assert_only, make

P = "interference-online"


def inst(forbid=True, gpus=(1, 1), arrival=(0.0, 0.0)):
    """Two servers of 2 GPUs; jobs 0 (type a) and 1 (type b) of 10 iterations of 1 s; no
    interference slowdown (beta 0), no spread penalty; types a and b clash when ``forbid``."""
    jobs = [{"id": j, "arrival": arrival[j], "type": j, "gpus": gpus[j], "iterations": 10.0, "step_time": 1.0}
            for j in range(2)]
    return make(P, {"gpus_per_server": [2, 2], "servers_per_group": 1, "job_types": ["a", "b"],
                    "beta": [[0.0, 0.0], [0.0, 0.0]], "forbidden": [[False, forbid], [forbid, False]],
                    "spread_penalty": 0.0, "jobs": jobs, "name": "", "provenance": ""})


def run(j, start, end, servers):
    return {"id": j, "start": start, "end": end, "servers": servers}


def test_average_jct_by_hand():
    sol = {"jobs": [run(0, 0.0, 10.0, [[0, 1]]), run(1, 2.0, 12.0, [[1, 1]])]}
    assert assert_feasible(P, inst(), sol).objective == 11.0  # (10 + 12) / 2


def test_clashing_types_share_no_server():
    sol = {"jobs": [run(0, 0.0, 10.0, [[0, 1]]), run(1, 0.0, 10.0, [[0, 1]])]}
    assert_only(P, inst(), sol, r"^jobs 1 and 0 share server 0 at 0\.0 but may not co-locate$")


def test_server_capacity():
    sol = {"jobs": [run(0, 0.0, 10.0, [[0, 1]]), run(1, 0.0, 10.0, [[0, 2]])]}
    assert_only(P, inst(forbid=False, gpus=(1, 2)), sol, r"^server 0: 3 GPUs in use at 0\.0, capacity 2$")


def test_gang_gpus():
    sol = {"jobs": [run(0, 0.0, 10.0, [[0, 1]]), run(1, 0.0, 10.0, [[1, 1]])]}
    assert_only(P, inst(gpus=(1, 2)), sol, r"^job 1: 1 GPUs placed, demand 2$")


def test_arrival_before_start():
    sol = {"jobs": [run(0, 0.0, 10.0, [[0, 1]]), run(1, 0.0, 10.0, [[1, 1]])]}
    assert_only(P, inst(arrival=(0.0, 5.0)), sol, r"^job 1: needs arrival 5\.0 <= start 0\.0 <= end 10\.0$")


def test_work_done_by_the_end():
    sol = {"jobs": [run(0, 0.0, 10.0, [[0, 1]]), run(1, 0.0, 9.0, [[1, 1]])]}
    assert_only(P, inst(), sol, r"^job 1: 9 of 10 iterations done by its end 9\.0$")


def test_every_job_once():
    assert_only(P, inst(), {"jobs": [run(0, 0.0, 10.0, [[0, 1]])]}, r"^job 1 missing from the solution$")
    sol = {"jobs": [run(0, 0.0, 10.0, [[0, 1]]), run(0, 0.0, 10.0, [[0, 1]]), run(1, 0.0, 10.0, [[1, 1]])]}
    assert_only(P, inst(), sol, r"^job id 0 unknown or listed twice$")
