"""``gadget`` and ``gadget-exact``: posted-price online scheduling of elastic RAR jobs
[reconstruction of GADGET, INFOCOM'22, whose details are not public; pricing after the online
primal-dual framework of OASiS, Bao et al. INFOCOM'18]. Docs: ``optsched/problems/rar_online/README.md#gadget``.

Resources k: the GPU pool of each server and the uplink of each server (graph network: each link),
in each slot (those of positive capacity; |K| of them). With V1 the largest utility one job can earn alone on the empty
cluster and Umax_k an upper bound on utility per unit of k (``Pricing``), the price of k at
utilization y of its capacity c_k is

    p_k(y) = (V1 / (2 |K| c_k)) * b_k^(y / c_k),    b_k = 2 |K| c_k Umax_k / V1,

that is OASiS' ``(Umin_k / (2 eta)) (2 eta Umax_k / Umin_k)^(y / c_k)`` with ``Umin_k = m / c_k`` and
``eta = |K| m / V1`` (m > 0 cancels). On arrival of job j (in arrival order) the policy computes its
best response against current prices -- a DP over its slots and its progress, where a slot's option
is idle or w workers embedded in the capacity left -- admits j iff utility minus cost is positive,
commits the schedule and raises the prices.

* ``gadget-exact``: every slot up to T, exact progress (states 0..F_j), every w in 1..Wmax, and for
  each w both the cheapest single-server embedding and the cheapest spread one (an exact DP over
  servers): the best response is exact over all schedules that fit the remaining capacity.
  Guarantee [ours, Theorem G in the docs]: with the plain utility objective and
  ``beta = max_k b_k^eps < 2`` (eps = the largest per-slot demand / capacity),
  ``ALG >= OPT (2 - beta) / (2 alpha beta^2)``, ``alpha = max_k max(1, ln b_k)``; as eps -> 0 this is
  ``OPT / (2 alpha)``.
* ``gadget``: the practical variant: a window of slots after arrival, progress in buckets (rounded
  down per slot: the plan is conservative, each slot over-provisions by less than F_j / buckets),
  worker counts 1..Wmax up to 8 else powers of two and Wmax, and a greedy embedding (the cheapest
  single server with w free GPUs, else the cheapest servers by GPU price plus uplink price, filled
  in that order). No guarantee: empirical.

With ``objective = "energy"`` both add the energy price per GPU-slot to the cost (outside the
theorem's conditions).

Graph network (``links``): a spread embedding over servers U costs ``r_j`` times the prices of the
links of its footprint (the union of the fixed routes between the servers of U; routes are fixed,
not price-dependent, so every method, the checker and the ``milp`` share one feasible set).
``gadget-exact`` enumerates every set U, ``gadget`` grows U greedily (``_graph_embeddings``).
Theorem G is registered for the flat network only (its ``applies`` says so on a graph).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .instance import RarOnlineInstance
from .policies import SlotPolicy

__all__ = ["GadgetPolicy", "Pricing", "pricing", "exact_effort"]


@dataclass(frozen=True)
class Pricing:
    """The price functions' parameters and Theorem G's constants, computed from the instance."""

    v1: float                 # largest utility of one job alone on the empty cluster
    resources: int            # |K|: GPU pools and uplinks of positive capacity, times T
    gpu_a: np.ndarray         # p(0) per server's GPU pool
    gpu_b: np.ndarray         # growth base b_k per server's GPU pool
    link_a: np.ndarray
    link_b: np.ndarray
    alpha: float              # max_k max(1, ln b_k)
    eps: float                # largest per-slot demand / capacity over usable resources
    beta: float               # max_k b_k^eps

    @property
    def ratio(self) -> float | None:
        """Theorem G's factor 2 alpha beta^2 / (2 - beta), or None when beta >= 2 (no guarantee)."""
        if not self.beta < 2 or self.v1 <= 0:
            return None
        return 2 * self.alpha * self.beta ** 2 / (2 - self.beta)


def _alone_best(instance: RarOnlineInstance, j: int) -> float:
    """Utility of job j alone on the empty cluster at its fastest per-slot option (0 if it cannot
    finish by T): a feasible schedule, so a lower bound on OPT."""
    job, S = instance.jobs[j], len(instance.servers)
    table = instance.progress_table[j]
    best = 0
    for w in range(1, job.max_workers + 1):
        if w <= max(instance.servers):
            best = max(best, int(table[0, w]))
        if instance.is_graph:
            # conservative (V1 stays a feasible value): spread only over all servers, if their footprint fits
            caps = instance.link_capacity
            fits = all(caps[k] >= job.reserved_bandwidth for k in instance.routed_links)
            if w >= 2 and S >= 2 and fits and sum(instance.servers) >= w:
                best = max(best, int(table[1, w]))
            continue
        usable = [n for n, u in zip(instance.servers, instance.uplinks) if u >= job.reserved_bandwidth]
        if w >= 2 and S >= 2 and len(usable) >= 2 and sum(usable) >= w:
            best = max(best, int(table[1, w]))
    if best == 0:
        return 0.0
    slots = math.ceil(job.iterations / best)
    return job.utility(slots) if job.arrival + slots <= instance.horizon else 0.0


def pricing(instance: RarOnlineInstance) -> Pricing:
    """V1, Umax_k, the price parameters and Theorem G's alpha, eps and beta (module docstring).

    Umax of a GPU pool: ``max(max_j U_j(1), V1 / n_s)`` (a schedule uses at least one GPU of a pool
    it uses, and earns at most U_j(1)); of an uplink: ``max(max_j U_j(1) / r_j, V1 / upl_s)`` over
    the jobs that can reserve on it. Raising Umax to V1 / c_k keeps it an upper bound and makes
    ``b_k >= 2 |K|``.
    """
    inst = instance
    servers = np.asarray(inst.servers, float)
    links = inst.link_capacity
    live = [j for j, job in enumerate(inst.jobs) if job.arrival < inst.horizon]
    v1 = max((_alone_best(inst, j) for j in live), default=0.0)
    resources = (int(np.count_nonzero(servers > 0)) + int(np.count_nonzero(links > 0))) * inst.horizon
    vmax = max((inst.jobs[j].utility(1) for j in live), default=0.0)
    if v1 <= 0:
        ones, link_ones = np.ones(len(servers)), np.ones(len(links))
        return Pricing(0.0, resources, ones, ones * math.e, link_ones, link_ones * math.e, 1.0, math.inf, math.inf)
    gpu_umax = np.maximum(vmax, v1 / servers)
    spreaders = [j for j in live if inst.jobs[j].max_workers >= 2 and len(servers) >= 2]
    link_umax = np.zeros(len(links))
    eps = 0.0
    for s, cap in enumerate(links):
        if cap <= 0:
            continue
        users = [j for j in spreaders if inst.jobs[j].reserved_bandwidth <= cap]
        dens = max((inst.jobs[j].utility(1) / inst.jobs[j].reserved_bandwidth for j in users), default=0.0)
        link_umax[s] = max(dens, v1 / cap)
        eps = max([eps] + [inst.jobs[j].reserved_bandwidth / cap for j in users])
    for j in live:
        eps = max(eps, float(np.max(np.minimum(inst.jobs[j].max_workers, servers) / servers)))
    with np.errstate(divide="ignore", invalid="ignore"):
        gpu_a = v1 / (2 * resources * servers)
        gpu_b = 2 * resources * servers * gpu_umax / v1
        link_a = np.where(links > 0, v1 / (2 * resources * np.where(links > 0, links, 1.0)), math.inf)
        link_b = np.where(links > 0, 2 * resources * links * link_umax / v1, 1.0)
    bases = np.concatenate([gpu_b, link_b[links > 0]])
    alpha = float(max(1.0, np.log(bases).max()))
    beta = float(bases.max() ** eps)
    return Pricing(v1, resources, gpu_a, gpu_b, link_a, link_b, alpha, float(eps), beta)


def exact_effort(instance: RarOnlineInstance) -> int:
    """Work of ``gadget-exact``'s DPs: sum_j (T - a_j) (F_j + 1) (2 Wmax_j) (its applicability test)."""
    return sum(max(0, instance.horizon - job.arrival) * (job.iterations + 1) * 2 * job.max_workers
               for job in instance.jobs)


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
        self.plans: dict[int, dict[int, dict[int, int]]] = {}   # admitted, not done: {slot: parts}
        self.by_slot: dict[int, dict[int, dict[int, int]]] = {}  # slot -> {job: parts}, admission order
        self.admitted = 0
        self.rejected = 0
        self._arrived: list[int] = []   # arrived since the last decision
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

    def _window_options(self, j: int, start: int, end: int) -> list[list[tuple]]:
        """``gadget``'s options (flat network) in every slot of ``[start, end)`` at once:
        ``[[(cost, progress, w, spread), ...] per slot]``, in the order and with the floats of
        :meth:`_options` (prices, greedy embeddings and their costs computed on (servers x
        slots) arrays; the embedding itself is rebuilt by :meth:`_greedy` for the chosen slots)."""
        inst, job = self.instance, self.instance.jobs[j]
        r, pr = job.reserved_bandwidth, self.prices
        used, link_used = self.gpu_used[:, start:end], self.link_used[:, start:end]
        L = end - start
        cols = np.arange(L)
        free = self.caps[:, None] - used
        link_ok = self.links[:, None] - link_used >= r
        with np.errstate(over="ignore", invalid="ignore"):
            gpu_price = pr.gpu_a[:, None] * pr.gpu_b[:, None] ** (used / self.caps[:, None])
            safe = np.where(self.links > 0, self.links, 1.0)[:, None]
            link_price = np.where(self.links[:, None] > 0, pr.link_a[:, None] * pr.link_b[:, None] ** (link_used / safe),
                                  math.inf)
        ok = (free >= 1) & link_ok
        n_ok = ok.sum(axis=0)
        spread_order = None
        table = inst.progress_table[j]
        per_slot: list[list[tuple]] = [[] for _ in range(L)]
        for w in self._worker_choices(job.max_workers):
            fits = free >= w
            any_fit = fits.any(axis=0)
            single = np.where(fits, gpu_price, math.inf).argmin(axis=0)
            single_cost = w * gpu_price[single, cols]
            spread_ok = ~any_fit & (n_ok >= 2) if w >= 2 else np.zeros(L, bool)
            if spread_ok.any():
                if spread_order is None:   # servers by greedy key, usable ones first (stable: ties by index)
                    with np.errstate(over="ignore", invalid="ignore"):
                        key = np.where(ok, gpu_price + r * link_price / np.maximum(free, 1), math.inf)
                    spread_order = np.argsort(key, axis=0, kind="stable")
                    f_sorted = np.where(np.take_along_axis(ok, spread_order, 0),
                                        np.take_along_axis(free, spread_order, 0), 0.0)
                    g_sorted = np.take_along_axis(gpu_price, spread_order, 0)
                    l_sorted = np.take_along_axis(link_price, spread_order, 0)
                    cum = np.cumsum(f_sorted, axis=0)
                reach = cum >= w
                spread_ok &= reach[-1]
                k = reach.argmax(axis=0)
                spread_ok &= k >= 1
                take = np.minimum(f_sorted, w - (cum - f_sorted))
                with np.errstate(over="ignore", invalid="ignore"):
                    spread_cost = np.cumsum(take * g_sorted + r * l_sorted, axis=0)[k, cols]
            for t in np.flatnonzero(any_fit | spread_ok).tolist():
                if any_fit[t]:
                    per_slot[t].append((float(single_cost[t]) + w * self.energy_price, int(table[0, w]), w, False))
                else:
                    per_slot[t].append((float(spread_cost[t]) + w * self.energy_price, int(table[1, w]), w, True))
        return per_slot

    def _parts_of(self, j: int, t: int, w: int) -> dict[int, int]:
        """The embedding :meth:`_greedy` builds for w workers of job j in slot t (current state)."""
        job = self.instance.jobs[j]
        free = self.caps - self.gpu_used[:, t]
        link_ok = self.links - self.link_used[:, t] >= job.reserved_bandwidth
        gpu_price, link_price = self._slot_prices(t)
        return self._greedy(j, w, free, link_ok, gpu_price, link_price)[0][1]

    def best_response(self, j: int, start: int):
        """(utility minus cost, schedule {slot: parts}) of job j's best response, or None."""
        inst, job = self.instance, self.instance.jobs[j]
        end = inst.horizon if self.exact else min(inst.horizon, start + self.window)
        fast = not self.exact and not inst.is_graph
        if fast:
            window = self._window_options(j, start, end)
            if not any(window):
                return None   # no option in any slot: the DP below would find no schedule
            # A schedule needs at least k slots with an option (k = buckets / the largest step), so it
            # costs at least k times the cheapest option (float sums of positive costs only grow:
            # the DP adds the same way) and completes no earlier than slot start + k - 1 (utilities
            # do not increase with delay): when that bound cannot be positive, neither is the DP's
            # best gain, or there is no schedule at all -- the same rejection, without the DP.
            cheapest = min(option[0] for options in window for option in options)
            q0 = job.iterations / min(self.buckets, job.iterations)
            top = max(int(math.floor(option[1] / q0 + 1e-9)) for options in window for option in options)
            buckets = min(self.buckets, job.iterations)
            if top <= 0:
                return None
            k = -(-buckets // top)
            if k > sum(1 for options in window if options):
                return None
            if cheapest > 0:
                bound = 0.0
                for _ in range(k):
                    bound += cheapest
                if job.utility(start + k - job.arrival) - bound <= 0:
                    return None
        B = job.iterations if self.exact else min(self.buckets, job.iterations)
        q = job.iterations / B
        inf = math.inf
        value = np.full(B + 1, inf)
        value[0] = 0.0
        src = np.arange(B + 1)
        back = []
        rows = np.arange(16)[:, None]
        step_of: dict[int, int] = {}
        for i, t in enumerate(range(start, end)):
            if fast:
                options = window[i]
                steps = []
                for option in options:
                    step = step_of.get(option[1])
                    if step is None:
                        step = step_of[option[1]] = int(math.floor(option[1] / q + 1e-9))
                    steps.append(step)
            else:
                options = self._options(j, t)
                steps = [progress if self.exact else int(math.floor(progress / q + 1e-9))
                         for _, progress, _ in options]
            live = [k for k, step in enumerate(steps) if step > 0]
            if not live:
                back.append((None, None, options, float(value[B])))   # idle everywhere
                continue
            # all options at once: moved[o, d] = value reaching d through option o; the option kept at
            # d is the first cheapest (as a sequential scan with strict improvement), and only if it
            # beats staying idle
            n_live = len(live)
            if len(rows) < n_live:
                rows = np.arange(n_live)[:, None]
            step = np.asarray([steps[k] for k in live])[:, None]
            cand = value + np.asarray([options[k][0] for k in live])[:, None]
            origin = src - step
            moved = np.where(origin >= 0, cand[rows[:n_live], np.maximum(origin, 0)], inf)
            tail = np.where(src >= B - step, cand, inf)
            best_tail = tail.argmin(axis=1)
            moved[:, B] = tail[rows[:n_live, 0], best_tail]
            origin[:, B] = best_tail
            if n_live == 1:
                best, better = moved[0], moved[0] < value
                arg = np.where(better, live[0], -1)
                prev = np.where(better, origin[0], src)
            else:
                pick = moved.argmin(axis=0)
                best = moved[pick, src]
                better = best < value
                arg = np.where(better, np.asarray(live)[pick], -1)
                prev = np.where(better, origin[pick, src], src)
            value = np.where(better, best, value)
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
            if arg is None:
                continue   # idle in this slot
            if arg[b] >= 0:
                option = options[arg[b]]
                plan[start + i] = self._parts_of(j, start + i, option[2]) if fast else option[2]
            b = prev[b]
        return gain, plan

    def _commit(self, j, plan):
        r = self.instance.jobs[j].reserved_bandwidth
        for t, parts in plan.items():
            for s, w in parts.items():
                self.gpu_used[s, t] += w
            for k in self.instance.footprint(parts):
                self.link_used[k, t] += r

    needs_active = False

    def on_arrival(self, sim, job, now):
        self._arrived.append(job.id)

    def on_completion(self, sim, job, now):
        super().on_completion(sim, job, now)
        for t in self.plans.pop(job.id, ()):
            self.by_slot.get(t, {}).pop(job.id, None)

    def decide(self, sim, slot, active):
        """Decide the jobs arrived since the last slot (by arrival, then id), then return this
        slot's part of the plans of the admitted jobs not yet done."""
        inst = self.instance
        arrived, self._arrived = self._arrived, []
        for j in sorted(arrived, key=lambda j: (inst.jobs[j].arrival, j)):
            response = self.best_response(j, slot)
            if response is not None and response[0] > 0:
                self._commit(j, response[1])
                self.plans[j] = response[1]
                for t, parts in response[1].items():
                    self.by_slot.setdefault(t, {})[j] = parts
                self.admitted += 1
            else:
                self.rejected += 1
        return self.by_slot.pop(slot, {})
