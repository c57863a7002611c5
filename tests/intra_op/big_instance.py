"""A synthetic IOPDDL file shaped like the contest's held-out 3-D-mesh instances (not collected by
pytest; a benchmark input, never committed as data) [ours].

Usage (from the repository root)::

    python tests/intra_op/big_instance.py OUT.json[.gz] [--nodes 85000] [--degree 4] [--seed 0]

What it writes (seeded, deterministic: numpy ``Generator`` integer and uniform draws only, the
text written by Python's ``str`` of ints, so the same bytes on every machine):

* ``--nodes`` nodes in a chain-like op graph; 15% of them have 1, 2 or 4 strategies, the others
  16-29 (the 3-D meshes' counts: 16, 18, 24, 27, 29), a node's count repeating its predecessor's
  with probability 0.8 (runs of ops sharded alike);
* edges: each node to its predecessor, and on average ``--degree - 1`` more (4 draws) to nodes up
  to 64 positions back, plus every 100th node a hub that later nodes join with probability 0.3; every
  edge's row-major ``k_u x k_v`` matrix: 0 where the shardings agree (``j == i * k_v // k_u``),
  else a transfer cost (the tensor's size times 1-3), and ``1000000000000000000`` (the contest's
  sentinel) on 10% of the other entries; entry (0, 0) is always 0;
* intervals ``[t, t + life)`` with ``t`` the node's position halved, lives of 1-40 steps, and 5%
  long-lived tensors (100 to n/2 steps);
* usages: a tensor size divided by 1, 2, 4 or 8 per strategy, strategy 0 the most sharded (the
  least memory); node costs: compute work times the divisor (less memory costs more: the
  sharding's communication), 1% of the non-zero strategies forbidden (1e18);
* the usage limit: the least-memory plan's peak plus 30% of the way to the peak of the plan that
  takes each node's cheapest strategy, so it binds, and strategy 0 everywhere is feasible.

With the defaults the file is about 1.1 GB (uncompressed), 80,000 nodes and about 160 million
edge-cost entries; ``--nodes 2000`` gives about 28 MB.
"""

from __future__ import annotations

import argparse
import gzip
import sys

import numpy as np

SENTINEL = 1_000_000_000_000_000_000
BIG_K = np.array([16, 18, 24, 27, 29])
SMALL_K = np.array([1, 2, 4])


def build(nodes: int, degree: float, seed: int):
    """The instance's pieces: k, intervals, node costs and usages (lists of int arrays), edges and
    the per-edge matrix seeds."""
    rng = np.random.default_rng([seed, nodes, int(degree * 1000)])
    k = np.empty(nodes, dtype=np.int64)
    k[0] = 27
    small = rng.random(nodes) < 0.15
    keep = rng.random(nodes) < 0.8
    big_pick = BIG_K[rng.integers(0, BIG_K.size, size=nodes)]
    small_pick = SMALL_K[rng.integers(0, SMALL_K.size, size=nodes)]
    for v in range(1, nodes):
        k[v] = k[v - 1] if keep[v] else (small_pick[v] if small[v] else big_pick[v])
    start = np.arange(nodes, dtype=np.int64) // 2
    life = rng.integers(1, 41, size=nodes)
    long_lived = rng.random(nodes) < 0.05
    life[long_lived] = rng.integers(100, max(101, nodes // 2), size=int(long_lived.sum()))
    end = start + life
    size = rng.integers(1 << 10, 1 << 22, size=nodes)
    work = rng.integers(1, 1 << 16, size=nodes)
    eu, ev = [], []
    hub = 0
    extra = rng.random((nodes, 4)) < (degree - 1) / 4
    back = rng.integers(2, 65, size=(nodes, 4))
    joins_hub = rng.random(nodes) < 0.3
    for v in range(1, nodes):
        preds = {v - 1}
        for flag, b in zip(extra[v], back[v]):
            if flag and v - b >= 0:
                preds.add(int(v - b))
        if v % 100 == 0:
            hub = v - 1
        if joins_hub[v] and hub < v - 1:
            preds.add(hub)
        for u in sorted(preds):
            eu.append(u)
            ev.append(v)
    return rng, k, start, end, size, work, np.array(eu, dtype=np.int64), np.array(ev, dtype=np.int64)


def node_tables(rng, k, size, work):
    """Per node: usages (strategy 0 the least) and costs (1% of the others forbidden)."""
    usages, costs = [], []
    for v in range(k.size):
        div = np.array([8] + rng.integers(1, 5, size=k[v] - 1).tolist(), dtype=np.int64)
        div = np.where(div == 3, 8, div)                 # divisors 1, 2, 4, 8
        usage = size[v] // div
        cost = work[v] * div                             # more sharding, less memory, more work
        forbid = rng.random(k[v]) < 0.01
        forbid[0] = False
        cost[forbid] = SENTINEL
        usages.append(usage)
        costs.append(cost)
    return usages, costs


def peak(start, end, chosen) -> int:
    diff = np.zeros(int(end.max()) + 1, dtype=np.int64)
    np.add.at(diff, start, chosen)
    np.add.at(diff, end, -chosen)
    return int(np.cumsum(diff).max())


def edge_matrix(rng, ku: int, kv: int, tensor: int) -> np.ndarray:
    i = np.arange(ku)[:, None]
    j = np.arange(kv)[None, :]
    mat = tensor * rng.integers(1, 4, size=(ku, kv))
    mat[j == (i * kv) // ku] = 0
    forbid = (rng.random((ku, kv)) < 0.1) & (mat != 0)
    mat[forbid] = SENTINEL
    mat[0, 0] = 0
    return mat


def _rows(arrays) -> str:
    return ",".join("[" + ",".join(map(str, a.tolist())) + "]" for a in arrays)


def write(path: str, nodes: int = 85_000, degree: float = 4.0, seed: int = 0) -> dict:
    rng, k, start, end, size, work, eu, ev = build(nodes, degree, seed)
    usages, costs = node_tables(rng, k, size, work)
    least = peak(start, end, np.array([u[0] for u in usages]))
    cheapest = peak(start, end, np.array([u[int(np.argmin(c))] for u, c in zip(usages, costs)]))
    limit = least + 3 * (cheapest - least) // 10
    opener = gzip.open if path.endswith(".gz") else open
    entries = 0
    with opener(path, "wt", encoding="ascii") as out:
        out.write('{"problem":{"name":"synthetic-3d-mesh-n%d-s%d","nodes":{"intervals":[' % (nodes, seed))
        out.write(",".join(f"[{a},{b}]" for a, b in zip(start.tolist(), end.tolist())))
        out.write('],"costs":[')
        for a in range(0, nodes, 4096):
            out.write(("," if a else "") + _rows(costs[a:a + 4096]))
        out.write('],"usages":[')
        for a in range(0, nodes, 4096):
            out.write(("," if a else "") + _rows(usages[a:a + 4096]))
        out.write(']},"edges":{"nodes":[')
        out.write(",".join(f"[{a},{b}]" for a, b in zip(eu.tolist(), ev.tolist())))
        out.write('],"costs":[')
        for e in range(eu.size):
            mat = edge_matrix(rng, int(k[eu[e]]), int(k[ev[e]]), int(size[eu[e]]) >> 4)
            entries += mat.size
            out.write(("," if e else "") + "[" + ",".join(map(str, mat.ravel().tolist())) + "]")
        out.write(']},"usage_limit":%d}}\n' % limit)
    return {"nodes": nodes, "edges": int(eu.size), "edge_entries": entries, "usage_limit": limit,
            "least_memory_peak": least, "cheapest_peak": cheapest,
            "strategies_ge_8": int((k >= 8).sum()), "max_strategies": int(k.max())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=85_000)
    ap.add_argument("--degree", type=float, default=4.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(write(args.out, args.nodes, args.degree, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
