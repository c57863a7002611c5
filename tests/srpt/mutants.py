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
    # -- the exact method's steps (tests/srpt/test_srpt_exact.py) ------------------------------------
    M("srpt-exact-bound-proof", "srpt", "bound", PP + "srpt/model.py",
      "if upper - lower <= CUTOFF_GAP * max(1.0, abs(upper)):", "if upper - lower <= 0.5 * max(1.0, abs(upper)):",
      "exact: an incumbent within 50% of the rank bound is declared optimal",
      fast=("tests/srpt/test_srpt_exact.py",)),
    M("srpt-exact-no-cutoff", "srpt", "step", PP + "srpt/model.py",
      "objective_lower=lower, objective_upper=cutoff, subsets=subsets)",
      "objective_lower=lower, objective_upper=None, subsets=subsets)",
      "exact: the MILP gets no cutoff row (no proof by cutoff)", fast=("tests/srpt/test_srpt_exact.py",)),
    M("srpt-exact-horizon", "srpt", "bound", PP + "srpt/model.py",
      "objective_upper - (math.fsum(alone) - t_alone))", "objective_upper - math.fsum(alone))",
      "exact: the cutoff's per-job completion limit also subtracts the job's own run time",
      fast=("tests/srpt/test_srpt_exact.py",)),
    M("srpt-exact-gpu-time", "srpt", "bound", PP + "srpt/model.py",
      "cols, vals = [t[k + 1], t[k]], [-float(instance.gpus_per_server[s]), float(instance.gpus_per_server[s])]",
      "cols, vals = [t[k + 1], t[k]], [-0.5 * instance.gpus_per_server[s], 0.5 * instance.gpus_per_server[s]]",
      "exact: the GPU-time row allows half the servers' GPU-seconds", fast=("tests/srpt/test_srpt_exact.py",)),
    M("srpt-incumbent-local-search", "srpt", "step", PP + "srpt/incumbent.py",
      "while improved and runs < budget and not stop():", "while False:",
      "incumbent: no insertion moves (start orders only)", fast=("tests/srpt/test_srpt_exact.py",)),
    M("srpt-rank-per-rank-max", "srpt", "bound", PP + "srpt/bounds.py",
      "math.fsum(max(e, f) for e, f in zip(ends, completions))", "math.fsum(completions)",
      "lb-rank: the SRPT completions alone (lb's first term)", fast=("tests/srpt/test_srpt_exact.py",)),
    M("srpt-rank-unsorted", "srpt", "bound", PP + "srpt/bounds.py",
      "ends = sorted(float(a) + float(t) for a, t in zip(arrivals, isolated))",
      "ends = [float(a) + float(t) for a, t in zip(arrivals, isolated)]",
      "lb-rank: isolated completions paired with the SRPT ranks unsorted (not a bound)",
      fast=("tests/srpt/test_srpt_exact.py",)),
    M("srpt-subset-rows", "srpt", "bound", PP + "srpt/bounds.py",
      "out.append((subset, rank_bound(", "out.append((subset, 2 * rank_bound(",
      "exact: the subset rows ask twice the sub-stream's bound", fast=("tests/srpt/test_srpt_exact.py",)),
    M("srpt-adversary-opt-bound", "srpt", "step", PP + "srpt/adversary.py",
      "        return opt.objective, alg", "        return opt.bound, alg",
      "adversary: scored against the milp's bound instead of its schedule", fast=("tests/srpt/test_adversary.py",)),
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
