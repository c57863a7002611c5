"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
#: the range test runs in the fast stage
FAST = ['tests/pipeline_partition/test_ranges.py']

MUTATIONS = [
    # -- checkers: stop enforcing one constraint ------------------------------------------------------
    M("pp-memory", "pipeline-partition", "checker", "optsched/pipeline/partition/instance.py",
      "if req > cap * (1 + 1e-12):", "if req > 2 * cap * (1 + 1e-12):",
      "memory doubled (the audit's pipeline-partition breakage)"),
    M("pp-injective", "pipeline-partition", "checker", "optsched/pipeline/partition/instance.py",
      "elif len(set(flat)) != len(flat):", "elif False:", "a device may serve two stages"),
    M("pp-replicas", "pipeline-partition", "checker", "optsched/pipeline/partition/instance.py",
      "len(g) > instance.replica_limit for g", "len(g) > instance.replica_limit + 1 for g", "one replica too many"),
    M("pp-stages", "pipeline-partition", "checker", "optsched/pipeline/partition/instance.py",
      "if instance.stages is not None and K != instance.stages:", "if False:", "fixed stage count ignored"),
    # -- heuristic steps -----------------------------------------------------------------------------
    M("orderdp-order", "pipeline-partition", "step", "optsched/pipeline/partition/spaces.py",
      "order.append(int(max(rest, key=lambda d: (w[last, d], total[d], -d))))",
      "order.append(int(min(rest, key=lambda d: (w[last, d], total[d], -d))))",
      "order-dp: narrowest next device"),
    # -- status, bounds, guarantees (docs/status.md) -----------------------------------------------
    M("pp-milp-optimal-after-limit", "pipeline-partition", "status", PP + "pipeline_partition/algorithms.py",
      'if all(s in ("optimal", "infeasible") for s in statuses):', "if True:",
      "per-K MILPs report optimal although a stage count's MILP stopped at a limit"),
    M("pp-milp-bound-loosest", "pipeline-partition", "bound", PP + "pipeline_partition/algorithms.py",
      "bound = min(bounds) if bounds and all(", "bound = max(bounds) if bounds and all(",
      "per-K MILPs report the largest stage count's bound (not a bound on OPT)"),
    M("pp-milp-bound-partial", "pipeline-partition", "bound", PP + "pipeline_partition/algorithms.py",
      "bound = min(bounds) if bounds and all(b is not None and math.isfinite(b) for b in bounds) else None",
      "bound = min([b for b in bounds if b is not None] or [None]) if bounds else None",
      "a stage count without a bound is skipped instead of leaving OPT unbounded"),
    M("pp-stopped-dp-optimal", "pipeline-partition", "status", PP + "pipeline_partition/algorithms.py",
      'return _plan_outcome(instance, plan, "time_limit", _bound(instance, bound), phase=phase, **stats)',
      'return _plan_outcome(instance, plan, "optimal", _bound(instance, bound), phase=phase, **stats)',
      "a DP stopped by its clock reports optimal"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-topology-bandwidth-unit", "pipeline-partition", "importer", "optsched/workloads/topology.py",
      'number(link["bandwidth_gb_s"], f"links[{i}].bandwidth_gb_s") * GB))',
      'number(link["bandwidth_gb_s"], f"links[{i}].bandwidth_gb_s")))',
      "a topology file's bandwidth read in bytes/s instead of GB/s"),
    M("imp-pipedream-activation-list", "pipeline-partition", "importer", "optsched/workloads/profiles.py",
      '"activation": sum(_number(a, where + " activation_size") for a in acts if a.strip()),',
      '"activation": _number(acts[0], where + " activation_size"),',
      "a bracketed activation list: only its first entry counted"),
    # -- declared ranges from the supported scale ------------------------------------------------------
    M("pp-layers-range", "pipeline-partition", "error-path", PP + "pipeline_partition/problem.py",
      'bounds=Interval(1, 1_000_000)),', 'bounds=Interval(1, 100_000)),',
      "the random chain refused past 10^5 positions although 10^6 is a supported scale"),
    M("pp-minmax-size-rule", "pipeline-partition", "error-path", PP + "pipeline_partition/methods.py",
      "    return (n <= MINMAX_MAX_POSITIONS,", "    return (True,",
      "the quadratic-memory baselines run at any size (a MemoryError at 10^6 positions)"),
    M("pp-clock-minmax", "pipeline-partition", "status", PP + "pipeline_partition/baselines.py",
      "        if poll is not None:\n            poll()\n        total = np.maximum(value[:, None], part)",
      "        total = np.maximum(value[:, None], part)", "the min-max partition does not poll per part"),
    M("pp-clock-pipedream", "pipeline-partition", "status", PP + "pipeline_partition/baselines.py",
      "            if poll is not None:\n                poll()\n            best, best_split, best_used = A[j, m], -1, used[j, m]",
      "            best, best_split, best_used = A[j, m], -1, used[j, m]", "PipeDream's DP does not poll the clock"),
    M("pp-milp-size-rule", "pipeline-partition", "error-path", PP + "pipeline_partition/methods.py",
      '               applicable=size_limit(milp_assignments, MILP_MAX_ASSIGNMENTS, "n x largest K", "milp"),\n', "",
      "milp builds its Python-row model at any size"),
    M("pp-clock-milp-rows", "pipeline-partition", "status", PP + "pipeline_partition/model.py",
      "    for l in range(n):  # each position in exactly one stage\n        if poll is not None:\n            poll()\n",
      "    for l in range(n):  # each position in exactly one stage\n",
      "the MILP's rows over positions are built without the clock"),
]
