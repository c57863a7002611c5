"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
#: the certified adversary's re-evaluation check
FAST = ["tests/online_packing/test_certify_recheck.py::test_a_disagreeing_re_evaluation_is_not_certified"]
MUTATIONS = [
    # -- the certified adversary's exact re-evaluation ---------------------------------------------
    M("opk-certify-ignores-recheck", "online-packing", "bound", PP + "online_packing/certified.py",
      "certified = certified and bool(res.certified) and agree", "certified = certified and bool(res.certified)",
      "certify() ignoring a disagreeing re-evaluation"),
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("opk-resource-0-only", "online-packing", "checker", PP + "online_packing/instance.py",
      "for i, load in enumerate(loads):", "for i, load in enumerate(loads[:1]):", "capacity of resource 0 only"),
    M("opk-capacity", "online-packing", "checker", PP + "online_packing/instance.py",
      "if load > 1.0 + CAPACITY_TOL:", "if load > 1.5 + CAPACITY_TOL:", "capacities 1.5 instead of 1"),
    # -- status, bounds, guarantees (docs/status.md) -----------------------------------------------
    M("repair-bound-last", "online-packing", "bound", "optsched/core/knapsack.py",
      "out.bound = first_bound", "out.bound = out.bound",
      "capacity repair reports the repaired model's bound (of a smaller capacity)"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("learned-advantage-sign-packing", "online-packing", "learned", "optsched/online/learned.py",
      "adv_pr = (w_all - base_w[:, None, None, None]) / b_opt[:, None, None, None]",
      "adv_pr = (base_w[:, None, None, None] - w_all) / b_opt[:, None, None, None]",
      "the policy's training advantage sign flipped (multi-resource)"),
    M("learned-feature-inverted", "online-packing", "learned", "optsched/online/learned.py",
      "    return xp.stack([z, xp.broadcast_to(tau[:, None], (n, m)),",
      "    return xp.stack([1.0 - z, xp.broadcast_to(tau[:, None], (n, m)),",
      "the utilization feature inverted"),
    M("packing-sees-present", "online-packing", "learned", PP + "online_packing/algorithms.py",
      "        p = np.asarray(price(z.copy(), t), float)\n        d = d_all[t]\n",
      "        d = d_all[t]\n        p = np.asarray(price(z + d, t), float)\n",
      "a posted price computed after seeing the request's demand"),
    # -- the learned method's domain (the trained U/L only) -------------------------------------------
    M("packing-learned-any-ratio", "online-packing", "error-path", PP + "online_packing/learned.py",
      "        check_trained_ratio(instance.lower, instance.upper, instance.problem)\n", "",
      "learned silently reuses the U/L = 16 policy at an untrained U/L",
      fast=("tests/online_packing/test_learned_ratio.py",)),
    M("packing-learned-near-ratio", "online-packing", "error-path", PP + "online_packing/learned.py",
      "    if math.isclose(r, TRAINED_RATIO, rel_tol=RATIO_RTOL):",
      "    if abs(math.log(r / TRAINED_RATIO)) <= math.log(4) / 2 + 1e-9:",
      "learned accepts a U/L near the trained one",
      fast=("tests/online_packing/test_learned_ratio.py",)),
    M("packing-learned-clock", "online-packing", "status", "optsched/problems/online_packing/learned.py",
      "        if not t % POLL_REQUESTS:  # about 0.1 s of forward passes between clock reads\n            ctx.check_time()\n",
      "", "learned never reads the clock inside the stream"),
]

FAST += ["tests/online_packing/test_learned_time_limit.py"]
