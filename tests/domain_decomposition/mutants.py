"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("dd-skip-cell", "domain-decomposition", "checker", PP + "domain_decomposition/instance.py",
      "for k in range(1, n):\n            if owner[k] < owner[k - 1]:",
      "for k in range(2, n):\n            if owner[k] < owner[k - 1]:", "cell 1's contiguity skipped"),
    M("dd-skip-last-cell", "domain-decomposition", "checker", PP + "domain_decomposition/instance.py",
      "for k in range(1, n):\n            if owner[k] < owner[k - 1]:",
      "for k in range(1, n - 1):\n            if owner[k] < owner[k - 1]:", "the last cell's contiguity skipped"),
    M("dd-level-unbounded", "domain-decomposition", "error-path", PP + "domain_decomposition/problem.py",
      '"top-level cells per axis = 2^level", bounds=Interval(1, 8)', '"top-level cells per axis = 2^level"',
      "the level declares no interval (8^level cells)"),
    # -- the contiguous MILP's order rows ------------------------------------------------------------
    M("dd-rank-order-rows-dropped", "domain-decomposition", "step", PP + "domain_decomposition/model.py",
      "        for p in range(P - 2):  # u[k, p] - u[k, p+1] <= 0",
      "        for p in range(0):  # u[k, p] - u[k, p+1] <= 0",
      "the contiguous MILP drops its rank-order rows u[k, p] <= u[k, p+1]"),
    M("dd-chain-order-rows-dropped", "domain-decomposition", "step", PP + "domain_decomposition/model.py",
      "        for p in range(P - 1):  # u[k+1, p] - u[k, p] <= 0",
      "        for p in range(0):  # u[k+1, p] - u[k, p] <= 0",
      "the contiguous MILP drops its chain-order rows u[k+1, p] <= u[k, p]"),
    # -- the clock inside the chain partition (tests/domain_decomposition/test_time_limit.py) ----------
    M("dd-clock-dp", "domain-decomposition", "status", "optsched/chain/partition.py",
      "        if poll is not None:\n            poll()\n        if cost is None:\n",
      "        if cost is None:\n", "the DP over ranks never reads the clock"),
    M("dd-clock-nicol", "domain-decomposition", "status", "optsched/chain/partition.py",
      "    for k in range(K):\n        if poll is not None:\n            poll()\n        sp = float(speeds[k])\n",
      "    for k in range(K):\n        sp = float(speeds[k])\n", "Nicol's search over ranks never reads the clock"),
]

FAST = ["tests/domain_decomposition/test_time_limit.py",
        "tests/domain_decomposition/test_domain_decomposition.py::"
        "test_contiguous_model_refuses_points_out_of_rank_or_chain_order"]

