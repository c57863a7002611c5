"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
#: the clock and size tests run in the fast stage
FAST = ['tests/pipeline_graph/test_time_limit.py']

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
    # -- the clock inside every loop that grows with the input, and the memory rule ------------------
    M("pg-clock-dp-level", "pipeline-graph", "status", PP + "pipeline_graph/dp.py",
      "            if expired is not None and expired():\n                raise Stopped\n            phi = self.phi[L]",
      "            phi = self.phi[L]", "the DP's levels do not poll the clock (a probe runs to its end)"),
    M("pg-clock-traceback", "pipeline-graph", "status", PP + "pipeline_graph/dp.py",
      "            if expired is not None and expired():\n                raise Stopped\n            D = lat.masks[L][i]",
      "            D = lat.masks[L][i]", "the traceback does not poll the clock"),
    M("pg-clock-lattice-level", "pipeline-graph", "status", "optsched/pipeline/antichain.py",
      "            if poll is not None:\n                poll()\n            prev_index = self._index[-1]",
      "            prev_index = self._index[-1]", "the down-set enumeration does not poll per level"),
    M("pg-clock-lattice-states", "pipeline-graph", "status", "optsched/pipeline/antichain.py",
      "                if poll is not None and s % POLL_STATES == POLL_STATES - 1:\n                    poll()\n",
      "", "the down-set enumeration does not poll inside a wide level"),
    M("pg-clock-chain-lattice", "pipeline-graph", "status", "optsched/pipeline/antichain.py",
      "            if poll is not None:\n                poll()\n            if D & ~prev == 0",
      "            if D & ~prev == 0", "the chain lattice does not poll per cut"),
    M("pg-clock-extras", "pipeline-graph", "status", "optsched/pipeline/antichain.py",
      "            if poll is not None:\n                poll()\n            extra = 0",
      "            extra = 0", "PipeDream's augmenting sets (quadratic) are computed without the clock"),
    M("pg-clock-walk", "pipeline-graph", "status", "optsched/workloads/profiles.py",
      "    while members != full:\n        if poll is not None:\n            poll()\n",
      "    while members != full:\n", "the one-path walk does not poll per step"),
    M("pg-clock-pipedream", "pipeline-graph", "status", PP + "pipeline_graph/baselines.py",
      "            if poll is not None:\n                poll()\n            ks = states.ancestors[j]",
      "            ks = states.ancestors[j]", "PipeDream's DP does not poll the clock"),
    M("pg-memory-cap", "pipeline-graph", "status", PP + "pipeline_graph/dp.py",
      "    if need > memory_cap:", "    if False:", "the lattice DP runs whatever its memory estimate"),
    M("pg-pipedream-states-clock", "pipeline-graph", "status", "optsched/pipeline/antichain.py",
      "    while head < len(queue):\n        if poll is not None:\n            poll()\n",
      "    while head < len(queue):\n", "PipeDream's state enumeration never reads the clock"),
    M("pg-pipedream-extras-clock", "pipeline-graph", "status", "optsched/pipeline/antichain.py",
      "    sources = [v for v in range(dag.n) if not dag.pred[v]]\n    extras = dag.pipedream_extras(poll)",
      "    sources = [v for v in range(dag.n) if not dag.pred[v]]\n    extras = dag.pipedream_extras()",
      "PipeDream's augmenting sets (O(n^2)) are computed without the clock"),
    M("pg-open-preds-clock", "pipeline-graph", "status", "optsched/workloads/profiles.py",
      "    def open_of(a: str) -> frozenset:\n        if poll is not None:\n            poll()\n",
      "    def open_of(a: str) -> frozenset:\n", "the quadratic open-predecessor pass never reads the clock"),
]
