"""Placement of a job graph onto free GPUs, minimizing the cut weight (docs ``optsched/problems/srpt/README.md``) [ours].

Problem: given free GPUs per server and a job graph with ``g`` nodes (edge weight = bytes per
iteration), assign each node to a server, at most ``free[s]`` nodes on server s, minimizing the
weight of the edges between servers (balanced partitioning with per-server capacities).

Guarantee: none for the heuristic. Balanced partitioning admits no finite-factor polynomial
approximation unless P = NP (Andreev & Räcke 2006, [classical]); the heuristic's empirical ratio
to the exact MILP is reported in T7 and tested on small graphs.

* :func:`place_milp` -- exact: binary ``x[v, s]``, ``z[e, s] >= |x[u, s] - x[v, s]|``, minimize
  ``sum_e w_e sum_s z[e, s] / 2``; HiGHS via the core back-ends. For small graphs (symmetric
  servers make it slow beyond ~16 nodes x 8 servers).
* :func:`place_greedy_kl` -- greedy fill + Kernighan-Lin: one server when one has room (best
  fit: cut 0, optimal); otherwise the fewest servers (``FifoPolicy.place``), nodes assigned in
  index order (contiguous arcs of rings and chains, row-major blocks of grids), then
  ``networkx``'s Kernighan-Lin swaps between every pair of used servers until no pass improves the
  cut. O(g) for one server; O(P * KL(g)) with P passes over the server pairs otherwise.
* :func:`place_random` -- the fewest servers, nodes shuffled (baseline "random placement").

The model, the fills and the Kernighan-Lin refinement are the shared primitives of
:mod:`optsched.graphs.placement` and :mod:`optsched.graphs.refine`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from optsched.graphs import Graph
from optsched.graphs.placement import decode_assignment, fill_in_order, min_cut_model, shuffled_fill
from optsched.graphs.refine import pairwise_kl_refine
from optsched.simulation.cluster import FifoPolicy

from .instance import SrptJob

__all__ = ["place_milp", "place_greedy_kl", "place_random", "PLACEMENTS"]


def _server_counts(free: Sequence[int], demand: int) -> dict[int, int]:
    counts = FifoPolicy.place(list(free), demand)
    if counts is None:
        raise ValueError(f"{demand} GPUs requested, {sum(free)} free")
    return counts


def place_greedy_kl(job: SrptJob, free: Sequence[int]) -> list[int]:
    """Greedy fill + pairwise Kernighan-Lin refinement; returns the server of every node.

    >>> from optsched.problems.srpt.graphs import make_job_edges
    >>> job = SrptJob(id=0, arrival=0, gpus=8, plan="data", graph="ring", edges=make_job_edges("ring", 8, 1.0),
    ...               compute_s=1, iterations=1, predicted_iterations=1)
    >>> servers = place_greedy_kl(job, [4, 4, 8])
    >>> servers == [2] * 8, job.cut_bytes(place_greedy_kl(job, [4, 4, 0]))
    (True, 2.0)
    """
    counts = _server_counts(free, job.gpus)
    if len(counts) == 1 or not job.edges:
        return fill_in_order(counts)
    # The refinement depends on the graph and on the per-server counts only, up to an
    # order-preserving renaming of the servers (it visits server pairs in ascending order and its
    # cut is label-free): it runs once per (graph, counts) on servers 0..k-1, then is renamed.
    labels = list(counts)   # ascending server indices (FifoPolicy.place sorts them)
    key = (job.edges, tuple(counts.values()))
    canonical = _KL_CACHE.get(key)
    if canonical is None:
        u, v, w = job.edge_array
        graph = Graph(job.gpus, u, v, w)
        canonical = tuple(pairwise_kl_refine(graph, fill_in_order(dict(enumerate(counts.values()))),
                                             cut=job.cut_bytes))
        if len(_KL_CACHE) >= _KL_CACHE_MAX:
            _KL_CACHE.clear()
        _KL_CACHE[key] = canonical
    return [labels[p] for p in canonical]


#: (edges, per-server counts) -> refined placement on servers 0..k-1 (bounded)
_KL_CACHE: dict[tuple, tuple[int, ...]] = {}
_KL_CACHE_MAX = 65536


def place_random(job: SrptJob, free: Sequence[int], rng: np.random.Generator) -> list[int]:
    """The fewest servers (as greedy), nodes assigned in a random order."""
    return shuffled_fill(_server_counts(free, job.gpus), rng)


def build_placement_model(job: SrptJob, free: Sequence[int]):
    """The placement MILP over the servers with free GPUs (columns ``x`` then ``z``)."""
    u, v, w = job.edge_array
    return min_cut_model(job.gpus, u, v, w, list(free), name=f"placement-job{job.id}")


def place_milp(job: SrptJob, free: Sequence[int], solve_model) -> tuple[list[int] | None, str, float]:
    """Exact min-cut placement through ``solve_model`` (a :class:`~optsched.core.solving.SolveContext`'s,
    so the method's back-end, time budget and settings apply); returns (servers, solver status,
    proven lower bound on the cut). ``servers`` is None when the solve returned no point (the
    method's time budget is spent): the caller falls back to its heuristic."""
    if sum(free) < job.gpus:
        raise ValueError(f"{job.gpus} GPUs requested, {sum(free)} free")
    model, usable = build_placement_model(job, free)
    sol = solve_model(model)
    if sol.x is None:
        if sol.status == "time_limit":
            return None, sol.status, 0.0
        raise RuntimeError(f"placement MILP returned no point ({sol.status}: {sol.message})")
    servers = decode_assignment(model, sol.x, usable)
    return servers, sol.status, float(sol.bound) if sol.bound is not None else 0.0


#: placement rules a policy can use
PLACEMENTS = ("heuristic", "random", "milp")
