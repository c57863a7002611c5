"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields).

Run history: in the first importer and learned run (2026-11-27) ``marl-interference-sign``
survived: the weight-flipping test still had the other interference features; the test named in its
result was added for it.

The 16 ``bb-*`` and ``lbv-*`` mutants (2026-12-02) were run against the tests each names in
``fast``, in one interpreter (the module re-executed with the mutation; load 2-20): 16 killed. The
first run had ``bb-corunner-too-strong`` survive (the enumeration agreement on tiny streams did not
reach a node its invalid bound cut); ``test_node_bound_is_below_a_completion_of_every_node`` was
added for it and kills it and ``bb-release-too-late``. The driver (``tests/mutations.py``) killed
``bb-corunner-slowdown`` in its fast stage (652 s at load 20); the rest were not run through it.
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
    # -- the exact offline method bb and the bound lb-volume (tests/interference_online/test_exact.py) --
    M("bb-class-optimum-claimed", "interference-online", "status", PP + "interference_online/exact.py",
      '    status = "time_limit" if search.stopped == "time_limit" else "feasible"\n',
      '    status = "optimal" if search.stopped is None else ("time_limit" if search.stopped == "time_limit" '
      'else "feasible")\n',
      "bb calls its class optimum the problem's optimum (a start between decision instants beats it)",
      fast=("tests/interference_online/test_exact.py::test_a_start_between_decision_instants_beats_the_class_optimum",)),
    M("bb-class-bound-reported", "interference-online", "bound", PP + "interference_online/exact.py",
      "    return Outcome(solution=solution, objective=best / n, bound=root_bound / n, status=status,",
      "    return Outcome(solution=solution, objective=best / n, bound=class_bound / n, status=status,",
      "bb reports the class's bound, which a schedule outside the class beats",
      fast=("tests/interference_online/test_exact.py::test_a_start_between_decision_instants_beats_the_class_optimum",)),
    M("bb-clock-inside-node", "interference-online", "status", PP + "interference_online/exact.py",
      "            if i and i % CHECK_EVERY == 0 and self.ctx is not None and self.ctx.expired():",
      "            if False:",
      "bb enumerates every start set of a node before it reads the clock",
      fast=("tests/interference_online/test_exact.py",)),
    M("bb-corunner-slowdown", "interference-online", "bound", PP + "interference_online/exact.py",
      "segs = sorted((d[m], beta[self.jobs[m].type]) for m in mates)", "segs = []",
      "bb's node bound ignores the running co-runners' slowdown (weaker: more nodes)",
      fast=("tests/interference_online/test_exact.py::test_each_pruning_step_saves_nodes",)),
    M("bb-corunner-too-strong", "interference-online", "bound", PP + "interference_online/exact.py",
      "            f = base + sum(b for _, b in segs)\n", "            f = base + 3 * sum(b for _, b in segs)\n",
      "bb's node bound counts a co-runner's slowdown three times (invalid: prunes the optimum)",
      fast=("tests/interference_online/test_exact.py::test_node_bound_is_below_a_completion_of_every_node",
            "tests/interference_online/test_exact.py::test_pruning_agrees_with_plain_enumeration")),
    M("bb-capacity-wait", "interference-online", "bound", PP + "interference_online/exact.py",
      "r, free = t, free0", "r, free = t, self.M",
      "bb's node bound lets a waiting job start before GPUs are free (weaker: more nodes)",
      fast=("tests/interference_online/test_exact.py::test_each_pruning_step_saves_nodes",)),
    M("bb-rank-volume", "interference-online", "bound", PP + "interference_online/exact.py",
      "        return done + max(iso, rank_bound(earliest, items, self.M) - arrivals)",
      "        return done + iso", "bb's node bound without the rank-wise volume part (weaker: more nodes)",
      fast=("tests/interference_online/test_exact.py::test_each_pruning_step_saves_nodes",)),
    M("bb-release-too-late", "interference-online", "bound", PP + "interference_online/exact.py",
      "            r = max(r, self.arr[k])\n", "            r = max(r, self.arr[k]) + self.p[k]\n",
      "bb's node bound releases a waiting job one run too late (invalid)",
      fast=("tests/interference_online/test_exact.py::test_node_bound_is_below_a_completion_of_every_node",
            "tests/interference_online/test_exact.py::test_pruning_agrees_with_plain_enumeration")),
    M("bb-symmetry", "interference-online", "bound", PP + "interference_online/exact.py",
      "                hi = min(hi, prev)\n", "                pass\n",
      "bb enumerates interchangeable empty servers in every order (more nodes)",
      fast=("tests/interference_online/test_exact.py::test_each_pruning_step_saves_nodes",)),
    M("bb-no-idle", "interference-online", "bound", PP + "interference_online/exact.py",
      "            yield from rec(i + 1, chosen)   # job waiting[i] waits\n",
      "            if not self.placements(waiting[i], free, members):\n                yield from rec(i + 1, chosen)\n",
      "bb never keeps a job waiting that fits (misses optima that idle)",
      fast=("tests/interference_online/test_exact.py::test_opt_beats_every_heuristic_by_idling_on_tiny_seed_1",)),
    M("bb-memo", "interference-online", "bound", PP + "interference_online/exact.py",
      "if self.seen.get(key, math.inf) <= done:", "if False:",
      "bb expands a state again that it reached before with no more JCT (more nodes)",
      fast=("tests/interference_online/test_exact.py::test_each_pruning_step_saves_nodes",)),
    M("bb-margin", "interference-online", "status", PP + "interference_online/exact.py",
      "if b * (1 + PRUNE_RTOL) >= self.best:", "if b * (1 + 1e-2) >= self.best:",
      "bb prunes nodes within 1% of the incumbent and still calls it optimal",
      fast=("tests/interference_online/test_exact.py::test_bb_proves_opt_on_every_tiny_seed",)),
    M("bb-clock", "interference-online", "status", PP + "interference_online/exact.py",
      "if self.nodes % CHECK_EVERY == 0 and self.ctx is not None and self.ctx.expired():",
      "if self.nodes % CHECK_EVERY == 0 and self.ctx is not None and False:",
      "bb never reads the clock: a time limit is ignored",
      fast=("tests/interference_online/test_exact.py::test_time_limit_stops_the_search_with_a_valid_bound",)),
    M("bb-node-limit", "interference-online", "status", PP + "interference_online/exact.py",
      "if self.node_limit is not None and self.nodes >= self.node_limit:", "if False:",
      "bb ignores node_limit",
      fast=("tests/interference_online/test_exact.py::test_node_limit_is_not_optimal_and_its_bound_holds",)),
    M("bb-open-bound", "interference-online", "status", PP + "interference_online/exact.py",
      "bound = max(root_bound, min([best, search.margin_bound] + [b for b, _ in open_nodes]))",
      "bound = best", "bb reports its incumbent as the bound at a limit",
      fast=("tests/interference_online/test_exact.py::test_node_limit_is_not_optimal_and_its_bound_holds",)),
    M("bb-refuse", "interference-online", "error-path", PP + "interference_online/exact.py",
      "    if s > BB_MAX_SERVERS:\n", "    if s > 10 * BB_MAX_SERVERS:\n", "bb accepts clusters of any size",
      fast=("tests/interference_online/test_exact.py::test_too_large_instances_are_refused_naming_the_size",)),
    M("lbv-rank-max", "interference-online", "bound", PP + "interference_online/exact.py",
      "return sum(max(a, b) for a, b in zip(e, s))", "return sum(max(a, b) for a, b in zip(e, reversed(s)))",
      "the rank-wise bound pairs the k-th earliest end with the wrong SRPT completion",
      fast=("tests/interference_online/test_exact.py::test_rank_bound_by_hand",)),
    M("lbv-clock", "interference-online", "status", PP + "interference_online/exact.py",
      "        if poll is not None and steps % 4096 == 0:\n", "        if False:\n",
      "lb-volume's SRPT sweep never reads the clock",
      fast=("tests/interference_online/test_exact.py::test_lb_volume_reads_the_clock_on_long_streams",)),
    M("lbv-volume", "interference-online", "bound", PP + "interference_online/exact.py",
      "    value = max(iso, vol)\n", "    value = iso\n", "lb-volume is the isolated bound only",
      fast=("tests/interference_online/test_exact.py::test_volume_bound_counts_waiting_under_load",)),
]
FAST = ["tests/interference_online/test_time_limit.py"]
