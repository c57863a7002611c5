"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers: stop enforcing one constraint ------------------------------------------------------
    M("srpt-arrival", "srpt", "checker", PP + "srpt/instance.py",
      "work, last_end, slack = 0.0, job.arrival, 0.0", "work, last_end, slack = 0.0, 0.0, 0.0",
      "segments may start before arrival (the audit's srpt breakage)"),
    M("srpt-capacity", "srpt", "checker", PP + "srpt/instance.py",
      "held > instance.gpus_per_server[server]", "held > 2 * instance.gpus_per_server[server]", "server GPUs doubled"),
    M("srpt-work", "srpt", "checker", PP + "srpt/instance.py",
      "if work < job.iterations * (1 - WORK_RTOL) - slack:", "if work < 0.9 * job.iterations * (1 - WORK_RTOL) - slack:",
      "10% of the iterations may be missing"),
    M("srpt-overhead", "srpt", "checker", PP + "srpt/instance.py",
      "overhead = instance.restart_overhead if k else 0.0", "overhead = 0.0", "restarts cost nothing"),
    M("srpt-missing", "srpt", "checker", PP + "srpt/instance.py",
      "    if missing:\n", "    if False:\n", "jobs may be left out"),
    # -- heuristic steps -----------------------------------------------------------------------------
    M("asrpt-order", "srpt", "step", PP + "srpt/algorithms.py",
      "        return (left, job.arrival, job.id)", "        return (-left, job.arrival, job.id)",
      "A-SRPT: longest remaining first"),
    M("asrpt-restart-credit", "srpt", "step", PP + "srpt/algorithms.py",
      "left -= job.gpus * credit", "left -= 0.0", "A-SRPT: running jobs get no restart-overhead credit"),
    M("tiresias-queues", "srpt", "step", PP + "srpt/algorithms.py",
      "return (sum(attained >= t for t in thresholds), job.arrival, job.id)", "return (job.arrival, job.id)",
      "Tiresias-LAS: no attained-service queues"),
    # -- exact models --------------------------------------------------------------------------------
    M("srpt-milp-capacity", "srpt", "bound", PP + "srpt/model.py",
      "rows.add(cols, vals, upper=float(instance.gpus_per_server[s]))",
      "rows.add(cols, vals, upper=float(2 * instance.gpus_per_server[s]))",
      "milp: servers hold twice their GPUs (the checker rejects the decoded schedule)",
      fast=("tests/srpt/test_srpt_milp.py",)),
    M("srpt-milp-overhead", "srpt", "bound", PP + "srpt/model.py",
      "vals += [1.0 / tau, -o / tau, o / tau]", "vals += [1.0 / tau, 0.0, 0.0]",
      "milp: restarts cost nothing in the model (its value disagrees with the checker's)",
      fast=("tests/srpt/test_srpt_milp.py",)),
    # -- bounds ------------------------------------------------------------------------------------
    M("srpt-lb-isolated", "srpt", "bound", PP + "srpt/algorithms.py",
      "value = float(max(virtual, isolated))", "value = float(virtual + isolated)", "lb: sum of two bounds"),
    # -- simulators / objectives ---------------------------------------------------------------------
    M("srpt-flow", "srpt", "simulator", PP + "srpt/instance.py",
      "flow.append(last_end - job.arrival)", "flow.append(last_end)", "completion time instead of flow time"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-srpt-arrivals-unshifted", "srpt", "importer", PP + "srpt/generate.py",
      "jobs = tuple(_job(k, t.arrival_s - start, rec", "jobs = tuple(_job(k, t.arrival_s, rec",
      "the stream's arrivals not shifted to its first job"),
    # -- the clock at every dispatch (tests/srpt/test_budget.py) ------------------------------------------
    M("srpt-clock-dispatch", "srpt", "status", PP + "srpt/policies.py",
      "        if self.poll is not None:\n            self.poll()\n        key = self.key",
      "        key = self.key", "the policies never poll the clock: a long stream runs past the limit"),
    M("srpt-clock-after-milp", "srpt", "status", PP + "srpt/policies.py",
      "            if self.poll is not None:  # the budget is spent: stop here rather than place by the heuristic\n"
      "                self.poll()\n", "", "a placement MILP without a point is replaced although the budget is spent"),
]
FAST = ["tests/srpt/test_budget.py"]
