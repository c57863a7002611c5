"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
#: the clock and size tests run in the fast stage
FAST = ['tests/pipeline_schedule/test_time_limit.py']

MUTATIONS = [
    # -- checkers: stop enforcing one constraint ------------------------------------------------------
    M("ps-cap", "pipeline-schedule", "checker", PP + "pipeline_schedule/instance.py",
      "sim.peak_inflight > np.asarray(instance.inflight_cap)", "sim.peak_inflight > 1 + np.asarray(instance.inflight_cap)",
      "in-flight cap one higher"),
    # -- heuristic steps -----------------------------------------------------------------------------
    M("list-feed-rule", "pipeline-schedule", "step", PP + "pipeline_schedule/algorithms.py",
      "feed = k < K - 1 and not fq[k + 1] and inflight[k + 1] < cap[k + 1]", "feed = False",
      "list: no forward-first tie rule for a starving next stage"),
    M("list-earliest-start", "pipeline-schedule", "step", PP + "pipeline_schedule/algorithms.py",
      "cand = (max(free[k], bq[k][0][0]), 1 if feed else 0, k, BACKWARD)",
      "cand = (max(free[k], bq[k][0][0]) + 1.0, 1 if feed else 0, k, BACKWARD)",
      "list: backwards ranked one unit later than their earliest start"),
    M("list-tie-kind", "pipeline-schedule", "step", PP + "pipeline_schedule/algorithms.py",
      "cand = (max(free[k], fq[k][0][0]), 0 if feed else 1, k, FORWARD)",
      "cand = (max(free[k], fq[k][0][0]), 0, k, FORWARD)", "list: forwards always win ties"),
    # -- simulators / objectives ---------------------------------------------------------------------
    M("ps-peak-inflight", "pipeline-schedule", "simulator", "optsched/simulation/pipeline.py",
      "return np.cumsum(steps, axis=1).max(axis=1, initial=0)", "return np.cumsum(steps, axis=1).max(axis=1, initial=0) - 1",
      "peak in-flight count one too low"),
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("ps-cycle-raises", "pipeline-schedule", "error-path", PP + "pipeline_schedule/instance.py",
      "    except InvalidInstanceError as exc:  # malformed or deadlocked: no schedule to measure\n",
      "    except ZeroDivisionError as exc:\n", "a deadlocked order is invalid input (exit 2), not a violation"),
    # -- the list scheduler's ready times ------------------------------------------------------------
    M("list-forward-transfer-ignored", "pipeline-schedule", "step", PP + "pipeline_schedule/algorithms.py",
      "heapq.heappush(fq[k + 1], (end + x[k], m))", "heapq.heappush(fq[k + 1], (end, m))",
      "list: a forward counted ready at the next stage without its transfer"),
    M("list-backward-transfer-ignored", "pipeline-schedule", "step", PP + "pipeline_schedule/algorithms.py",
      "heapq.heappush(bq[k - 1], (end + x[k - 1], m))", "heapq.heappush(bq[k - 1], (end, m))",
      "list: a backward counted ready at the previous stage without its transfer"),
    # -- the clock inside every loop that grows with the input, and the size rule --------------------
    M("ps-clock-list", "pipeline-schedule", "status", PP + "pipeline_schedule/algorithms.py",
      "        if poll is not None and step % POLL_STEPS == 0:\n            poll()\n", "",
      "the list scheduler does not poll the clock"),
    M("ps-clock-load-cuts", "pipeline-schedule", "status", PP + "pipeline_schedule/algorithms.py",
      "            if poll is not None:\n                poll()\n            twin = a + M",
      "            twin = a + M", "the MILP's sequence-load cuts are built without the clock"),
    M("ps-clock-cap-rows", "pipeline-schedule", "status", PP + "pipeline_schedule/algorithms.py",
      "                if poll is not None:\n                    poll()\n                const, terms = 0.0, []",
      "                const, terms = 0.0, []", "the MILP's cap rows are built without the clock"),
    M("ps-milp-stop-incumbent", "pipeline-schedule", "status", PP + "pipeline_schedule/algorithms.py",
      "        raise TimeLimitReached(str(exc), incumbent) from None", "        raise",
      "milp stopped while building drops the list schedule"),
    M("ps-milp-size-rule", "pipeline-schedule", "status", PP + "pipeline_schedule/methods.py",
      '               applicable=size_limit(model_nonzeros, MILP_MAX_NONZEROS, "model nonzeros", "milp"),\n', "",
      "milp builds a model of any size"),
    M("ps-task-cap", "pipeline-schedule", "error-path", PP + "pipeline_schedule/generate.py",
      "    if stages * microbatches > MAX_STAGE_MICROBATCHES:", "    if False:",
      "the generator accepts more stages x microbatches than the checker handles in time"),
    M("ps-milp-time-rule", "pipeline-schedule", "status", PP + "pipeline_schedule/algorithms.py",
      "    if left is not None and left < need:  # the model could not even be built and handed over in time",
      "    if False:", "milp builds a model it has no time left to build and hand over"),
]
FAST = ["tests/pipeline_schedule/test_methods.py::test_list_is_non_delay_with_the_transfers_counted"]

