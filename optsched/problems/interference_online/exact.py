"""The best decision-instant schedule and a volume lower bound of ``interference-online`` [ours].

**Schedule class (the class ``bb`` searches; its optimum OPT_class is not the problem's OPT: a
start between decision instants can be better, README and ``tests/interference_online/test_exact.py``).** Offline (every arrival, type, demand and
iteration count known in advance), non-preemptive, non-migrating: a job starts once, at or after
its arrival, on a fixed set of servers with a fixed GPU count per server (any split summing to its
demand, within the free GPUs, no forbidden pair on a server), and runs until its iterations are
done at the rate of the instance's rate model for its *current* co-runners (the rate changes
whenever a job sharing one of its servers starts or ends). Jobs start only at *decision
instants*: the arrival instants and the completion instants of the schedule itself. At each such
instant any subset of the waiting jobs may start, with any placements (idling is allowed, also on
an idle cluster while arrivals remain).

Every online method of this problem acts only in the simulator's arrival and completion hooks
(:mod:`.policies`: ``on_arrival``/``on_completion``; no ticks), places with the same rate model
and never preempts or migrates, so each of its schedules is a member of this class and
``ALG >= OPT_class`` (up to the float rounding of two event loops integrating the same rates).

**Search.** Depth-first branch and bound over decision instants with an explicit stack: a node is
the state at a decision instant (running jobs with placements and remaining iterations, waiting
jobs, the next arrival); its children are every start set (job subsets x placements, empty
servers of equal capacity taken in canonical order: they are interchangeable), each advanced to
the next arrival or completion. Children are pushed best bound last (explored first). The
incumbent starts from the best online heuristic's schedule (all in the class). A state (instant,
running jobs with placements and remaining iterations, waiting jobs, next arrival) reached again
with no smaller sum of JCTs so far is skipped: the same state has the same completions, and the
first visit's subtree (explored, pruned against an incumbent at least as good, or still on the
stack) covers them.

**Node bound** (``done + max(isolated, rank)``): ``done`` = the completed jobs' JCTs. Earliest
end ``E_j`` of each unfinished job: a running job makes at most its rate with its current
co-runners until each co-runner's remaining isolated time has passed (a co-runner cannot leave
earlier; new ones only slow it more), then without it; a waiting or future job starts no earlier
than its arrival, ``now``, and the instant the running jobs' earliest ends free enough GPUs for it
(later starts only hold more GPUs), and runs at least its isolated time at its fewest servers
(``beta >= 0``). ``isolated`` = ``sum_j (E_j - a_j)``. ``rank``: the GPU volume each unfinished
job still holds (``g_j`` x its least remaining run time) passes through ``M`` GPUs, so the
schedule's volumes form a (processor-sharing) schedule on one machine of speed ``M``; by EDF on its
completion times and SRPT's optimality for the number of jobs done by every instant (Schrage
1968), its ``k``-th completion is at least SRPT's ``k``-th ``S_(k)``; it is also at least the
``k``-th smallest ``E``; so ``sum_j C_j >= sum_k max(E_(k), S_(k))``. Both hold for every
completion of the node, so pruning a node whose bound reaches the incumbent loses no better
schedule.

The same volume bound at the root (no job started, now = 0) is the method ``lb-volume``; with the
isolated bound it is valid for every schedule, not only the decision-instant class (the argument
uses only capacity, ``beta >= 0`` and the spread factor).
"""

from __future__ import annotations

import heapq
import math

from optsched.core.errors import NotApplicable
from optsched.core.registry import Outcome

__all__ = ["BB_MAX_JOBS", "BB_MAX_SERVERS", "BB_MAX_GPUS", "bb", "bb_search", "bb_applies", "volume_bound", "srpt_sum",
           "isolated_times", "lower_bound_volume", "PRUNE_RTOL",
           "srpt_completions", "rank_bound"]

#: the search is exponential in the jobs waiting at once: measured (README) it completes on 8-job
#: streams of 2 servers x 2 GPUs in seconds, on most 10-job ones within 120 s and on no 12-job one
#: within 120 s; the limits bound the enumeration per node, and the clock (read every 64 nodes and
#: every 64 start sets) stops the rest
BB_MAX_JOBS = 12
BB_MAX_SERVERS = 4
BB_MAX_GPUS = 32
#: a node is pruned when its bound reaches the incumbent up to this relative margin (float sums of
#: a dozen JCTs lose a few ulps, 1e-16 relative each); the margin's effect is reported: the
#: returned bound is the least bound of a node pruned inside the margin, never above OPT
PRUNE_RTOL = 1e-12
#: clock check every this many nodes (work-based; the time limit is the last guard)
CHECK_EVERY = 64


def bb_applies(instance) -> tuple[bool, str]:
    n, s, g = instance.num_jobs, instance.num_servers, sum(instance.gpus_per_server)
    if n > BB_MAX_JOBS:
        return False, f"jobs = {n}, bb needs jobs <= {BB_MAX_JOBS}"
    if s > BB_MAX_SERVERS:
        return False, f"servers = {s}, bb needs servers <= {BB_MAX_SERVERS}"
    if g > BB_MAX_GPUS:
        return False, f"GPUs = {g}, bb needs GPUs <= {BB_MAX_GPUS}"
    return True, f"jobs = {n} <= {BB_MAX_JOBS}, servers = {s} <= {BB_MAX_SERVERS}, GPUs = {g} <= {BB_MAX_GPUS}"


def isolated_times(instance) -> list[float]:
    """``R_j tau_j (1 + gamma (ceil(g_j / G_max) - 1))``: each job's least possible run time."""
    gmax = max(instance.gpus_per_server)
    return [j.isolated_time * (1 + instance.spread_penalty * (math.ceil(j.gpus / gmax) - 1)) for j in instance.jobs]


def srpt_completions(items, speed: float, poll=None) -> list[float]:
    """Completion times, in increasing order, of preemptive SRPT on one machine of ``speed``;
    ``items`` are ``(release, volume)``. SRPT completes the most jobs by every instant among all
    preemptive single-machine schedules (Schrage 1968), so its ``k``-th completion is the
    earliest possible ``k``-th completion. ``poll`` (a clock check) is called every 4,096 steps."""
    items = sorted(items)
    t, done, k, heap, steps = 0.0, [], 0, [], 0
    n = len(items)
    while k < n or heap:
        steps += 1
        if poll is not None and steps % 4096 == 0:
            poll()
        if not heap:
            t = max(t, items[k][0])
        while k < n and items[k][0] <= t:
            heapq.heappush(heap, items[k][1] / speed)
            k += 1
        left = heapq.heappop(heap)
        nxt = items[k][0] if k < n else math.inf
        if t + left <= nxt:
            t += left
            done.append(t)
        else:
            heapq.heappush(heap, left - (nxt - t))
            t = nxt
    return done


def srpt_sum(items, speed: float) -> float:
    """Sum of completion times of preemptive SRPT on one machine of ``speed`` (the least such sum)."""
    return sum(srpt_completions(items, speed))


def rank_bound(earliest, items, speed: float, poll=None) -> float:
    """``sum_k max(E_(k), S_(k))``: the ``k``-th completion of any schedule is at least the
    ``k``-th smallest per-job earliest completion ``E`` (``k`` jobs done, each no earlier than its
    own) and at least SRPT's ``k``-th completion ``S`` on the volumes (``items``)."""
    e = sorted(earliest)
    s = srpt_completions(items, speed, poll)
    return sum(max(a, b) for a, b in zip(e, s))


def volume_bound(instance, poll=None) -> float:
    """``(1/n) (sum_k max(E_(k), S_(k)) - sum_j a_j)``: per-job earliest ends ``a_j + p_j`` and
    SRPT on ``M`` GPUs of the volumes ``g_j p_j`` released at ``a_j``, rank by rank."""
    p = isolated_times(instance)
    m = sum(instance.gpus_per_server)
    items = [(j.arrival, j.gpus * pj) for j, pj in zip(instance.jobs, p)]
    earliest = [j.arrival + pj for j, pj in zip(instance.jobs, p)]
    return (rank_bound(earliest, items, m, poll) - sum(j.arrival for j in instance.jobs)) / instance.num_jobs


def lower_bound_volume(instance, ctx) -> Outcome:
    """``max(lb, volume)``: the isolated-time bound and the GPU-volume SRPT bound."""
    iso = sum(isolated_times(instance)) / instance.num_jobs
    vol = volume_bound(instance, ctx.check_time if ctx is not None else None)   # long streams: the clock
    value = max(iso, vol)
    return Outcome(objective=value, bound=value, status="optimal", stats={"isolated": iso, "volume": vol})


class _Search:
    def __init__(self, instance, ctx, node_limit, use_bound=True):
        self.inst, self.ctx, self.node_limit, self.use_bound = instance, ctx, node_limit, use_bound
        order = sorted(range(instance.num_jobs), key=lambda k: (instance.jobs[k].arrival, instance.jobs[k].id))
        self.jobs = [instance.jobs[k] for k in order]
        self.n = len(self.jobs)
        self.cap = tuple(instance.gpus_per_server)
        self.M = sum(self.cap)
        self.gamma = instance.spread_penalty
        gmax = max(self.cap)
        self.minspread = [1 + self.gamma * (math.ceil(j.gpus / gmax) - 1) for j in self.jobs]
        self.p = [j.isolated_time * f for j, f in zip(self.jobs, self.minspread)]
        self.arr = [j.arrival for j in self.jobs]
        self.nodes = 0
        self.best = math.inf
        self.best_hist = None
        self.margin_bound = math.inf   # least bound of a node pruned inside PRUNE_RTOL
        self.seen = {}                 # state (without the JCTs so far) -> least JCTs so far seen
        self.stopped = None

    # -- state: (t, done, running, waiting, nxt, hist); running: tuple of (k, servers, counts, rem)
    def rate(self, k, servers, members):
        job = self.jobs[k]
        beta = self.inst.beta[job.type]
        mates = set()
        for s in servers:
            mates |= members[s]
        mates.discard(k)
        f = 1.0 + sum(beta[self.jobs[m].type] for m in mates) + self.gamma * (len(servers) - 1)
        return 1.0 / (job.step_time * f)

    def advance(self, t, done, running, waiting, nxt, hist):
        """From a decision made at ``t`` to the next state with waiting jobs (or the leaf)."""
        while True:
            members = [set() for _ in self.cap]
            for k, servers, counts, rem in running:
                for s in servers:
                    members[s].add(k)
            rates = [self.rate(k, servers, members) for k, servers, counts, rem in running]
            t_arr = self.arr[nxt] if nxt < self.n else math.inf
            ends = [t + rem / r for (k, servers, counts, rem), r in zip(running, rates)]
            t2 = min([t_arr] + ends)
            if t2 == math.inf:
                return (t, done, running, waiting, nxt, hist)   # leaf: nothing left
            new_running, fin = [], []
            for (k, servers, counts, rem), r, e in zip(running, rates, ends):
                if e <= t2:
                    fin.append(k)
                else:
                    new_running.append((k, servers, counts, rem - r * (t2 - t)))
            for k in fin:
                done += t2 - self.arr[k]
            if fin:
                hist = (hist, "end", t2, tuple(fin))
            while nxt < self.n and self.arr[nxt] <= t2:
                waiting = waiting + (nxt,)
                nxt += 1
            t, running = t2, tuple(new_running)
            if waiting:
                return (t, done, running, waiting, nxt, hist)

    def running_ends(self, t, running):
        """Each running job's earliest completion: a co-runner ``k`` stays at least its remaining
        isolated time ``d_k`` (at its spread), so until ``t + d_k`` it slows the job by its
        ``beta`` (``interference``); later co-runners only slow it more."""
        d = {}
        for k, servers, counts, rem in running:
            d[k] = rem * self.jobs[k].step_time * (1 + self.gamma * (len(servers) - 1))
        on = [set() for _ in self.cap]
        for k, servers, counts, rem in running:
            for s in servers:
                on[s].add(k)
        ends = {}
        for k, servers, counts, rem in running:
            job = self.jobs[k]
            beta = self.inst.beta[job.type]
            mates = set()
            for s in servers:
                mates |= on[s]
            mates.discard(k)
            segs = sorted((d[m], beta[self.jobs[m].type]) for m in mates)
            base = 1 + self.gamma * (len(servers) - 1)
            f = base + sum(b for _, b in segs)
            work, x = rem, 0.0
            for dm, b in segs:
                cap = (dm - x) / (job.step_time * f)
                if work <= cap:
                    break
                work -= cap
                x, f = dm, f - b
            ends[k] = t + x + work * job.step_time * f
        return ends

    def bound(self, state) -> float:
        t, done, running, waiting, nxt, hist = state
        if not self.use_bound:   # plain enumeration (tests): the JCTs so far
            return done
        iso, items, arrivals, earliest = 0.0, [], 0.0, []
        ends = self.running_ends(t, running)
        freed = sorted((ends[k], self.jobs[k].gpus) for k, *_ in running)
        free0 = self.M - sum(g for _, g in freed)
        for k, servers, counts, rem in running:
            iso += ends[k] - self.arr[k]
            earliest.append(ends[k])
            items.append((t, self.jobs[k].gpus * (ends[k] - t)))
            arrivals += self.arr[k]
        for k in list(waiting) + list(range(nxt, self.n)):
            g = self.jobs[k].gpus
            r, free = t, free0   # enough GPUs free only once running jobs holding them have ended
            for e, gk in freed:
                if free >= g:
                    break
                free, r = free + gk, e
            r = max(r, self.arr[k])
            iso += r + self.p[k] - self.arr[k]
            earliest.append(r + self.p[k])
            items.append((r, g * self.p[k]))
            arrivals += self.arr[k]
        if not items:
            return done
        return done + max(iso, rank_bound(earliest, items, self.M) - arrivals)

    def placements(self, k, free, members):
        """Every per-server split of job ``k``'s demand over the free GPUs, no forbidden pair on a
        server; empty servers of equal capacity take non-increasing counts in index order."""
        job = self.jobs[k]
        clash = self.inst.forbidden
        ok = []
        for s in range(len(self.cap)):
            if free[s] <= 0:
                continue
            if any(clash[job.type][self.jobs[m].type] or clash[self.jobs[m].type][job.type] for m in members[s]):
                continue
            ok.append(s)
        out = []
        empty_prev = {}   # capacity -> previous empty server of that capacity in ``ok``
        prev_of = {}
        for s in ok:
            if not members[s] and free[s] == self.cap[s]:
                if self.cap[s] in empty_prev:
                    prev_of[s] = empty_prev[self.cap[s]]
                empty_prev[self.cap[s]] = s

        def rec(i, need, chosen):
            if need == 0:
                out.append(tuple(chosen))
                return
            if i == len(ok):
                return
            s = ok[i]
            hi = min(free[s], need)
            if s in prev_of:  # canonical order among interchangeable empty servers
                prev = dict(chosen).get(prev_of[s], 0)
                hi = min(hi, prev)
            for c in range(hi, -1, -1):
                if c:
                    chosen.append((s, c))
                rec(i + 1, need - c, chosen)
                if c:
                    chosen.pop()

        rec(0, job.gpus, [])
        return out

    def decisions(self, running, waiting):
        """Every start set at a decision instant, one at a time (a generator: there can be many)."""
        free = list(self.cap)
        members = [set() for _ in self.cap]
        for k, servers, counts, rem in running:
            for s, c in zip(servers, counts):
                free[s] -= c
                members[s].add(k)

        def rec(i, chosen):
            if i == len(waiting):
                yield tuple(chosen)
                return
            yield from rec(i + 1, chosen)   # job waiting[i] waits
            k = waiting[i]
            for pl in self.placements(k, free, members):
                for s, c in pl:
                    free[s] -= c
                    members[s].add(k)
                chosen.append((k, pl))
                yield from rec(i + 1, chosen)
                chosen.pop()
                for s, c in pl:
                    free[s] += c
                    members[s].discard(k)

        yield from rec(0, [])

    def children(self, state):
        """Every child of ``state`` with its bound; raises :class:`_Expired` when the method's
        clock runs out during the enumeration (read every ``CHECK_EVERY`` start sets: one node can
        have 10^4 and more of them)."""
        t, done, running, waiting, nxt, hist = state
        out = []
        for i, dec in enumerate(self.decisions(running, waiting)):
            if i and i % CHECK_EVERY == 0 and self.ctx is not None and self.ctx.expired():
                raise _Expired
            if not dec and not running and nxt >= self.n:
                continue   # idling forever: no event would come
            started = {k for k, pl in dec}
            run2 = running + tuple((k, tuple(s for s, c in pl), tuple(c for s, c in pl),
                                    float(self.jobs[k].iterations)) for k, pl in dec)
            wait2 = tuple(k for k in waiting if k not in started)
            h2 = (hist, "start", t, dec) if dec else hist
            child = self.advance(t, done, run2, wait2, nxt, h2)
            out.append((self.bound(child), child))
        return out

    def run(self, root):
        stack = [(self.bound(root), root)]
        while stack:
            if self.nodes % CHECK_EVERY == 0 and self.ctx is not None and self.ctx.expired():
                self.stopped = "time_limit"
                break
            if self.node_limit is not None and self.nodes >= self.node_limit:
                self.stopped = "node_limit"
                break
            b, state = stack.pop()
            if b >= self.best:
                continue
            if b * (1 + PRUNE_RTOL) >= self.best:
                self.margin_bound = min(self.margin_bound, b)
                continue
            t, done, running, waiting, nxt, hist = state
            key = (t, frozenset(running), waiting, nxt)
            if self.seen.get(key, math.inf) <= done:
                continue   # the same state was reached with no more JCT: its subtree is no better
            self.seen[key] = done
            self.nodes += 1
            if not running and not waiting and nxt >= self.n:
                if done < self.best:
                    self.best, self.best_hist = done, hist
                continue
            try:
                kids = self.children(state)
            except _Expired:   # the node goes back on the stack: its bound covers its subtree
                stack.append((b, state))
                self.stopped = "time_limit"
                break
            kids.sort(key=lambda x: -x[0])
            stack.extend(kid for kid in kids if kid[0] < self.best)
        return stack

    def solution(self):
        """The incumbent's schedule in the solution schema (ids are the instance's)."""
        starts, ends = {}, {}
        h = self.best_hist
        while h is not None:
            h, kind, t, what = h
            if kind == "start":
                for k, pl in what:
                    starts[k] = (t, pl)
            else:
                for k in what:
                    ends[k] = t
        jobs = []
        for k, job in enumerate(self.jobs):
            t, pl = starts[k]
            jobs.append({"id": job.id, "start": t, "end": ends[k], "servers": sorted([int(s), int(c)] for s, c in pl)})
        jobs.sort(key=lambda e: e["id"])
        return {"jobs": jobs}


def _heuristic_incumbent(instance):
    """The best schedule of the online heuristics (all in the class): ``(total JCT, solution)``."""
    from .baselines import GandivaPack, SjfLeastInterference, TiresiasLas
    from .policies import FifoPack, LeastInterference, simulate, to_solution

    best = (math.inf, None)
    for pol in (SjfLeastInterference(instance), LeastInterference(instance), FifoPack(instance, backfill=True),
                GandivaPack(instance), TiresiasLas(instance)):
        res = simulate(instance, pol)
        total = sum(res.completion[j.id] - j.arrival for j in instance.jobs)
        if total < best[0]:
            best = (total, to_solution(pol, res))
    return best


class _Expired(Exception):
    """The method's clock ran out inside one node's enumeration of start sets."""


def bb(instance, ctx) -> Outcome:
    """The best schedule of the decision-instant class (module docstring) and a lower bound valid
    for every schedule; at a time or node limit, the incumbent and the same bound."""
    node_limit = getattr(getattr(ctx, "settings", None), "node_limit", None)
    return bb_search(instance, ctx, node_limit)


def bb_search(instance, ctx=None, node_limit=None, use_bound=True, incumbent=True) -> Outcome:
    """:func:`bb` with its switches: ``use_bound=False`` prunes by the JCTs so far only and
    ``incumbent=False`` starts without the heuristics' schedule (plain enumeration, for tests)."""
    ok, why = bb_applies(instance)
    if not ok:   # solve() refuses first; direct callers get the same typed error
        raise NotApplicable(instance.problem, "bb", why)
    search = _Search(instance, ctx, node_limit, use_bound)
    inc_total, inc_solution = _heuristic_incumbent(instance) if incumbent else (math.inf, None)
    search.best = inc_total
    root = search.advance(0.0, 0.0, (), (), 0, None)   # to the first arrival
    root_bound = search.bound(root)
    open_nodes = search.run(root)
    n = instance.num_jobs
    solution = search.solution() if search.best_hist is not None else inc_solution
    best = search.best
    stats = {"nodes": search.nodes, "root_bound": root_bound / n, "incumbent_from": (
        "search" if search.best_hist is not None else "heuristic")}
    # the class's bound: every unexplored schedule of the class lies under a node left on the stack
    class_bound = max(root_bound, min([best, search.margin_bound] + [b for b, _ in open_nodes]))
    stats.update(class_optimal=search.stopped is None, class_bound=class_bound / n)
    # the reported bound is the root's, valid for every schedule (module docstring): a schedule
    # that starts a job between decision instants can beat the class's optimum
    # (tests/interference_online/test_exact.py), so the search never proves OPT: status feasible
    # (time_limit when the clock stopped it; a node limit with a schedule is feasible too)
    status = "time_limit" if search.stopped == "time_limit" else "feasible"
    reason = None if search.stopped is None else f"{search.stopped} after {search.nodes} nodes"
    return Outcome(solution=solution, objective=best / n, bound=root_bound / n, status=status, reason=reason,
                   stats=stats)
