"""``pipeline-partition``: cut a DNN's chain into pipeline stages, replicate them and map them to
devices of an arbitrary device graph (spec ``pipeline.md`` (a); docs ``docs/pipeline_partition.md``).

Methods: ``milp``, ``dp``, ``subset-dp`` and ``bisect`` (exact, each within its stated scope),
``order-dp`` (device-order heuristic + dp), and the public planners as baselines: ``uniform``,
``param-balanced``, ``time-balanced``, ``pipedream``, ``dapple``.
"""

from __future__ import annotations

from optsched.core.registry import Option, Problem, register_problem

from . import bisect as _bisect
from . import methods
from .dp import SUBSET_MAX_DEVICES, SUBSET_MAX_POSITIONS
from .generate import PRESETS, from_profile, generate, tiny_instance
from .instance import OBJECTIVE, SOLUTION_SCHEMA, PipelinePartitionInstance, check
from .model import build_model

__all__ = ["PipelinePartitionInstance", "PROBLEM", "generate", "from_profile", "check", "build_model",
           "import_pipedream_profile"]


def import_pipedream_profile(path, index: int | None = None):
    """``optsched import pipedream-profile graph.txt -o profile.json``: the profile (JSON format
    of :mod:`optsched.workloads.profiles`) on PipeDream's antichain chain."""
    from optsched.core.errors import InvalidInstanceError
    from optsched.workloads.profiles import load_pipedream_graph

    if index is not None:
        raise InvalidInstanceError("profile", "--index", "a PipeDream graph.txt holds one profile")
    return load_pipedream_graph(path)


def _fixed_k_free(inst) -> tuple[bool, str]:
    return (inst.stages is None, "the planner chooses the number of stages (the instance fixes it)")


def _subset_ok(inst) -> tuple[bool, str]:
    ok = inst.num_devices <= SUBSET_MAX_DEVICES and inst.num_positions <= SUBSET_MAX_POSITIONS
    return ok, (f"n = {inst.num_positions}, N = {inst.num_devices}; subset-dp needs n <= {SUBSET_MAX_POSITIONS}, "
                f"N <= {SUBSET_MAX_DEVICES}")


def _bisect_ok(inst) -> tuple[bool, str]:
    if inst.objective != "bottleneck":
        return False, "bisect optimizes the bottleneck objective only"
    return _bisect.applicable(inst)


PROBLEM = register_problem(Problem(
    name="pipeline-partition",
    title="pipeline partition, replication and device mapping",
    sense="min",
    instance_type=PipelinePartitionInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="pipeline.md (a)",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "profile": Option(str, "", "profile file (optsched JSON or PipeDream graph.txt); empty: a random chain"),
        "layers": Option(int, 8, "positions of the random chain (without --profile)"),
        "topology": Option(str, "nvlink:4", "device graph preset (nvlink:N, two-level:SxG[:INTRA:INTER], "
                                            "flat:N:BW, ring:N:BW, random:N[:P]) or a JSON file"),
        "stages": Option(int, 0, "number of stages K; 0: the planner chooses"),
        "microbatches": Option(int, 4, "microbatches per iteration M"),
        "objective": Option(str, "bottleneck", "bottleneck | sync-estimate | sync (evaluation only)"),
        "microbatch_size": Option(float, 0.0, "samples per microbatch; 0: profile batch / M"),
        "max_replicas": Option(int, 0, "largest replication of a stage; 0: no bound"),
        "memory_gb": Option(float, 0.0, "memory per device in GB; 0: the topology's (16 GB)"),
        "schedule": Option(str, "1f1b", "schedule whose in-flight microbatches the memory check uses"),
        "group_size": Option(int, 1, "kFkB group size"),
    },
    importers={"pipedream-profile": import_pipedream_profile},
    build_model=build_model,
    default_method="dp",
    tiny_instances=tiny_instance,
))

PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True,
               summary="MILP per stage count (partition + replication + mapping), best over K")(methods.milp)
PROBLEM.method("dp", kind="exact", fidelity="ours",
               summary="chain DP with replication over the device order (exact on uniform graphs)")(methods.dp)
PROBLEM.method("subset-dp", kind="exact", fidelity="ours", applicable=_subset_ok,
               summary="DP over device subsets, any graph (tests: small n, N)")(methods.subset_dp)
PROBLEM.method("bisect", kind="exact", fidelity="ours", applicable=_bisect_ok,
               summary="bisection + greedy probe: exact bottleneck without replication, uniform graph")(methods.bisect)
PROBLEM.method("order-dp", kind="heuristic", fidelity="ours",
               summary="dp over a bandwidth-greedy device order (no guarantee; empirical ratio)")(methods.order_dp)
PROBLEM.method("uniform", kind="baseline", fidelity="ours",
               summary="equal position counts, one device per stage")(methods.uniform)
PROBLEM.method("param-balanced", kind="baseline", fidelity="reconstruction",
               summary="DeepSpeed-style: min-max stage parameter bytes")(methods.param_balanced)
PROBLEM.method("time-balanced", kind="baseline", fidelity="reconstruction",
               summary="torchgpipe-style: min-max stage forward time")(methods.time_balanced)
PROBLEM.method("pipedream", kind="baseline", fidelity="code", applicable=_fixed_k_free,
               summary="PipeDream's DP and cost model (replication, transfers ignored)")(methods.pipedream)
PROBLEM.method("dapple", kind="baseline", fidelity="reconstruction", applicable=_fixed_k_free,
               summary="DAPPLE-style: per K, balanced stages with N//K replicas, latency estimate")(methods.dapple)
