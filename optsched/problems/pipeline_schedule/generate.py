"""Seeded generators for pipeline-schedule instances, and the import of a partitioned plan.

Synthetic instances [ours]: stage k's forward is ``U(1 - h, 1 + h)`` seconds (h =
``heterogeneity``), its backward ``2 U(1 - h/2, 1 + h/2)`` times its forward; the transfer of link k is
``transfer x U(0.5, 1.5)`` times the mean forward; each stage is replicated with probability 1/2
(``allreduce > 0`` only), its all-reduce then ``allreduce x U(0.5, 1.5) x (F_k + B_k)``. Times are
rounded to milliseconds (at least 1 ms). Memory for reporting: ``stash_bytes[k] = 2e8 x F_k``
(activations grow with compute), ``static_bytes[k] = U(0.5, 1.5) x 1e9``. ``cap``: ``none``,
``1f1b`` (cap K - k at 0-based stage k: what 1F1B needs) or an integer (every stage).

A chain-partition plan (``plan`` = a plan instance file, :mod:`optsched.pipeline.partition.instance`,
``plan_result`` = a result or bare solution file for it), or one planned here from ``profile`` /
``topology`` (the shared layer's generator and chain DP, :func:`optsched.pipeline.partition.dp.best_plan`),
goes through :func:`optsched.pipeline.costs.stage_times`.
"""

from __future__ import annotations

import numpy as np

from optsched.core.errors import Infeasible, InvalidInstanceError, InvalidOptionError
from optsched.core.instance import load_json_file
from optsched.core.rng import make_rng
from optsched.pipeline.costs import stage_times
from optsched.pipeline.partition import generate as plan_generate
from optsched.pipeline.partition.dp import best_plan
from optsched.pipeline.partition.instance import FORMAT as PLAN_FORMAT
from optsched.pipeline.partition.instance import PipelinePartitionInstance as PlanInstance
from optsched.pipeline.partition.instance import check as check_plan

from .instance import PipelineScheduleInstance

__all__ = ["generate", "from_plan", "from_profile", "from_partition", "PRESETS", "tiny_instance"]

PROBLEM = "pipeline-schedule"

PRESETS: dict[str, dict] = {
    # identical stages, no transfers, no all-reduce, no cap: (M + K - 1)(F + B) for GPipe and 1F1B
    "identical": {"stages": 4, "microbatches": 8, "heterogeneity": 0.0, "transfer": 0.0, "allreduce": 0.0},
    # the acceptance preset: heterogeneous stages with transfers, all-reduces and the 1F1B caps;
    # small enough for milp (3 stages x 4 microbatches)
    "hetero-small": {"stages": 3, "microbatches": 4, "heterogeneity": 0.6, "transfer": 0.5,
                     "allreduce": 0.5, "cap": "1f1b"},
    "medium": {"stages": 8, "microbatches": 32, "heterogeneity": 0.5, "transfer": 0.3, "allreduce": 0.3},
    "large": {"stages": 64, "microbatches": 1024, "heterogeneity": 0.3, "transfer": 0.1, "allreduce": 0.2},
}

_TINY_SHAPES = ((2, 2), (2, 3), (3, 2))


def tiny_instance(seed: int) -> PipelineScheduleInstance:
    """Conformance instances: 2-3 stages, 2-3 microbatches, heterogeneous, with transfers."""
    stages, microbatches = _TINY_SHAPES[seed % len(_TINY_SHAPES)]
    return generate(seed, stages=stages, microbatches=microbatches, heterogeneity=0.6, transfer=0.5,
                    allreduce=0.5)


def _parse_cap(cap: str, stages: int, microbatches: int) -> tuple[int, ...] | None:
    if cap == "none":
        return None
    if cap == "1f1b":
        return tuple(stages - k for k in range(stages))
    try:
        value = int(cap)
    except ValueError:
        raise InvalidOptionError(PROBLEM, "cap", "must be none, 1f1b or an integer >= 1", cap) from None
    if value < 1:
        raise InvalidOptionError(PROBLEM, "cap", "must be >= 1", value)
    return (value,) * stages


#: the random generator's largest K x M [ours, measured]: 1F1B at 256 x 512 (262,144 tasks) takes
#: 3.5 s in the method and 6.8 s in the checker on the 2-core reference machine under load; 1024 x
#: 1024 took 68 s and 1024 x 4096 240 s (2 GB): the order's JSON and its check are linear in K M
MAX_STAGE_MICROBATCHES = 131_072

def generate(seed: int, *, stages: int = 4, microbatches: int = 8, heterogeneity: float = 0.5,
             transfer: float = 0.2, allreduce: float = 0.0, cap: str = "none", plan: str = "",
             plan_result: str = "", profile: str = "", topology: str = "") -> PipelineScheduleInstance:
    """A random instance (same seed and options, same instance); a plan's when ``plan`` is set;
    a freshly planned profile's when ``profile`` or ``topology`` is set (``stages`` and
    ``microbatches`` go to the planner; a random chain when ``profile`` is empty).

    >>> inst = generate(1, stages=3, microbatches=4)
    >>> inst.stages, inst.microbatches, len(inst.transfer)
    (3, 4, 2)
    """
    if plan or plan_result:
        if not (plan and plan_result):
            raise InvalidOptionError(PROBLEM, "plan_result" if plan else "plan",
                                       "give both --plan (partition instance) and --plan-result")
        return from_plan(plan, plan_result)
    if profile or topology:
        return from_profile(seed, profile, topology, stages, microbatches)
    if stages < 1:
        raise InvalidOptionError(PROBLEM, "stages", "must be >= 1", stages)
    if microbatches < 1:
        raise InvalidOptionError(PROBLEM, "microbatches", "must be >= 1", microbatches)
    if stages * microbatches > MAX_STAGE_MICROBATCHES:
        raise InvalidOptionError(PROBLEM, "stages x microbatches", f"must be <= {MAX_STAGE_MICROBATCHES} (a "
                                 "schedule lists 2 K M tasks; the checker and the solution's JSON take seconds "
                                 "per 10^5 of them)", stages * microbatches)
    if not 0 <= heterogeneity < 1:
        raise InvalidOptionError(PROBLEM, "heterogeneity", "must be in [0, 1)", heterogeneity)
    for name, value in (("transfer", transfer), ("allreduce", allreduce)):
        if not value >= 0:
            raise InvalidOptionError(PROBLEM, name, "must be >= 0", value)
    caps = _parse_cap(str(cap), stages, microbatches)
    rng = make_rng(seed, PROBLEM, stages, microbatches, heterogeneity, transfer, allreduce)
    fwd = rng.uniform(1 - heterogeneity, 1 + heterogeneity, stages)
    bwd = fwd * 2 * rng.uniform(1 - heterogeneity / 2, 1 + heterogeneity / 2, stages)
    xfer = transfer * rng.uniform(0.5, 1.5, stages - 1) * fwd.mean()
    replicated = rng.random(stages) < 0.5
    ar = np.where(replicated, allreduce * rng.uniform(0.5, 1.5, stages) * (fwd + bwd), 0.0)
    static = rng.uniform(0.5, 1.5, stages) * 1e9

    def ms(values, floor):
        return np.maximum(np.round(values, 3), floor).tolist()

    fwd_ms = ms(fwd, 0.001)
    return PipelineScheduleInstance(
        forward=fwd_ms, backward=ms(bwd, 0.001), transfer=ms(xfer, 0.0), allreduce=ms(ar, 0.0),
        microbatches=microbatches, inflight_cap=caps,
        stash_bytes=(2e8 * np.asarray(fwd_ms)).tolist(), static_bytes=np.round(static).tolist(),
        name=f"gen-K{stages}-M{microbatches}-h{heterogeneity}-x{transfer}-ar{allreduce}-cap{cap}-s{seed}",
        provenance=f"optsched pipeline-schedule generator, seed {seed}")


def from_plan(plan: str, plan_result: str) -> PipelineScheduleInstance:
    """The instance of a partitioned, mapped plan: ``plan`` is a plan instance file
    (:mod:`optsched.pipeline.partition.instance`), ``plan_result`` a result record (or bare
    solution) for it; see :func:`from_partition`."""
    pinst = PlanInstance.load(plan)
    data = load_json_file(plan_result, PROBLEM)
    solution = data["solution"] if isinstance(data, dict) and "solution" in data and "method" in data else data
    return from_partition(pinst, solution, provenance=f"{PLAN_FORMAT} plan {plan} with {plan_result}")


def from_profile(seed: int, profile: str, topology: str, stages: int, microbatches: int) -> PipelineScheduleInstance:
    """Plan a profile (file, or a seeded random chain when empty) on a topology preset with the
    shared layer's plan generator and chain DP (:func:`optsched.pipeline.partition.dp.best_plan`:
    exact on uniform and clustered graphs, the best plan over the device order elsewhere), then
    schedule that plan."""
    pinst = plan_generate.generate(seed, profile=profile, topology=topology or "nvlink:4", stages=stages,
                                   microbatches=microbatches)
    try:
        plan, _ = best_plan(pinst)
    except Infeasible as exc:
        raise InvalidInstanceError(PROBLEM, "profile", f"the chain DP found no plan (infeasible: {exc})") from None
    return from_partition(pinst, plan.solution(), provenance=f"{PLAN_FORMAT}/dp plan of {pinst.name}, seed {seed}")


def from_partition(pinst, solution, provenance: str = "") -> PipelineScheduleInstance:
    """Stage times from :func:`optsched.pipeline.costs.stage_times`; the cap of stage k is
    floor((memory_bytes[k] - optimizer_factor x parameter_bytes[k]) / stash_bytes[k]), at most M
    (M where the stash is 0), the partition problem's memory model."""
    report = check_plan(pinst, solution)
    if not report.feasible:
        raise InvalidInstanceError(PROBLEM, "plan_result", "is not a feasible plan: " + "; ".join(report.violations[:3]))
    times = stage_times(pinst, solution)
    M = pinst.microbatches
    stash = np.asarray(times.stash_bytes, float)
    static = np.asarray(times.parameter_bytes, float) * pinst.optimizer_factor
    free = np.asarray(times.memory_bytes, float) - static
    with np.errstate(divide="ignore", invalid="ignore"):
        caps = np.where(stash > 0, np.floor(free / np.where(stash > 0, stash, 1.0)), M)
    if np.any(caps < 1):
        k = int(np.flatnonzero(caps < 1)[0])
        raise InvalidInstanceError(PROBLEM, f"inflight_cap[{k}]", "below 1: the plan's stage does not fit "
                                   "one microbatch in its device memory", float(caps[k]))
    return PipelineScheduleInstance(
        forward=times.forward, backward=times.backward, transfer=times.transfer, allreduce=times.allreduce,
        microbatches=M, inflight_cap=tuple(int(c) for c in np.minimum(caps, M)),
        stash_bytes=stash.tolist(), static_bytes=static.tolist(),
        name=f"plan-{pinst.name or 'partition'}", provenance=provenance)
