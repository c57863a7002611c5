"""The rar-online slot policies and GADGET as they were before the compact rewrite (git:
``optsched/problems/rar_online/policies.py`` and ``gadget.py`` before the online-scale branch),
on the previous engine (``tests/simulation/legacy_cluster.py``): the reference oracle of
``tests/ring_allreduce/test_rar_online_scale.py``. Not imported by optsched."""

from __future__ import annotations

import itertools
import math

import numpy as np

from optsched.problems.rar_online.gadget import pricing
from optsched.problems.rar_online.instance import RarOnlineInstance
from optsched.simulation.slots import SLOTS
from tests.simulation.legacy_cluster import Cluster, Policy, SimJob, Simulator


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
    """Base of slotted RAR policies: ``decide(slot)`` returns ``{job: {server: workers}}``."""

    def __init__(self, instance: RarOnlineInstance):
        self.instance = instance
        self.allocations: list[list] = []
        self.current: dict[int, dict[int, int]] = {}
        self.attained: dict[int, int] = {}  # GPU-slots served per job

    def on_tick(self, sim: Simulator, now: float) -> None:
        slot = SLOTS.slot_at(now)
        if slot >= self.instance.horizon:
            return
        active = {job.id for job in sim.waiting()} | {job.id for job in sim.running()}
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
    jobs = [SimJob(id=j, arrival=SLOTS.arrival_time(job.arrival), work=float(job.iterations), gpus=job.max_workers)
            for j, job in enumerate(instance.jobs) if job.arrival < instance.horizon]
    Simulator(cluster, jobs, policy, tick=1.0, max_time=SLOTS.max_time(instance.horizon), record_log=False).run()
    return policy.allocations


class GadgetPolicy(SlotPolicy):
    """The posted-price policy; ``exact`` selects ``gadget-exact`` (see the module docstring)."""

    def __init__(self, instance: RarOnlineInstance, *, buckets: int = 32, window: int = 48, exact: bool = False):
        super().__init__(instance)
        self.buckets, self.window, self.exact = buckets, window, exact
        S, T = len(instance.servers), instance.horizon
        self.gpu_used = np.zeros((S, T))
        self.links = instance.link_capacity
        self.link_used = np.zeros((len(self.links), T))
        self.caps = np.asarray(instance.servers, float)
        self.prices = pricing(instance)
        self.plans: dict[int, dict[int, dict[int, int]]] = {}
        self.admitted = 0
        self.rejected = 0
        self.decided: set[int] = set()
        self.energy_price = instance.energy_price if instance.objective == "energy" else 0.0

    def _slot_prices(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        pr = self.prices
        with np.errstate(over="ignore", invalid="ignore"):
            gpu = pr.gpu_a * pr.gpu_b ** (self.gpu_used[:, t] / self.caps)
            link = np.where(self.links > 0,
                            pr.link_a * pr.link_b ** (self.link_used[:, t] / np.where(self.links > 0, self.links, 1.0)),
                            math.inf)
        return gpu, link

    def _worker_choices(self, wmax: int) -> list[int]:
        if self.exact or wmax <= 8:
            return list(range(1, wmax + 1))
        return sorted({1 << k for k in range(int(math.log2(wmax)) + 1)} | {wmax})

    def _greedy(self, j, w, free, link_ok, gpu_price, link_price):
        """Greedy embedding of w workers in one slot: [(cost, parts)] (empty if none)."""
        r = self.instance.jobs[j].reserved_bandwidth
        fits = np.flatnonzero(free >= w)
        if fits.size:
            s = int(fits[np.argmin(gpu_price[fits])])
            return [(w * float(gpu_price[s]), {s: w})]
        ok = np.flatnonzero((free >= 1) & link_ok)
        if w < 2 or ok.size < 2 or free[ok].sum() < w:
            return []
        order = ok[np.argsort(gpu_price[ok] + r * link_price[ok] / np.maximum(free[ok], 1), kind="stable")]
        parts, rest, cost = {}, w, 0.0
        for s in order:
            take = int(min(free[s], rest))
            parts[int(s)] = take
            cost += take * float(gpu_price[s]) + r * float(link_price[s])
            rest -= take
            if rest == 0:
                break
        return [(cost, parts)] if len(parts) >= 2 else []

    def _exact_embeddings(self, j, free, link_ok, gpu_price, link_price) -> dict[tuple[int, bool], tuple]:
        """Cheapest single-server and spread embedding of every w: {(w, spread): (cost, parts)}."""
        wmax, r = self.instance.jobs[j].max_workers, self.instance.jobs[j].reserved_bandwidth
        out = {}
        for w in range(1, wmax + 1):
            fits = np.flatnonzero(free >= w)
            if fits.size:
                s = int(fits[np.argmin(gpu_price[fits])])
                out[w, False] = (w * float(gpu_price[s]), {s: w})
        # DP over servers: state (servers used capped at 2, workers) -> (cost, parts)
        states = {(0, 0): (0.0, {})}
        for s in np.flatnonzero((free >= 1) & link_ok):
            s = int(s)
            nxt = dict(states)
            for (used, x), (cost, parts) in states.items():
                for k in range(1, int(min(free[s], wmax - x)) + 1):
                    key = (min(used + 1, 2), x + k)
                    c = cost + k * float(gpu_price[s]) + r * float(link_price[s])
                    if key not in nxt or c < nxt[key][0]:
                        nxt[key] = (c, {**parts, s: k})
            states = nxt
        for (used, x), value in states.items():
            if used == 2 and x >= 2:
                out[x, True] = value
        return out

    def _graph_embeddings(self, j, free, link_ok, gpu_price, link_price) -> dict[tuple[int, bool], tuple]:
        """Graph network: {(w, spread): (cost, parts)} of job j's embeddings in one slot.

        Single server: the cheapest with w free GPUs. Spread: a set U of >= 2 servers whose
        footprint has r_j free on every link costs ``r_j sum_{k in footprint(U)} p_link(k)`` plus one
        GPU on each server of U plus the w - |U| cheapest further free GPUs in U. ``gadget-exact``
        enumerates every U (exact; 2^S sets, hence its server limit on graphs); ``gadget`` grows U
        greedily: it adds the server of least marginal cost per worker (its GPUs taken plus the
        links its addition brings into the footprint) until w GPUs are reached."""
        inst, job = self.instance, self.instance.jobs[j]
        wmax, r = job.max_workers, job.reserved_bandwidth
        choices = range(1, wmax + 1) if self.exact else self._worker_choices(wmax)
        out = {}
        for w in choices:
            fits = np.flatnonzero(free >= w)
            if fits.size:
                s = int(fits[np.argmin(gpu_price[fits])])
                out[w, False] = (w * float(gpu_price[s]), {s: w})
        cand = [int(s) for s in np.flatnonzero(free >= 1)]
        if wmax < 2 or len(cand) < 2:
            return out

        def link_cost(servers):
            links = inst.footprint(servers)
            if not all(link_ok[k] for k in links):
                return None
            return r * float(sum(link_price[k] for k in links))

        if self.exact:
            for size in range(2, min(len(cand), wmax) + 1):
                for subset in itertools.combinations(cand, size):
                    lc = link_cost(subset)
                    if lc is None:
                        continue
                    base = lc + sum(float(gpu_price[s]) for s in subset)
                    extra = sorted((float(gpu_price[s]), s) for s in subset for _ in range(int(free[s]) - 1))
                    parts, cost = {s: 1 for s in subset}, base
                    for w in range(size, wmax + 1):
                        if w > size:
                            if w - size > len(extra):
                                break
                            price, s = extra[w - size - 1]
                            cost += price
                            parts = {**parts, s: parts[s] + 1}
                        if (w, True) not in out or cost < out[w, True][0]:
                            out[w, True] = (cost, dict(parts))
            return out
        for w in choices:
            if w < 2 or free[cand].sum() < w:
                continue
            parts, rest, cost_links = {}, w, 0.0
            while rest > 0:
                best = None
                for s in cand:
                    if s in parts:
                        continue
                    lc = link_cost([*parts, s])
                    if lc is None:
                        continue
                    take = int(min(free[s], rest))
                    per_worker = (take * float(gpu_price[s]) + lc - cost_links) / take
                    if best is None or per_worker < best[0]:
                        best = (per_worker, s, take, lc)
                if best is None:
                    break
                _, s, take, cost_links = best
                parts[s] = take
                rest -= take
            if rest == 0 and len(parts) >= 2:
                out[w, True] = (cost_links + sum(k * float(gpu_price[s]) for s, k in parts.items()), parts)
        return out

    def _options(self, j, t):
        """[(cost, progress, parts)] of job j's non-idle options in slot t, in the capacity left."""
        inst, job = self.instance, self.instance.jobs[j]
        free = self.caps - self.gpu_used[:, t]
        link_ok = self.links - self.link_used[:, t] >= job.reserved_bandwidth
        gpu_price, link_price = self._slot_prices(t)
        table = inst.progress_table[j]
        if inst.is_graph:
            found = self._graph_embeddings(j, free, link_ok, gpu_price, link_price)
            emb = [(w, spread, cost, parts) for (w, spread), (cost, parts) in found.items()]
        elif self.exact:
            found = self._exact_embeddings(j, free, link_ok, gpu_price, link_price)
            emb = [(w, spread, cost, parts) for (w, spread), (cost, parts) in found.items()]
        else:
            emb = []
            for w in self._worker_choices(job.max_workers):
                for cost, parts in self._greedy(j, w, free, link_ok, gpu_price, link_price):
                    emb.append((w, len(parts) >= 2, cost, parts))
        return [(cost + w * self.energy_price, int(table[int(spread), w]), parts) for w, spread, cost, parts in emb]

    def best_response(self, j: int, start: int):
        """(utility minus cost, schedule {slot: parts}) of job j's best response, or None."""
        inst, job = self.instance, self.instance.jobs[j]
        end = inst.horizon if self.exact else min(inst.horizon, start + self.window)
        B = job.iterations if self.exact else min(self.buckets, job.iterations)
        q = job.iterations / B
        inf = math.inf
        value = np.full(B + 1, inf)
        value[0] = 0.0
        src = np.arange(B + 1)
        back = []
        for t in range(start, end):
            new, arg, prev = value.copy(), np.full(B + 1, -1), src.copy()
            options = self._options(j, t)
            for k, (cost, progress, _) in enumerate(options):
                step = progress if self.exact else int(math.floor(progress / q + 1e-9))
                if step <= 0:
                    continue
                dst = np.minimum(src + step, B)
                cand = value + cost
                # several sources reach B: the cheapest of them
                tail = src[dst == B]
                best_tail = int(tail[np.argmin(cand[tail])]) if tail.size else -1
                moved = np.full(B + 1, inf)
                origin = np.full(B + 1, -1)
                low = src[dst < B]
                moved[dst[low]] = cand[low]
                origin[dst[low]] = low
                if best_tail >= 0:
                    moved[B], origin[B] = cand[best_tail], best_tail
                better = moved < new
                new = np.where(better, moved, new)
                arg = np.where(better, k, arg)
                prev = np.where(better, origin, prev)
            value = new
            back.append((arg, prev, options, float(value[B])))
        best = None
        for i, (_, _, _, cost_done) in enumerate(back):
            if cost_done < inf:
                gain = job.utility(start + i + 1 - job.arrival) - cost_done
                if best is None or gain > best[0]:
                    best = (gain, i)
        if best is None:
            return None
        gain, last = best
        plan, b = {}, B
        for i in range(last, -1, -1):
            arg, prev, options, _ = back[i]
            if arg[b] >= 0:
                plan[start + i] = options[arg[b]][2]
            b = prev[b]
        return gain, plan

    def _commit(self, j, plan):
        r = self.instance.jobs[j].reserved_bandwidth
        for t, parts in plan.items():
            for s, w in parts.items():
                self.gpu_used[s, t] += w
            for k in self.instance.footprint(parts):
                self.link_used[k, t] += r

    def decide(self, sim, slot, active):
        inst = self.instance
        for j in sorted(active - self.decided, key=lambda j: (inst.jobs[j].arrival, j)):
            self.decided.add(j)
            response = self.best_response(j, slot)
            if response is not None and response[0] > 0:
                self._commit(j, response[1])
                self.plans[j] = response[1]
                self.admitted += 1
            else:
                self.rejected += 1
        return {j: plan[slot] for j, plan in self.plans.items() if j in active and slot in plan}
