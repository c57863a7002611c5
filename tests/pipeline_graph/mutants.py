"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("pg-edge-back", "pipeline-graph", "checker", PP + "pipeline_graph/instance.py",
      "if stage_of[u] > stage_of[v]:", "if stage_of[u] > stage_of[v] + 1:", "an edge may go back one stage"),
    M("pg-workers", "pipeline-graph", "checker", PP + "pipeline_graph/instance.py",
      "elif sum(replicas) > instance.workers:", "elif sum(replicas) > instance.workers + 1:",
      "one replica more than the workers accepted"),
    M("pg-two-stages", "pipeline-graph", "checker", PP + "pipeline_graph/instance.py",
      "elif len(set(flat)) != len(flat):", "elif False:", "a layer may sit in two stages"),
    # -- status, bounds, guarantees (docs/status.md) -----------------------------------------------
    M("pg-optimal-without-bound", "pipeline-graph", "status", PP + "pipeline_graph/algorithms.py",
      "optimal = exact and lower is not None and value <= lower * (1 + 2.5e-9)", "optimal = exact",
      "antichain-dp reports optimal when its deadline stopped the search before the bound met the plan"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-pipedream-graph-ms", "pipeline-graph", "importer", PP + "pipeline_graph/generate.py",
      'forward_s=tuple(d["forward_ms"] / 1000.0 for d in nodes)', 'forward_s=tuple(d["forward_ms"] for d in nodes)',
      "PipeDream forward times kept in ms"),
]
