"""T11: PHoToNs-style Peano-Hilbert domain decomposition -- imbalance of the exact contiguous
partition against equal particle counts and recursive coordinate bisection, cut surface, and the
time to key, sort and partition 10^5 .. 10^7 particles (optsched/problems/domain_decomposition/README.md; formulation [recon]/[ours]).

PHoToNs (arXiv 1802.09824): only the abstract is public; no number of the paper is reproduced.
Particles: Gaussian halos or Zel'dovich displacements (optsched's generators), 64 ranks of which
32 accelerator ranks of speed 2 (first) [ours]; top-level cells at level 6 (262,144 cells), work
``n + 0.01 n^2`` per cell [ours]. Imbalance = max_p W_p / s_p over sum W / sum s (1 is perfect).
Timings are wall-clock on the machine of the run (columns ``*_s``); the numpy argsort of the same
keys is timed alongside as the reference.
"""

from __future__ import annotations

import time

from optsched.experiments import Experiment

RANKS = 64
LEVEL = 6
BITS = 16


def cells(quick: bool) -> list[dict]:
    sizes = (100_000, 1_000_000) if quick else (100_000, 1_000_000, 10_000_000)
    return [{"particles": n, "distribution": d, "rep": 0} for n in sizes for d in ("halos", "zeldovich")]


def run_cell(params: dict, seed: int) -> dict:
    import numpy as np

    from optsched.core.rng import make_rng
    from optsched.problems.domain_decomposition import (DomainDecompositionInstance, cell_work, cut_surface,
                                                        decompose_particles, gaussian_halos, zeldovich)
    from optsched.problems.domain_decomposition.baselines import equal_count, recursive_bisection
    from optsched.problems.domain_decomposition.generate import rank_speeds
    from optsched.problems.domain_decomposition.hilbert import hilbert_keys, quantize

    rng = make_rng(seed, "T11", params["distribution"])
    n = params["particles"]
    pos = gaussian_halos(n, rng) if params["distribution"] == "halos" else zeldovich(n, rng)
    speeds = rank_speeds(RANKS, RANKS // 2, 2.0)
    out = decompose_particles(pos, speeds, level=LEVEL, bits=BITS)
    keys = hilbert_keys(quantize(pos, BITS), BITS)
    t = time.perf_counter()
    np.argsort(keys, kind="stable")
    argsort_s = time.perf_counter() - t
    cells_, counts, weights = cell_work(pos, LEVEL)
    inst = DomainDecompositionInstance(level=LEVEL, cells=tuple(cells_.tolist()), weights=tuple(weights.tolist()),
                                       particles=tuple(counts.tolist()), speeds=tuple(speeds.tolist()), contiguous=False)
    mean = weights.sum() / speeds.sum()
    owner_chain = np.repeat(np.arange(RANKS), np.diff(out["cell_bounds"]))
    row = dict(params, particles_generated=len(pos), cells=len(counts), lower_bound_imbalance=float(inst.lower_bound / mean))
    for name, owner in (("chain", owner_chain), ("equal_count", np.asarray(equal_count(inst))),
                        ("rcb", np.asarray(recursive_bisection(inst)))):
        loads = np.bincount(owner, weights=weights, minlength=RANKS) / speeds
        row[f"imbalance_{name}"] = float(loads.max() / mean)
        row[f"surface_{name}"] = cut_surface(inst, owner)
    times = out["times"]
    row.update(keys_s=times["keys"], sort_s=times["sort"], cells_s=times["cells"], partition_s=times["partition"],
               total_s=sum(times.values()), argsort_s=argsort_s)
    return row


def report(rows: list[dict], out) -> None:
    table = []
    for r in rows:
        table.append({"particles": r["particles_generated"], "distribution": r["distribution"], "cells": r["cells"],
                      "chain (exact)": round(r["imbalance_chain"], 4),
                      "equal count": round(r["imbalance_equal_count"], 4), "RCB": round(r["imbalance_rcb"], 4),
                      "lower bound": round(r["lower_bound_imbalance"], 4),
                      "surface chain": r["surface_chain"], "surface equal": r["surface_equal_count"],
                      "surface RCB": r["surface_rcb"]})
    out.table("imbalance", table, caption="Load imbalance (max_p W_p/s_p over sum W / sum s) of the exact contiguous "
              "Peano-Hilbert partition, equal particle counts (contiguous) and recursive coordinate bisection "
              "(not contiguous), 64 ranks (32 of speed 2), level-6 cells; cut surface = face-adjacent occupied "
              "cell pairs split between ranks [ours]",
              notes=["'lower bound' = max(1, heaviest cell / fastest rank / mean): no decomposition into whole "
                     "cells does better, contiguous or not."])
    times = [{"particles": r["particles_generated"], "distribution": r["distribution"], "keys_s": round(r["keys_s"], 2),
              "sort_s": round(r["sort_s"], 2), "cells_s": round(r["cells_s"], 2),
              "partition_s": round(r["partition_s"], 3), "total_s": round(r["total_s"], 2),
              "numpy argsort_s": round(r["argsort_s"], 2), "total / argsort": round(r["total_s"] / r["argsort_s"], 2)}
             for r in rows]
    out.table("time", times, caption="Wall time to key (vectorized Hilbert, 16 bits per axis), sort, group into "
              "cells and partition exactly; the numpy argsort of the same keys as the reference")


EXPERIMENT = Experiment(
    id="T11", title="Peano-Hilbert domain decomposition: exact chain partition vs equal count and RCB, time to 10^7",
    paper="PHoToNs (arXiv 1802.09824)", formulation="[recon]/[ours]",
    cells=cells, run_cell=run_cell, report=report,
    methods=("domain-decomposition/chain", "domain-decomposition/equal-count", "domain-decomposition/rcb"),
    instance_family="generated Gaussian-halo and Zel'dovich particle sets, 10^5 .. 10^7 particles",
    quick_budget_s=180.0,
)
