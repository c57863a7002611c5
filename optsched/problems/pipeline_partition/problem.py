"""The ``pipeline-partition`` problem record: instance type, checker, generators, presets, importers."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.quality_sets import QualitySet, quality_cases
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate, tiny_instance
from .instance import OBJECTIVE, SOLUTION_SCHEMA, PipelinePartitionInstance, check
from .model import build_model


def import_pipedream_profile(path, index: int | None = None, batch_size: float | None = None):
    """``optsched import pipedream-profile graph.txt -o inst.json``: the profile on PipeDream's
    antichain chain as a pipeline-partition instance with ``optsched generate``'s defaults
    (topology nvlink:4, 4 microbatches, bottleneck objective, K chosen by the planner);
    ``--batch-size N`` gives the profiling batch of files other than PipeDream's released seven
    (without it such a file is imported at batch 1, said in the provenance: the default instance
    depends on the microbatch count only, not on the batch's size [ours]).
    The file also serves as a profile (``generate pipeline-partition --profile inst.json``
    re-reads its per-layer arrays) for other topologies and objectives."""
    from optsched.core.errors import InvalidOptionError
    from optsched.workloads.profiles import load_pipedream_graph
    from optsched.workloads.topology import resolve

    from .generate import from_profile

    if index is not None:
        raise InvalidOptionError("profile", "--index", "a PipeDream graph.txt holds one profile")
    prof = load_pipedream_graph(path, batch_size, unknown_batch=1.0)
    return from_profile(prof, resolve("nvlink:4", seed=0),
                        provenance=prof.provenance + "; optsched import defaults: nvlink:4, 4 microbatches, "
                                                     "bottleneck")


PROBLEM = register_problem(Problem(
    name="pipeline-partition",
    title="pipeline partition, replication and device mapping",
    sense="min",
    instance_type=PipelinePartitionInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/pipeline_partition/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "profile": Option(str, "", "profile file (optsched JSON or PipeDream graph.txt); empty: a random chain"),
        "layers": Option(int, 8, "positions of the random chain (without --profile)", bounds=Interval(1, 1_000_000)),
        "topology": Option(str, "nvlink:4", "device graph preset (nvlink:N, two-level:SxG[:INTRA:INTER], "
                                            "flat:N:BW, ring:N:BW, random:N[:P]) or a JSON file"),
        "stages": Option(int, 0, "number of stages K; 0: the planner chooses", bounds=Interval(0, 100_000)),
        "microbatches": Option(int, 4, "microbatches per iteration M", bounds=Interval(1, 100_000)),
        "objective": Option(str, "bottleneck", "bottleneck | sync-estimate | sync (evaluation only)"),
        "microbatch_size": Option(float, 0.0, "samples per microbatch; 0: profile batch / M", bounds=Interval(0, 1e9)),
        "max_replicas": Option(int, 0, "largest replication of a stage; 0: no bound", bounds=Interval(0, 100_000)),
        "memory_gb": Option(float, 0.0, "memory per device in GB; 0: the topology's (16 GB)", bounds=Interval(0, 1e6)),
        "schedule": Option(str, "1f1b", "schedule whose in-flight microbatches the memory check uses"),
        "group_size": Option(int, 1, "kFkB group size", bounds=Interval(1, 100_000)),
    },
    importers={"pipedream-profile": import_pipedream_profile},
    build_model=build_model,
    default_method="dp",
    tiny_instances=tiny_instance,
    quality=QualitySet(("milp",), quality_cases([("tiny", range(4)), ("small", range(4))])),
))

