"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("coloc-resident-clash", "interference-placement", "checker", "optsched/workloads/colocation.py",
      "for s in set(p) & snap.blocked_servers(j):", "for s in set():", "the resident-clash rule dropped"),
    M("coloc-job-clash", "interference-placement", "checker", "optsched/workloads/colocation.py",
      "        if set(pj) & set(pk) and snap.clash(",
      "        if False and set(pj) & set(pk) and snap.clash(",
      "clashing new jobs may share a server"),
    M("coloc-gang", "interference-placement", "checker", "optsched/workloads/colocation.py",
      "if sum(p.values()) != snap.job_gpus[j]:", "if sum(p.values()) > snap.job_gpus[j]:",
      "a job may get fewer GPUs than its gang"),
    M("coloc-capacity", "interference-placement", "checker", "optsched/workloads/colocation.py",
      "if used[s] > snap.free[s]:", "if used[s] > snap.free[s] + 1:", "one GPU more than free accepted"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-beta-inverted", "interference-placement", "importer", "optsched/workloads/interference.py",
      "b = iso[i] / float(pair[0]) - 1.0", "b = float(pair[0]) / iso[i] - 1.0",
      "interference read as co-located / isolated throughput"),
    # -- the shared candidate placements: a split over as few servers as possible ------------------------
    M("colocation-split-fewest-free-first", "interference-placement", "step", "optsched/workloads/colocation.py",
      "for s in sorted(allowed, key=lambda s: (-free[s], s)):", "for s in sorted(allowed, key=lambda s: (free[s], s)):",
      "a split takes the servers with the fewest free GPUs first (spread over more servers)"),
    # -- the declared bound of 100,000 jobs (tests/interference_placement/test_time_limit.py) ----------
    M("ip-placed-keeps-rejected", "interference-placement", "status", "optsched/workloads/colocation.py",
      "        if choice is not None:\n            placed[j] = choice\n",
      "        placed[j] = choice\n        if choice is not None:\n",
      "the greedy keeps rejected jobs in its placed set (every step O(n))"),
    M("ip-greedy-clock", "interference-placement", "status", "optsched/workloads/colocation.py",
      "        if poll is not None:\n            poll()\n        cands = candidates(snap, j, free, placed)\n",
      "        cands = candidates(snap, j, free, placed)\n", "the greedy never reads the clock"),
    M("ip-model-clock", "interference-placement", "status", "optsched/workloads/colocation.py",
      "    for p, (j, k) in enumerate(pairs):\n        poll()\n", "    for p, (j, k) in enumerate(pairs):\n",
      "the MILP's pair rows are written without reading the clock"),
    M("ip-milp-no-refusal", "interference-placement", "error-path", "optsched/problems/interference_placement/methods.py",
      "               applicable=size_limit(algorithms.milp_pair_rows, algorithms.MILP_MAX_PAIR_ROWS,\n"
      "                                     \"pair rows (job pairs x servers)\", \"milp\"),\n", "",
      "the MILP writes O(n^2 S) pair rows of any size"),
]

FAST = ["tests/interference_placement/test_time_limit.py",
        "tests/interference_placement/test_interference_placement.py::"
        "test_a_split_takes_the_servers_with_the_most_free_gpus_first"]

