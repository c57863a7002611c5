"""Exact contiguous decomposition and the whole key-sort-partition pipeline for particle sets.

* :func:`chain_owner` -- the exact min-max contiguous partition of the cell chain over the ranks
  in their order (:func:`optsched.chain.min_max_partition`) as an owner vector [classical:
  chains-on-chains, Nicol 1994; Pinar & Aykanat 2004 for fixed-order heterogeneous speeds].
  Guarantee: ``max_p W_p / s_p = OPT`` over contiguous decompositions.
* :func:`decompose_particles` -- PHoToNs' decomposition as a pipeline on raw positions [recon,
  ``optsched/problems/domain_decomposition/README.md``]: fine Hilbert keys (``bits`` per axis), argsort, top-level cells as key
  prefixes
  (the Hilbert curve visits every cell of a coarser level contiguously, so a cell's particles are
  a run of the sorted keys), cell work, exact chain partition; returns per-rank particle ranges
  and the timing of each stage.
"""

from __future__ import annotations

import time

import numpy as np

from optsched.chain import min_max_partition

from .hilbert import hilbert_keys, quantize
from .instance import DomainDecompositionInstance

__all__ = ["chain_owner", "decompose_particles"]


def chain_owner(instance: DomainDecompositionInstance, method: str = "auto", poll=None) -> tuple[list[int], float]:
    """(owner per cell, optimal bottleneck) of the exact contiguous partition.

    >>> from optsched.problems.domain_decomposition.instance import DomainDecompositionInstance
    >>> inst = DomainDecompositionInstance(level=1, cells=(0, 1, 2, 3), weights=(4, 1, 1, 2),
    ...                                    particles=(4, 1, 1, 2), speeds=(2.0, 1.0))
    >>> chain_owner(inst)
    ([0, 0, 0, 1], 3.0)
    """
    part = min_max_partition(instance.weight_array, instance.speed_array, method=method, poll=poll)
    owner = np.repeat(np.arange(instance.num_ranks), np.diff(part.bounds))
    return owner.tolist(), part.value


def decompose_particles(positions: np.ndarray, speeds, *, level: int = 6, bits: int = 16,
                        pp_factor: float = 0.01) -> dict:
    """Key, sort and partition ``positions`` (``(N, 3)`` in ``[0, 1)^3``) over ranks of ``speeds``.

    Returns ``order`` (the particle permutation sorting the keys), ``starts`` (``P + 1`` offsets
    into the sorted particles: rank ``p`` owns ``order[starts[p]:starts[p+1]]``), the optimal
    ``bottleneck`` and ``times`` in seconds per stage (``keys``, ``sort``, ``cells``, ``partition``).
    Complexity: O(N bits) keys, O(N log N) sort, O(C log C) partition over C occupied cells.

    >>> rng = np.random.default_rng(0)
    >>> out = decompose_particles(rng.random((1000, 3)), [1.0, 1.0], level=2, bits=8)
    >>> int(out["starts"][0]), int(out["starts"][-1])
    (0, 1000)
    """
    if not 1 <= level <= bits:
        raise ValueError(f"need 1 <= level <= bits, got level {level}, bits {bits}")
    times = {}
    t = time.perf_counter()
    keys = hilbert_keys(quantize(positions, bits), bits)
    times["keys"] = time.perf_counter() - t
    t = time.perf_counter()
    order = np.argsort(keys, kind="stable")
    skeys = keys[order]
    times["sort"] = time.perf_counter() - t
    t = time.perf_counter()
    cell_of = skeys >> np.uint64(3 * (bits - level))
    starts_c = np.flatnonzero(np.concatenate([[True], cell_of[1:] != cell_of[:-1]]))
    counts = np.diff(np.concatenate([starts_c, [len(skeys)]]))
    weights = counts + pp_factor * counts.astype(float) ** 2
    times["cells"] = time.perf_counter() - t
    t = time.perf_counter()
    part = min_max_partition(weights, speeds)
    times["partition"] = time.perf_counter() - t
    offsets = np.concatenate([starts_c, [len(skeys)]])
    return {"order": order, "starts": offsets[part.bounds], "bottleneck": part.value,
            "cells": len(counts), "times": times, "cell_bounds": part.bounds}
