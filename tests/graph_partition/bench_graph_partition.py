"""Benchmarks of graph-partition (issue 32): quality, time and peak memory of the multi-level BGL
partitioner against METIS (pymetis) and the streaming baselines, on generated power-law graphs of
about 10^5, 10^6 and 10^7 edges.

Times are reported (``extra_info`` and printed) as ratios to METIS measured in the same run, never
asserted; quality is the sampling traffic (the checker's objective) over METIS's. At 10^7 edges
each method runs in its own child process on the same graph (saved once as ``.npz``), which
reports wall time, CPU time and peak resident memory (``ru_maxrss``) with the resident memory
after loading the graph, so the two partitioners are measured side by side.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import optsched

from ..clock_support import cli_wall_over_limit

METHODS = ("metis", "metis-fm", "bgl", "auto", "ldg", "fennel")


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "?"


@pytest.mark.slow
@pytest.mark.benchmark
@pytest.mark.parametrize("nodes", [25_000, 250_000])  # about 10^5 and 10^6 edges at mean degree 8
def test_generated_power_law_quality_and_time(benchmark, nodes):
    inst = optsched.generate("graph-partition", seed=7, nodes=nodes, parts=8, mean_degree=8.0, train_fraction=0.1,
                             eps=0.05)
    inst.graph, inst.csr, inst.node_weights, inst.capacities  # lazy instance arrays, outside every timing
    optsched.solve(optsched.generate("graph-partition", seed=0, preset="small"), "bgl")  # load compiled kernels
    runs = {}
    for m in METHODS:
        began = time.perf_counter()
        r = optsched.solve(inst, m, seed=0)
        runs[m] = (r, time.perf_counter() - began)
        assert r.status == "feasible", (m, r.reason)
    benchmark.pedantic(lambda: optsched.solve(inst, "bgl", seed=1), rounds=1, iterations=1)
    metis, metis_s = runs["metis"]
    assert runs["metis-fm"][0].objective <= metis.objective + 1e-9 * metis.objective  # FM never worsens
    info = {"edges": len(inst.edges), "load": _load(), "metis_traffic": metis.objective, "metis_s": metis_s}
    for m, (r, s) in runs.items():
        info[f"{m}/metis traffic"] = r.objective / metis.objective
        info[f"{m}/metis time"] = s / metis_s
    benchmark.extra_info.update(info)
    print(f"\ngraph-partition, power-law {nodes} nodes, {len(inst.edges)} edges, K = 8 (load {info['load']}):",
          {k: round(v, 3) if isinstance(v, float) else v for k, v in info.items()})


_CHILD = r"""
import json, resource, sys, time
import numpy as np
z = np.load(sys.argv[1])
ip, ix, dt, train = z["indptr"], z["indices"], z["data"], z["train"]
n, k, method = len(ip) - 1, int(sys.argv[2]), sys.argv[3]
nw = np.zeros((2, n)); nw[0] = 1; nw[1, train] = 1
from optsched.graphs import balance_capacities
from optsched.graphs.kernels import cut_csr, fm_refine_csr, rebalance_csr
caps = balance_capacities(nw, k, 0.05)
cut_csr(np.zeros(2, np.int64), ix[:0], dt[:0], np.zeros(1, np.int64))  # load the compiled kernels first
def rss():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024
loaded = rss()
wall, cpu = time.perf_counter(), time.process_time()
stats = {}
if method in ("metis", "metis-fm"):
    from optsched.graphs import Graph, metis_partition
    src = np.repeat(np.arange(n), np.diff(ip)); up = src < ix
    parts = metis_partition(Graph(n, src[up], ix[up], dt[up]), k, nw, eps=0.05, seed=0)
    parts = rebalance_csr(ip, ix, dt, parts, k, nw, caps)
    if method == "metis-fm":
        parts = fm_refine_csr(ip, ix, dt, parts, k, nw, caps)
else:
    from optsched.problems.graph_partition.algorithms import bgl_vcycles
    parts, stats = bgl_vcycles(ip, ix, dt, k, nw, caps, np.random.default_rng(0), vcycles=2)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
loads = np.stack([np.bincount(parts, weights=r, minlength=k) for r in nw])
print(json.dumps({"method": method, "traffic": float(cut_csr(ip, ix, dt, parts)), "wall_s": wall, "cpu_s": cpu,
                  "rss_loaded_mb": loaded, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "balanced": bool(np.all(loads <= caps * (1 + 1e-9) + 1e-9)), "levels": stats.get("levels")}))
"""


def make_scale_graph(path, nodes: int = 2_500_000, mean_degree: float = 8.2, seed: int = 7) -> int:
    """A Chung-Lu power-law graph (about 10^7 edges at the defaults) with 10% training nodes and
    its sampling-traffic weights, saved as CSR arrays; returns the number of edges."""
    from optsched.graphs import Graph
    from optsched.graphs.kernels import csr_arrays
    from optsched.graphs.sampling import power_law_graph, sampling_edge_weights

    rng = np.random.default_rng(seed)
    g = power_law_graph(nodes, mean_degree, rng)
    train = rng.choice(nodes, size=nodes // 10, replace=False)
    w = sampling_edge_weights(g, train, (10, 5))
    ip, ix, dt = csr_arrays(Graph(nodes, g.src, g.dst, w))
    np.savez(path, indptr=ip, indices=ix, data=dt, train=train)
    return g.num_edges


def run_child(path, k: int, method: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(k), method], capture_output=True, text=True,
                         env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.benchmark
def test_ten_million_edges_time_and_memory_beside_metis(benchmark, tmp_path):
    path = tmp_path / "g.npz"
    edges = make_scale_graph(path)
    assert edges > 9_500_000
    rows = {m: run_child(path, 8, m) for m in ("metis", "bgl")}
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    for r in rows.values():
        assert r["balanced"]
    m, b = rows["metis"], rows["bgl"]
    info = {"edges": edges, "load": _load(), "metis": m, "bgl": b,
            "bgl/metis traffic": b["traffic"] / m["traffic"], "bgl/metis wall": b["wall_s"] / m["wall_s"],
            "bgl/metis cpu": b["cpu_s"] / m["cpu_s"],
            "bgl/metis peak rss above loaded": (b["peak_rss_mb"] - b["rss_loaded_mb"]) /
                                               max(1.0, m["peak_rss_mb"] - m["rss_loaded_mb"])}
    benchmark.extra_info.update(info)
    print(f"\ngraph-partition at {edges} edges, K = 8 (load {info['load']}): {json.dumps(info, indent=1)}")


@pytest.mark.slow
@pytest.mark.benchmark
def test_time_limit_at_the_declared_bound(benchmark, tmp_path):
    """The whole command at ``--time-limit 5`` on bgl with its most V-cycles (1,000) on a 100,000-node graph: the command's and the method's wall
    over the limit (reported in ``extra_info``, not asserted; the target is at most 1.5 x the
    limit + 5 s for the command)."""
    info = benchmark.pedantic(cli_wall_over_limit, args=(tmp_path, 'graph-partition', 'bgl', {'nodes': 100000}),
                              kwargs={"options": {'vcycles': 1000}}, rounds=1, iterations=1)
    benchmark.extra_info.update(info)
    print(f"\n{info}")
