"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
#: its importers' validation, in the cross-format importer test
FAST = ["tests/test_importer_validation.py"]
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("dag-edge-back-one", "dag-pipeline", "checker", PP + "dag_pipeline/instance.py",
      "if stages[u] > stages[v]:", "if stages[u] > stages[v] + 1:", "an edge may go back one stage"),
    M("dag-empty-stage", "dag-pipeline", "checker", PP + "dag_pipeline/instance.py",
      "    if empty:\n", "    if False:\n", "empty stages accepted"),
    M("dag-budget", "dag-pipeline", "checker", PP + "dag_pipeline/instance.py",
      "if w > cap * (1 + 1e-9):", "if w > 2 * cap * (1 + 1e-9):", "stage budget doubled"),
    M("dnn-nan", "dag-pipeline", "error-path", "optsched/workloads/operator_graphs.py",
      "    if not np.isfinite(v) or v < 0:\n", "    if v < 0:\n", "NaN latencies and sizes read from a dnn-partitioning file"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-rhino-bandwidth-unit", "dag-pipeline", "importer", PP + "dag_pipeline/generate.py",
      "RHINO_INTER_NODE_BW = 3355443.2 * 1000.0", "RHINO_INTER_NODE_BW = 3355443.2",
      "Rhino's bandwidth left in bytes per ms"),
    M("imp-opgraph-edges-reversed", "dag-pipeline", "importer", "optsched/workloads/operator_graphs.py",
      'for end, out in (("sourceId", src), ("destId", dst)):', 'for end, out in (("sourceId", dst), ("destId", src)):',
      "operator-graph edges read consumer -> producer"),
]
