"""Partition + replication + device mapping on arbitrary device graphs: the exact ``map-bb`` and
the approximation ``tree-order-dp``, both built on the bandwidth dendrogram of the graph [ours].

Why a tree. The cost model (:mod:`optsched.pipeline.costs`) sees a device graph only through its
widest-path matrix w, and every widest-path matrix is an *ultrametric*: w[a, c] >= min(w[a, b],
w[b, c]) (a path a..b..c is at least as wide as its narrower half). An ultrametric is a tree of
clusters (:func:`optsched.workloads.topology.dendrogram`): two devices talk at the level of the
smallest cluster holding both, and a group's all-reduce bandwidth (the minimum over its pairs) and
the transfer bandwidth between two consecutive groups (the minimum over cross pairs) are the level
of the smallest cluster holding all the devices involved. So *every* graph is hierarchically
clustered for the cost model, and its symmetries are the tree's: permuting children of a cluster
whose subtrees are alike (same levels, same device speed and memory) preserves every cost.

* :class:`Orbits`: the search space of ``subset-dp`` (device set of a suffix, its first stage's
  group) taken up to those symmetries. A key is the canonical signature of the assignment
  device -> {free, used later, first group}; equal signatures are exactly the orbits under the
  tree's automorphisms, the value of a suffix is invariant under them, and among successors that
  reach the same orbit the widest transfer is kept (a wider transfer is never worse: both
  objectives are non-decreasing in every transfer time). The DP engine of :mod:`optsched.pipeline.partition.dp` runs on it
  unchanged, so it is exact over every plan. Keys: uniform graph of N devices O(N^2); S servers of
  G devices C(S + (G+1)(G+2)/2 - 1, S); a tree without symmetry up to 3^N.
* :class:`Relaxed`: a lower bound. Every device at the fastest speed and largest memory, a group
  of r devices at the best bandwidth any r devices have (the highest level of a cluster with >= r
  devices), and the transfer between consecutive groups of r and r' devices at the best bandwidth
  of r + r' devices (the transfer bandwidth is the level of the smallest cluster holding both
  groups). Each cost only falls and every plan stays feasible, so its optimum (the uniform chain
  DP, O(N^2) keys) is <= OPT.
* ``map-bb``: incumbent = ``dp`` over the dendrogram's leaf order (:func:`tree_order`), bound =
  :class:`Relaxed`; equal -> optimal at once; otherwise the DP over :class:`Orbits`. Every phase
  polls the context's clock (:mod:`optsched.pipeline.partition.clock`); at the limit, status ``time_limit`` with the best
  plan found and the best proven bound (optsched/problems/pipeline_partition/README.md#map-bb-ours).
* ``tree-order-dp``: ``dp`` over the leaf order; ALG <= (b_max / b_min) OPT with b_max, b_min the
  largest and smallest widest-path bandwidth between two devices, for identical devices (proof in
  ``optsched/problems/pipeline_partition/README.md#tree-order-dp``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from optsched.core.errors import Infeasible
from optsched.core.solving import SolveContext
from optsched.pipeline import costs
from optsched.pipeline.partition.clock import Poll, SearchStopped, as_poll
from optsched.pipeline.partition.dp import bottleneck_dp, bottleneck_first, label_dp, sync_value, why_infeasible
from optsched.pipeline.partition.spaces import BlockOrder, Group, SearchSpace, UniformOrder
from optsched.pipeline.partition.stages import StageCosts
from optsched.workloads.topology import Cluster, dendrogram, is_ultrametric

from .algorithms import (_optimized, _plan_outcome, _solve_within, _stopped_outcome, search_free_bound,
                         simple_bound)
from .instance import PipelinePartitionInstance

__all__ = ["Orbits", "Relaxed", "RelaxedRuns", "TreeSymmetry", "tree_order", "tree_space", "spread",
           "identical_devices", "map_bb", "tree_order_dp"]

INF = math.inf
FREE, USED, GROUP, MARK = 0, 1, 2, 3


def identical_devices(instance: PipelinePartitionInstance) -> bool:
    return bool(np.all(instance.speed_array == instance.speed_array[0])
                and np.all(instance.memory_array == instance.memory_array[0]))


def spread(instance: PipelinePartitionInstance) -> float:
    """b_max / b_min over pairs of distinct devices (1 for one device)."""
    N = instance.num_devices
    if N < 2:
        return 1.0
    w = instance.widest[~np.eye(N, dtype=bool)]
    return float(w.max() / w.min())


def tree_order(instance: PipelinePartitionInstance) -> list[int]:
    """The dendrogram's leaf order, larger and faster clusters first: consecutive blocks of it stay
    inside the tightest clusters that hold them. O(N^3)."""
    def walk(c: Cluster) -> list[int]:
        if not c.children:
            return list(c.devices)
        kids = sorted(c.children, key=lambda k: (-len(k.devices), -k.level, k.devices))
        return [d for k in kids for d in walk(k)]
    return walk(dendrogram(instance.widest))


class TreeSymmetry:
    """Canonical signatures of device-state assignments under the dendrogram's automorphisms.

    A leaf's type is its (speed, memory); a cluster's type is (level, sorted child types). The
    signature of an assignment on a cluster is (type id, sorted child signatures); two
    assignments have the same signature iff an automorphism maps one onto the other (the usual
    canonical form of labelled rooted trees)."""

    def __init__(self, instance: PipelinePartitionInstance):
        self.instance = instance
        self.root = dendrogram(instance.widest)
        self._types: dict = {}
        self.type_of: dict[tuple[int, ...], int] = {}
        self._assign_types(self.root)

    def _assign_types(self, c: Cluster) -> int:
        if not c.children:
            d = c.devices[0]
            t = ("leaf", float(self.instance.speed_array[d]), float(self.instance.memory_array[d]))
        else:
            t = ("node", c.level, tuple(sorted(self._assign_types(k) for k in c.children)))
        tid = self._types.setdefault(t, len(self._types))
        self.type_of[c.devices] = tid
        return tid

    def signature(self, state, c: Cluster | None = None):
        c = self.root if c is None else c
        tid = self.type_of[c.devices]
        if not c.children:
            return (tid, state[c.devices[0]])
        return (tid, tuple(sorted(self.signature(state, k) for k in c.children)))

    def state_of(self, sig) -> list[int]:
        """A representative assignment of a signature (deterministic)."""
        state = [FREE] * self.instance.num_devices
        self._fill(sig, self.root, state)
        return state

    def _fill(self, sig, c: Cluster, state: list[int]) -> None:
        if not c.children:
            state[c.devices[0]] = sig[1]
            return
        free = list(c.children)
        for sub in sig[1]:
            k = next(k for k in free if self.type_of[k.devices] == sub[0])
            free.remove(k)
            self._fill(sub, k, state)

    def align(self, a, b) -> dict[int, int]:
        """A device map sending assignment ``a`` onto ``b`` (same signature) by an automorphism."""
        out: dict[int, int] = {}
        self._pair(a, b, self.root, self.root, out)
        return out

    def _pair(self, a, b, ka: Cluster, kb: Cluster, out: dict) -> None:
        """Map cluster ka (under a) onto the isomorphic cluster kb (under b)."""
        if not ka.children:
            out[ka.devices[0]] = kb.devices[0]
            return
        pool = {}
        for k in kb.children:
            pool.setdefault(self.signature(b, k), []).append(k)
        for k in ka.children:
            self._pair(a, b, k, pool[self.signature(a, k)].pop(0), out)


class Orbits(SearchSpace):
    """Keys (device set of the suffix, its first group) up to the dendrogram's automorphisms.

    Exact over every plan (module docstring). ``clock`` (a :class:`.clock.Poll` or a
    :class:`SolveContext`; None: no limit) is ticked while the keys are enumerated and per
    successor orbit; the DP engines use the same poll (their ``poll`` defaults to the space's)."""

    exact = True

    def __init__(self, instance: PipelinePartitionInstance, clock: Poll | SolveContext | None = None):
        super().__init__(instance)
        self.poll = as_poll(clock)
        self.sym = TreeSymmetry(instance)
        self.R = instance.replica_limit
        self._keys = None
        self._canon: dict = {}
        self._succ: dict = {}
        self._succ_rep: dict = {}
        self._group: dict = {}
        self._sizes: dict = {}

    # -- keys: every orbit with 1 <= |group| <= R ------------------------------------------------
    def keys(self):
        if self._keys is None:
            out = []
            self.poll.check()
            for sig, used, grp in self._enumerate(self.sym.root):
                if 1 <= grp <= self.R:
                    out.append(sig)
                    self._sizes[sig] = (used, grp)
            self._keys = out
            self._canon = {sig: sig for sig in out}
        return self._keys

    def _enumerate(self, c: Cluster):
        """(signature, devices used, of which in the group) of every orbit of assignments on c."""
        tid = self.sym.type_of[c.devices]
        if not c.children:
            return [((tid, FREE), 0, 0), ((tid, USED), 1, 0), ((tid, GROUP), 1, 1)]
        classes: dict = {}
        for k in c.children:
            classes.setdefault(self.sym.type_of[k.devices], []).append(k)
        per_class = []
        for kids in classes.values():
            options = self._enumerate(kids[0])
            combos = []
            for combo in itertools.combinations_with_replacement(range(len(options)), len(kids)):
                used = sum(options[i][1] for i in combo)
                grp = sum(options[i][2] for i in combo)
                if grp <= self.R:
                    combos.append(([options[i][0] for i in combo], used, grp))
            per_class.append(combos)
        out = []
        tick = self.poll.tick
        for pick in itertools.product(*per_class):
            tick()
            grp = sum(p[2] for p in pick)
            if grp > self.R:
                continue
            sigs = sorted(s for p in pick for s in p[0])
            out.append(((tid, tuple(sigs)), sum(p[1] for p in pick), grp))
        return out

    def _size(self, key):
        if key not in self._sizes:
            state = self.sym.state_of(key)
            self._sizes[key] = (sum(1 for s in state if s != FREE), sum(1 for s in state if s == GROUP))
        return self._sizes[key]

    def group(self, key):
        if key not in self._group:
            state = self.sym.state_of(key)
            g = [d for d, s in enumerate(state) if s == GROUP]
            inst = self.instance
            self._group[key] = Group(len(g), float(inst.speed_array[g].min()),
                                     costs.group_bandwidth(inst.widest, g), float(inst.memory_array[g].min()))
        return self._group[key]

    def successors(self, key):
        if key in self._succ:
            return self._succ[key]
        state = self.sym.state_of(key)
        g = [d for d, s in enumerate(state) if s == GROUP]
        best: dict = {}
        tick = self.poll.tick
        for marked in self._markings(state, self.sym.root):
            tick()
            if not 1 <= len(marked) <= self.R:
                continue
            nxt = [FREE if s == GROUP else s for s in state]
            for d in marked:
                nxt[d] = GROUP
            sig = self.sym.signature(nxt)
            bw = costs.cross_bandwidth(self.instance.widest, g, marked)
            if sig not in best or bw > best[sig][0]:
                best[sig] = (bw, marked)
        # keep the keys' own signature objects, not the equal copies just built: far fewer
        # objects to hold and to free when the run ends (or stops at its time limit)
        canon = self._canon if self._keys is not None else {}
        self._succ[key] = [(canon.get(sig, sig), bw) for sig, (bw, _) in best.items()]
        for sig, (_, marked) in best.items():
            self._succ_rep[key, canon.get(sig, sig)] = marked
        return self._succ[key]

    def _markings(self, state, c: Cluster) -> list[list[int]]:
        """Every subset of the USED devices of c, one per orbit of the stabilizer of ``state``."""
        if not c.children:
            d = c.devices[0]
            return [[], [d]] if state[d] == USED else [[]]
        classes: dict = {}
        for k in c.children:
            classes.setdefault(self.sym.signature(state, k), []).append(k)
        per_class = []
        for kids in classes.values():
            options = self._markings(state, kids[0])
            combos = []
            for combo in itertools.combinations_with_replacement(range(len(options)), len(kids)):
                if sum(len(options[i]) for i in combo) > self.R:
                    continue
                marks = []
                for kid, i in zip(kids, combo):  # the same option moved onto each alike child
                    marks += self._move(options[i], kids[0], kid, state)
                combos.append(marks)
            per_class.append(combos)
        out = []
        for pick in itertools.product(*per_class):
            marks = [d for p in pick for d in p]
            if len(marks) <= self.R:
                out.append(marks)
        return out

    def _move(self, marks: list[int], src: Cluster, dst: Cluster, state) -> list[int]:
        if src is dst or not marks:
            return list(marks)
        m = {}
        self.sym._pair(state, state, src, dst, m)
        return [m[d] for d in marks]

    def is_start(self, key):
        return True

    def fits(self, key, stages):
        used, grp = self._size(key)
        extra = used - grp
        return (stages - 1) <= extra <= (stages - 1) * self.R

    def prefix_devices(self, key):
        return self.instance.num_devices - self._size(key)[0]

    def realize(self, keys):
        state = self.sym.state_of(keys[0])
        groups = [[d for d, s in enumerate(state) if s == GROUP]]
        to_actual = {d: d for d in range(len(state))}  # representative of keys[k] -> actual devices
        for k in range(1, len(keys)):
            self.successors(keys[k - 1])
            marked = [to_actual[d] for d in self._succ_rep[keys[k - 1], keys[k]]]
            actual = [FREE if s == GROUP else s for s in state]
            for d in marked:
                actual[d] = GROUP
            rep = self.sym.state_of(keys[k])
            to_actual = self.sym.align(rep, actual)
            state = actual
            groups.append(sorted(marked))
        return groups


class Relaxed(UniformOrder):
    """The lower-bound relaxation (module docstring): keys (u, r) as on a uniform graph, a group
    of r devices at the best bandwidth r devices have, transfers at b_max, the fastest speed and
    the largest memory. Not a space of real plans: only its value is used."""

    exact = False

    def __init__(self, instance: PipelinePartitionInstance, clock: Poll | SolveContext | None = None):
        super().__init__(instance, range(instance.num_devices))
        self.poll = as_poll(clock)  # the DP engines tick it (their poll defaults to the space's)
        N = instance.num_devices
        w = instance.widest[~np.eye(N, dtype=bool)]
        self.bw = float(w.max()) if w.size else INF
        self.speed, self.memory = float(instance.speed_array.max()), float(instance.memory_array.max())
        best = [INF, INF] + [0.0] * (N - 1)

        def walk(c: Cluster):
            for r in range(2, len(c.devices) + 1):
                best[r] = max(best[r], c.level)
            for k in c.children:
                walk(k)
        walk(dendrogram(instance.widest))
        self.best_bw = best

    def group(self, key):
        r = key[1]
        return Group(r, self.speed, self.best_bw[r], self.memory)

    def successors(self, key):
        # cross(g, g2) is the level of the smallest cluster holding g and g2, so at most the best
        # bandwidth r + r2 devices have
        u, r = key
        return [((u - r, r2), min(self.bw, self.best_bw[r + r2]))
                for r2 in range(1, min(self.instance.replica_limit, u - r) + 1)]



def tree_space(instance: PipelinePartitionInstance) -> SearchSpace:
    """``dp``'s space over the dendrogram's leaf order (the uniform space on a uniform graph)."""
    if instance.is_uniform:
        return UniformOrder(instance, range(instance.num_devices))
    return BlockOrder(instance, tree_order(instance))


def check_ultrametric(instance: PipelinePartitionInstance) -> None:
    """The dendrogram needs an ultrametric bandwidth matrix; the widest-path matrix always is one
    (this guards against a future routing model that is not)."""
    if not is_ultrametric(instance.widest, 1e-12):
        raise ValueError("the device graph's bandwidth matrix is not an ultrametric")


# -- the registered methods ----------------------------------------------------------------------
def map_bb(instance: PipelinePartitionInstance, ctx: SolveContext):
    """Exact partition + replication + mapping on any device graph: ALG = OPT (status ``optimal``),
    or at the time limit the incumbent with a proven bound.

    Incumbent: ``dp`` over the dendrogram's leaf order; bound: the :class:`RelaxedRuns` chain DP
    (<= OPT); when they meet the incumbent is optimal, otherwise the chain DP over
    :class:`Orbits` (device sets up to the dendrogram's automorphisms) decides. Complexity: the
    engine of :mod:`optsched.pipeline.partition.dp` over O(N^2) keys for the bound and incumbent, then over the orbits
    (uniform graph O(N^2), S servers of G devices C(S + (G+1)(G+2)/2 - 1, S), no symmetry 3^N).
    [ours]

    >>> import optsched
    >>> from optsched.problems.pipeline_partition.generate import chain_instance
    >>> inst = chain_instance([4, 1, 1, 4], topology="two-level:2x2:10:1", activation=[0, 30, 0, 0])
    >>> r = optsched.solve(inst, "map-bb")
    >>> r.status, round(float(r.objective), 6), bool(r.objective == optsched.solve(inst, "subset-dp").objective)
    ('optimal', 2.5, True)
    """
    check_ultrametric(instance)
    objective = _optimized(instance)
    poll = Poll(ctx)  # one poll for every phase: it reads ctx's clock every POLL_EVERY states
    ch = StageCosts(instance, poll)  # shared by the phases (prefix_minmax computed once)
    space = tree_space(instance)
    try:
        value, plan, stats = _incumbent(instance, space, objective, poll, ch)
    except SearchStopped as stop:
        # the tree space covers every plan on a uniform graph only: its proven lower bound is a
        # bound on OPT there; the search-free bound is one everywhere (when already computed)
        lower = stop.lower if instance.is_uniform else None
        return _stopped_outcome(instance, stop.plan, [lower, search_free_bound(ch, objective)],
                                "incumbent's DP stopped at the time limit")
    if instance.is_uniform:  # the uniform space covers every plan
        if plan is None:
            raise Infeasible(why_infeasible(instance))
        return _plan_outcome(instance, plan, "optimal", value, phase="uniform graph", **stats)
    try:
        ch.prefix_minmax  # the search-free bound, in case the relaxation does not finish
        relaxed = RelaxedRuns(instance, poll)
        if objective == "bottleneck":
            bound = bottleneck_dp(instance, relaxed, poll, ch)[0]
        else:  # the incumbent's value prunes; returned only when no relaxed plan is below it
            bound = label_dp(instance, relaxed, objective, incumbent=(value, None), poll=poll, ch=ch)[0]
    except SearchStopped as stop:
        # a relaxed threshold that fails bounds OPT too (the relaxation's optimum is <= OPT);
        # the relaxation's plans are not plans of the instance: never returned
        return _stopped_outcome(instance, plan, [stop.lower, search_free_bound(ch, objective)],
                                "incumbent; relaxation stopped at the time limit",
                                search_free_bound=search_free_bound(ch, objective), relaxation_lower=stop.lower)
    if not math.isfinite(bound):
        raise Infeasible(why_infeasible(instance) + " (even the relaxation has no plan)")
    if plan is not None and value <= bound * (1 + 1e-12):
        return _plan_outcome(instance, plan, "optimal", bound, phase="incumbent meets the relaxation bound",
                             relaxation_bound=bound)
    orbits = Orbits(instance, poll)
    try:
        if objective == "bottleneck":
            best, best_plan = bottleneck_dp(instance, orbits, poll, ch)
            if plan is not None and value <= best:
                best, best_plan = value, plan
        else:
            start = (value, plan) if plan is not None else None
            best, best_plan, _ = label_dp(instance, orbits, objective, incumbent=start, poll=poll, ch=ch)
    except SearchStopped as stop:
        # the orbit DP covers every plan: its failed thresholds bound OPT; its best plan (the
        # first probe's, or the label DP's best so far) replaces the incumbent when better
        if stop.plan is not None and (plan is None or stop.value < value):
            plan = stop.plan
        return _stopped_outcome(instance, plan, [bound, stop.lower], "orbit DP stopped at the time limit",
                                relaxation_bound=bound, orbit_lower=stop.lower,
                                orbit_keys=len(orbits._keys or ()))
    if best_plan is None:
        raise Infeasible(why_infeasible(instance))
    return _plan_outcome(instance, best_plan, "optimal", best, phase="orbit DP", relaxation_bound=bound,
                         incumbent_value=value, orbit_keys=len(orbits.keys()))


def _incumbent(instance, space, objective, poll: Poll | None = None, ch: StageCosts | None = None):
    """The optimum over ``space`` (value, plan or None, stats), as :func:`.dp.solve_order` computes
    it (raises :class:`.clock.SearchStopped` with the best plan found when the budget runs out:
    the bottleneck DP's first plan, or for ``sync-estimate`` the bottleneck DP's plan costed by the
    model, improved by the label DP so far)."""
    bvalue, bplan = bottleneck_first(instance, space, objective, poll, ch)
    if bplan is None or objective == "bottleneck":
        return (bvalue, bplan, {}) if bplan is not None else (INF, None, {})
    start = (sync_value(instance, bplan), bplan)
    return label_dp(instance, space, objective, incumbent=start, poll=poll, ch=ch)


def tree_order_dp(instance: PipelinePartitionInstance, ctx: SolveContext):
    """``dp`` over the dendrogram's leaf order (:func:`tree_order`).

    Guarantee: with identical devices (speed and memory), ALG <= (b_max / b_min) OPT for
    ``bottleneck`` and ``sync-estimate``, b_max and b_min the largest and smallest widest-path
    bandwidth between two devices (the same holds for ``dp`` and ``order-dp``: the proof works for
    any order, optsched/problems/pipeline_partition/README.md#tree-order-dp). ``optimal`` on a uniform graph.
    Complexity: the engine of :mod:`optsched.pipeline.partition.dp` over O(N R) block keys. [ours]

    >>> import optsched
    >>> from optsched.problems.pipeline_partition.generate import chain_instance
    >>> inst = chain_instance([4, 1, 1, 4], topology="two-level:2x2:10:1", activation=[0, 30, 0, 0])
    >>> r = optsched.solve(inst, "tree-order-dp")
    >>> opt = optsched.solve(inst, "subset-dp").objective
    >>> r.status, r.stats["bandwidth_spread"], bool(r.objective <= 10 * opt)
    ('feasible', 10.0, True)
    """
    exact = instance.is_uniform
    info = {"device_order": tree_order(instance), "bandwidth_spread": spread(instance)}
    got = _solve_within(instance, tree_space(instance), ctx, exact, **info)
    if not isinstance(got, tuple):  # stopped at the time limit
        return got
    value, plan, stats = got
    return _plan_outcome(instance, plan, "optimal" if exact else "feasible", value if exact else None,
                         **info, **stats)


class RelaxedRuns(Relaxed):
    """:class:`Relaxed` that also knows the tree's top split: a transfer faster than the root's
    level b_0 joins two groups inside one child of the root (Lemma 2), so a *run* of consecutive
    stages linked by such transfers lies in one child and holds at most ``cap`` devices (the
    largest child); a transfer between runs is at exactly b_0. Key (u, r, s): the suffix uses u
    devices, its first group r, and the run that starts with that group s (s = r: the run ends
    with it). Still a relaxation: any plan's runs satisfy these rules, and each of its costs is at
    least the relaxed one. O(N^2 cap) keys."""

    def __init__(self, instance: PipelinePartitionInstance, clock: Poll | SolveContext | None = None):
        super().__init__(instance, clock)
        root = dendrogram(instance.widest)
        self.root_level = root.level
        self.cap = max((len(c.devices) for c in root.children), default=1)
        inner = [INF, INF] + [0.0] * (instance.num_devices - 1)

        def walk(c: Cluster):
            for r in range(2, len(c.devices) + 1):
                inner[r] = max(inner[r], c.level)
            for k in c.children:
                walk(k)
        for c in root.children:
            walk(c)
        self.inner = inner
        N, R = instance.num_devices, instance.replica_limit
        self._keys = []
        for u in range(1, N + 1):  # O(N R cap) keys
            self.poll.tick()
            self._keys += [(u, r, s) for r in range(1, min(R, u) + 1)
                           for s in (range(r, min(self.cap, u) + 1) if r <= self.cap else (r,))]

    def group(self, key):
        return super().group(key[:2])

    def successors(self, key):
        u, r, s = key
        R = self.instance.replica_limit
        if s > r:  # the run goes on: the next group opens a run of s - r devices
            return [((u - r, r2, s - r), min(self.bw, self.inner[r + r2]))
                    for r2 in range(1, min(R, u - r, s - r) + 1)]
        return [((u - r, r2, s2), self.root_level) for r2 in range(1, min(R, u - r) + 1)
                for s2 in (range(r2, min(self.cap, u - r) + 1) if r2 <= self.cap else (r2,))]

    def fits(self, key, stages):
        u, r, s = key
        if stages == 1 and s != r:
            return False
        return super().fits((u, r), stages)

    def realize(self, keys):
        return super().realize([k[:2] for k in keys])
