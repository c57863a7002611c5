"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("pa-memory", "pipeline-adaptive", "checker", PP + "pipeline_adaptive/instance.py",
      "        if g not in fitting:\n", "        if g < 1:\n", "group sizes that do not fit memory accepted"),
    # -- status, bounds, guarantees (docs/status.md) -----------------------------------------------
    M("pa-brute-optimal-after-limit", "pipeline-adaptive", "status", PP + "pipeline_adaptive/algorithms.py",
      "    visit(0, 0.0, None)\n",
      "    try:\n        visit(0, 0.0, None)\n    except Exception:\n        pass\n",
      "brute keeps its best sequence at the time limit and still reports optimal"),
    # -- the past-only policy's information --------------------------------------------------------------
    M("pa-policy-sees-current-period", "pipeline-adaptive", "learned", PP + "pipeline_adaptive/adagrouper.py",
      "        ended = min(int(now // trace.period), trace.bandwidth.shape[0])",
      "        ended = min(int(now // trace.period) + 1, trace.bandwidth.shape[0])",
      "the past-only adaptive policy sees the bandwidth of the period its iteration starts in"),
    # -- values the format cannot mean ------------------------------------------------------------
    M("pa-switch-cost-infinite", "pipeline-adaptive", "error-path", PP + "pipeline_adaptive/instance.py",
      "self.require(0 <= self.switch_cost < np.inf,", "self.require(0 <= self.switch_cost,",
      "an infinite switch cost loads (and solve -o then crashes writing the record)"),
    M("pa-lb-clock", "pipeline-adaptive", "status", PP + "pipeline_adaptive/algorithms.py",
      "        ctx.check_time()\n        fastest = min(fastest, setting.iteration_time(g, row))",
      "        fastest = min(fastest, setting.iteration_time(g, row))", "lb never reads the clock"),
    M("pa-lb-every-row", "pipeline-adaptive", "step", PP + "pipeline_adaptive/algorithms.py",
      "    rows = list(dict.fromkeys(tuple(row) for row in trace.bandwidth))",
      "    rows = [tuple(row) for row in trace.bandwidth]", "lb simulates repeated bandwidth rows again"),
    M("pa-run-clock", "pipeline-adaptive", "status", PP + "pipeline_adaptive/adagrouper.py",
      "        if poll is not None and not it % 256:\n            poll()\n", "",
      "a policy run never reads the clock"),
    M("pa-memory-not-memoized", "pipeline-adaptive", "step", PP + "pipeline_adaptive/adagrouper.py",
      "        if key not in self._cache:\n            kind, _ = named_order(",
      "        if True:\n            kind, _ = named_order(",
      "the memory use is simulated again at every iteration"),
]

FAST = ["tests/pipeline_adaptive/test_time_limit.py",
        "tests/pipeline_adaptive/test_adagrouper.py::test_adaptive_policy_does_not_see_the_current_period",
        "tests/pipeline_adaptive/test_values.py"]

