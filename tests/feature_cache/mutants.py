"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("fc-hit-evict", "feature-cache", "checker", PP + "feature_cache/instance.py",
      "        if x in cache:\n            if e != -1:", "        if x in cache:\n            if False:",
      "an eviction on a hit accepted"),
    M("fc-full", "feature-cache", "checker", PP + "feature_cache/instance.py",
      "            if e not in cache:\n", "            if e not in cache and e != -1:\n",
      "a full cache may grow (no eviction)"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-cache-capacity", "feature-cache", "importer", PP + "feature_cache/generate.py",
      "capacity=max(1, n // 10)", "capacity=max(1, n // 100)", "the imported cache holds 1% of the nodes, not 10%"),
    # -- the clock inside the replays (tests/feature_cache/test_time_limit.py) ------------------------
    M("fc-clock-next-use", "feature-cache", "status", PP + "feature_cache/algorithms.py",
      "    for t in range(T - 1, -1, -1):\n        if not t % POLL_EVERY:\n            poll()\n",
      "    for t in range(T - 1, -1, -1):\n", "MIN's next-use pass never reads the clock"),
    M("fc-clock-misses", "feature-cache", "status", PP + "feature_cache/algorithms.py",
      "    for t, (x, e) in enumerate(zip(accesses, evict)):\n        if not t % POLL_EVERY:\n            poll()\n",
      "    for t, (x, e) in enumerate(zip(accesses, evict)):\n", "the miss count's replay never reads the clock"),
]
FAST = ["tests/feature_cache/test_time_limit.py"]
