"""T10, part ``cache``: hit ratio of FIFO (BGL's policy), LRU and the static degree cache against
Belady's MIN, per seed order (random vs proximity/BFS) and capacity, on one epoch of real fan-out
sampling of Cora/Citeseer (formulation [recon]/[ours]). The table's header and its partition part
are declared in that problem's folder; the parts run as one table (``optsched repro --only T10``).
"""

from __future__ import annotations

from optsched.experiments import Experiment, ci_cell

DATASETS = ("cora", "citeseer")


def cells(quick: bool) -> list[dict]:
    out = []
    for ds in DATASETS:
        for order in ("random", "proximity"):
            for frac in ((0.1,) if quick else (0.05, 0.1, 0.2)):
                for rep in range(2 if quick else 5):
                    out.append({"part": "cache", "dataset": ds, "order": order, "cache_fraction": frac, "rep": rep})
    return out


def run_cell(params: dict, seed: int) -> dict:
    from optsched.core.solving import solve

    from optsched.core.data import data_file
    from optsched.graphs.io import read_planetoid_graph
    from optsched.problems.feature_cache import from_graph as cache_from_graph
    import numpy as np

    path = data_file(f"graphs/planetoid/ind.{params['dataset']}.graph")
    gf, test = read_planetoid_graph(path, path.with_name(path.name.replace(".graph", ".test.index")))
    is_test = np.zeros(gf.graph.num_nodes, bool)
    is_test[test] = True
    cap = max(1, int(round(params["cache_fraction"] * gf.graph.num_nodes)))
    inst = cache_from_graph(gf.graph, np.flatnonzero(~is_test), capacity=cap, batch_size=64, fanouts=(10, 5),
                            order=params["order"], seed=seed)
    row = dict(params, reads=inst.num_accesses, distinct=inst.compulsory_misses)
    for m in ("min", "fifo", "lru", "static"):
        r = solve(inst, m)
        row[f"hit_{m}"] = 1 - r.objective / inst.num_accesses
    return row


def report(rows: list[dict], out) -> None:
    cache = [r for r in rows if r["part"] == "cache"]
    ct = []
    for ds in DATASETS:
        for frac in sorted({r["cache_fraction"] for r in cache}):
            for order in ("random", "proximity"):
                g = [r for r in cache if r["dataset"] == ds and r["cache_fraction"] == frac and r["order"] == order]
                if not g:
                    continue
                e = {"graph": ds, "C/n": frac, "order": order, "epochs": len(g),
                     "reads": ci_cell([float(r["reads"]) for r in g]),
                     "fetches FIFO": ci_cell([r["reads"] * (1 - r["hit_fifo"]) for r in g]),
                     "fetches MIN": ci_cell([r["reads"] * (1 - r["hit_min"]) for r in g])}
                for m in ("min", "fifo", "lru", "static"):
                    e[f"hit {m}"] = ci_cell([r[f"hit_{m}"] for r in g])
                ct.append(e)
    out.table("cache", ct, caption="Feature-cache hit ratio per epoch (batch 64, fan-out (10, 5)): FIFO (BGL's "
              "policy), LRU and the static highest-degree cache against Belady's MIN (exact for the fixed read "
              "sequence), seeds in random vs proximity (BFS) order",
              notes=["Each row's policies see the same read sequence; MIN is the best any policy can do on it.",
                     "The sequences of the two orders differ, so MIN differs between them too; proximity order "
                     "also reads fewer features per epoch (neighbouring seeds share sampled neighbours within a "
                     "mini-batch), so compare fetches (misses) as well as hit ratios."])


EXPERIMENT = Experiment(
    id="T10", part="cache", order=1, title="", paper="", formulation="[recon]/[ours]",
    cells=cells, run_cell=run_cell, report=report,
    requires_data=("graphs/planetoid/ind.cora.graph", "graphs/planetoid/ind.citeseer.graph"),
    methods=("feature-cache/min", "feature-cache/fifo", "feature-cache/lru", "feature-cache/static"),
)
