"""Placement of a job graph onto free GPUs, minimizing the cut weight (spec ``online.md``) [ours].

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
"""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

from optsched.simulation.cluster import FifoPolicy

from .instance import SrptJob

__all__ = ["place_milp", "place_greedy_kl", "place_random", "PLACEMENTS"]


def _server_counts(free: Sequence[int], demand: int) -> dict[int, int]:
    counts = FifoPolicy.place(list(free), demand)
    if counts is None:
        raise ValueError(f"{demand} GPUs requested, {sum(free)} free")
    return counts


def _contiguous(counts: dict[int, int]) -> list[int]:
    servers = []
    for s, c in counts.items():
        servers += [s] * c
    return servers


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
    servers = _contiguous(counts)
    if len(counts) == 1 or not job.edges:
        return servers
    import networkx as nx
    from networkx.algorithms.community import kernighan_lin_bisection

    graph = nx.Graph()
    graph.add_nodes_from(range(job.gpus))
    for u, v, w in job.edges:
        if graph.has_edge(u, v):
            graph[u][v]["weight"] += w
        else:
            graph.add_edge(u, v, weight=w)
    best = job.cut_bytes(servers)
    for _ in range(2 * len(counts)):
        improved = False
        for a, b in itertools.combinations(sorted(counts), 2):
            part_a = {v for v in range(job.gpus) if servers[v] == a}
            part_b = {v for v in range(job.gpus) if servers[v] == b}
            sub = graph.subgraph(part_a | part_b)
            left, right = kernighan_lin_bisection(sub, partition=(part_a, part_b), weight="weight", seed=0)
            if len(left) != len(part_a):  # networkx may return the two sides swapped
                left, right = right, left
            trial = list(servers)
            for v in left:
                trial[v] = a
            for v in right:
                trial[v] = b
            cut = job.cut_bytes(trial)
            if cut < best - 1e-12 * max(1.0, best):
                servers, best, improved = trial, cut, True
        if not improved:
            break
    return servers


def place_random(job: SrptJob, free: Sequence[int], rng: np.random.Generator) -> list[int]:
    """The fewest servers (as greedy), nodes assigned in a random order."""
    servers = _contiguous(_server_counts(free, job.gpus))
    return [servers[k] for k in rng.permutation(job.gpus)]


def build_placement_model(job: SrptJob, free: Sequence[int]):
    """The placement MILP over the servers with free GPUs (columns ``x`` then ``z``)."""
    from optsched.core.linear import ModelBuilder

    usable = [s for s, f in enumerate(free) if f > 0]
    g, m = job.gpus, len(usable)
    u, v, w = job.edge_array
    b = ModelBuilder(f"placement-job{job.id}", "min")
    x = b.add_block("x", (g, m), upper=1.0, integer=True)
    z = b.add_block("z", (len(w), m), upper=1.0, cost=np.repeat(w / 2.0, m).reshape(len(w), m))
    b.add_sparse_rows("assign", np.repeat(np.arange(g), m), x.ravel(), np.ones(g * m), g, lower=1.0, upper=1.0)
    b.add_sparse_rows("capacity", np.tile(np.arange(m), g), x.ravel(), np.ones(g * m), m,
                      upper=np.asarray([free[s] for s in usable], float))
    if len(w):
        e = np.arange(len(w) * m)
        ze, xu, xv = z.ravel(), x[u].ravel(), x[v].ravel()
        rows = np.concatenate([e, e, e, len(e) + e, len(e) + e, len(e) + e])
        cols = np.concatenate([ze, xu, xv, ze, xv, xu])
        vals = np.tile(np.concatenate([np.ones(len(e)), -np.ones(len(e)), np.ones(len(e))]), 2)
        b.add_sparse_rows("cut", rows, cols, vals, 2 * len(e), lower=0.0)
    return b.build(), usable


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
    x = model.block_values(sol.x, "x")
    servers = [usable[int(k)] for k in np.argmax(x, axis=1)]
    return servers, sol.status, float(sol.bound) if sol.bound is not None else 0.0


#: placement rules a policy can use
PLACEMENTS = ("heuristic", "random", "milp")
