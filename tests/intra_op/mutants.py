"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("intra-edge-forbidden", "intra-op", "checker", PP + "intra_op/instance.py",
      "for e in np.flatnonzero(edge >= FORBIDDEN)[:20]:", "for e in np.flatnonzero(edge >= FORBIDDEN)[:0]:",
      "forbidden edge pairs ignored"),
    M("intra-node-forbidden", "intra-op", "checker", PP + "intra_op/instance.py",
      "for v in np.flatnonzero(node >= FORBIDDEN)[:20]:", "for v in np.flatnonzero(node >= FORBIDDEN)[:0]:",
      "forbidden node strategies ignored"),
    M("intra-memory", "intra-op", "checker", PP + "intra_op/instance.py",
      "over = np.flatnonzero(prof > instance.usage_limit * (1 + MEMORY_RTOL))",
      "over = np.flatnonzero(prof > 2 * instance.usage_limit * (1 + MEMORY_RTOL))", "memory limit doubled"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-iopddl-inclusive-end", "intra-op", "importer", PP + "intra_op/generate.py",
      "end=iv[:, 1].astype(np.int64), edge_u=eu", "end=iv[:, 1].astype(np.int64) + 1, edge_u=eu",
      "IOPDDL interval ends read as inclusive"),
]
