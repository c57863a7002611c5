"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers: stop enforcing one constraint ------------------------------------------------------
    M("smd-capacity", "smd", "checker", PP + "smd/instance.py",
      "load > cap + CAPACITY_RTOL", "load > 2 * cap + CAPACITY_RTOL", "resource capacities doubled"),
    M("smd-deferrable", "smd", "checker", PP + "smd/instance.py",
      "if not job.deferrable:", "if False:", "non-deferrable jobs may be deferred"),
    M("smd-range", "smd", "checker", PP + "smd/instance.py",
      "1 <= s <= job.max_parameter_servers", "1 <= s", "parameter servers above the job's maximum"),
    # -- heuristic steps -----------------------------------------------------------------------------
    M("smd-polish-off", "smd", "step", PP + "smd/smd.py",
      'if opts["polish"] else res.choice', "if False else res.choice", "smd: no greedy polish of inner solutions"),
    M("smd-fill-off", "smd", "step", PP + "smd/model.py",
      "    if fill:\n", "    if False:\n", "lp-round: no greedy fill of the rounded jobs"),
    M("smd-improve-noop", "smd", "step", PP + "smd/configurations.py",
      "if costs[best] < costs[current]:", "if False:", "improve_greedily never moves a job (fill, polish, repair)"),
    M("smd-repair-one-pass", "smd", "step", PP + "smd/smd.py",
      "choice = improve_greedily(reduced, cfg, cap, low, order)\n    return improve_greedily(a, cfg, cap, choice, order)",
      "return low", "smd: Lagrangian repair keeps the least-resource columns"),
    M("smd-bnb-off", "smd", "step", PP + "smd/certify.py",
      "    if closed(root, value) or not np.isfinite(target_gap):", "    if True:",
      "smd: no branch and bound after the root bound"),
    M("smd-node-rounding-off", "smd", "step", PP + "smd/certify.py",
      "        if rounding:\n", "        if False:\n", "smd certification: no node rounding"),
    M("smd-bound-too-high", "smd", "bound", PP + "smd/certify.py",
      "    cert.bound = float(min(value, closed_min, open_min))",
      "    cert.bound = float(min(value, 1.02 * closed_min, open_min))", "smd: closed-node bounds inflated by 2%"),
    M("smd-close-too-early", "smd", "bound", PP + "smd/certify.py",
      "        return factor * lb >= incumbent - CLOSE_RTOL * abs(incumbent)",
      "        return 1.02 * factor * lb >= incumbent - CLOSE_RTOL * abs(incumbent)",
      "smd: nodes closed 2% too early"),
    M("smd-split-drops-column", "smd", "bound", PP + "smd/certify.py",
      "    return order[:k + 1], order[k + 1:]", "    return order[:k], order[k + 1:]",
      "smd: the GUB split loses a column"),
    M("smd-best-of-inner", "smd", "step", PP + "smd/smd.py",
      "if trial_value < best_value:", "if False:", "smd: line-search trials never become the incumbent"),
    M("smd-repair-down-off", "smd", "step", PP + "smd/smd.py",
      "for candidate in (_repair(a, reduced, target, cfg, cap), _repair_down(a, target, cfg, cap, MAX_DOWN_MOVES)):",
      "for candidate in (_repair(a, reduced, target, cfg, cap),):", "smd: no downgrade repair from the best prices"),
    # -- error paths ---------------------------------------------------------------------------------
    M("smd-inner-validation", "smd", "error-path", PP + "smd/smd.py",
      'if opts["inner"] not in INNER_METHODS:', "if False:", "smd accepts an unknown inner method"),
    # -- status, bounds, guarantees (docs/status.md) -----------------------------------------------
    M("smd-lpround-bound-alg", "smd", "bound", PP + "smd/algorithms.py",
      "objective=float(cfg.cost[choice].sum()), bound=sol.objective,",
      "objective=float(cfg.cost[choice].sum()), bound=float(cfg.cost[choice].sum()),",
      "lp-round reports its rounded value as the lower bound"),
]
