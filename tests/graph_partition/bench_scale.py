"""Benchmark: ``bgl`` beside METIS at 10^7 edges and beyond (issue 45; ``make bench``).

The graphs are Chung-Lu power-law graphs generated in chunks as int32 CSR arrays
(:func:`optsched.problems.graph_partition.lean.chung_lu_csr`, mean degree 8.2, 10% training nodes,
fan-outs (10, 5) sampling weights by :func:`~optsched.problems.graph_partition.lean.sampling_weights_csr`),
saved once as ``.npy`` files; each method then runs in its own child process on the same arrays
(memory-mapped read-only), which reports wall time, CPU time, peak resident memory
(``ru_maxrss``) and the resident memory after loading. With ``memory_gb`` the child runs under
``RLIMIT_AS`` (address space) of that many GB: a method that needs more fails with
``MemoryError`` (reported as ``out_of_memory``, not as a crash of the benchmark).

Times and memory are reported as ratios to METIS measured in the same run (``extra_info`` and
printed), never asserted. Sizes: ``OPTSCHED_BENCH_SCALE_NODES`` (comma-separated node counts,
default 2,500,000: about 10^7 edges; 25,000,000 is about 10^8 edges).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

_CHILD = r"""
import json, resource, sys, time
limit_gb = float(sys.argv[4])
if limit_gb > 0:
    resource.setrlimit(resource.RLIMIT_AS, (int(limit_gb * 2**30), int(limit_gb * 2**30)))
import numpy as np
d, k, method = sys.argv[1], int(sys.argv[2]), sys.argv[3]
from optsched.graphs import balance_capacities
from optsched.graphs.kernels import cut_csr, fm_refine_csr, rebalance_csr
from optsched.problems.graph_partition import lean
from optsched.problems.graph_partition.algorithms import bgl_lean, bgl_profile, bgl_vcycles
# load the compiled kernels first (their memory is not the method's)
z = np.zeros(2, np.int64)
cut_csr(z, np.zeros(0, np.int32), np.zeros(0), np.zeros(1, np.int64))
# read into memory (not memory-mapped): the RSS measured next includes the whole graph, so the
# peak above it is the method's own memory
ip = np.load(d + "/indptr.npy"); ix = np.load(d + "/indices.npy")
dt = np.load(d + "/data.npy"); train = np.load(d + "/train.npy")
n = len(ip) - 1
nw = np.zeros((2, n)); nw[0] = 1; nw[1, train] = 1
caps = balance_capacities(nw, k, 0.05)
def rss():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024
loaded = rss()
wall, cpu = time.perf_counter(), time.process_time()
stats, out = {}, {"method": method}
try:
    if method in ("metis", "metis-fm"):
        from optsched.graphs import Graph, metis_partition
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(ip)); up = src < ix
        g = Graph(n, src[up], ix[up].astype(np.int64), dt[up]); del src, up
        parts = metis_partition(g, k, nw, eps=0.05, seed=0); del g
        parts = rebalance_csr(ip, ix, dt, parts, k, nw, caps)
        if method == "metis-fm":
            parts = fm_refine_csr(ip, ix, dt, parts, k, nw, caps)
    else:
        kw = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
        parts, stats = bgl_vcycles(ip, ix, dt, k, nw, caps, np.random.default_rng(0), engine=bgl_lean,
                                   **{**bgl_profile(len(ix) // 2), **kw})
    loads = np.stack([np.bincount(parts, weights=r, minlength=k) for r in nw])
    out.update(traffic=float(cut_csr(ip, ix, dt, parts)), balanced=bool(np.all(loads <= caps * (1 + 1e-9) + 1e-9)),
               levels=stats.get("levels"), nodes_by_level=stats.get("nodes_by_level"))
except MemoryError:
    out["out_of_memory"] = True
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
out.update(wall_s=wall, cpu_s=cpu, rss_loaded_mb=loaded,
           peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, limit_gb=limit_gb)
print(json.dumps(out))
"""


def make_graph(folder, nodes: int, *, mean_degree: float = 8.2, seed: int = 7) -> dict:
    """Generate the graph (int32 CSR, chunked) and its sampling weights into ``folder``; returns
    the edge count and the generator's own peak resident memory."""
    import resource

    from optsched.problems.graph_partition.lean import chung_lu_csr, sampling_weights_csr

    began = time.perf_counter()
    ip, ix = chung_lu_csr(nodes, mean_degree, seed)
    train = np.sort(np.random.default_rng(seed).choice(nodes, size=nodes // 10, replace=False))
    dt = sampling_weights_csr(ip, ix, train)
    os.makedirs(folder, exist_ok=True)
    for name, arr in (("indptr", ip), ("indices", ix), ("data", dt), ("train", train)):
        np.save(os.path.join(folder, name + ".npy"), arr)
    return {"nodes": nodes, "edges": int(len(ix) // 2), "gen_s": time.perf_counter() - began,
            "gen_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def run_child(folder, k: int, method: str, memory_gb: float = 0.0, options: dict | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(folder), str(k), method, str(memory_gb),
                          json.dumps(options or {})], capture_output=True, text=True, env=env)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        # killed (e.g. by RLIMIT_AS inside C code that aborts instead of raising): reported, not hidden
        return {"method": method, "failed": True, "returncode": out.returncode, "stderr": out.stderr[-2000:],
                "limit_gb": memory_gb}
    return json.loads(lines[-1])


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _sizes() -> list[int]:
    return [int(x) for x in os.environ.get("OPTSCHED_BENCH_SCALE_NODES", "2500000").split(",")]


@pytest.mark.slow
@pytest.mark.benchmark
@pytest.mark.parametrize("nodes", _sizes())
def test_bgl_beside_metis_at_scale(benchmark, tmp_path, nodes):
    memory_gb = float(os.environ.get("OPTSCHED_BENCH_MEMORY_GB", "8"))
    gen = make_graph(tmp_path, nodes)
    rows = {m: run_child(tmp_path, 8, m, memory_gb) for m in ("metis", "bgl")}
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    m, b = rows["metis"], rows["bgl"]
    info = {**gen, "load": _load(), "metis": m, "bgl": b}
    if "traffic" in m and "traffic" in b:
        info.update({"bgl/metis traffic": b["traffic"] / m["traffic"], "bgl/metis wall": b["wall_s"] / m["wall_s"],
                     "bgl/metis cpu": b["cpu_s"] / m["cpu_s"]})
    benchmark.extra_info.update(info)
    print(f"\ngraph-partition at {gen['edges']} edges, K = 8 (load {info['load']}): {json.dumps(info, indent=1)}")
    assert "traffic" not in b or b["balanced"]
