"""The methods of ``pipeline-partition``: kind, fidelity, guarantee, options and applicability of each."""

from __future__ import annotations

from optsched.pipeline.partition.dp import SUBSET_MAX_DEVICES, SUBSET_MAX_POSITIONS

from . import algorithms
from optsched.core.registry import size_limit

from .baselines import MINMAX_MAX_POSITIONS
from .model import MILP_MAX_ASSIGNMENTS, milp_assignments
from . import bisect as _bisect
from .problem import PROBLEM


def _fixed_k_free(inst) -> tuple[bool, str]:
    return (inst.stages is None, "the planner chooses the number of stages (the instance fixes it)")


def _minmax_ok(inst) -> tuple[bool, str]:
    n = inst.num_positions
    return (n <= MINMAX_MAX_POSITIONS, f"n = {n}; the min-max partition holds (n + 1)^2 sums: n <= "
                                        f"{MINMAX_MAX_POSITIONS}")


def _dapple_ok(inst) -> tuple[bool, str]:
    ok, why = _fixed_k_free(inst)
    return (_minmax_ok(inst) if ok else (ok, why))


def _subset_ok(inst) -> tuple[bool, str]:
    ok = inst.num_devices <= SUBSET_MAX_DEVICES and inst.num_positions <= SUBSET_MAX_POSITIONS
    return ok, (f"n = {inst.num_positions}, N = {inst.num_devices}; subset-dp needs n <= {SUBSET_MAX_POSITIONS}, "
                f"N <= {SUBSET_MAX_DEVICES}")


def _bisect_ok(inst) -> tuple[bool, str]:
    if inst.objective != "bottleneck":
        return False, "bisect optimizes the bottleneck objective only"
    return _bisect.applicable(inst)


PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True,
               applicable=size_limit(milp_assignments, MILP_MAX_ASSIGNMENTS, "n x largest K", "milp"),
               summary="MILP per stage count (partition + replication + mapping), best over K")(algorithms.milp)

PROBLEM.method("dp", kind="exact", fidelity="ours",
               summary="chain DP with replication over the device order (exact on uniform graphs)")(algorithms.dp)

PROBLEM.method("subset-dp", kind="exact", fidelity="ours", applicable=_subset_ok,
               summary="DP over device subsets, any graph (tests: small n, N)")(algorithms.subset_dp)

PROBLEM.method("bisect", kind="exact", fidelity="ours", applicable=_bisect_ok,
               summary="bisection + greedy probe: exact bottleneck without replication, uniform graph")(algorithms.bisect)

PROBLEM.method("order-dp", kind="heuristic", fidelity="ours",
               summary="dp over a bandwidth-greedy device order (no guarantee; empirical ratio)")(algorithms.order_dp)

PROBLEM.method("uniform", kind="baseline", fidelity="ours",
               summary="equal position counts, one device per stage")(algorithms.uniform)

PROBLEM.method("param-balanced", kind="baseline", fidelity="reconstruction", applicable=_minmax_ok,
               summary="DeepSpeed-style: min-max stage parameter bytes")(algorithms.param_balanced)

PROBLEM.method("time-balanced", kind="baseline", fidelity="reconstruction", applicable=_minmax_ok,
               summary="torchgpipe-style: min-max stage forward time")(algorithms.time_balanced)

PROBLEM.method("pipedream", kind="baseline", fidelity="code", applicable=_fixed_k_free,
               summary="PipeDream's DP and cost model (replication, transfers ignored)")(algorithms.pipedream)

PROBLEM.method("dapple", kind="baseline", fidelity="reconstruction", applicable=_dapple_ok,
               summary="DAPPLE-style: per K, balanced stages with N//K replicas, latency estimate")(algorithms.dapple)



# -- device mapping on arbitrary graphs (mapping.py) ---------------------------------------------
from optsched.core.registry import Guarantee  # noqa: E402

from . import mapping as _mapping  # noqa: E402


def _spread_applies(inst) -> tuple[bool, str]:
    if inst.objective == "sync":
        return False, "the factor is proved for bottleneck and sync-estimate, not the simulated makespan"
    if not _mapping.identical_devices(inst):
        return False, "the factor needs identical devices (speed and memory)"
    return True, f"identical devices, bandwidth spread {_mapping.spread(inst):.6g}"


PROBLEM.method("map-bb", kind="exact", fidelity="ours",
               summary="exact mapping on any graph: relaxation bound + tree-order incumbent, then the chain DP "
                       "over device sets up to the bandwidth tree's automorphisms")(_mapping.map_bb)

PROBLEM.method("tree-order-dp", kind="approximation", fidelity="ours",
               summary="dp over the bandwidth tree's leaf order; ALG <= (b_max / b_min) OPT (identical devices)",
               guarantee=Guarantee(
                   form="multiplicative", sense="<=", value=_mapping.spread, reference="OPT",
                   statement="ALG <= (b_max / b_min) OPT, b_max/b_min = largest/smallest widest-path bandwidth "
                             "between two devices; identical devices; bottleneck and sync-estimate",
                   source="ours", proof="optsched/problems/pipeline_partition/README.md#tree-order-dp",
                   applies=_spread_applies))(_mapping.tree_order_dp)
