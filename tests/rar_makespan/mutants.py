"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields).

Run history: in the status, bound and guarantee run (2026-11-27) ``rarm-guarantee-tightened``
(rar-makespan's Theorem 5 factor halved) survived, as expected: no instance is known on which
SJF-BCO comes within half of the factor, so no test can tell the two constants apart.
"""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers: stop enforcing one constraint ------------------------------------------------------
    M("rarm-gpu-count", "rar-makespan", "checker", PP + "rar_makespan/instance.py",
      "if len(mine) != instance.jobs[j].gpus:", "if len(mine) < instance.jobs[j].gpus:",
      "more GPUs than the job needs accepted"),
    M("rarm-gpu-twice", "rar-makespan", "checker", PP + "rar_makespan/instance.py",
      "if len({tuple(g) for g in mine}) != len(mine):", "if False:", "a GPU assigned twice to one job"),
    M("rarm-gpu-exists", "rar-makespan", "checker", PP + "rar_makespan/instance.py",
      "0 <= g < instance.servers[s]", "0 <= g <= instance.servers[s]", "one GPU past the server's last"),
    # -- heuristic steps -----------------------------------------------------------------------------
    M("sjf-bco-order", "rar-makespan", "step", PP + "rar_makespan/algorithms.py",
      "key=lambda j: (instance.jobs[j].gpus, j))", "key=lambda j: (-instance.jobs[j].gpus, j))",
      "SJF-BCO: largest job first instead of smallest"),
    M("sjf-bco-best-kappa", "rar-makespan", "step", PP + "rar_makespan/algorithms.py",
      "if best is None or sched.makespan < best[0]:", "if best is None:", "SJF-BCO: first kappa, not the best"),
    M("sjf-bco-least-busy", "rar-makespan", "step", PP + "rar_makespan/algorithms.py",
      "pick = cand[np.argsort(busy[cand], kind=\"stable\")[:g]]", "pick = cand[:g]",
      "SJF-BCO: first eligible GPUs instead of the least busy"),
    M("sjf-bco-lbsgf-off", "rar-makespan", "step", PP + "rar_makespan/algorithms.py",
      "if g > kappa:  # LBSGF", "if False:  # LBSGF", "SJF-BCO: never the LBSGF server-grouping rule"),
    # -- error paths ---------------------------------------------------------------------------------
    M("sjf-bco-lambda-validation", "rar-makespan", "error-path", PP + "rar_makespan/algorithms.py",
      "if not lam >= 1:", "if not lam >= 0:", "SJF-BCO accepts spread_factor < 1"),
    # -- status, bounds, guarantees (docs/status.md) -----------------------------------------------
    M("rarm-guarantee-tightened", "rar-makespan", "guarantee", PP + "rar_makespan/methods.py",
      "value=lambda inst: inst.max_gpus * inst.phi * inst.estimate_upper / inst.estimate_lower,",
      "value=lambda inst: 0.5 * inst.max_gpus * inst.phi * inst.estimate_upper / inst.estimate_lower,",
      "Theorem 5's factor halved (no tight instance is known: may survive)"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-gavel-scale-arrival-swapped", "rar-makespan", "importer", "optsched/workloads/traces.py",
      "job_type, command, flag, needs, steps, arrival, scale = cols",
      "job_type, command, flag, needs, steps, scale, arrival = cols",
      "Gavel trace: the arrival and scale-factor columns swapped"),
    M("imp-tiresias-duration-as-iterations", "rar-makespan", "importer", "optsched/workloads/traces.py",
      'iterations=_number(source, number, row, "iterations", int, 1),',
      'iterations=_number(source, number, row, "duration", int, 1),',
      "Tiresias: the duration column read as iterations"),
    # -- the area lower bound ----------------------------------------------------------------------
    M("rarm-area-longest-run", "rar-makespan", "bound", PP + "rar_makespan/model.py",
      "shortest = [min(d for d in pair if d is not None) for pair in zip(d_in, d_sp)]",
      "shortest = [max(d for d in pair if d is not None) for pair in zip(d_in, d_sp)]",
      "the area bound charges each job its longer contention-free run (above OPT: no bound)"),
    M("rm-sim-new-head", "rar-makespan", "simulator", PP + "rar_makespan/instance.py",
      "                    if head[g] < len(queue[g]) and start[queue[g][head[g]]] < 0:",
      "                    if head[g] + 1 < len(queue[g]) and start[queue[g][head[g]]] < 0:",
      "the job behind a queue's last-but-one head is never examined"),
    M("rm-sim-busy-kept", "rar-makespan", "simulator", PP + "rar_makespan/instance.py",
      "                busy.difference_update(mine[j])\n", "",
      "a finished job's GPUs stay busy"),
    M("rm-sjf-bco-clock", "rar-makespan", "status", PP + "rar_makespan/algorithms.py",
      "            ctx.check_time()\n            if sjf_bco_plan(instance, theta, k, lam) is not None:",
      "            if sjf_bco_plan(instance, theta, k, lam) is not None:", "sjf-bco's bisection never reads the clock"),
]

FAST = ["tests/rar_makespan/test_simulation_heads.py",
        "tests/rar_makespan/test_rar_makespan.py::test_area_bound_uses_each_jobs_shorter_run_and_stays_below_opt"]

