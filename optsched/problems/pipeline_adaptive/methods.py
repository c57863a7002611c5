"""The methods of ``pipeline-adaptive``: kind, fidelity, options and applicability of each."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, size_limit

from . import algorithms
from .algorithms import BRUTE_MAX_SEQUENCES, brute_sequence_count
from .problem import PROBLEM

PROBLEM.method("ada-grouper", color="#4477aa", kind="online", fidelity="reconstruction",
               summary="past-only adaptive kFkB group size with amortized switching (Ada-Grouper's idea)"
               )(algorithms.ada_grouper)
PROBLEM.method("fixed", kind="baseline", fidelity="ours",
               options={"group_size": Option(int, 1, "the group size for every iteration (1 = 1F1B)",
                                                   bounds=Interval(1, 1_000_000))},
               summary="one group size throughout (1F1B by default)")(algorithms.fixed)
PROBLEM.method("oracle", kind="heuristic", fidelity="ours",
               summary="clairvoyant amortized switching with the true trace (a reference, not proven optimal)"
               )(algorithms.oracle)
PROBLEM.method("brute", kind="exact", fidelity="ours",
               applicable=size_limit(brute_sequence_count, BRUTE_MAX_SEQUENCES, "group-size sequences", "brute"),
               summary="every sequence of memory-fitting group sizes (tiny instances)")(algorithms.brute)
PROBLEM.method("lb", kind="bound", fidelity="ours",
               summary="iterations x the fastest iteration over group sizes and periods")(algorithms.lower_bound)
