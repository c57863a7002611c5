"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers: stop enforcing one constraint ------------------------------------------------------
    M("mknap-capacity", "mknap", "checker", PP + "mknap/instance.py",
      "np.flatnonzero(load > instance.capacity_array)", "np.flatnonzero(load > 2 * instance.capacity_array)",
      "capacity rows enforced at twice their value"),
    M("mknap-duplicate", "mknap", "checker", PP + "mknap/instance.py",
      "if len(set(selected)) != len(selected):", "if False:", "an item may be selected twice"),
    # -- heuristic steps -----------------------------------------------------------------------------
    M("mknap-greedy-order", "mknap", "step", PP + "mknap/algorithms.py",
      "key=lambda j: (-efficiency[j], j)", "key=lambda j: (efficiency[j], j)", "greedy: least efficient first"),
    M("mknap-lpround-single", "mknap", "step", PP + "mknap/algorithms.py",
      "selected = rounded if value_rounded >= value_single else np.array([best])", "selected = rounded",
      "lp-round: never the best single item"),
    # -- status, bounds, guarantees (docs/status.md) -----------------------------------------------
    M("mknap-lpround-bound-alg", "mknap", "bound", PP + "mknap/algorithms.py",
      "objective=objective, bound=sol.objective,", "objective=objective, bound=objective,",
      "lp-round reports its rounded value as the upper bound"),
    M("mknap-guarantee-tightened", "mknap", "guarantee", PP + "mknap/methods.py",
      "value=lambda inst: inst.num_rows + 1,", "value=lambda inst: inst.num_rows + 0.9,",
      "lp-round's guarantee m + 1 tightened to m + 0.9"),
    M("mknap-guarantee-loosened", "mknap", "guarantee", PP + "mknap/methods.py",
      "value=lambda inst: inst.num_rows + 1,", "value=lambda inst: inst.num_rows + 1.5,",
      "lp-round's guarantee m + 1 loosened to m + 1.5"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-orlib-weights-transposed", "mknap", "importer", PP + "mknap/orlib.py",
      'weights = [tokens.take(n, f"{where} weights row {i}") for i in range(m)]',
      'weights = [list(r) for r in zip(*[tokens.take(m, f"{where} weights row {i}") for i in range(n)])]',
      "OR-Library weights read item by item instead of row by row"),
    # the shared HiGHS back-end's status mapping (killed by tests/mknap/test_status_honesty.py)
    M("highs-time-limit-incumbent-optimal", "mknap", "status", "optsched/core/backends/highs.py",
      'if name == "kTimeLimit":\n        return "time_limit"',
      'if name == "kTimeLimit":\n        return "optimal" if has_solution else "time_limit"',
      "HiGHS stopped by its time limit with an incumbent reports optimal"),
    M("highs-work-limit-incumbent-optimal", "mknap", "status", "optsched/core/backends/highs.py",
      '"kInterrupt") and has_solution:\n        return "feasible"',
      '"kInterrupt") and has_solution:\n        return "optimal"',
      "HiGHS stopped by a node (work) limit with an incumbent reports optimal"),
    M("mknap-milp-capacity-off-by-one", "mknap", "step", PP + "mknap/algorithms.py",
      'instance.capacity_array,\n                                sense="max", name=f"mknap-',
      'instance.capacity_array - 1,\n                                sense="max", name=f"mknap-',
      "the MILP's capacity rows one unit too tight (a selection that fills a row exactly is cut off)"),
    M("mknap-lp-round-limit-error", "mknap", "status", PP + "mknap/algorithms.py",
      '    if sol.status == "time_limit" and sol.x is None:  # the time limit stopped the LP: the best single item',
      '    if False:', "lp-round stopped in its LP ends in an error instead of time_limit with a plan"),
]

FAST = ["tests/mknap/test_time_limit_lp_round.py", "tests/mknap/test_mknap.py::test_milp_takes_a_selection_that_fills_a_row_exactly"]

