"""The ``feature-cache`` instance (a fixed sequence of node-feature reads) and its checker.

Objective (authoritative; docs ``optsched/problems/feature_cache/README.md`` [recon], optsched's formulation): minimize the number of
misses of a cache of ``capacity`` node features serving the reads ``accesses[0..T-1]`` in order.
A read of a cached node is a hit; on a miss the node is fetched and may be admitted; a full cache
must then evict one node (the fetched node itself when it is not admitted: bypass). The cache
starts empty. Hit ratio = 1 - misses / T.

Solution schema: ``{"evict": [e_0, ..., e_{T-1}]}``: ``e_t = -1`` when read ``t`` evicts nothing (a
hit, or a miss while the cache has room), else the node evicted at read ``t`` (a cached node, or
``accesses[t]`` itself to bypass).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optsched.core.instance import Instance
from optsched.core.registry import CheckReport

__all__ = ["FeatureCacheInstance", "check", "OBJECTIVE", "SOLUTION_SCHEMA"]

OBJECTIVE = "minimize the misses of a capacity-C cache (demand fetch, optional bypass, empty start) over the reads in order"
#: the objective's unit, printed after its value by ``optsched solve`` (cache misses over the reads)
OBJECTIVE_UNIT = "misses"
SOLUTION_SCHEMA = '{"evict": [node evicted at read t, or -1]}  (one entry per read)'


@dataclass(frozen=True)
class FeatureCacheInstance(Instance):
    """Reads of node features in order, the cache capacity and the nodes' static priority (degree)."""

    problem = "feature-cache"
    num_nodes: int
    accesses: tuple[int, ...]
    capacity: int
    priority: tuple[float, ...] = ()
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        n = self.num_nodes
        self.require(n >= 1, "num_nodes", "must be >= 1", n)
        self.require(len(self.accesses) >= 1, "accesses", "must list at least one read")
        self.require(self.capacity >= 1, "capacity", "must be >= 1", self.capacity)
        a = np.asarray(self.accesses)
        bad = np.flatnonzero((a < 0) | (a >= n))
        if bad.size:
            raise self.invalid(f"accesses[{bad[0]}]", f"must be a node 0..{n - 1}", int(a[bad[0]]))
        self.require(len(self.priority) in (0, n), "priority", f"must be empty or have one entry per node ({n})",
                     len(self.priority))
        self.require_nonnegative("priority", self.priority)

    @cached_property
    def access_array(self) -> np.ndarray:
        return np.asarray(self.accesses, dtype=np.int64)

    @property
    def num_accesses(self) -> int:
        return len(self.accesses)

    @property
    def compulsory_misses(self) -> int:
        """Distinct nodes read: every policy misses each one at least once."""
        return int(len(np.unique(self.access_array)))


def check(instance: FeatureCacheInstance, solution) -> CheckReport:
    """Replay the evictions; objective = misses."""
    if not isinstance(solution, dict) or set(solution) != {"evict"}:
        return CheckReport(False, None, ['solution must be an object {"evict": [...]}'])
    ev = solution["evict"]
    T = instance.num_accesses
    if not isinstance(ev, list) or len(ev) != T or not all(isinstance(e, int) and not isinstance(e, bool) for e in ev):
        return CheckReport(False, None, [f"evict must list {T} ints"])
    cache: set[int] = set()
    misses = 0
    violations: list[str] = []
    for t, (x, e) in enumerate(zip(instance.accesses, ev)):
        if x in cache:
            if e != -1:
                violations.append(f"read {t}: node {x} is a hit, nothing may be evicted (got {e})")
                break
            continue
        misses += 1
        cache.add(x)
        if len(cache) > instance.capacity:
            if e not in cache:
                violations.append(f"read {t}: the cache is full; evict must name a cached node or {x}, got {e}")
                break
            cache.discard(e)
        elif e != -1:
            if e == x:  # bypass with room to spare is allowed
                cache.discard(x)
            elif e in cache:
                cache.discard(e)  # voluntary eviction
            else:
                violations.append(f"read {t}: node {e} is not cached")
                break
    hit_ratio = 1.0 - misses / T
    return CheckReport.from_violations(violations, float(misses), hit_ratio=hit_ratio, reads=T)
