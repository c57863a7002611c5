"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("commit-scheme-type", "commit-rate", "error-path", PP + "commit_rate/instance.py",
      "    if not isinstance(kind, str):\n", "    if False:\n", "a list as scheme crashes the checker"),
    M("cr-bandwidth-cap", "commit-rate", "checker", PP + "commit_rate/instance.py",
      "bad = [c for c in cs if not 1 <= c <= instance.max_commits]", "bad = [c for c in cs if not 1 <= c]",
      "commits above the bandwidth cap accepted"),
    M("cr-workers-unbounded", "commit-rate", "error-path", PP + "commit_rate/problem.py",
      '"workers": Option(int, 6, "workers", bounds=Interval(1, 256))', '"workers": Option(int, 6, "workers")',
      "the workers option declares no interval (--workers 0 reaches the generator)"),
    # -- the searches over C and the SSP clock -----------------------------------------------------------
    M("cr-exhaustive-skips-max", "commit-rate", "step", PP + "commit_rate/algorithms.py",
      "    for c in range(1, instance.max_commits + 1):", "    for c in range(1, instance.max_commits):",
      "the exhaustive search skips C = max_commits"),
    M("cr-climb-through-falls", "commit-rate", "step", PP + "commit_rate/algorithms.py",
      "        prev = r\n        schedule.append(schedule[-1] + 1)",
      "        prev = r if prev is None else prev\n        schedule.append(schedule[-1] + 1)",
      "the hill climb compares with its first reward: it keeps climbing while the reward falls"),
    M("cr-ssp-staleness-off-by-one", "commit-rate", "simulator", PP + "commit_rate/simulate.py",
      "                if clock[i] - slow > stale:", "                if clock[i] - slow >= stale:",
      "SSP: a worker waits one commit early (staleness s behaves as s - 1)"),
    # -- the clock inside one simulation (tests/commit_rate/test_time_limit.py) --------------------------
    M("cr-clock-rounds", "commit-rate", "status", PP + "commit_rate/simulate.py",
      "        while t + rnd <= stop:\n            if check is not None:\n                check()\n",
      "        while t + rnd <= stop:\n", "BSP's rounds ignore the clock"),
    M("cr-clock-commits", "commit-rate", "status", PP + "commit_rate/simulate.py",
      "        while heap:\n            if check is not None:\n                check()\n",
      "        while heap:\n", "the asynchronous schemes' commits ignore the clock"),
    M("cr-clock-exhaustive-inside", "commit-rate", "status", PP + "commit_rate/algorithms.py",
      "            check = lambda: ctx.check_time(incumbent)  # noqa: E731\n            check()\n",
      "            ctx.check_time(incumbent)\n",
      "the exhaustive search checks the clock between simulations only"),
]
FAST = ["tests/commit_rate/test_time_limit.py",
        "tests/commit_rate/test_commit_rate.py::test_exhaustive_tries_max_commits",
        "tests/commit_rate/test_commit_rate.py::test_search_stops_at_the_first_fall_of_the_reward",
        "tests/commit_rate/test_commit_rate.py::test_ssp_lets_a_worker_lead_by_its_staleness"]

