"""Method registrations of ``interference-online`` (thin wrappers)."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option

from . import algorithms
from .problem import PROBLEM

PROBLEM.method("fifo-pack", kind="baseline", fidelity="ours",
               summary="FIFO (head-of-line blocking), best fit, interference-oblivious",
               options={"backfill": Option(bool, False, "let later jobs pass one that does not fit")},
               )(algorithms.fifo_pack)
PROBLEM.method("least-interference", kind="online", fidelity="ours",
               summary="arrival order with backfilling, least marginal JCT-proxy cost")(algorithms.least_interference)
PROBLEM.method("milp-per-event", kind="online", fidelity="ours", uses_backend=True,
               summary="rolling snapshot MILP on the first waiting jobs; falls back to least-interference "
                       "(logged) when its time budget is spent",
               options={"window": Option(int, 6, "waiting jobs per snapshot MILP", bounds=Interval(1, 10_000)),
                        "solve_time_limit": Option(float, 2.0, "seconds per MILP solve",
                                                   bounds=Interval(0, 1e6, closed="right")),
                        "time_budget": Option(float, 60.0, "total MILP seconds before falling back for good",
                                              bounds=Interval(0, 1e9)),
                        "defer_factor": Option(float, 2.0, "deferral cost = factor x the largest isolated run time",
                                               bounds=Interval(0, 1e6)),
                        "max_solves": Option(int, 0, "deterministic budget: MILP solves before falling back for "
                                                     "good (0: no limit)")},
               )(algorithms.milp_per_event)
PROBLEM.method("tiresias-las", kind="baseline", fidelity="ours",
               summary="Tiresias-like 2D-LAS without preemption: smallest GPU demand first, consolidated, backfill",
               )(algorithms.tiresias_las)
PROBLEM.method("gandiva-pack", kind="baseline", fidelity="ours",
               summary="Gandiva-like migration-free packing: FIFO with backfill, co-locate only where the measured "
                       "pair progress is profitable, same-size affinity",
               )(algorithms.gandiva_pack)
PROBLEM.method("sjf-least-interference", kind="online", fidelity="ours",
               summary="shortest isolated run time first, least-interference placement (duration-aware reference)",
               )(algorithms.sjf_least_interference)
PROBLEM.method("marl", color="#aa3377", kind="online", fidelity="reconstruction",
               summary="one agent per rack over a hierarchical GPU->server->rack encoder, shared critic, "
                       "actor-critic-trained in jax; numpy inference from stored weights",
               options={"weights": Option(str, "", "weights JSON (empty: the committed weights of weights_seed)"),
                        "weights_seed": Option(int, 0, "which committed training seed's weights (0..4)")},
               )(algorithms.marl)
PROBLEM.method("lb", kind="bound", fidelity="ours",
               summary="mean isolated run time at the fewest servers (no waiting, no interference)",
               )(algorithms.lower_bound)

from . import exact  # noqa: E402

PROBLEM.method("bb", kind="exact", fidelity="ours", applicable=exact.bb_applies,
               summary="best offline schedule that starts jobs at arrivals and completions only, by branch "
                       "and bound (non-preemptive, fixed placements); not the problem's OPT; small streams",
               )(exact.bb)
PROBLEM.method("lb-volume", kind="bound", fidelity="ours",
               summary="max(lb, GPU-volume SRPT bound on one machine of all GPUs): counts waiting under load",
               )(exact.lower_bound_volume)
