"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
#: its importers' validation, in the cross-format importer test
FAST = ["tests/test_importer_validation.py", "tests/hetero_sharding/test_time_limit.py"]
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("hap-ratio-sum-below", "hetero-sharding", "checker", PP + "hetero_sharding/instance.py",
      "elif abs(arr.sum() - 1.0) > RATIO_TOL:", "elif arr.sum() - 1.0 > RATIO_TOL:",
      "ratios summing below 1 accepted"),
    M("hap-ratio-negative", "hetero-sharding", "checker", PP + "hetero_sharding/instance.py",
      "np.any(arr < -RATIO_TOL)", "np.any(arr < -1.0)", "negative ratios accepted"),
    M("hap-option-range", "hetero-sharding", "checker", PP + "hetero_sharding/instance.py",
      "for t, o in enumerate(program) if not 0 <= o < len(instance.stages[t].options)]",
      "for t, o in enumerate(program) if not 0 <= o <= len(instance.stages[t].options)]",
      "option index one past the end accepted"),
    M("hap-index", "hetero-sharding", "error-path", PP + "hetero_sharding/generate.py",
      '    if index is not None:\n        raise InvalidOptionError(P, "--index", "a dnn-partitioning file holds one graph")\n'
      "    return operator_graph_program(", "    return operator_graph_program(", "dnn-partitioning-hap ignores --index"),
    # -- status, bounds, guarantees (docs/status.md) -----------------------------------------------
    M("hs-guarantee-loosened", "hetero-sharding", "guarantee", PP + "hetero_sharding/methods.py",
      "value=lambda inst: alg.rounding_bound(inst),", "value=lambda inst: 1.1 * alg.rounding_bound(inst),",
      "milp-round's additive rounding term loosened by 10%"),
    M("hs-guarantee-tightened", "hetero-sharding", "guarantee", PP + "hetero_sharding/methods.py",
      "value=lambda inst: alg.rounding_bound(inst),", "value=lambda inst: 0.95 * alg.rounding_bound(inst),",
      "milp-round's additive rounding term tightened by 5%"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-opgraph-edges-reversed-hap", "hetero-sharding", "importer", "optsched/workloads/operator_graphs.py",
      'for end, out in (("sourceId", src), ("destId", dst)):', 'for end, out in (("sourceId", dst), ("destId", src)):',
      "operator-graph edges read consumer -> producer (the HAP mapping)"),
    M("imp-hap-bytes-per-element", "hetero-sharding", "importer", PP + "hetero_sharding/generate.py",
      "    params = og.size / bytes_per_element\n", "    params = og.size\n",
      "parameter bytes taken as elements"),
    # -- the clock while the models are written, the memory rule (tests/hetero_sharding/test_time_limit.py)
    M("hs-clock-stage-rows", "hetero-sharding", "status", PP + "hetero_sharding/model.py",
      "        for d in range(n):\n            if poll is not None:\n                poll()\n",
      "        for d in range(n):\n", "the joint MILP's compute and communication rows ignore the clock"),
    M("hs-clock-mccormick", "hetero-sharding", "status", PP + "hetero_sharding/model.py",
      "    for k, (t, o) in enumerate(pairs):\n        if poll is not None:\n            poll()\n",
      "    for k, (t, o) in enumerate(pairs):\n", "the McCormick rows ignore the clock"),
    M("hs-clock-ratio-lp", "hetero-sharding", "status", PP + "hetero_sharding/model.py",
      "    for t, o in enumerate(program):\n        if poll is not None:\n            poll()\n",
      "    for t, o in enumerate(program):\n", "the ratio LP's rows ignore the clock"),
    M("hs-memory-rule", "hetero-sharding", "error-path", PP + "hetero_sharding/methods.py",
      "    if have is None or need <= have:", "    if True:", "a joint MILP that cannot fit is built anyway"),
]
