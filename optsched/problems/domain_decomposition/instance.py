"""The ``domain-decomposition`` instance (PHoToNs-style Peano-Hilbert decomposition) and its checker.

Objective (authoritative; docs ``optsched/problems/domain_decomposition/README.md`` [recon], optsched's formulation): minimize
``max_p W_p / s_p``, where ``W_p`` is the sum of the work weights of the cells owned by rank ``p``
and ``s_p`` its speed. When ``contiguous`` (the Peano-Hilbert decomposition), ranks own
consecutive runs of the Hilbert-ordered cell chain in rank order (owner non-decreasing along the
chain); otherwise any assignment is allowed (e.g. recursive coordinate bisection). The cut
surface (face-adjacent occupied cell pairs with different owners) is reported as a secondary
measure, not optimized.

Solution schema: ``{"owner": [rank of cell 0, rank of cell 1, ...]}`` in chain order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optsched.core.instance import Instance
from optsched.core.registry import CheckReport

from .hilbert import MAX_BITS, hilbert_points

__all__ = ["DomainDecompositionInstance", "check", "cut_surface", "OBJECTIVE", "SOLUTION_SCHEMA"]

OBJECTIVE = ("minimize max_p W_p / s_p (W_p = work of the cells rank p owns, s_p = its speed); with contiguous = "
             "true, each rank owns a consecutive run of the Hilbert-ordered cells, ranks in order")
#: the objective's unit, printed after its value by ``optsched solve`` (a rank's cell work over its speed (the
#: instance's own work unit))
OBJECTIVE_UNIT = "work units"
SOLUTION_SCHEMA = '{"owner": [rank of each cell, in Hilbert chain order]}'


@dataclass(frozen=True)
class DomainDecompositionInstance(Instance):
    """Occupied cells of a ``2^level`` grid in Peano-Hilbert order, their work and particle counts,
    and the ranks' speeds in their fixed order."""

    problem = "domain-decomposition"
    level: int
    cells: tuple[int, ...]
    weights: tuple[float, ...]
    particles: tuple[int, ...]
    speeds: tuple[float, ...]
    contiguous: bool = True
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        self.require(1 <= self.level <= MAX_BITS, "level", f"must be in 1..{MAX_BITS}", self.level)
        n = len(self.cells)
        self.require(n >= 1, "cells", "must list at least one cell")
        self.require(len(self.weights) == n, "weights", f"must have one entry per cell ({n})", len(self.weights))
        self.require(len(self.particles) == n, "particles", f"must have one entry per cell ({n})", len(self.particles))
        self.require(len(self.speeds) >= 1, "speeds", "must list at least one rank")
        top = 1 << (3 * self.level)
        for i, c in enumerate(self.cells):
            self.require(0 <= c < top, f"cells[{i}]", f"must be a Hilbert index in 0..{top - 1}", c)
            if i:
                self.require(c > self.cells[i - 1], f"cells[{i}]", "cells must be strictly increasing (chain order)", c)
        self.require_nonnegative("weights", self.weights)
        for i, v in enumerate(self.particles):
            self.require(v >= 0, f"particles[{i}]", "must be >= 0", v)
        self.require_nonnegative("speeds", self.speeds, strict=True)

    @property
    def num_cells(self) -> int:
        return len(self.cells)

    @property
    def num_ranks(self) -> int:
        return len(self.speeds)

    @cached_property
    def weight_array(self) -> np.ndarray:
        return np.asarray(self.weights, float)

    @cached_property
    def speed_array(self) -> np.ndarray:
        return np.asarray(self.speeds, float)

    @cached_property
    def coords(self) -> np.ndarray:
        """``(n, 3)`` integer coordinates of the cells."""
        return hilbert_points(np.asarray(self.cells, dtype=np.uint64), self.level)

    @property
    def lower_bound(self) -> float:
        """``max(sum w / sum s, max_k w_k / max s)``: no assignment does better."""
        w = self.weight_array
        return float(max(w.sum() / self.speed_array.sum(), w.max() / self.speed_array.max()))


def cut_surface(instance: DomainDecompositionInstance, owner) -> int:
    """Face-adjacent pairs of occupied cells with different owners. O(n log n)."""
    own = np.asarray(owner, dtype=np.int64)
    side = 1 << instance.level
    c = instance.coords
    lin = (c[:, 0] * side + c[:, 1]) * side + c[:, 2]
    order = np.argsort(lin)
    slin, sown = lin[order], own[order]
    total = 0
    for axis, step in ((0, side * side), (1, side), (2, 1)):
        has = c[order, axis] + 1 < side
        target = slin[has] + step
        pos = np.searchsorted(slin, target)
        pos = np.minimum(pos, len(slin) - 1)
        found = slin[pos] == target
        total += int(np.sum(sown[has][found] != sown[pos[found]]))
    return total


def check(instance: DomainDecompositionInstance, solution) -> CheckReport:
    """Verify an ownership vector; objective = the largest load / speed (summed here from the weights)."""
    if not isinstance(solution, dict) or set(solution) != {"owner"}:
        return CheckReport(False, None, ['solution must be an object {"owner": [...]}'])
    owner = solution["owner"]
    n, P = instance.num_cells, instance.num_ranks
    if not isinstance(owner, list) or len(owner) != n:
        return CheckReport(False, None, [f"owner must list one rank for each of the {n} cells"])
    if not all(isinstance(r, int) and not isinstance(r, bool) and 0 <= r < P for r in owner):
        return CheckReport(False, None, [f"every owner must be an int rank in 0..{P - 1}"])
    violations = []
    if instance.contiguous:
        for k in range(1, n):
            if owner[k] < owner[k - 1]:
                violations.append(f"cell {k}: rank {owner[k]} after rank {owner[k - 1]}: a contiguous decomposition "
                                  "gives ranks consecutive runs in rank order")
                break
    loads = np.bincount(np.asarray(owner, dtype=np.int64), weights=instance.weight_array, minlength=P)
    times = loads / instance.speed_array
    objective = float(times.max())
    mean = float(instance.weight_array.sum() / instance.speed_array.sum())
    return CheckReport.from_violations(violations, objective, loads=loads.tolist(),
                                       imbalance=objective / mean if mean > 0 else 1.0,
                                       cut_surface=cut_surface(instance, owner))
