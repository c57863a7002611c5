"""Tests of the discrete-event cluster simulator (optsched.simulation.cluster).

The schedules below were computed by hand; the comments give the reasoning step by step.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optsched.core.errors import InvalidInputError, InvalidInstanceError, InvalidOptionError
from optsched.simulation.cluster import (
    Allocation,
    Cluster,
    Event,
    FifoPolicy,
    Policy,
    SimJob,
    SimulationError,
    Simulator,
)


def make_cluster(*gpus_per_server: int) -> Cluster:
    """A cluster with the given GPU counts and arbitrary bandwidths."""
    return Cluster(gpus_per_server=gpus_per_server, intra_bandwidth=1e11, inter_bandwidth=1e10)


def entries(log: list[Event]) -> list[tuple]:
    """The log without sequence numbers, after checking that they count 0, 1, 2, ..."""
    assert [event.seq for event in log] == list(range(len(log)))
    return [(event.time, event.kind, event.job_id, event.detail) for event in log]


def start(gpus: dict[int, int], rate: float = 1.0) -> dict[str, object]:
    """Detail of a "start" log entry."""
    return {"gpus": gpus, "rate": rate}


class ScriptPolicy(Policy):
    """Starts each arriving job on server 0 if it fits (optional) and runs scripted actions at
    ticks: ``script[tick instant]`` is a function of the simulator.  ``observe`` is called at
    every tick and its return values are kept in ``observations``."""

    def __init__(
        self,
        script: dict[float, Callable[[Simulator], None]],
        start_on_arrival: bool = True,
        observe: Callable[[Simulator], object] | None = None,
    ):
        self.script = script
        self.start_on_arrival = start_on_arrival
        self.observe = observe
        self.observations: dict[float, object] = {}

    def on_arrival(self, sim: Simulator, job: SimJob, now: float) -> None:
        if self.start_on_arrival and sim.free_gpus()[0] >= job.gpus:
            sim.start(job.id, gpus={0: job.gpus})

    def on_completion(self, sim: Simulator, job: SimJob, now: float) -> None:
        head = sim.first_waiting()
        if self.start_on_arrival and head is not None and sim.free_gpus()[0] >= head.gpus:
            sim.start(head.id, gpus={0: head.gpus})

    def on_tick(self, sim: Simulator, now: float) -> None:
        if self.observe is not None:
            self.observations[now] = self.observe(sim)
        if now in self.script:
            self.script[now](sim)


# ---------------------------------------------------------------- FIFO, hand-computed

HAND_JOBS = [
    SimJob(id=1, arrival=0.0, work=4.0, gpus=2),
    SimJob(id=2, arrival=1.0, work=2.0, gpus=3),
    SimJob(id=3, arrival=2.0, work=1.0, gpus=1),
    SimJob(id=4, arrival=3.0, work=3.0, gpus=2),
    SimJob(id=5, arrival=5.0, work=2.0, gpus=1),
]


def test_fifo_hand_computed_schedule_and_log():
    # Cluster 2 servers x 2 GPUs, FIFO, rate 1.
    # t=0 job 1 (2 GPUs) arrives; free (2, 2); one server holds it, best fit ties -> server 0;
    #     runs 0..4.  Free (0, 2).
    # t=1 job 2 asks 3 GPUs, 2 free: waits at the head.
    # t=2 job 3 (1 GPU) would fit but FIFO is strict: waits behind job 2.  t=3 job 4 waits.
    # t=4 job 1 completes; free (2, 2).  Job 2: no server holds 3, so the fullest server
    #     (server 0, tie -> lower index) is filled with 2 and the rest 1 goes to server 1;
    #     runs 4..6.  Free (0, 1): job 3 -> server 1, runs 4..5.  Free (0, 0): job 4 waits.
    # t=5 completion of job 3 before the arrival of job 5 (same instant); free (0, 1): job 4
    #     (2 GPUs) does not fit; job 5 arrives and waits behind job 4.
    # t=6 job 2 completes; free (2, 2): job 4 -> server 0 (best fit tie), runs 6..9; free (0, 2):
    #     job 5 -> server 1, runs 6..8.
    result = Simulator(make_cluster(2, 2), HAND_JOBS, FifoPolicy()).run()
    assert entries(result.log) == [
        (0.0, "arrival", 1, None),
        (0.0, "start", 1, start({0: 2})),
        (1.0, "arrival", 2, None),
        (2.0, "arrival", 3, None),
        (3.0, "arrival", 4, None),
        (4.0, "complete", 1, None),
        (4.0, "start", 2, start({0: 2, 1: 1})),
        (4.0, "start", 3, start({1: 1})),
        (5.0, "complete", 3, None),
        (5.0, "arrival", 5, None),
        (6.0, "complete", 2, None),
        (6.0, "start", 4, start({0: 2})),
        (6.0, "start", 5, start({1: 1})),
        (8.0, "complete", 5, None),
        (9.0, "complete", 4, None),
    ]
    assert result.start_first == {1: 0.0, 2: 4.0, 3: 4.0, 4: 6.0, 5: 6.0}
    assert result.completion == {1: 4.0, 2: 6.0, 3: 5.0, 4: 9.0, 5: 8.0}
    assert [result.flow_time(job.id) for job in HAND_JOBS] == [4.0, 5.0, 3.0, 6.0, 3.0]
    assert result.total_flow_time == 21.0
    assert result.makespan == 9.0
    assert result.unfinished == ()
    assert result.preemptions == {1: 0, 2: 0, 3: 0, 4: 0, 5: 0}
    assert result.gpu_seconds == {job.id: job.work * job.gpus for job in HAND_JOBS}
    assert result.end_time == 9.0


def test_fifo_without_log_gives_the_same_schedule():
    with_log = Simulator(make_cluster(2, 2), HAND_JOBS, FifoPolicy()).run()
    without = Simulator(make_cluster(2, 2), HAND_JOBS, FifoPolicy(), record_log=False).run()
    assert without.log == []
    assert without.completion == with_log.completion
    assert without.start_first == with_log.start_first


def test_fifo_stops_at_max_time():
    # Same schedule, cut at t=5: the completion of job 3 and the arrival of job 5 at t=5 are
    # processed; job 2 has run 4..5 on 3 GPUs.
    result = Simulator(make_cluster(2, 2), HAND_JOBS, FifoPolicy(), max_time=5.0).run()
    assert result.completion == {1: 4.0, 3: 5.0}
    assert result.unfinished == (2, 4, 5)
    assert result.end_time == 5.0
    assert result.gpu_seconds[2] == 3.0
    assert result.flow_time(2) == math.inf
    assert result.total_flow_time == math.inf and result.makespan == math.inf


@pytest.mark.parametrize(
    ("free", "demand", "expected"),
    [
        ([2, 2], 2, {0: 2}),  # tie -> lower index
        ([2, 1, 3], 1, {1: 1}),  # best fit on one server
        ([3, 4, 3], 3, {0: 3}),
        ([2, 2], 3, {0: 2, 1: 1}),
        ([8, 5, 3], 11, {0: 8, 2: 3}),  # fullest server, then best fit for the rest
        ([1, 4, 4, 2], 9, {1: 4, 2: 4, 0: 1}),
        ([0, 2, 0], 2, {1: 2}),
        ([1, 1], 3, None),
    ],
)
def test_fifo_placement_rule(free, demand, expected):
    assert FifoPolicy.place(free, demand) == expected


def test_fifo_rate_model_receives_job_and_placement():
    seen = []

    def rate(job: SimJob, gpus: dict[int, int]) -> float:
        seen.append((job.id, gpus))
        return 2.0 * len(gpus)  # faster on more servers, to see the effect

    result = Simulator(make_cluster(2, 2), HAND_JOBS[:2], FifoPolicy(rate)).run()
    # Job 1: {0: 2} at rate 2, runs 0..2.  At t=1 job 2 finds 2 free GPUs < 3 and waits; at
    # t=2 it gets {0: 2, 1: 1} at rate 4 and its 2 units of work take 0.5 s.
    assert seen == [(1, {0: 2}), (2, {0: 2, 1: 1})]
    assert result.completion == {1: 2.0, 2: 2.5}


def test_simultaneous_events_order_completions_arrivals_then_tick():
    # One server, 2 GPUs, tick 1.  Jobs 1, 2 run 0..1; jobs 3, 4 arrive at 1.  At t=1:
    # completions (by id), arrivals (by id), then the tick.  At t=2 both complete and no job
    # remains, so there is no tick at t=2.
    jobs = [
        SimJob(id=4, arrival=1.0, work=1.0, gpus=1),
        SimJob(id=3, arrival=1.0, work=1.0, gpus=1),
        SimJob(id=2, arrival=0.0, work=1.0, gpus=1),
        SimJob(id=1, arrival=0.0, work=1.0, gpus=1),
    ]
    result = Simulator(make_cluster(2), jobs, FifoPolicy(), tick=1.0).run()
    assert entries(result.log) == [
        (0.0, "arrival", 1, None),
        (0.0, "start", 1, start({0: 1})),
        (0.0, "arrival", 2, None),
        (0.0, "start", 2, start({0: 1})),
        (1.0, "complete", 1, None),
        (1.0, "complete", 2, None),
        (1.0, "arrival", 3, None),
        (1.0, "start", 3, start({0: 1})),
        (1.0, "arrival", 4, None),
        (1.0, "start", 4, start({0: 1})),
        (1.0, "tick", None, None),
        (2.0, "complete", 3, None),
        (2.0, "complete", 4, None),
    ]


# ---------------------------------------------------------------- preemption, rates


def test_preemption_with_restart_overhead():
    # One server, one GPU, restart overhead 0.5, tick 2.
    # Job 1 (work 5) starts at 0 (first start: no overhead).  Job 2 (work 1) arrives at 1, waits.
    # Tick 2: preempt job 1 (2 done, 3 left), start job 2 (first start), it completes at 3.
    # t=3: restart job 1; no progress during 3..3.5; then 3 units at rate 1 -> completes at 6.5.
    # Ticks at 4 and 6 change nothing (remaining 2.5 and 0.5); no tick at 8.
    def swap(sim: Simulator) -> None:
        sim.preempt(1)
        sim.start(2, gpus={0: 1})

    def observe(sim: Simulator) -> tuple[float, float, float]:
        return sim.remaining_work(1), sim.attained_service(1), sim.gpu_seconds(1)

    policy = ScriptPolicy({2.0: swap}, observe=observe)
    jobs = [SimJob(id=1, arrival=0.0, work=5.0, gpus=1),
            SimJob(id=2, arrival=1.0, work=1.0, gpus=1)]
    result = Simulator(make_cluster(1), jobs, policy, tick=2.0, restart_overhead=0.5).run()
    assert entries(result.log) == [
        (0.0, "arrival", 1, None),
        (0.0, "start", 1, start({0: 1})),
        (1.0, "arrival", 2, None),
        (2.0, "tick", None, None),
        (2.0, "preempt", 1, {"remaining": 3.0}),
        (2.0, "start", 2, start({0: 1})),
        (3.0, "complete", 2, None),
        (3.0, "start", 1, start({0: 1})),
        (4.0, "tick", None, None),
        (6.0, "tick", None, None),
        (6.5, "complete", 1, None),
    ]
    assert policy.observations == {
        2.0: (3.0, 2.0, 2.0),  # observed before the preemption
        4.0: (2.5, 2.5, 3.0),  # 0..2 and 3..4 held: 3 GPU-seconds
        6.0: (0.5, 4.5, 5.0),
    }
    assert result.completion == {1: 6.5, 2: 3.0}
    assert result.preemptions == {1: 1, 2: 0}
    assert result.gpu_seconds == {1: 5.5, 2: 1.0}  # the overhead counts: 2 + 3.5
    assert result.start_first == {1: 0.0, 2: 2.0}


def test_preemption_during_overhead_keeps_the_remaining_work():
    # One GPU, overhead 2, tick 1.  Job 1 (work 4) runs 0..1 (3 left), is preempted at 1,
    # restarted at 2 (no progress until 4), preempted at 3 (still 3 left), restarted at 4
    # (no progress until 6): completes at 9.
    script = {
        1.0: lambda sim: sim.preempt(1),
        2.0: lambda sim: sim.start(1, gpus={0: 1}),
        3.0: lambda sim: sim.preempt(1),
        4.0: lambda sim: sim.start(1, gpus={0: 1}),
    }
    policy = ScriptPolicy(script)
    jobs = [SimJob(id=1, arrival=0.0, work=4.0, gpus=1)]
    result = Simulator(make_cluster(1), jobs, policy, tick=1.0, restart_overhead=2.0).run()
    preempts = [event.detail for event in result.log if event.kind == "preempt"]
    assert preempts == [{"remaining": 3.0}, {"remaining": 3.0}]
    assert result.completion == {1: 9.0}
    assert result.preemptions == {1: 2}
    assert result.gpu_seconds == {1: 1.0 + 1.0 + 5.0}


def test_set_rate_mid_run():
    # One server, 4 GPUs, tick 4.  Job 1 (work 10, 2 GPUs) starts at 0 at rate 1; at t=4 it has
    # 6 left and gets rate 2: completes at 4 + 6/2 = 7.
    policy = ScriptPolicy(
        {4.0: lambda sim: sim.set_rate(1, 2.0)},
        observe=lambda sim: (sim.remaining_work(1), sim.allocation(1)),
    )
    jobs = [SimJob(id=1, arrival=0.0, work=10.0, gpus=2)]
    result = Simulator(make_cluster(4), jobs, policy, tick=4.0).run()
    assert entries(result.log) == [
        (0.0, "arrival", 1, None),
        (0.0, "start", 1, start({0: 2})),
        (4.0, "tick", None, None),
        (4.0, "rate", 1, {"rate": 2.0}),
        (7.0, "complete", 1, None),
    ]
    assert policy.observations == {4.0: (6.0, Allocation(gpus={0: 2}, rate=1.0))}
    assert result.completion == {1: 7.0}
    assert result.gpu_seconds == {1: 14.0}


def test_set_rate_during_restart_overhead_applies_when_it_ends():
    # One server, 2 GPUs, overhead 1.5, tick 1.  Job 1 (work 4) is started at 1 (rate 1),
    # preempted at 2 (3 left), restarted at 3 (no progress until 4.5), set to rate 2 at 4:
    # completes at 4.5 + 3/2 = 6, before the tick at 6, which therefore does not happen.
    script = {
        1.0: lambda sim: sim.start(1, gpus={0: 2}),
        2.0: lambda sim: sim.preempt(1),
        3.0: lambda sim: sim.start(1, gpus={0: 2}),
        4.0: lambda sim: sim.set_rate(1, 2.0),
    }
    policy = ScriptPolicy(script, start_on_arrival=False, observe=lambda s: s.remaining_work(1))
    jobs = [SimJob(id=1, arrival=0.0, work=4.0, gpus=2)]
    result = Simulator(make_cluster(2), jobs, policy, tick=1.0, restart_overhead=1.5).run()
    assert entries(result.log) == [
        (0.0, "arrival", 1, None),
        (1.0, "tick", None, None),
        (1.0, "start", 1, start({0: 2})),
        (2.0, "tick", None, None),
        (2.0, "preempt", 1, {"remaining": 3.0}),
        (3.0, "tick", None, None),
        (3.0, "start", 1, start({0: 2})),
        (4.0, "tick", None, None),
        (4.0, "rate", 1, {"rate": 2.0}),
        (5.0, "tick", None, None),
        (6.0, "complete", 1, None),
    ]
    assert policy.observations == {1.0: 4.0, 2.0: 3.0, 3.0: 3.0, 4.0: 3.0, 5.0: 2.0}
    assert result.gpu_seconds == {1: 2.0 * 1.0 + 2.0 * 3.0}


def test_preempted_job_waits_again_in_arrival_order():
    # One GPU.  Job 1 runs from 0; jobs 2 and 3 arrive and wait; at tick 3 job 1 is preempted
    # and must come back first in the waiting queue.
    seen = {}

    def preempt_and_look(sim: Simulator) -> None:
        sim.preempt(1)
        seen["waiting"] = [job.id for job in sim.waiting()]
        seen["first"] = sim.first_waiting().id
        seen["running"] = sim.running()
        seen["status"] = [sim.status(job_id) for job_id in (1, 2, 3)]

    jobs = [SimJob(id=job_id, arrival=job_id - 1.0, work=10.0, gpus=1) for job_id in (1, 2, 3)]
    policy = ScriptPolicy({3.0: preempt_and_look})
    Simulator(make_cluster(1), jobs, policy, tick=3.0, max_time=3.0).run()
    assert seen == {
        "waiting": [1, 2, 3],
        "first": 1,
        "running": (),
        "status": ["waiting", "waiting", "waiting"],
    }


def test_determinism_with_a_seeded_preempting_policy():
    class RandomPreemptingFifo(FifoPolicy):
        """FIFO that, at every tick, preempts one random running job (seeded)."""

        def __init__(self, seed: int):
            super().__init__()
            self.rng = np.random.default_rng(seed)

        def on_tick(self, sim: Simulator, now: float) -> None:
            running = sim.running()
            if running:
                sim.preempt(running[int(self.rng.integers(len(running)))].id)
            self._dispatch(sim)

    rng = np.random.default_rng(7)
    arrivals = np.cumsum(rng.exponential(1.0, size=200))
    jobs = [
        SimJob(id=i, arrival=float(a), work=float(work), gpus=int(gpus))
        for i, (a, work, gpus) in enumerate(
            zip(arrivals, rng.uniform(0.5, 5.0, size=200), rng.integers(1, 5, size=200))
        )
    ]

    def run() -> list[Event]:
        policy = RandomPreemptingFifo(seed=3)
        sim = Simulator(make_cluster(4, 4, 2), jobs, policy, tick=2.5, restart_overhead=0.2)
        result = sim.run()
        assert result.unfinished == ()
        assert sum(result.preemptions.values()) > 0
        return result.log

    assert run() == run()


# ---------------------------------------------------------------- unfinished jobs


def test_policy_that_never_starts_leaves_jobs_unfinished():
    jobs = [SimJob(id=1, arrival=0.0, work=1.0, gpus=1),
            SimJob(id=2, arrival=2.5, work=1.0, gpus=1)]
    result = Simulator(make_cluster(2), jobs, Policy()).run()
    assert result.unfinished == (1, 2)
    assert result.end_time == 2.5
    assert [event.kind for event in result.log] == ["arrival", "arrival"]
    assert result.completion == {} and result.start_first == {}
    assert result.makespan == math.inf


def test_idle_tick_ends_the_run():
    # With ticks the policy gets one tick after the last event; it starts nothing: stop.
    jobs = [SimJob(id=1, arrival=0.0, work=1.0, gpus=1),
            SimJob(id=2, arrival=2.5, work=1.0, gpus=1)]
    result = Simulator(make_cluster(2), jobs, Policy(), tick=1.0).run()
    assert result.unfinished == (1, 2)
    assert entries(result.log) == [
        (0.0, "arrival", 1, None),
        (1.0, "tick", None, None),
        (2.0, "tick", None, None),
        (2.5, "arrival", 2, None),
        (3.0, "tick", None, None),
    ]


def test_fifo_blocked_by_a_job_larger_than_the_cluster():
    jobs = [
        SimJob(id=1, arrival=0.0, work=1.0, gpus=5),
        SimJob(id=2, arrival=1.0, work=1.0, gpus=1),
    ]
    result = Simulator(make_cluster(2, 2), jobs, FifoPolicy(), tick=0.5).run()
    assert result.unfinished == (1, 2)


def test_a_policy_that_restarts_and_preempts_forever_is_stopped_by_max_time():
    class Churn(Policy):
        """Starts and preempts job 1 at every tick: never any progress."""

        def on_tick(self, sim: Simulator, now: float) -> None:
            sim.start(1, gpus={0: 1})
            sim.preempt(1)

    policy = Churn()
    jobs = [SimJob(id=1, arrival=0.0, work=1.0, gpus=1)]
    result = Simulator(make_cluster(1), jobs, policy, tick=1.0, max_time=100.0).run()
    assert result.unfinished == (1,)
    assert result.preemptions == {1: 100}
    assert result.end_time == 100.0


def test_no_jobs():
    result = Simulator(make_cluster(1), [], FifoPolicy(), tick=1.0).run()
    assert result.log == [] and result.unfinished == ()
    assert result.makespan == 0.0 and result.total_flow_time == 0.0


# ---------------------------------------------------------------- invalid inputs


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: Cluster((), 1.0, 1.0), "gpus_per_server"),
        (lambda: Cluster((2, 0), 1.0, 1.0), "gpus_per_server[1]"),
        (lambda: Cluster((2, 1.5), 1.0, 1.0), "gpus_per_server[1]"),
        (lambda: Cluster((2,), 0.0, 1.0), "intra_bandwidth"),
        (lambda: Cluster((2,), 1.0, -1.0), "inter_bandwidth"),
        (lambda: Cluster((2,), 1.0, math.nan), "inter_bandwidth"),
        (lambda: SimJob(id=1.5, arrival=0.0, work=1.0, gpus=1), "jobs[].id"),
        (lambda: SimJob(id=7, arrival=-1.0, work=1.0, gpus=1), "jobs[id=7].arrival"),
        (lambda: SimJob(id=7, arrival=math.inf, work=1.0, gpus=1), "jobs[id=7].arrival"),
        (lambda: SimJob(id=7, arrival=0.0, work=0.0, gpus=1), "jobs[id=7].work"),
        (lambda: SimJob(id=7, arrival=0.0, work=1.0, gpus=0), "jobs[id=7].gpus"),
        (lambda: SimJob(id=7, arrival=0.0, work=1.0, gpus=True), "jobs[id=7].gpus"),
        (
            lambda: Simulator(
                make_cluster(1), [SimJob(3, 0.0, 1.0, 1), SimJob(3, 1.0, 1.0, 1)], Policy()
            ),
            "jobs[1].id",
        ),
        (lambda: Simulator(make_cluster(1), [(3, 0.0, 1.0, 1)], Policy()), "jobs[0]"),
        (lambda: Simulator((2, 2), [], Policy()), "cluster"),
        (lambda: Simulator(make_cluster(1), [], Policy(), tick=0.0), "tick"),
        (
            lambda: Simulator(make_cluster(1), [], Policy(), restart_overhead=-1.0),
            "restart_overhead",
        ),
        (lambda: Simulator(make_cluster(1), [], Policy(), max_time=math.nan), "max_time"),
    ],
)
def test_invalid_inputs_name_the_field(build, field):
    with pytest.raises(InvalidInputError) as info:
        build()
    assert info.value.problem == "simulation"
    assert info.value.field == field
    # a job's data is the instance; the simulator's own arguments are options
    run_arguments = ("cluster", "tick", "restart_overhead", "max_time")
    assert type(info.value) is (InvalidOptionError if field in run_arguments else InvalidInstanceError)


def test_cluster_normalises_its_fields():
    cluster = Cluster([2, np.int64(3)], 1, 2)
    assert cluster.gpus_per_server == (2, 3) and type(cluster.gpus_per_server[1]) is int
    assert cluster.intra_bandwidth == 1.0 and cluster.num_servers == 2 and cluster.total_gpus == 5


# ---------------------------------------------------------------- policy errors


class OnArrival(Policy):
    """Runs ``action(sim, job)`` at every arrival."""

    def __init__(self, action: Callable[[Simulator, SimJob], None]):
        self.action = action

    def on_arrival(self, sim: Simulator, job: SimJob, now: float) -> None:
        self.action(sim, job)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (lambda sim, job: sim.start(job.id, gpus={0: 3}), "server 0 has 2 free GPUs"),
        (lambda sim, job: sim.start(job.id, gpus={0: 2, 1: 2}), "server 1 has 1 free GPUs"),
        (lambda sim, job: sim.start(job.id, gpus={2: 1}), "no server 2"),
        (lambda sim, job: sim.start(job.id, gpus={0: 0}), "must be an integer >= 1"),
        (lambda sim, job: sim.start(job.id, gpus={}), "no GPU"),
        (lambda sim, job: sim.start(job.id, gpus={0: 1}, rate=0.0), "rate must be"),
        (lambda sim, job: sim.start(job.id, gpus={0: 1}, rate=math.nan), "rate must be"),
        (lambda sim, job: sim.start(99, gpus={0: 1}), "unknown job id 99"),
        (lambda sim, job: sim.start(2, gpus={0: 1}), "cannot start job 2: it is pending"),
        (lambda sim, job: sim.preempt(job.id), "cannot preempt job 1: it is waiting"),
        (lambda sim, job: sim.set_rate(job.id, 2.0), "it is waiting"),
        (lambda sim, job: sim.allocation(job.id), "no allocation"),
        (
            lambda sim, job: (sim.start(job.id, gpus={0: 1}), sim.start(job.id, gpus={0: 1})),
            "cannot start job 1: it is running",
        ),
    ],
)
def test_impossible_policy_actions_raise(action, message):
    jobs = [SimJob(id=1, arrival=0.0, work=1.0, gpus=3),
            SimJob(id=2, arrival=5.0, work=1.0, gpus=1)]
    with pytest.raises(SimulationError, match=message):
        Simulator(make_cluster(2, 1), jobs, OnArrival(action)).run()


def test_a_failed_start_changes_nothing():
    seen = {}

    def try_too_many(sim: Simulator, job: SimJob) -> None:
        with pytest.raises(SimulationError):
            sim.start(job.id, gpus={1: 1, 0: 3})  # server 1 fits, server 0 does not
        seen["free"] = sim.free_gpus()
        seen["waiting"] = [waiting.id for waiting in sim.waiting()]

    jobs = [SimJob(id=1, arrival=0.0, work=1.0, gpus=3)]
    result = Simulator(make_cluster(2, 1), jobs, OnArrival(try_too_many)).run()
    assert seen == {"free": (2, 1), "waiting": [1]}
    assert result.unfinished == (1,)


def test_actions_outside_run_and_a_second_run_raise():
    sim = Simulator(make_cluster(1), [SimJob(id=1, arrival=0.0, work=1.0, gpus=1)], FifoPolicy())
    with pytest.raises(SimulationError, match="only while the simulator runs"):
        sim.start(1, gpus={0: 1})
    sim.run()
    with pytest.raises(SimulationError, match="runs only once"):
        sim.run()
    with pytest.raises(SimulationError, match="only while the simulator runs"):
        sim.preempt(1)


# ---------------------------------------------------------------- property test

small_instances = st.integers(min_value=1, max_value=3).flatmap(
    lambda num_servers: st.tuples(
        st.lists(st.integers(1, 4), min_size=num_servers, max_size=num_servers),
        st.lists(
            st.tuples(
                st.integers(0, 20).map(lambda half_seconds: half_seconds / 2),
                st.floats(min_value=0.1, max_value=10.0, allow_nan=False),
                st.integers(1, 12),
            ),
            min_size=1,
            max_size=7,
        ),
    )
)


@settings(max_examples=25, deadline=None)
@given(small_instances)
def test_fifo_conserves_gpu_seconds_and_never_oversubscribes(instance):
    gpus_per_server, raw_jobs = instance
    cluster = make_cluster(*gpus_per_server)
    jobs = [
        SimJob(id=index, arrival=arrival, work=work, gpus=min(gpus, cluster.total_gpus))
        for index, (arrival, work, gpus) in enumerate(raw_jobs)
    ]
    result = Simulator(cluster, jobs, FifoPolicy()).run()
    assert result.unfinished == ()

    in_use = [0] * cluster.num_servers
    held: dict[int, tuple[float, dict[int, int]]] = {}
    busy_gpu_seconds = 0.0
    for event in result.log:
        if event.kind == "start":
            held[event.job_id] = (event.time, event.detail["gpus"])
            for server, count in event.detail["gpus"].items():
                in_use[server] += count
                assert in_use[server] <= cluster.gpus_per_server[server]
        elif event.kind in ("complete", "preempt"):
            since, gpus = held.pop(event.job_id)
            busy_gpu_seconds += sum(gpus.values()) * (event.time - since)
            for server, count in gpus.items():
                in_use[server] -= count
    assert held == {} and in_use == [0] * cluster.num_servers
    expected = math.fsum(job.work * job.gpus for job in jobs)
    assert math.isclose(busy_gpu_seconds, expected, rel_tol=1e-9)
    assert math.isclose(math.fsum(result.gpu_seconds.values()), expected, rel_tol=1e-9)
    # strict FIFO: first starts are in arrival order
    ordered = sorted(jobs, key=lambda job: (job.arrival, job.id))
    starts = [result.start_first[job.id] for job in ordered]
    assert starts == sorted(starts)
