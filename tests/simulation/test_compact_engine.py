"""The compact (column) engine gives the same runs as the engine it replaced.

The reference is what the previous implementation gave, stored in ``golden/cluster.json``
(``tests/golden.md``: recorded from the previous engine, then removed). The same seeded policies
-- FIFO, FIFO that preempts a random running job at every tick, a policy that changes rates at
random, with restart overheads and ``max_time`` -- run on the same random streams; the logs
(every event, in order, with its details) and every field of the results must be identical
(equal SHA-256 of their canonical JSON, equal floats), for a list of :class:`SimJob` and for a
:class:`JobTable`.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from optsched.core.errors import InvalidInstanceError
from optsched.simulation import cluster as new
from tests.golden import canonical, digest, load

GOLDEN = load(Path(__file__).parent / "golden" / "cluster.json")


def _policies(module):
    class PreemptingFifo(module.FifoPolicy):
        def __init__(self, seed):
            super().__init__()
            self.rng = np.random.default_rng(seed)

        def on_tick(self, sim, now):
            running = sim.running()
            if running and self.rng.random() < 0.7:
                sim.preempt(running[int(self.rng.integers(len(running)))].id)
            self._dispatch(sim)

    class RateChanger(module.FifoPolicy):
        def __init__(self, seed):
            super().__init__(rate=lambda job, gpus: 1.0 + 0.5 * len(gpus))
            self.rng = np.random.default_rng(seed)

        def on_tick(self, sim, now):
            for job in sim.running():
                if self.rng.random() < 0.3:
                    sim.set_rate(job.id, float(self.rng.uniform(0.2, 3.0)))
                # queries the policies use, exercised on the way
                assert sim.remaining_work(job.id) >= 0.0
                assert sim.gpu_seconds(job.id) >= 0.0
                assert sim.allocation(job.id).rate > 0
            for job in sim.waiting():
                assert sim.status(job.id) == "waiting"
            self._dispatch(sim)

    return {"fifo": lambda seed: module.FifoPolicy(), "preempting": PreemptingFifo, "rates": RateChanger}


def _stream(seed, n=150):
    rng = np.random.default_rng(seed)
    arrivals = np.round(np.cumsum(rng.exponential(1.0, size=n)), 1)  # ties on purpose
    ids = rng.permutation(n) * 3 + 5  # ids neither contiguous nor in arrival order
    return [(int(i), float(a), float(w), int(g)) for i, a, w, g in
            zip(ids, arrivals, rng.uniform(0.5, 6.0, size=n), rng.integers(1, 6, size=n))]


def _run(module, rows, policy, table=False, **kwargs):
    cluster = module.Cluster((4, 4, 2), 1e11, 1e10)
    if table:
        jobs = module.JobTable(*map(list, zip(*rows)))
    else:
        jobs = [module.SimJob(id=i, arrival=a, work=w, gpus=g) for i, a, w, g in rows]
    return module.Simulator(cluster, jobs, policy, **kwargs).run()


KINDS = ("fifo", "preempting", "rates")


def _run_options(seed):
    return dict(tick=2.5, restart_overhead=0.3 * (seed % 2), max_time=math.inf if seed < 3 else 60.0)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("table", [False, True])
def test_same_log_and_result_as_the_previous_engine(seed, kind, table):
    rows = _stream(seed)
    kwargs = _run_options(seed)
    got = _run(new, rows, _policies(new)[kind](seed), table=table, **kwargs)
    want = GOLDEN[f"{kind}/seed{seed}"]
    assert len(got.log) == want["events"] > (2 * len(rows) if seed < 3 else 50)
    assert digest([tuple(e) for e in got.log]) == want["log_sha256"]
    for field in ("completion", "start_first", "arrival", "preemptions", "gpu_seconds"):
        # the items in (arrival) order, keys and values
        assert digest(list(getattr(got, field).items())) == want[f"{field}_sha256"], field
    assert canonical(list(got.unfinished)) == want["unfinished"]
    assert canonical([got.end_time, got.total_flow_time, got.makespan]) == \
        [want["end_time"], want["total_flow_time"], want["makespan"]]
    if kind == "preempting":
        assert sum(got.preemptions.values()) > 0
    if seed == 3:
        assert got.unfinished  # max_time cut the run


def test_result_views_behave_like_dicts():
    rows = _stream(0, n=20)
    got = _run(new, rows, new.FifoPolicy(), max_time=5.0)
    assert got.unfinished
    done = dict(got.completion)
    assert set(done) | set(got.unfinished) == {r[0] for r in rows}
    assert len(got.completion) == len(done) and repr(got.completion) == repr(done)
    missing = got.unfinished[0]
    assert missing not in got.completion and got.flow_time(missing) == math.inf
    with pytest.raises(KeyError):
        got.completion[missing]
    with pytest.raises(KeyError):
        got.arrival[-1]


def test_job_table_rejects_what_simjob_rejects_with_the_same_field():
    for column, value, field in (("arrival", -1.0, "jobs[id=7].arrival"), ("work", 0.0, "jobs[id=7].work"),
                                 ("gpus", 0, "jobs[id=7].gpus"), ("arrival", math.nan, "jobs[id=7].arrival")):
        row = {"ids": [6, 7], "arrival": [0.0, 1.0], "work": [1.0, 1.0], "gpus": [1, 1]}
        row[column] = [row[column][0], value]
        with pytest.raises(InvalidInstanceError) as table_error:
            new.JobTable(**row)
        with pytest.raises(InvalidInstanceError) as job_error:
            new.SimJob(id=7, **{c: row[c][1] for c in ("arrival", "work", "gpus")})
        assert table_error.value.field == job_error.value.field == field
    with pytest.raises(InvalidInstanceError) as error:
        new.Simulator(new.Cluster((1,), 1.0, 1.0), new.JobTable([1, 2, 1], [0.0] * 3, [1.0] * 3, [1] * 3),
                      new.Policy())
    assert error.value.field == "jobs[2].id"


def test_job_table_builds_simjobs_only_for_live_jobs():
    n = 1000
    table = new.JobTable(np.arange(n), np.arange(n, dtype=float), np.full(n, 0.5), np.ones(n, np.int64),
                         payloads=[f"p{i}" for i in range(n)])
    seen = []

    class Watch(new.FifoPolicy):
        def on_arrival(self, sim, job, now):
            seen.append(job.payload)
            assert len(sim._live) <= 2  # one job arrives, at most the previous one still runs
            super().on_arrival(sim, job, now)

    result = new.Simulator(new.Cluster((1,), 1.0, 1.0), table, Watch(), record_log=False).run()
    assert seen == [f"p{i}" for i in range(n)] and result.total_flow_time == 0.5 * n
