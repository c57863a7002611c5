"""The ``pipeline-graph`` problem record: instance type, checker, generators, presets, importers."""

from __future__ import annotations

from optsched.core.params import Interval
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, from_pipedream, generate, tiny_instance
from .instance import OBJECTIVE, SOLUTION_SCHEMA, PipelineGraphInstance, check


def import_pipedream_graph(path, index: int | None = None):
    """``optsched import pipedream-graph graph.txt``: the whole DAG at 16 workers, PipeDream's
    objective and defaults (edit ``workers`` / ``objective`` in the JSON as needed)."""
    from optsched.core.errors import InvalidOptionError

    if index is not None:
        raise InvalidOptionError("pipeline-graph", "--index", "a PipeDream graph.txt holds one graph")
    return from_pipedream(path, 16)


PROBLEM = register_problem(Problem(
    name="pipeline-graph",
    title="pipeline partition of a whole layer DAG (PipeDream's antichain space) with replication",
    sense="min",
    instance_type=PipelineGraphInstance,
    check=check,
    objective=OBJECTIVE,
    solution_schema=SOLUTION_SCHEMA,
    spec="optsched/problems/pipeline_graph/README.md",
    generate=generate,
    presets=PRESETS,
    generator_options={
        "profile": Option(str, "", "PipeDream graph.txt; empty: a random DAG"),
        "layers": Option(int, 6, "layers of the random DAG", bounds=Interval(1, 10_000)),
        "workers": Option(int, 3, "number of workers N", bounds=Interval(1, 1024)),
        "objective": Option(str, "bottleneck", "bottleneck | pipedream"),
        "bandwidth": Option(float, 1e9, "bytes/s between workers (PipeDream's default 1e9)", bounds=Interval(0, 1e15, closed="right")),
        "activation_compression_ratio": Option(float, 0.0, "PipeDream's transfer term divisor; 0: no transfer term", bounds=Interval(0, 1e6)),
        "chain": Option(bool, False, "a random chain instead of a DAG"),
    },
    importers={"pipedream-graph": import_pipedream_graph},
    default_method="antichain-dp",
    reference_method="antichain-dp",
    tiny_instances=tiny_instance,
))
