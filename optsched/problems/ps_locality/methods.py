"""The methods of ``ps-locality``: kind, fidelity, guarantee, options and applicability of each."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Guarantee, Option

from . import algorithms
from .online import online_applicable, online_rr
from .problem import PROBLEM

_ROWS = {"cumulative_rows": Option(bool, True, "cumulative covering rows (False: one aggregate row per job)"),
         "activity_rows": Option(bool, True, "a job works only until its completion slot"),
         "solo_cut": Option(bool, True, "no completion before a_i + solo_i - 1")}

PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True, options=_ROWS,
               summary="time-indexed mixed packing-covering IP (mip_rel_gap = 0)")(algorithms.milp)

PROBLEM.method("lp", kind="bound", fidelity="ours", uses_backend=True, options=_ROWS,
               summary="LP relaxation of the IP: a lower bound on OPT")(algorithms.lp_bound)

PROBLEM.method("lower-bound", kind="bound", fidelity="ours", uses_backend=True,
               options={"fine_slots": Option(int, 16, "one-slot buckets up to the last arrival + this, then doubling"),
                        "activity_rows": _ROWS["activity_rows"]},
               summary="max(sum of solo times, pooled bucketed LP): a lower bound for large instances"
               )(algorithms.lower_bound)

def _rr_event(instance, result) -> bool:
    pre = result.stats["pre_repair"][0]
    within = pre["max_load_ratio"] <= result.stats["rounding_factor"] * (1 + 1e-6)
    return within and not pre["zero_capacity_rows_loaded"]

PROBLEM.method(
    "rr", kind="approximation", fidelity="reconstruction", uses_backend=True, randomized=True,
    summary="LP, sample completion slot and mode, scale by kappa and round, repair; best of trials",
    options={"trials": Option(int, 8, "rounding trials (the best repaired schedule is returned)",
                              bounds=Interval(1, algorithms.RR_MAX_TRIALS)),
             "kappa": Option(float, 1.0, "scale factor kappa >= 1 applied before rounding", bounds=Interval(1, 1e6))},
    guarantee=Guarantee(
        form="probabilistic", sense="<=", value=lambda inst: algorithms.rounding_factor(inst, 1.0),
        reference="OPT",
        statement="before repair, in the first trial, every packing row's load is at most kappa (1 + delta) "
                  "times its capacity, delta^2 / (2 + delta) = 2 ln m / (kappa rho), with probability >= 1 - 1/m "
                  "(m = H R T packing rows, rho = min capacity / largest per-job contribution)",
        source="ours", proof="optsched/problems/ps_locality/README.md#rounding-theorem",
        applies=lambda inst: (inst.num_machines * inst.num_resources * inst.horizon_slots >= 2, "m >= 2 packing rows"),
        probability=lambda inst: 1 - 1 / (inst.num_machines * inst.num_resources * inst.horizon_slots),
        event=_rr_event),
)(algorithms.rr)

PROBLEM.method(
    "online-rr", kind="online", fidelity="reconstruction", uses_backend=True, randomized=True,
    summary="rolling-horizon LP rounding on the event simulator, committing one slot at a time",
    options={"window": Option(int, 6, "slots of the rolling LP window"),
             "max_lp_jobs": Option(int, 40, "at most this many jobs (shortest residual first) in the window LP"),
             "kappa": Option(float, 1.0, "scale factor kappa >= 1 applied before rounding", bounds=Interval(1, 1e6))},
    applicable=online_applicable,
)(online_rr)

PROBLEM.method("fifo-locality", kind="baseline", fidelity="ours",
               summary="FIFO; co-locate on the first machine that fits, else spread")(algorithms.fifo_locality_method)

PROBLEM.method("drf", kind="baseline", fidelity="ours",
               summary="DRF-style fair share of the dominant resource, spread placement")(algorithms.drf_method)

