"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("coloc-resident-clash", "interference-placement", "checker", "optsched/workloads/colocation.py",
      "for s in set(p) & snap.blocked_servers(j):", "for s in set():", "the resident-clash rule dropped"),
    M("coloc-job-clash", "interference-placement", "checker", "optsched/workloads/colocation.py",
      "if pj is not None and pk is not None and set(pj) & set(pk) and snap.clash(",
      "if False and pj is not None and pk is not None and set(pj) & set(pk) and snap.clash(",
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
]
FAST = ["tests/interference_placement/test_interference_placement.py::"
        "test_a_split_takes_the_servers_with_the_most_free_gpus_first"]

