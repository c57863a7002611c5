"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields).

Run history: in the first importer and learned run (2026-11-27) ``marl-interference-sign``
survived: the weight-flipping test still had the other interference features; the test named in its
result was added for it.
"""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("params-load-unbounded", "interference-online", "error-path", PP + "interference_online/problem.py",
      '"offered GPU utilization", bounds=Interval(0, 100, closed="right")', '"offered GPU utilization"',
      "the load option declares no interval"),
    M("io-clash", "interference-online", "checker", PP + "interference_online/instance.py",
      "if instance.clash(by_id[j].type, by_id[m].type):", "if False:", "clashing jobs may share a server"),
    M("io-capacity", "interference-online", "checker", PP + "interference_online/instance.py",
      "if used[s] > instance.gpus_per_server[s]:", "if used[s] > instance.gpus_per_server[s] + 1:",
      "one GPU more than the server holds accepted"),
    M("io-work", "interference-online", "checker", PP + "interference_online/instance.py",
      "if done < need * (1 - WORK_RTOL):", "if done < 0.5 * need * (1 - WORK_RTOL):",
      "half the work suffices"),
    M("io-arrival", "interference-online", "checker", PP + "interference_online/instance.py",
      "if start < job.arrival or end < start:", "if end < start:", "a job may start before it arrives"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-gavel-multi-gpu-row", "interference-online", "importer", "optsched/workloads/interference.py",
      "            if n == name and s == scale:\n", "            if False:\n",
      "Gavel's multi-GPU throughput rows ignored (scale-1 rate for every job)"),
    M("marl-interference-sign", "interference-online", "learned", PP + "interference_online/marl.py",
      "                pf[:, 0] = suffer\n", "                pf[:, 0] = -suffer\n",
      "the MARL interference feature's sign flipped"),
    M("marl-advantage-sign", "interference-online", "learned", PP + "interference_online/marl_train.py",
      "pg = -(m * adv * logp).sum() / n", "pg = (m * adv * logp).sum() / n",
      "the MARL actor-critic advantage sign flipped"),
    M("marl-imitation-sign", "interference-online", "learned", PP + "interference_online/marl_train.py",
      'return -(m * (sc[b["chosen"]] - lse)).sum() / jnp.maximum(m.sum(), 1.0) + 0.0 * v.sum()',
      'return (m * (sc[b["chosen"]] - lse)).sum() / jnp.maximum(m.sum(), 1.0) + 0.0 * v.sum()',
      "the MARL imitation phase moves away from the teacher"),
    # -- the clock at every event (tests/interference_online/test_time_limit.py) ---------------------
    M("io-online-clock-event", "interference-online", "status", PP + "interference_online/policies.py",
      "    def _event(self, sim, now):\n        if self.poll is not None:\n            self.poll()\n",
      "    def _event(self, sim, now):\n", "the policies never poll the clock: a long trace runs past the limit"),
    M("io-online-clock-after-solve", "interference-online", "status", PP + "interference_online/policies.py",
      "        if self.poll is not None:  # the solve may have used the method's last seconds\n            self.poll()\n",
      "", "milp-per-event places the event's jobs after its solve spent the budget"),
]
FAST = ["tests/interference_online/test_time_limit.py"]
