"""Online policies of ``rar-online`` on the shared simulator (:mod:`optsched.simulation.cluster`).

Time unit = one slot; slot t is the interval [t + 1, t + 2) of simulator time, so every slot's
decisions are taken at a tick (the simulator ticks at 1, 2, ...). A job of arrival slot a arrives
at time a + 1, before that instant's tick. A running job's rate is its progress per slot
(worker-iterations, integers), so progress between ticks is exact. Each policy decides, at each
tick, the allocation of every job for that slot; the policy records them, and the recorded
allocations are the solution the checker re-evaluates.

Link capacities: a spread placement takes r_j on every link of its footprint
(:meth:`RarOnlineInstance.footprint`: the uplinks used on the flat network, the union of the fixed
routes between its servers on a graph network).
"""

from __future__ import annotations

import numpy as np

from optsched.simulation.cluster import Cluster, JobTable, Policy, SimJob, Simulator
from optsched.simulation.slots import SLOTS

from .instance import RarOnlineInstance

__all__ = ["SlotPolicy", "FifoRar", "TiresiasLas", "run_policy", "contained_best_fit", "spread_fewest",
           "spread_fewest_graph"]


def contained_best_fit(free: np.ndarray, workers: int) -> dict[int, int] | None:
    """The server with the fewest free GPUs that still holds ``workers`` (ties: lower index)."""
    fits = np.flatnonzero(free >= workers)
    if fits.size == 0:
        return None
    return {int(fits[np.argmin(free[fits])]): workers}


def spread_fewest(free: np.ndarray, link_free: np.ndarray, workers: int, reserve: float) -> dict[int, int] | None:
    """``workers`` on the fewest servers (most free GPUs first) whose uplinks can reserve ``reserve``."""
    ok = np.flatnonzero((free >= 1) & (link_free >= reserve))
    order = ok[np.argsort(-free[ok], kind="stable")]
    out, rest = {}, workers
    for s in order:
        take = int(min(free[s], rest))
        out[int(s)] = take
        rest -= take
        if rest == 0:
            return out if len(out) >= 2 else None
    return None


def spread_fewest_graph(instance: RarOnlineInstance, free: np.ndarray, link_free: np.ndarray, workers: int,
                        reserve: float) -> dict[int, int] | None:
    """Graph network: servers in order of most free GPUs (stable), each added when the footprint of
    the servers chosen so far plus it still has ``reserve`` free on every link; None if fewer than
    two servers or ``workers`` GPUs result."""
    order = np.argsort(-free, kind="stable")
    out, rest = {}, workers
    for s in order:
        if free[s] < 1:
            continue
        if not all(link_free[k] >= reserve for k in instance.footprint([*out, int(s)])):
            continue
        take = int(min(free[s], rest))
        out[int(s)] = take
        rest -= take
        if rest == 0:
            return out if len(out) >= 2 else None
    return None


class SlotPolicy(Policy):
    """Base of slotted RAR policies: ``decide(slot)`` returns ``{job: {server: workers}}``.

    ``decide`` receives the set of active (arrived, not done) jobs, built at every tick from the
    simulator's queues -- O(active) per slot; a policy that tracks what it needs itself sets
    ``needs_active = False`` and receives None (``gadget``: rejected jobs stay waiting forever,
    so the active set grows with the stream).
    """

    needs_active = True

    def __init__(self, instance: RarOnlineInstance):
        self.instance = instance
        self.allocations: list[list] = []
        self.current: dict[int, dict[int, int]] = {}
        self.attained: dict[int, int] = {}  # GPU-slots served per job

    def on_tick(self, sim: Simulator, now: float) -> None:
        slot = SLOTS.slot_at(now)
        if slot >= self.instance.horizon:
            return
        active = ({job.id for job in sim.waiting()} | {job.id for job in sim.running()}) if self.needs_active else None
        plan = self.decide(sim, slot, active)
        for j in list(self.current):
            if j not in plan or plan[j] != self.current[j]:
                if sim.status(j) == "running":
                    sim.preempt(j)
                del self.current[j]
        for j, parts in plan.items():
            if self.current.get(j) != parts:
                spread = len(parts) >= 2
                rate = float(self.instance.progress_table[j][int(spread), sum(parts.values())])
                sim.start(j, gpus=parts, rate=rate)
                self.current[j] = parts
            self.allocations.append([j, slot, [[s, w] for s, w in sorted(parts.items())]])
            self.attained[j] = self.attained.get(j, 0) + sum(parts.values())

    def on_completion(self, sim: Simulator, job: SimJob, now: float) -> None:
        self.current.pop(job.id, None)

    def decide(self, sim: Simulator, slot: int, active: set[int]) -> dict[int, dict[int, int]]:
        raise NotImplementedError

    def place(self, j: int, workers: int, free: np.ndarray, link_free: np.ndarray) -> dict[int, int] | None:
        """Cheapest placement: one server (best fit) if one holds it, else the fewest servers."""
        parts = contained_best_fit(free, workers)
        if parts is None and workers >= 2:
            reserve = self.instance.jobs[j].reserved_bandwidth
            if self.instance.is_graph:
                parts = spread_fewest_graph(self.instance, free, link_free, workers, reserve)
            else:
                parts = spread_fewest(free, link_free, workers, reserve)
        return parts

    def take(self, j: int, parts: dict[int, int], free: np.ndarray, link_free: np.ndarray) -> None:
        """Take the GPUs of ``parts`` and r_j on every link of its footprint (flat: the uplinks used)."""
        for s, w in parts.items():
            free[s] -= w
        for k in self.instance.footprint(parts):
            link_free[k] -= self.instance.jobs[j].reserved_bandwidth


class FifoRar(SlotPolicy):
    """``fifo`` [ours]: arrival order, each job at its ``max_workers`` on the cheapest placement,
    non-preemptive; the first waiting job that does not fit blocks the ones behind it."""

    def decide(self, sim, slot, active):
        inst = self.instance
        plan = {j: parts for j, parts in self.current.items() if j in active}
        free = np.asarray(inst.servers, dtype=np.int64).copy()
        link_free = inst.link_capacity.copy()
        for j, parts in plan.items():
            self.take(j, parts, free, link_free)
        for j in sorted(active - set(plan), key=lambda j: (inst.jobs[j].arrival, j)):
            parts = self.place(j, inst.jobs[j].max_workers, free, link_free)
            if parts is None:
                break
            self.take(j, parts, free, link_free)
            plan[j] = parts
        return plan


class TiresiasLas(SlotPolicy):
    """``tiresias-las`` [ours, after Tiresias' discretized 2D-LAS]: each slot, jobs in order of
    (queue, arrival), queue 0 while the attained service (GPU-slots) is below ``threshold``,
    queue 1 after; each gets ``max_workers`` on its current placement if still free, else the
    cheapest one; jobs that fit nowhere are skipped (backfilling) and running jobs not chosen are
    preempted (progress kept, no restart cost)."""

    def __init__(self, instance, threshold: float):
        super().__init__(instance)
        self.threshold = threshold

    def decide(self, sim, slot, active):
        inst = self.instance
        free = np.asarray(inst.servers, dtype=np.int64).copy()
        link_free = inst.link_capacity.copy()
        plan = {}
        key = lambda j: (int(self.attained.get(j, 0) >= self.threshold), inst.jobs[j].arrival, j)  # noqa: E731
        for j in sorted(active, key=key):
            parts = self.current.get(j)
            if parts is not None and not all(free[s] >= w for s, w in parts.items()):
                parts = None
            if parts is not None and not all(
                    link_free[k] >= inst.jobs[j].reserved_bandwidth for k in inst.footprint(parts)):
                parts = None
            if parts is None:
                parts = self.place(j, inst.jobs[j].max_workers, free, link_free)
            if parts is None:
                continue
            self.take(j, parts, free, link_free)
            plan[j] = parts
        return plan


def run_policy(instance: RarOnlineInstance, policy: SlotPolicy) -> list[list]:
    """Run ``policy`` on the simulator over the horizon; return its recorded allocations."""
    cluster = Cluster(gpus_per_server=instance.servers, intra_bandwidth=instance.intra_bandwidth,
                      inter_bandwidth=float(instance.link_capacity.max(initial=0.0)) or 1.0)
    live = [j for j, job in enumerate(instance.jobs) if job.arrival < instance.horizon]
    jobs = instance.jobs
    table = JobTable(live, [SLOTS.arrival_time(jobs[j].arrival) for j in live], [float(jobs[j].iterations) for j in live],
                     [jobs[j].max_workers for j in live])   # columns: no SimJob per job of a long stream
    Simulator(cluster, table, policy, tick=1.0, max_time=SLOTS.max_time(instance.horizon), record_log=False).run()
    return policy.allocations
