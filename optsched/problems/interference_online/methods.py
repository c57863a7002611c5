"""Method registrations of ``interference-online`` (thin wrappers)."""

from __future__ import annotations

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
               options={"window": Option(int, 6, "waiting jobs per snapshot MILP"),
                        "solve_time_limit": Option(float, 2.0, "seconds per MILP solve"),
                        "time_budget": Option(float, 60.0, "total MILP seconds before falling back for good"),
                        "defer_factor": Option(float, 2.0, "deferral cost = factor x the largest isolated run time"),
                        "max_solves": Option(int, 0, "deterministic budget: MILP solves before falling back for "
                                                     "good (0: no limit)")},
               )(algorithms.milp_per_event)
PROBLEM.method("marl", kind="online", fidelity="reconstruction",
               summary="one MLP agent per server group, joint softmax over candidate placements, REINFORCE-trained",
               options={"weights": Option(str, "", "weights JSON (empty: the committed marl_weights.json)"),
                        "train_iterations": Option(int, 0, "> 0: train now on synthetic streams (seed = --seed)")},
               )(algorithms.marl)
PROBLEM.method("lb", kind="bound", fidelity="ours",
               summary="mean isolated run time at the fewest servers (no waiting, no interference)",
               )(algorithms.lower_bound)
