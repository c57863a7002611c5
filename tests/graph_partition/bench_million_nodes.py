"""Benchmark of METIS vs the BGL-style heuristic on a 10^6-node power-law graph (issue 16; ``make
bench``): the BGL-style blocks and assignment (no FM refinement) timed by pytest-benchmark, METIS
on the same graph measured in the same run; the traffic (cut weight) of both is reported, not
asserted.
"""

from __future__ import annotations

import time

import numpy as np
import pytest


@pytest.mark.slow
@pytest.mark.benchmark
def test_million_node_graph_partition(benchmark):
    from optsched.graphs import metis_partition
    from optsched.graphs.sampling import power_law_graph, sampling_edge_weights
    from optsched.graphs import Graph, balance_capacities
    from optsched.problems.graph_partition import bgl_partition

    rng = np.random.default_rng(0)
    g = power_law_graph(1_000_000, 8.0, rng)
    train = rng.choice(g.num_nodes, size=100_000, replace=False)
    w = sampling_edge_weights(g, train, (10, 5))
    g = Graph(g.num_nodes, g.src, g.dst, w)
    nw = np.zeros((2, g.num_nodes))
    nw[0] = 1
    nw[1, train] = 1
    caps = balance_capacities(nw, 8, 0.05)
    began = time.perf_counter()
    mparts = metis_partition(g, 8, nw, eps=0.05)
    metis_s = time.perf_counter() - began
    parts, stats = benchmark.pedantic(bgl_partition, args=(g, 8, nw, caps, np.random.default_rng(0)),
                                      kwargs={"refine": False}, rounds=1, iterations=1)
    seconds = benchmark.stats.stats.min
    benchmark.extra_info.update(seconds=seconds, metis_seconds=metis_s, bgl_traffic=g.cut_weight(parts),
                                metis_traffic=g.cut_weight(mparts))
    print(f"\n10^6-node power-law graph, K = 8: BGL-style blocks + assignment (no FM) {seconds:.1f} s, traffic "
          f"{g.cut_weight(parts):.0f}; METIS {metis_s:.1f} s, traffic {g.cut_weight(mparts):.0f}")
