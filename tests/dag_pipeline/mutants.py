"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
#: its importers' validation, in the cross-format importer test
FAST = ["tests/test_importer_validation.py", "tests/dag_pipeline/test_time_limit.py"]
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
    # -- the clock while the model is written and in order-dp (tests/dag_pipeline/test_time_limit.py) ------
    M("dag-clock-edges", "dag-pipeline", "status", PP + "dag_pipeline/model.py",
      "    for e, (u, v) in enumerate(zip(g.src.tolist(), g.dst.tolist())):\n        poll()\n",
      "    for e, (u, v) in enumerate(zip(g.src.tolist(), g.dst.tolist())):\n",
      "the precedence rows are written without reading the clock"),
    M("dag-clock-reach", "dag-pipeline", "status", PP + "dag_pipeline/model.py",
      "    def total(mask: int) -> float:\n        poll()\n", "    def total(mask: int) -> float:\n",
      "the O(n^2) reach sums run without reading the clock"),
    M("dag-clock-order-dp", "dag-pipeline", "status", PP + "dag_pipeline/algorithms.py",
      "                if check is not None:\n                    check(best_plan, best_val)\n", "",
      "order-dp's sweep never reads the clock"),
    M("dag-order-dp-no-refusal", "dag-pipeline", "error-path", PP + "dag_pipeline/methods.py",
      'applicable=size_limit(lambda i: i.num_nodes, alg.ORDER_DP_MAX_NODES, "nodes", "order-dp"))',
      'applicable=None)', "order-dp builds O(n^2) tables of any size (74.5 GiB at the declared bound)"),
]
