"""Baselines for ``domain-decomposition`` [ours].

* :func:`equal_count` -- contiguous: rank ``p`` gets the cells whose particle prefix count falls
  in ``[N c_{p} , N c_{p+1})`` with ``c`` the speed-proportional cumulative shares (each cell goes
  to the rank whose share contains the cell's first particle); equal particles per unit speed,
  ignoring the work model.
* :func:`recursive_bisection` -- recursive coordinate bisection on the cells (not contiguous along
  the curve): split the ranks in two halves, split the cells along the longest side of their
  bounding box at the weighted position matching the halves' speed shares, recurse. The
  orthogonal recursive bisection of swPHoToNs (``src/domains.c``, read, not copied) also nudges
  splits by measured runtimes, which this baseline does not.
"""

from __future__ import annotations

import numpy as np

from .instance import DomainDecompositionInstance

__all__ = ["equal_count", "recursive_bisection"]


def equal_count(instance: DomainDecompositionInstance) -> list[int]:
    counts = np.asarray(instance.particles, float)
    s = instance.speed_array
    share = np.cumsum(s) / s.sum()
    first = np.concatenate([[0.0], np.cumsum(counts)[:-1]]) / max(counts.sum(), 1.0)
    owner = np.searchsorted(share, first, side="right")
    return np.minimum(owner, instance.num_ranks - 1).tolist()


def recursive_bisection(instance: DomainDecompositionInstance) -> list[int]:
    coords = instance.coords.astype(float) + 0.5
    w = instance.weight_array
    s = instance.speed_array
    owner = np.zeros(instance.num_cells, np.int64)

    def split(idx: np.ndarray, lo: int, hi: int) -> None:
        if hi - lo == 1 or len(idx) == 0:
            owner[idx] = lo
            return
        mid = (lo + hi) // 2
        frac = s[lo:mid].sum() / s[lo:hi].sum()
        c = coords[idx]
        axis = int(np.argmax(c.max(axis=0) - c.min(axis=0)))
        order = idx[np.argsort(c[:, axis], kind="stable")]
        cum = np.cumsum(w[order])
        total = cum[-1] if len(cum) else 0.0
        cut = int(np.searchsorted(cum, frac * total, side="left")) + 1 if total > 0 else len(order) // 2
        # take the split point (before or after the straddling cell) closer to the target share
        if 0 < cut <= len(order) and total > 0:
            before = cum[cut - 2] if cut >= 2 else 0.0
            if abs(before - frac * total) < abs(cum[cut - 1] - frac * total):
                cut -= 1
        cut = min(max(cut, 0), len(order))
        split(order[:cut], lo, mid)
        split(order[cut:], mid, hi)

    split(np.arange(instance.num_cells), 0, instance.num_ranks)
    return owner.tolist()
