"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
#: the clock and size tests run in the fast stage
FAST = ['tests/ps_locality/test_time_limit.py']

MUTATIONS = [
    # -- checkers: stop enforcing one constraint ------------------------------------------------------
    M("psl-gpu-only-capacity", "ps-locality", "checker", PP + "ps_locality/instance.py",
      "over = np.argwhere(load > cap * (1 + CAPACITY_RTOL) + CAPACITY_RTOL)",
      "over = np.argwhere(load[:, :1] > cap[:, :1] * (1 + CAPACITY_RTOL) + CAPACITY_RTOL)",
      "capacity checked on the GPU column only (the audit's ps-locality breakage)"),
    M("psl-capacity", "ps-locality", "checker", PP + "ps_locality/instance.py",
      "over = np.argwhere(load > cap * (1 + CAPACITY_RTOL) + CAPACITY_RTOL)",
      "over = np.argwhere(load > 2 * cap * (1 + CAPACITY_RTOL) + CAPACITY_RTOL)", "every capacity doubled"),
    M("psl-arrival", "ps-locality", "checker", PP + "ps_locality/instance.py",
      "early = np.flatnonzero(slot < instance.arrival[job])", "early = np.flatnonzero(slot < 0)",
      "allocations before arrival allowed"),
    M("psl-max-workers", "ps-locality", "checker", PP + "ps_locality/instance.py",
      "np.flatnonzero(sx + sy > W)", "np.flatnonzero(sx + sy > 2 * W)", "max_workers doubled"),
    M("psl-one-machine", "ps-locality", "checker", PP + "ps_locality/instance.py",
      "np.flatnonzero(n_colo_machines > 1)", "np.flatnonzero(n_colo_machines > 9)",
      "co-location over several machines allowed"),
    M("psl-both-modes", "ps-locality", "checker", PP + "ps_locality/instance.py",
      "(n_colo_machines > 0) & (n_spread > 0)", "(n_colo_machines > 0) & (n_spread > 9)",
      "co-located and spread at once allowed"),
    M("psl-colo-fan", "ps-locality", "checker", PP + "ps_locality/instance.py",
      "np.flatnonzero(fan * sp < sx)", "np.flatnonzero(fan * sp < sx - 9)", "co-located PS fan-out ignored"),
    M("psl-spread-fan", "ps-locality", "checker", PP + "ps_locality/instance.py",
      "np.flatnonzero(fan * sq < sy)", "np.flatnonzero(fan * sq < sy - 9)", "spread PS fan-out ignored"),
    M("psl-duplicate", "ps-locality", "checker", PP + "ps_locality/instance.py",
      "uniq[counts > 1][:5]", "uniq[counts > 9][:5]", "duplicate rows allowed"),
    # -- heuristic steps -----------------------------------------------------------------------------
    M("rr-first-trial", "ps-locality", "step", PP + "ps_locality/algorithms.py",
      "if value is not None and value < best_value:", "if value is not None and best is None:",
      "rr: first trial instead of the best of trials"),
    M("rr-repair-no-grow", "ps-locality", "step", PP + "ps_locality/algorithms.py",
      "        for i in active:\n            s.grow(i)", "        for i in active[:0]:\n            s.grow(i)",
      "rr repair: unfinished jobs do not use the room left"),
    M("rr-repair-order", "ps-locality", "step", PP + "ps_locality/algorithms.py",
      "order = np.lexsort((np.arange(instance.num_jobs), tau))",
      "order = np.lexsort((np.arange(instance.num_jobs), -tau))", "rr repair: latest sampled completion first"),
    # -- error paths ---------------------------------------------------------------------------------
    M("rr-trials-validation", "ps-locality", "error-path", PP + "ps_locality/methods.py",
      "bounds=Interval(1, algorithms.RR_MAX_TRIALS)", "bounds=Interval(0, algorithms.RR_MAX_TRIALS)",
      "rr accepts trials = 0"),
    # -- simulators / objectives ---------------------------------------------------------------------
    M("psl-progress", "ps-locality", "simulator", PP + "ps_locality/instance.py",
      "rate = entries[:, 3] / instance.e_in[i] + entries[:, 5] / instance.e_ex[i]",
      "rate = entries[:, 3] / instance.e_in[i] + entries[:, 5] / instance.e_in[i]",
      "spread workers progress at the co-located rate"),
    # -- status, bounds, guarantees (docs/status.md) -----------------------------------------------
    M("psl-lb-optimal-after-limit", "ps-locality", "status", PP + "ps_locality/algorithms.py",
      'status="optimal" if sol.status == "optimal" else sol.status,', 'status="optimal",',
      "the ps-locality lower bound reports optimal after its LP stopped"),
    M("psl-lb-primal-value", "ps-locality", "bound", PP + "ps_locality/algorithms.py",
      'lp_value = sol.objective if sol.status == "optimal" else sol.bound\n    value = max(solo, lp_value)',
      'lp_value = sol.objective if sol.objective is not None else sol.bound\n    value = max(solo, lp_value)',
      "a stopped LP's primal value taken as the lower bound"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-ps-bandwidth-bits", "ps-locality", "importer", PP + "ps_locality/trace.py",
      "bandwidth_ex=1250.0 * slot_s", "bandwidth_ex=10000.0 * slot_s",
      "10 Gbit/s read as 10 GB/s between machines"),
    # -- the clock inside every loop that grows with the input, and the size rule --------------------
    M("psl-clock-fifo-slot", "ps-locality", "status", PP + "ps_locality/slots.py",
      "        if poll is not None:\n            poll()\n        s.begin(t)\n        for i in order:",
      "        s.begin(t)\n        for i in order:", "fifo-locality does not poll per slot"),
    M("psl-clock-fifo-job", "ps-locality", "status", PP + "ps_locality/slots.py",
      "            if poll is not None:\n                poll()\n            want = ",
      "            want = ", "fifo-locality does not poll per job placed"),
    M("psl-clock-drf-slot", "ps-locality", "status", PP + "ps_locality/slots.py",
      "        if poll is not None:\n            poll()\n        s.begin(t)\n        jobs = list(s.active())",
      "        s.begin(t)\n        jobs = list(s.active())", "drf does not poll per slot"),
    M("psl-clock-drf-worker", "ps-locality", "status", PP + "ps_locality/slots.py",
      "            if poll is not None:\n                poll()\n            i = min(",
      "            i = min(", "drf does not poll per worker offered"),
    M("psl-clock-repair", "ps-locality", "status", PP + "ps_locality/algorithms.py",
      "        if poll is not None:\n            poll()\n        s.begin(t)",
      "        s.begin(t)", "rr's repair does not poll per slot"),
    M("psl-rr-stop-incumbent", "ps-locality", "status", PP + "ps_locality/algorithms.py",
      'raise TimeLimitReached(f"time limit of {ctx.time_limit} s reached", incumbent())',
      'raise TimeLimitReached(f"time limit of {ctx.time_limit} s reached", None)',
      "rr stopped drops its best repaired trial"),
    M("psl-size-rule", "ps-locality", "status", PP + "ps_locality/algorithms.py",
      "    if nnz > _model.MAX_NONZEROS:\n        raise NotApplicable", "    if False:\n        raise NotApplicable",
      "milp, lp and rr build a model of any size"),
    M("psl-time-rule", "ps-locality", "status", PP + "ps_locality/algorithms.py",
      "    if left is not None and left < nnz * _model.SECONDS_PER_NONZERO:\n        raise TimeLimitReached",
      "    if False:\n        raise TimeLimitReached",
      "milp, lp and rr build a model they have no time left to build and hand over"),
    M("psl-online-overrun", "ps-locality", "status", PP + "ps_locality/online.py",
      "        if left is not None and left < -(OVERRUN_SHARE * limit + OVERRUN_S):", "        if False:",
      "online-rr's greedy fill after the budget runs on without end"),
    M("psl-lower-bound-time-rule", "ps-locality", "status", PP + "ps_locality/algorithms.py",
      "    if left is not None and left < nnz * _model.SECONDS_PER_NONZERO:  # no time to build it: the solo sum",
      "    if False:", "lower-bound builds a pooled LP it has no time left to build and hand over"),
]
FAST = ["tests/ps_locality/test_rr_time_limit.py"]
