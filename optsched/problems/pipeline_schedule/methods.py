"""The methods of ``pipeline-schedule``: kind, fidelity, guarantee, options and applicability of each."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, size_limit

from . import algorithms
from .algorithms import BRUTE_MAX_ORDERS, MILP_MAX_NONZEROS, brute_order_count, model_nonzeros
from .problem import PROBLEM

PROBLEM.method("gpipe", color="#ee6677", kind="baseline", fidelity="paper", applicable=algorithms.fits_caps("gpipe"),
               summary="GPipe: all forwards, then all backwards (reverse order); peak in flight M"
               )(algorithms.gpipe)

PROBLEM.method("1f1b", color="#4477aa", kind="baseline", fidelity="code", applicable=algorithms.fits_caps("1f1b"),
               summary="1F1B / PipeDream-Flush: K-1-k warm-up forwards, alternate, drain"
               )(algorithms.one_f_one_b)

PROBLEM.method("kfkb", color="#228833", kind="baseline", fidelity="reconstruction",
               summary="kFkB: 1F1B on groups of group_size microbatches (Ada-Grouper's family)",
               options={"group_size": Option(int, 2, "microbatches per group (>= 1; 1 is 1F1B)",
                                                   bounds=Interval(1, 1_000_000))},
               )(algorithms.kfkb)

PROBLEM.method("list", kind="heuristic", fidelity="ours",
               summary="non-delay list scheduling, ties: feed a starving next stage, else backward; caps kept; bound = LB"
               )(algorithms.list_schedule)

PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True,
               summary="disjunctive big-M MILP of the minimum makespan (small instances)",
               applicable=size_limit(model_nonzeros, MILP_MAX_NONZEROS, "model nonzeros", "milp"),
               )(algorithms.milp)

PROBLEM.method("brute", kind="exact", fidelity="ours",
               summary=f"simulate every per-stage order (at most {BRUTE_MAX_ORDERS} combinations; tests)",
               applicable=size_limit(brute_order_count, BRUTE_MAX_ORDERS, "order combinations", "brute"),
               )(algorithms.brute)

