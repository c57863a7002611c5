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
    # -- anytime's binding regions and the LNS's adaptive share -----------------------------------
    M("intra-priced-levels-dropped", "intra-op", "step", PP + "intra_op/state.py",
      "attempts += [(False, float(a)) for a in levels if a > 0]", "attempts += []",
      "binding regions never try the memory prices"),
    M("intra-binding-seed-slack", "intra-op", "step", PP + "intra_op/state.py",
      "points = np.flatnonzero(self.load >= (1 - within) * self.limit)",
      "points = np.flatnonzero(self.load < (1 - within) * self.limit)", "binding regions seeded where memory is slack"),
    M("intra-mix-flat", "intra-op", "step", PP + "intra_op/anytime.py",
      "w[n] = 1.0 if r is None or top <= 0 else max(self.floor, r / top)", "w[n] = 1.0",
      "the LNS's rounds shared equally whatever each family gains"),
]
FAST = ["tests/intra_op/test_binding_regions.py"]
