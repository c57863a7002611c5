"""Exact and LP-based methods for SMD.

* ``milp``: the MC-MKP over the enumerated (dominance-pruned) configurations: OPT.
* ``lp``: its LP relaxation (kind ``bound``): a lower bound on OPT.
* ``lp-round``: a basic LP solution, fractional jobs sent to their least-resource column;
  ALG <= OPT + |Res| max_i (omega_i defer_i - min_c cost_ic) when every job is deferrable [ours].
* ``brute``: every combination of the unpruned configurations (tiny instances; for tests).
"""

from __future__ import annotations

import numpy as np

from optsched.core.errors import Infeasible
from optsched.core.linear import LinearModel
from optsched.core.registry import Outcome
from optsched.core.solving import SolveContext, model_outcome, relaxation_outcome
from optsched.workloads.layer_timing import iteration_time_recursive, sync_seconds_per_byte

from .configurations import Configurations, enumerate_configurations
from .instance import CAPACITY_RTOL, SmdInstance, require_feasible
from .model import build_mcmkp_model, decode_choice, round_basic_lp

__all__ = ["build_model", "milp", "lp_bound", "lp_round", "brute", "brute_combinations",
           "deferral_penalty_bound", "BRUTE_MAX_COMBINATIONS"]

BRUTE_MAX_COMBINATIONS = 200_000


def _columns_and_model(instance: SmdInstance, prune: bool) -> tuple[Configurations, LinearModel]:
    cfg = enumerate_configurations(instance, prune=prune)
    return cfg, build_mcmkp_model(cfg.cost, cfg, instance.capacity_array, f"smd-{instance.name or 'instance'}")


def build_model(instance: SmdInstance, prune: bool = True) -> LinearModel:
    """The MC-MKP MILP (one binary per configuration and per defer; exactly one per job)."""
    return _columns_and_model(instance, prune)[1]


def milp(instance: SmdInstance, ctx: SolveContext) -> Outcome:
    """Exact: the MC-MKP over every (w, s) and defer, ``mip_rel_gap = 0`` unless overridden.

    With enumerable configurations the objective is linear in the choice variables, so this is
    OPT (docs ``optsched/problems/smd/README.md``, [ours]). ``prune`` drops dominated columns first (exact; see
    :mod:`.configurations`). A time limit returns ``time_limit`` with the incumbent, bound and gap.
    Size: one column per kept configuration, one row per job and per resource.

    >>> import optsched
    >>> from optsched.problems.smd.generate import generate
    >>> r = optsched.solve(generate(2, jobs=4), "milp")
    >>> r.status, r.gap <= 1e-9
    ('optimal', True)
    """
    require_feasible(instance)
    cfg, model = _columns_and_model(instance, ctx.options["prune"])
    out = model_outcome(ctx, model, lambda x: cfg.solution(decode_choice(x, cfg)))
    out.stats.update(columns=cfg.num_columns, configurations_enumerated=cfg.enumerated)
    return out


def lp_bound(instance: SmdInstance, ctx: SolveContext) -> Outcome:
    """The MC-MKP LP relaxation (pruned columns): a lower bound on OPT."""
    require_feasible(instance)
    return relaxation_outcome(ctx, build_model(instance))


def deferral_penalty_bound(instance: SmdInstance) -> float:
    """``|Res| * max_i (omega_i defer_i - min_c cost_ic)``: lp-round's additive guarantee."""
    cfg = enumerate_configurations(instance)
    least = np.minimum.reduceat(cfg.cost, cfg.start[:-1])
    return instance.num_resources * float(np.max(instance.weight_array * instance.defer_array - least))


def lp_round(instance: SmdInstance, ctx: SolveContext) -> Outcome:
    """Round a basic optimal LP solution: fractional jobs to defer (or (1, 1) if not deferrable).

    Guarantee [ours; proof in ``optsched/problems/smd/README.md#lp-round-additive-bound``]: when every job is deferrable,
    ``ALG <= LP + sum_{fractional i} (omega_i defer_i - min_c cost_ic)
    <= OPT + |Res| max_i (omega_i defer_i - min_c cost_ic)``. The LP solution is basic, so at most
    |Res| jobs are fractional: asserted (a :class:`SolverError` otherwise). With ``fill`` the
    rounded jobs then take their cheapest column that still fits (never worse). Time: one LP solve
    over the pruned columns plus ``O(columns)``.

    >>> import optsched
    >>> from optsched.problems.smd.generate import generate
    >>> r = optsched.solve(generate(2, jobs=4), "lp-round")
    >>> r.status, r.stats["fractional_jobs"] <= 2
    ('feasible', True)
    """
    require_feasible(instance)
    cfg = enumerate_configurations(instance)
    cap = instance.capacity_array
    choice, sol, fractional = round_basic_lp(ctx.solve_model, cfg.cost, cfg, cap, fill=ctx.options["fill"],
                                             name="smd-lp-round")
    least = np.minimum.reduceat(cfg.cost, cfg.start[:-1])
    rounding_bound = float(np.sum(cfg.cost[cfg.smallest[fractional]] - least[fractional]))
    return Outcome(solution=cfg.solution(choice), objective=float(cfg.cost[choice].sum()), bound=sol.objective,
                   backend=sol.backend, solver_version=sol.solver_version,
                   stats={"fractional_jobs": int(fractional.size), "lp_value": sol.objective,
                          "rounding_bound": rounding_bound, "columns": cfg.num_columns,
                          "solver_run_time": sol.run_time})


def brute(instance: SmdInstance, ctx: SolveContext) -> Outcome:
    """Exact by enumerating every combination of unpruned configurations (for tests).

    Independent of the other methods: iteration times come from the timing model's recursion
    (:func:`~optsched.workloads.layer_timing.iteration_time_recursive`), no pruning, no solver.
    Applicable when the number of combinations is at most ``BRUTE_MAX_COMBINATIONS``.
    """
    costs, loads = [], []
    for i, job in enumerate(instance.jobs):
        options = [(w, s) for w in range(1, job.max_workers + 1) for s in range(1, job.max_parameter_servers + 1)]
        c = [job.weight * int(job.iterations(w)) * float(iteration_time_recursive(
            job.forward_s, job.backward_s, job.parameter_bytes,
            sync_seconds_per_byte(w, s, instance.worker_bandwidth, instance.ps_bandwidth))) for w, s in options]
        d = [instance.demand(i, w, s) for w, s in options]
        if job.deferrable:
            c.append(job.weight * float(instance.defer_array[i]))
            d.append(np.zeros(instance.num_resources))
        costs.append(np.array(c))
        loads.append(np.array(d))
    index = np.indices([c.size for c in costs]).reshape(instance.num_jobs, -1)
    total = sum(c[index[i]] for i, c in enumerate(costs))
    load = sum(d[index[i]] for i, d in enumerate(loads))
    cap = instance.capacity_array
    feasible = np.all(load <= cap + CAPACITY_RTOL * np.maximum(1.0, cap), axis=1)
    if not feasible.any():
        raise Infeasible("brute force: no combination of configurations fits the capacities")
    best = int(np.flatnonzero(feasible)[np.argmin(total[feasible])])
    workers, servers = [], []
    for job, pick in zip(instance.jobs, index[:, best].tolist()):
        deferred = pick == job.num_configurations  # the defer option is listed last
        workers.append(0 if deferred else 1 + pick // job.max_parameter_servers)
        servers.append(0 if deferred else 1 + pick % job.max_parameter_servers)
    value = float(total[best])
    return Outcome(solution={"workers": workers, "parameter_servers": servers}, objective=value, bound=value,
                   status="optimal", stats={"combinations": int(total.size)})


def brute_combinations(instance: SmdInstance) -> int:
    """How many combinations :func:`brute` would enumerate."""
    count = 1
    for job in instance.jobs:
        count *= job.num_configurations + job.deferrable
    return count


