"""Hand mutation testing of the suite: break the code in realistic ways, one at a time, and see
whether a test fails.

Each mutation replaces one exact snippet of a source file (it must occur exactly once). The
script copies the worktree to a temporary folder, applies a mutation there, runs the mutation's
problem tests, restores the file, and reports ``killed`` (some test failed) or ``survived``.
Tests run in two stages: first the fast, focused ones (the problem's checker-constraint tests and
its quality table), then, only if the mutation survived them, the problem's whole non-slow test
folder and its conformance tests. The working tree itself is never modified.

    PYTHONPATH=$PWD python tests/mutations.py                 # all mutations
    PYTHONPATH=$PWD python tests/mutations.py smd-polish-off   # some, by id
    PYTHONPATH=$PWD python tests/mutations.py --list

Last full run (127 mutations, 2026-11-27, load about 2-4): 126 killed, 1 survived
(``threads-unbounded``: ``SolverSettings`` refuses more than ``MAX_THREADS`` threads too, so removing
``solve()``'s own check changes nothing: an equivalent mutant), score 99%. The previous full run
(68 mutations, 2026-11-24) had 66 killed; its two survivors (``gadget-greedy-order``,
``gadget-worker-choices``) are now killed only by the comparison with the stored outputs of the
previous implementation (``tests/ring_allreduce/test_rar_online_scale.py``, ``tests/golden.md``),
not by a quality value.

The 54 mutations added for the newer problems and the shared validation (issue 35, from
``intra-edge-forbidden`` on: 42 in the newer problems' checkers, importers and declared generator
ranges, 11 in the shared referee, parameter, settings and reader code, 1 in pipeline-schedule's
checker), run on their own (2026-11-27, load 6 to 160 on 2 shared cores): 54 killed, all in the
fast stage, score 100%. ``params-nan`` is killed only by the test of its message: with every
numeric option declaring a finite interval, NaN and infinities are refused by the interval too.

The 24 status, bound and guarantee mutations (the block "status/bounds/guarantees", from
``pp-milp-optimal-after-limit`` on; ``docs/status.md``), run on their own (2026-11-27, load 4 to 14
on 2 shared cores): 23 killed, all in the fast stage, score 96%. The survivor,
``rarm-guarantee-tightened`` (rar-makespan's Theorem 5 factor halved), is expected: no instance is
known on which SJF-BCO comes within half of the factor, so no test can tell the two constants apart.
These mutants' ``category`` values ``status`` and ``guarantee`` select them; ``bound`` also selects
older ones. Each problem's fast stage also runs the tests of ``tests/test_status_honesty.py``,
``tests/test_bounds_are_bounds.py`` and ``tests/test_guarantee_constants.py`` that name it.

The 27 mutations of the importers and learned policies (categories ``importer`` and ``learned``,
from ``imp-topology-bandwidth-unit`` on: a unit, an edge direction, an id order, an interval end, a
column, a row order read wrong in every import format; a training advantage's sign, a feature, a
price that sees the present, the MARL interference feature), run on their own (2026-11-27, load 3
to 11 on 2 shared cores, 11 minutes): 27 killed, 25 in the fast stage, score 100%. A first run had
two survivors (``learned-sees-present``: the simulator-agreement test used an untrained policy
whose prices did not depend on the utilization; ``marl-interference-sign``: the weight-flipping
test still had the other interference features); the tests named in their results were added
for them. The fast stage now includes each problem's ``test_import_handcomputed*.py`` and
``test_learned_learns.py``. Without the ``test_import_handcomputed*.py`` files (a copy of the tree
with them removed, same day, load 2-6), 10 of the 19 importer mutants survive both stages: the
topology, Rhino and HAP units, both reversed operator-graph edges, string-ranked edge-list ids,
the cache capacity, the inclusive IOPDDL end, the ps-locality Gbit/GB slip and the ignored
multi-GPU throughput rows.

The heuristic-step mutations (category ``step``) double as the demonstration that each
documented step of a method changes a recorded quality value: disabling the step must make
``tests/test_quality.py`` (or another test) fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


@dataclass(frozen=True)
class Mutation:
    id: str
    problem: str
    category: str      # checker | step | bound | error-path | simulator | importer | learned
    path: str
    old: str
    new: str
    what: str


M = Mutation
PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers: stop enforcing one constraint ------------------------------------------------------
    M("mknap-capacity", "mknap", "checker", PP + "mknap/instance.py",
      "np.flatnonzero(load > instance.capacity_array)", "np.flatnonzero(load > 2 * instance.capacity_array)",
      "capacity rows enforced at twice their value"),
    M("mknap-duplicate", "mknap", "checker", PP + "mknap/instance.py",
      "if len(set(selected)) != len(selected):", "if False:", "an item may be selected twice"),
    M("okn-capacity", "online-knapsack", "checker", PP + "online_knapsack/instance.py",
      "if load > CAPACITY + CAPACITY_TOL:", "if load > 1.5 * CAPACITY + CAPACITY_TOL:", "capacity 1.5 instead of 1"),
    M("okn-duplicate", "online-knapsack", "checker", "optsched/core/knapsack.py",
      'if len(set(accepted)) != len(accepted) else []', "if False else []", "a request may be accepted twice"),
    M("smd-capacity", "smd", "checker", PP + "smd/instance.py",
      "load > cap + CAPACITY_RTOL", "load > 2 * cap + CAPACITY_RTOL", "resource capacities doubled"),
    M("smd-deferrable", "smd", "checker", PP + "smd/instance.py",
      "if not job.deferrable:", "if False:", "non-deferrable jobs may be deferred"),
    M("smd-range", "smd", "checker", PP + "smd/instance.py",
      "1 <= s <= job.max_parameter_servers", "1 <= s", "parameter servers above the job's maximum"),
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
    M("rarm-gpu-count", "rar-makespan", "checker", PP + "rar_makespan/instance.py",
      "if len(mine) != instance.jobs[j].gpus:", "if len(mine) < instance.jobs[j].gpus:",
      "more GPUs than the job needs accepted"),
    M("rarm-gpu-twice", "rar-makespan", "checker", PP + "rar_makespan/instance.py",
      "if len({tuple(g) for g in mine}) != len(mine):", "if False:", "a GPU assigned twice to one job"),
    M("rarm-gpu-exists", "rar-makespan", "checker", PP + "rar_makespan/instance.py",
      "0 <= g < instance.servers[s]", "0 <= g <= instance.servers[s]", "one GPU past the server's last"),
    M("raro-arrival", "rar-online", "checker", PP + "rar_online/instance.py",
      "if t < instance.jobs[j].arrival:", "if t < 0:", "allocations before arrival allowed"),
    M("raro-workers", "rar-online", "checker", PP + "rar_online/instance.py",
      "if w > instance.jobs[j].max_workers:", "if w > 2 * instance.jobs[j].max_workers:", "max_workers doubled"),
    M("raro-gpus", "rar-online", "checker", PP + "rar_online/instance.py",
      "gpu_use > np.asarray(instance.servers)[:, None]", "gpu_use > 2 * np.asarray(instance.servers)[:, None]",
      "server GPUs doubled"),
    M("raro-links", "rar-online", "checker", PP + "rar_online/instance.py",
      "over = link_use > caps[:, None] * (1 + 1e-12)", "over = link_use > 2 * caps[:, None] * (1 + 1e-12)",
      "link capacities doubled"),
    M("pp-memory", "pipeline-partition", "checker", "optsched/pipeline/partition/instance.py",
      "if req > cap * (1 + 1e-12):", "if req > 2 * cap * (1 + 1e-12):",
      "memory doubled (the audit's pipeline-partition breakage)"),
    M("pp-injective", "pipeline-partition", "checker", "optsched/pipeline/partition/instance.py",
      "elif len(set(flat)) != len(flat):", "elif False:", "a device may serve two stages"),
    M("pp-replicas", "pipeline-partition", "checker", "optsched/pipeline/partition/instance.py",
      "len(g) > instance.replica_limit for g", "len(g) > instance.replica_limit + 1 for g", "one replica too many"),
    M("pp-stages", "pipeline-partition", "checker", "optsched/pipeline/partition/instance.py",
      "if instance.stages is not None and K != instance.stages:", "if False:", "fixed stage count ignored"),
    M("ps-cap", "pipeline-schedule", "checker", PP + "pipeline_schedule/instance.py",
      "sim.peak_inflight > np.asarray(instance.inflight_cap)", "sim.peak_inflight > 1 + np.asarray(instance.inflight_cap)",
      "in-flight cap one higher"),
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
    M("smd-polish-off", "smd", "step", PP + "smd/smd.py",
      'if opts["polish"] else res.choice', "if False else res.choice", "smd: no greedy polish of inner solutions"),
    M("smd-fill-off", "smd", "step", PP + "smd/model.py",
      "    if fill:\n", "    if False:\n", "lp-round: no greedy fill of the rounded jobs"),
    M("smd-improve-noop", "smd", "step", PP + "smd/configurations.py",
      "if costs[best] < costs[current]:", "if False:", "improve_greedily never moves a job (fill, polish, repair)"),
    M("smd-repair-one-pass", "smd", "step", PP + "smd/smd.py",
      "choice = improve_greedily(reduced, cfg, cap, low, order)\n    return improve_greedily(a, cfg, cap, choice, order)",
      "return low", "smd: Lagrangian repair keeps the least-resource columns"),
    M("smd-bnb-off", "smd", "step", PP + "smd/certify.py",
      "    if closed(root, value) or not np.isfinite(target_gap):", "    if True:",
      "smd: no branch and bound after the root bound"),
    M("smd-node-rounding-off", "smd", "step", PP + "smd/certify.py",
      "        if rounding:\n", "        if False:\n", "smd certification: no node rounding"),
    M("smd-bound-too-high", "smd", "bound", PP + "smd/certify.py",
      "    cert.bound = float(min(value, closed_min, open_min))",
      "    cert.bound = float(min(value, 1.02 * closed_min, open_min))", "smd: closed-node bounds inflated by 2%"),
    M("smd-close-too-early", "smd", "bound", PP + "smd/certify.py",
      "        return factor * lb >= incumbent - CLOSE_RTOL * abs(incumbent)",
      "        return 1.02 * factor * lb >= incumbent - CLOSE_RTOL * abs(incumbent)",
      "smd: nodes closed 2% too early"),
    M("smd-split-drops-column", "smd", "bound", PP + "smd/certify.py",
      "    return order[:k + 1], order[k + 1:]", "    return order[:k], order[k + 1:]",
      "smd: the GUB split loses a column"),
    M("smd-best-of-inner", "smd", "step", PP + "smd/smd.py",
      "if trial_value < best_value:", "if False:", "smd: line-search trials never become the incumbent"),
    M("sjf-bco-order", "rar-makespan", "step", PP + "rar_makespan/algorithms.py",
      "key=lambda j: (instance.jobs[j].gpus, j))", "key=lambda j: (-instance.jobs[j].gpus, j))",
      "SJF-BCO: largest job first instead of smallest"),
    M("sjf-bco-best-kappa", "rar-makespan", "step", PP + "rar_makespan/algorithms.py",
      "if best is None or sched.makespan < best[0]:", "if best is None:", "SJF-BCO: first kappa, not the best"),
    M("sjf-bco-least-busy", "rar-makespan", "step", PP + "rar_makespan/algorithms.py",
      "pick = cand[np.argsort(busy[cand], kind=\"stable\")[:g]]", "pick = cand[:g]",
      "SJF-BCO: first eligible GPUs instead of the least busy"),
    M("rr-first-trial", "ps-locality", "step", PP + "ps_locality/algorithms.py",
      "if value is not None and value < best_value:", "if value is not None and best is None:",
      "rr: first trial instead of the best of trials"),
    M("rr-repair-no-grow", "ps-locality", "step", PP + "ps_locality/algorithms.py",
      "        for i in active:\n            s.grow(i)", "        for i in active[:0]:\n            s.grow(i)",
      "rr repair: unfinished jobs do not use the room left"),
    M("rr-repair-order", "ps-locality", "step", PP + "ps_locality/algorithms.py",
      "order = np.lexsort((np.arange(instance.num_jobs), tau))",
      "order = np.lexsort((np.arange(instance.num_jobs), -tau))", "rr repair: latest sampled completion first"),
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
    M("mknap-greedy-order", "mknap", "step", PP + "mknap/algorithms.py",
      "key=lambda j: (-efficiency[j], j)", "key=lambda j: (efficiency[j], j)", "greedy: least efficient first"),
    M("mknap-lpround-single", "mknap", "step", PP + "mknap/algorithms.py",
      "selected = rounded if value_rounded >= value_single else np.array([best])", "selected = rounded",
      "lp-round: never the best single item"),
    M("okn-threshold-price", "online-knapsack", "step", PP + "online_knapsack/algorithms.py",
      "return max(lower, lower / math.e * math.exp(c * utilization))",
      "return max(lower, lower / math.e * math.exp(c * utilization / 2))", "threshold: price rises half as fast"),
    M("asrpt-order", "srpt", "step", PP + "srpt/algorithms.py",
      "        return (left, job.arrival, job.id)", "        return (-left, job.arrival, job.id)",
      "A-SRPT: longest remaining first"),
    M("gadget-greedy-order", "rar-online", "step", PP + "rar_online/gadget.py",
      "order = ok[np.argsort(gpu_price[ok] + r * link_price[ok] / np.maximum(free[ok], 1), kind=\"stable\")]",
      "order = ok[::-1]", "GADGET: spread embedding ignores prices"),
    M("gadget-admission", "rar-online", "step", PP + "rar_online/gadget.py",
      "if response is not None and response[0] > 0:", "if response is not None:",
      "GADGET: admits jobs of non-positive value"),
    M("gadget-worker-choices", "rar-online", "step", PP + "rar_online/gadget.py",
      "return sorted({1 << k for k in range(int(math.log2(wmax)) + 1)} | {wmax})", "return [wmax]",
      "GADGET: only the largest worker count is tried"),
    M("smd-repair-down-off", "smd", "step", PP + "smd/smd.py",
      "for candidate in (_repair(a, reduced, target, cfg, cap), _repair_down(a, target, cfg, cap, MAX_DOWN_MOVES)):",
      "for candidate in (_repair(a, reduced, target, cfg, cap),):", "smd: no downgrade repair from the best prices"),
    M("sjf-bco-lbsgf-off", "rar-makespan", "step", PP + "rar_makespan/algorithms.py",
      "if g > kappa:  # LBSGF", "if False:  # LBSGF", "SJF-BCO: never the LBSGF server-grouping rule"),
    M("asrpt-restart-credit", "srpt", "step", PP + "srpt/algorithms.py",
      "left -= job.gpus * credit", "left -= 0.0", "A-SRPT: running jobs get no restart-overhead credit"),
    M("tiresias-queues", "srpt", "step", PP + "srpt/algorithms.py",
      "return (sum(attained >= t for t in thresholds), job.arrival, job.id)", "return (job.arrival, job.id)",
      "Tiresias-LAS: no attained-service queues"),
    M("orderdp-order", "pipeline-partition", "step", "optsched/pipeline/partition/spaces.py",
      "order.append(int(max(rest, key=lambda d: (w[last, d], total[d], -d))))",
      "order.append(int(min(rest, key=lambda d: (w[last, d], total[d], -d))))",
      "order-dp: narrowest next device"),
    # -- bounds ------------------------------------------------------------------------------------
    M("srpt-lb-isolated", "srpt", "bound", PP + "srpt/algorithms.py",
      "value = float(max(virtual, isolated))", "value = float(virtual + isolated)", "lb: sum of two bounds"),
    M("okn-threshold-bound", "online-knapsack", "bound", PP + "online_knapsack/algorithms.py",
      "c = competitive_constant(lower, upper)\n    return max(lower, lower / math.e * math.exp(c * utilization))",
      "c = competitive_constant(lower, upper) + 1\n    return max(lower, lower / math.e * math.exp(c * utilization))",
      "threshold: a wrong constant c"),
    # -- error paths ---------------------------------------------------------------------------------
    M("rr-trials-validation", "ps-locality", "error-path", PP + "ps_locality/algorithms.py",
      "if trials < 1:", "if trials < 0:", "rr accepts trials = 0"),
    M("sjf-bco-lambda-validation", "rar-makespan", "error-path", PP + "rar_makespan/algorithms.py",
      "if not lam >= 1:", "if not lam >= 0:", "SJF-BCO accepts spread_factor < 1"),
    M("smd-inner-validation", "smd", "error-path", PP + "smd/smd.py",
      'if opts["inner"] not in INNER_METHODS:', "if False:", "smd accepts an unknown inner method"),
    # -- simulators / objectives ---------------------------------------------------------------------
    M("okn-welfare", "online-knapsack", "simulator", PP + "online_knapsack/instance.py",
      "welfare = math.fsum(instance.values[t] * instance.demands[t] for t in set(accepted))",
      "welfare = math.fsum(instance.values[t] for t in set(accepted))", "welfare without the demand factor"),
    M("srpt-flow", "srpt", "simulator", PP + "srpt/instance.py",
      "flow.append(last_end - job.arrival)", "flow.append(last_end)", "completion time instead of flow time"),
    M("ps-peak-inflight", "pipeline-schedule", "simulator", "optsched/simulation/pipeline.py",
      "return np.cumsum(steps, axis=1).max(axis=1, initial=0)", "return np.cumsum(steps, axis=1).max(axis=1, initial=0) - 1",
      "peak in-flight count one too low"),
    M("psl-progress", "ps-locality", "simulator", PP + "ps_locality/instance.py",
      "rate = entries[:, 3] / instance.e_in[i] + entries[:, 5] / instance.e_ex[i]",
      "rate = entries[:, 3] / instance.e_in[i] + entries[:, 5] / instance.e_in[i]",
      "spread workers progress at the co-located rate"),
    # -- newer problems (issue 35): checkers, the check referee, generator and importer validation ----
    M("intra-edge-forbidden", "intra-op", "checker", PP + "intra_op/instance.py",
      "for e in np.flatnonzero(edge >= FORBIDDEN)[:20]:", "for e in np.flatnonzero(edge >= FORBIDDEN)[:0]:",
      "forbidden edge pairs ignored"),
    M("intra-node-forbidden", "intra-op", "checker", PP + "intra_op/instance.py",
      "for v in np.flatnonzero(node >= FORBIDDEN)[:20]:", "for v in np.flatnonzero(node >= FORBIDDEN)[:0]:",
      "forbidden node strategies ignored"),
    M("intra-memory", "intra-op", "checker", PP + "intra_op/instance.py",
      "over = np.flatnonzero(prof > instance.usage_limit * (1 + MEMORY_RTOL))",
      "over = np.flatnonzero(prof > 2 * instance.usage_limit * (1 + MEMORY_RTOL))", "memory limit doubled"),
    M("hap-ratio-sum-below", "hetero-sharding", "checker", PP + "hetero_sharding/instance.py",
      "elif abs(arr.sum() - 1.0) > RATIO_TOL:", "elif arr.sum() - 1.0 > RATIO_TOL:",
      "ratios summing below 1 accepted"),
    M("hap-ratio-negative", "hetero-sharding", "checker", PP + "hetero_sharding/instance.py",
      "np.any(arr < -RATIO_TOL)", "np.any(arr < -1.0)", "negative ratios accepted"),
    M("hap-option-range", "hetero-sharding", "checker", PP + "hetero_sharding/instance.py",
      "for t, o in enumerate(program) if not 0 <= o < len(instance.stages[t].options)]",
      "for t, o in enumerate(program) if not 0 <= o <= len(instance.stages[t].options)]",
      "option index one past the end accepted"),
    M("dag-edge-back-one", "dag-pipeline", "checker", PP + "dag_pipeline/instance.py",
      "if stages[u] > stages[v]:", "if stages[u] > stages[v] + 1:", "an edge may go back one stage"),
    M("dag-empty-stage", "dag-pipeline", "checker", PP + "dag_pipeline/instance.py",
      "    if empty:\n", "    if False:\n", "empty stages accepted"),
    M("dag-budget", "dag-pipeline", "checker", PP + "dag_pipeline/instance.py",
      "if w > cap * (1 + 1e-9):", "if w > 2 * cap * (1 + 1e-9):", "stage budget doubled"),
    M("dd-skip-cell", "domain-decomposition", "checker", PP + "domain_decomposition/instance.py",
      "for k in range(1, n):\n            if owner[k] < owner[k - 1]:",
      "for k in range(2, n):\n            if owner[k] < owner[k - 1]:", "cell 1's contiguity skipped"),
    M("dd-skip-last-cell", "domain-decomposition", "checker", PP + "domain_decomposition/instance.py",
      "for k in range(1, n):\n            if owner[k] < owner[k - 1]:",
      "for k in range(1, n - 1):\n            if owner[k] < owner[k - 1]:", "the last cell's contiguity skipped"),
    M("opk-resource-0-only", "online-packing", "checker", PP + "online_packing/instance.py",
      "for i, load in enumerate(loads):", "for i, load in enumerate(loads[:1]):", "capacity of resource 0 only"),
    M("opk-capacity", "online-packing", "checker", PP + "online_packing/instance.py",
      "if load > 1.0 + CAPACITY_TOL:", "if load > 1.5 + CAPACITY_TOL:", "capacities 1.5 instead of 1"),
    M("coloc-resident-clash", "interference-placement", "checker", "optsched/workloads/colocation.py",
      "for s in set(p) & snap.blocked_servers(j):", "for s in set():", "the resident-clash rule dropped"),
    M("coloc-job-clash", "interference-placement", "checker", "optsched/workloads/colocation.py",
      "if pj is not None and pk is not None and set(pj) & set(pk) and snap.clash(",
      "if False and pj is not None and pk is not None and set(pj) & set(pk) and snap.clash(",
      "clashing new jobs may share a server"),
    M("coloc-gang", "interference-placement", "checker", "optsched/workloads/colocation.py",
      "if sum(p.values()) != snap.job_gpus[j]:", "if sum(p.values()) > snap.job_gpus[j]:",
      "a job may get fewer GPUs than its gang"),
    M("coloc-capacity", "interference-placement", "checker", "optsched/workloads/colocation.py",
      "if used[s] > snap.free[s]:", "if used[s] > snap.free[s] + 1:", "one GPU more than free accepted"),
    M("ps-cycle-raises", "pipeline-schedule", "error-path", PP + "pipeline_schedule/instance.py",
      "    except InvalidInstanceError as exc:  # malformed or deadlocked: no schedule to measure\n",
      "    except ZeroDivisionError as exc:\n", "a deadlocked order is invalid input (exit 2), not a violation"),
    M("commit-scheme-type", "commit-rate", "error-path", PP + "commit_rate/instance.py",
      "    if not isinstance(kind, str):\n", "    if False:\n", "a list as scheme crashes the checker"),
    M("referee-types", "mknap", "error-path", "optsched/core/result.py",
      "        validate_result_types(data)", "        pass", "a result's objective is not type-checked"),
    M("referee-infeasible", "mknap", "error-path", "optsched/core/referee.py",
      'if status == "infeasible" and result.solution is not None:', 'if False:',
      "an infeasible record carrying a solution is accepted"),
    M("referee-optimal-gap", "mknap", "error-path", "optsched/core/referee.py",
      'if status == "optimal" and gap is not None and gap > allowed and not within_abs:', 'if False:',
      "an optimal record with a positive gap is accepted"),
    M("referee-bound", "mknap", "error-path", "optsched/core/referee.py",
      "if better and abs(objective - bound) > objective_tolerance(bound):", "if False:",
      "an objective better than its own bound is accepted"),
    M("referee-gap", "mknap", "error-path", "optsched/core/referee.py",
      "elif not (gap == expected or abs(gap - expected) <= GAP_TOLERANCE * max(1.0, expected)):", "elif False:",
      "a gap that is not |objective - bound| / |objective| is accepted"),
    M("params-nan", "mknap", "error-path", "optsched/core/params.py",
      "        if not math.isfinite(value):\n            raise", "        if False:\n            raise",
      "NaN and infinities accepted for float generator options"),
    M("params-interval", "mknap", "error-path", "optsched/core/params.py",
      "if opt.bounds is not None and not opt.bounds.contains(value):", "if False:",
      "declared intervals not checked"),
    M("params-float-for-int", "mknap", "error-path", "optsched/core/params.py",
      "    if want is int:\n        if not _is_int(value):", "    if want is int:\n        if False:",
      "a float where an int is declared accepted"),
    M("params-api-skips", "mknap", "error-path", "optsched/api.py",
      "    params = validate_parameters(problem, prob.generator_options, params)\n", "",
      "the API skips the declared constraints (the CLI still checks them)"),
    M("params-load-unbounded", "interference-online", "error-path", PP + "interference_online/problem.py",
      '"offered GPU utilization", bounds=Interval(0, 100, closed="right")', '"offered GPU utilization"',
      "the load option declares no interval"),
    M("edge-list-negative-value", "graph-partition", "error-path", "optsched/graphs/io.py",
      "if not _looks_numeric(x) or not (math.isfinite(float(x)) and float(x) >= 0):",
      "if not _looks_numeric(x):", "NaN or negative edge values accepted"),
    M("edge-list-negative-id", "graph-partition", "error-path", "optsched/graphs/io.py",
      "            elif integer_ids or _looks_numeric(x):", "            elif integer_ids:",
      "a negative or NaN id in a file of names becomes a node"),
    M("edge-list-index", "graph-partition", "error-path", PP + "graph_partition/generate.py",
      '    if index not in (None, 0):\n        raise InvalidOptionError("graph-partition", "--index", "must be 0: '
      'the file holds one graph", index)\n    path = Path(path)\n    try:\n        gf = read_edge_list(path)',
      "    path = Path(path)\n    try:\n        gf = read_edge_list(path)", "edge-list ignores --index"),
    M("threads-unbounded", "mknap", "error-path", "optsched/core/solving.py",
      "if not _is_int(threads) or not 1 <= threads <= MAX_THREADS:", "if not _is_int(threads) or threads < 1:",
      "solve() accepts a million threads"),
    M("device-input", "mknap", "error-path", "optsched/core/textfile.py",
      "        if not stat.S_ISFIFO(mode):\n", "        if False:\n", "a device is read as an input file"),
    M("sc-min-cores", "stage-cores", "checker", PP + "stage_cores/instance.py",
      "for i, x in enumerate(c) if x < instance.min_cores]", "for i, x in enumerate(c) if x < 0]",
      "min_cores per stage not enforced"),
    M("sc-core-budget", "stage-cores", "checker", PP + "stage_cores/instance.py",
      "if sum(c) > instance.cores:", "if sum(c) > instance.cores + 1:", "one core more than available accepted"),
    M("fc-hit-evict", "feature-cache", "checker", PP + "feature_cache/instance.py",
      "        if x in cache:\n            if e != -1:", "        if x in cache:\n            if False:",
      "an eviction on a hit accepted"),
    M("fc-full", "feature-cache", "checker", PP + "feature_cache/instance.py",
      "            if e not in cache:\n", "            if e not in cache and e != -1:\n",
      "a full cache may grow (no eviction)"),
    M("gp-node-balance", "graph-partition", "checker", PP + "graph_partition/instance.py",
      "if loads[0, i] > instance.capacity_nodes * (1 + LOAD_TOL):",
      "if loads[0, i] > 2 * instance.capacity_nodes * (1 + LOAD_TOL):", "node balance doubled"),
    M("gp-train-balance", "graph-partition", "checker", PP + "graph_partition/instance.py",
      "if loads[1, i] > instance.capacity_train * (1 + LOAD_TOL):",
      "if loads[1, i] > 2 * instance.capacity_train * (1 + LOAD_TOL):", "training-node balance doubled"),
    M("pg-edge-back", "pipeline-graph", "checker", PP + "pipeline_graph/instance.py",
      "if stage_of[u] > stage_of[v]:", "if stage_of[u] > stage_of[v] + 1:", "an edge may go back one stage"),
    M("pg-workers", "pipeline-graph", "checker", PP + "pipeline_graph/instance.py",
      "elif sum(replicas) > instance.workers:", "elif sum(replicas) > instance.workers + 1:",
      "one replica more than the workers accepted"),
    M("pg-two-stages", "pipeline-graph", "checker", PP + "pipeline_graph/instance.py",
      "elif len(set(flat)) != len(flat):", "elif False:", "a layer may sit in two stages"),
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
    M("pa-memory", "pipeline-adaptive", "checker", PP + "pipeline_adaptive/instance.py",
      "        if g not in fitting:\n", "        if g < 1:\n", "group sizes that do not fit memory accepted"),
    M("cr-bandwidth-cap", "commit-rate", "checker", PP + "commit_rate/instance.py",
      "bad = [c for c in cs if not 1 <= c <= instance.max_commits]", "bad = [c for c in cs if not 1 <= c]",
      "commits above the bandwidth cap accepted"),
    M("dnn-nan", "dag-pipeline", "error-path", "optsched/workloads/operator_graphs.py",
      "    if not np.isfinite(v) or v < 0:\n", "    if v < 0:\n", "NaN latencies and sizes read from a dnn-partitioning file"),
    M("hap-index", "hetero-sharding", "error-path", PP + "hetero_sharding/generate.py",
      '    if index is not None:\n        raise InvalidOptionError(P, "--index", "a dnn-partitioning file holds one graph")\n'
      "    return operator_graph_program(", "    return operator_graph_program(", "dnn-partitioning-hap ignores --index"),
    M("cr-workers-unbounded", "commit-rate", "error-path", PP + "commit_rate/problem.py",
      '"workers": Option(int, 6, "workers", bounds=Interval(1, 256))', '"workers": Option(int, 6, "workers")',
      "the workers option declares no interval (--workers 0 reaches the generator)"),
    M("gp-degree-unbounded", "graph-partition", "error-path", PP + "graph_partition/problem.py",
      '"Chung-Lu mean degree", bounds=Interval(0, 100, closed="right")', '"Chung-Lu mean degree"',
      "the mean degree declares no interval"),
    M("dd-level-unbounded", "domain-decomposition", "error-path", PP + "domain_decomposition/problem.py",
      '"top-level cells per axis = 2^level", bounds=Interval(1, 8)', '"top-level cells per axis = 2^level"',
      "the level declares no interval (8^level cells)"),
    # --- status/bounds/guarantees (status branch) ---
    M("pp-milp-optimal-after-limit", "pipeline-partition", "status", PP + "pipeline_partition/algorithms.py",
      'if all(s in ("optimal", "infeasible") for s in statuses):', "if True:",
      "per-K MILPs report optimal although a stage count's MILP stopped at a limit"),
    M("pp-milp-bound-loosest", "pipeline-partition", "bound", PP + "pipeline_partition/algorithms.py",
      "bound = min(bounds) if bounds and all(", "bound = max(bounds) if bounds and all(",
      "per-K MILPs report the largest stage count's bound (not a bound on OPT)"),
    M("pp-milp-bound-partial", "pipeline-partition", "bound", PP + "pipeline_partition/algorithms.py",
      "bound = min(bounds) if bounds and all(b is not None and math.isfinite(b) for b in bounds) else None",
      "bound = min([b for b in bounds if b is not None] or [None]) if bounds else None",
      "a stage count without a bound is skipped instead of leaving OPT unbounded"),
    M("pp-stopped-dp-optimal", "pipeline-partition", "status", PP + "pipeline_partition/algorithms.py",
      'return _plan_outcome(instance, plan, "time_limit", _bound(instance, bound), phase=phase, **stats)',
      'return _plan_outcome(instance, plan, "optimal", _bound(instance, bound), phase=phase, **stats)',
      "a DP stopped by its clock reports optimal"),
    M("psl-lb-optimal-after-limit", "ps-locality", "status", PP + "ps_locality/algorithms.py",
      'status="optimal" if sol.status == "optimal" else sol.status,', 'status="optimal",',
      "the ps-locality lower bound reports optimal after its LP stopped"),
    M("psl-lb-primal-value", "ps-locality", "bound", PP + "ps_locality/algorithms.py",
      'lp_value = sol.objective if sol.status == "optimal" else sol.bound\n    value = max(solo, lp_value)',
      'lp_value = sol.objective if sol.objective is not None else sol.bound\n    value = max(solo, lp_value)',
      "a stopped LP's primal value taken as the lower bound"),
    M("repair-optimal", "online-knapsack", "status", "optsched/core/knapsack.py",
      'out.status = "feasible"', "out.status = out.status",
      "capacity repair reports optimal although the lowered capacity may cut off OPT"),
    M("repair-bound-last", "online-packing", "bound", "optsched/core/knapsack.py",
      "out.bound = first_bound", "out.bound = out.bound",
      "capacity repair reports the repaired model's bound (of a smaller capacity)"),
    M("pg-optimal-without-bound", "pipeline-graph", "status", PP + "pipeline_graph/algorithms.py",
      "optimal = exact and lower is not None and value <= lower * (1 + 2.5e-9)", "optimal = exact",
      "antichain-dp reports optimal when its deadline stopped the search before the bound met the plan"),
    M("pa-brute-optimal-after-limit", "pipeline-adaptive", "status", PP + "pipeline_adaptive/algorithms.py",
      "    visit(0, 0.0, None)\n",
      "    try:\n        visit(0, 0.0, None)\n    except Exception:\n        pass\n",
      "brute keeps its best sequence at the time limit and still reports optimal"),
    M("guard-time-limit", "mknap", "status", "optsched/core/solving.py",
      'elif "time_limit" in limited:', "elif False:",
      "the core's guard lets a sub-solve's time limit through (the mutant the issue says was untested)"),
    M("portfolio-loosest-bound", "mknap", "bound", "optsched/core/backends/portfolio.py",
      'bound = (min(bounds) if model.sense == "max" else max(bounds)) if bounds else None',
      'bound = (max(bounds) if model.sense == "max" else min(bounds)) if bounds else None',
      "the portfolio reports the loosest member bound"),
    M("bound-rounded-wrong-way", "mknap", "bound", "optsched/core/backends/base.py",
      'math.floor(bound / g + 1e-6) if model.sense == "max"', 'math.floor(bound / g - 1e-6) if model.sense == "max"',
      "an integral maximization's bound rounded down past an integer value (below OPT)"),
    M("mknap-lpround-bound-alg", "mknap", "bound", PP + "mknap/algorithms.py",
      "objective=objective, bound=sol.objective,", "objective=objective, bound=objective,",
      "lp-round reports its rounded value as the upper bound"),
    M("smd-lpround-bound-alg", "smd", "bound", PP + "smd/algorithms.py",
      "objective=float(cfg.cost[choice].sum()), bound=sol.objective,",
      "objective=float(cfg.cost[choice].sum()), bound=float(cfg.cost[choice].sum()),",
      "lp-round reports its rounded value as the lower bound"),
    M("sc-baseline-bound-value", "stage-cores", "bound", PP + "stage_cores/methods.py",
      'bound=value if status == "optimal" else instance.upper_bound)', "bound=value)",
      "a stage-cores baseline reports its own throughput as an upper bound on OPT"),
    M("mknap-guarantee-tightened", "mknap", "guarantee", PP + "mknap/methods.py",
      "value=lambda inst: inst.num_rows + 1,", "value=lambda inst: inst.num_rows + 0.9,",
      "lp-round's guarantee m + 1 tightened to m + 0.9"),
    M("mknap-guarantee-loosened", "mknap", "guarantee", PP + "mknap/methods.py",
      "value=lambda inst: inst.num_rows + 1,", "value=lambda inst: inst.num_rows + 1.5,",
      "lp-round's guarantee m + 1 loosened to m + 1.5"),
    M("okn-guarantee-loosened", "online-knapsack", "guarantee", PP + "online_knapsack/methods.py",
      "value=lambda inst: threshold_bound(inst.lower, inst.upper, inst.eps),",
      "value=lambda inst: 1.05 * threshold_bound(inst.lower, inst.upper, inst.eps),",
      "threshold's competitive ratio loosened by 5%"),
    M("okn-guarantee-tightened", "online-knapsack", "guarantee", PP + "online_knapsack/methods.py",
      "value=lambda inst: threshold_bound(inst.lower, inst.upper, inst.eps),",
      "value=lambda inst: 0.98 * threshold_bound(inst.lower, inst.upper, inst.eps),",
      "threshold's competitive ratio tightened by 2%"),
    M("hs-guarantee-loosened", "hetero-sharding", "guarantee", PP + "hetero_sharding/methods.py",
      "value=lambda inst: alg.rounding_bound(inst),", "value=lambda inst: 1.1 * alg.rounding_bound(inst),",
      "milp-round's additive rounding term loosened by 10%"),
    M("hs-guarantee-tightened", "hetero-sharding", "guarantee", PP + "hetero_sharding/methods.py",
      "value=lambda inst: alg.rounding_bound(inst),", "value=lambda inst: 0.95 * alg.rounding_bound(inst),",
      "milp-round's additive rounding term tightened by 5%"),
    M("sc-guarantee-loosened", "stage-cores", "guarantee", PP + "stage_cores/methods.py",
      "guarantee=Guarantee(form=\"multiplicative\", sense=\">=\", value=lambda inst: 1.0,",
      "guarantee=Guarantee(form=\"multiplicative\", sense=\">=\", value=lambda inst: 1.01,",
      "greedy's exactness (ratio 1) loosened to 1.01"),
    M("rarm-guarantee-tightened", "rar-makespan", "guarantee", PP + "rar_makespan/methods.py",
      "value=lambda inst: inst.max_gpus * inst.phi * inst.estimate_upper / inst.estimate_lower,",
      "value=lambda inst: 0.5 * inst.max_gpus * inst.phi * inst.estimate_upper / inst.estimate_lower,",
      "Theorem 5's factor halved (no tight instance is known: may survive)"),
    # --- importers/learned (importers branch) ---
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-topology-bandwidth-unit", "pipeline-partition", "importer", "optsched/workloads/topology.py",
      'number(link["bandwidth_gb_s"], f"links[{i}].bandwidth_gb_s") * GB))',
      'number(link["bandwidth_gb_s"], f"links[{i}].bandwidth_gb_s")))',
      "a topology file's bandwidth read in bytes/s instead of GB/s"),
    M("imp-rhino-bandwidth-unit", "dag-pipeline", "importer", PP + "dag_pipeline/generate.py",
      "RHINO_INTER_NODE_BW = 3355443.2 * 1000.0", "RHINO_INTER_NODE_BW = 3355443.2",
      "Rhino's bandwidth left in bytes per ms"),
    M("imp-opgraph-edges-reversed", "dag-pipeline", "importer", "optsched/workloads/operator_graphs.py",
      'for end, out in (("sourceId", src), ("destId", dst)):', 'for end, out in (("sourceId", dst), ("destId", src)):',
      "operator-graph edges read consumer -> producer"),
    M("imp-opgraph-edges-reversed-hap", "hetero-sharding", "importer", "optsched/workloads/operator_graphs.py",
      'for end, out in (("sourceId", src), ("destId", dst)):', 'for end, out in (("sourceId", dst), ("destId", src)):',
      "operator-graph edges read consumer -> producer (the HAP mapping)"),
    M("imp-hap-bytes-per-element", "hetero-sharding", "importer", PP + "hetero_sharding/generate.py",
      "    params = og.size / bytes_per_element\n", "    params = og.size\n",
      "parameter bytes taken as elements"),
    M("imp-edge-list-string-ids", "graph-partition", "importer", "optsched/graphs/io.py",
      "ids = sorted({int(s) for s in names})", "ids = sorted({int(s) for s in names}, key=str)",
      "edge-list ids ranked as strings"),
    M("imp-planetoid-test-index-one-based", "graph-partition", "importer", PP + "graph_partition/generate.py",
      "        is_test[test] = True\n    train = np.flatnonzero(~is_test)\n    if len(train) == 0:\n"
      '        raise InvalidInstanceError("graph-partition"',
      "        is_test[test - 1] = True\n    train = np.flatnonzero(~is_test)\n    if len(train) == 0:\n"
      '        raise InvalidInstanceError("graph-partition"',
      "planetoid test-node ids read as 1-based"),
    M("imp-cache-capacity", "feature-cache", "importer", PP + "feature_cache/generate.py",
      "capacity=max(1, n // 10)", "capacity=max(1, n // 100)", "the imported cache holds 1% of the nodes, not 10%"),
    M("imp-iopddl-inclusive-end", "intra-op", "importer", PP + "intra_op/generate.py",
      "end=iv[:, 1].astype(np.int64), edge_u=eu", "end=iv[:, 1].astype(np.int64) + 1, edge_u=eu",
      "IOPDDL interval ends read as inclusive"),
    M("imp-orlib-weights-transposed", "mknap", "importer", PP + "mknap/orlib.py",
      'weights = [tokens.take(n, f"{where} weights row {i}") for i in range(m)]',
      'weights = [list(r) for r in zip(*[tokens.take(m, f"{where} weights row {i}") for i in range(n)])]',
      "OR-Library weights read item by item instead of row by row"),
    M("imp-pipedream-graph-ms", "pipeline-graph", "importer", PP + "pipeline_graph/generate.py",
      'forward_s=tuple(d["forward_ms"] / 1000.0 for d in nodes)', 'forward_s=tuple(d["forward_ms"] for d in nodes)',
      "PipeDream forward times kept in ms"),
    M("imp-pipedream-activation-list", "pipeline-partition", "importer", "optsched/workloads/profiles.py",
      '"activation": sum(_number(a, where + " activation_size") for a in acts if a.strip()),',
      '"activation": _number(acts[0], where + " activation_size"),',
      "a bracketed activation list: only its first entry counted"),
    M("imp-gavel-scale-arrival-swapped", "rar-makespan", "importer", "optsched/workloads/traces.py",
      "job_type, command, flag, needs, steps, arrival, scale = cols",
      "job_type, command, flag, needs, steps, scale, arrival = cols",
      "Gavel trace: the arrival and scale-factor columns swapped"),
    M("imp-tiresias-duration-as-iterations", "rar-makespan", "importer", "optsched/workloads/traces.py",
      'iterations=_number(source, number, row, "iterations", int, 1),',
      'iterations=_number(source, number, row, "duration", int, 1),',
      "Tiresias: the duration column read as iterations"),
    M("imp-rar-online-slot-rounding", "rar-online", "importer", PP + "rar_online/generate.py",
      "arrival=int(job.arrival_s // arrival_s_per_slot)", "arrival=int(math.ceil(job.arrival_s / arrival_s_per_slot))",
      "arrival slots rounded up"),
    M("imp-ps-bandwidth-bits", "ps-locality", "importer", PP + "ps_locality/trace.py",
      "bandwidth_ex=1250.0 * slot_s", "bandwidth_ex=10000.0 * slot_s",
      "10 Gbit/s read as 10 GB/s between machines"),
    M("imp-srpt-arrivals-unshifted", "srpt", "importer", PP + "srpt/generate.py",
      "jobs = tuple(_job(k, t.arrival_s - start, rec", "jobs = tuple(_job(k, t.arrival_s, rec",
      "the stream's arrivals not shifted to its first job"),
    M("imp-gavel-multi-gpu-row", "interference-online", "importer", "optsched/workloads/interference.py",
      "            if n == name and s == scale:\n", "            if False:\n",
      "Gavel's multi-GPU throughput rows ignored (scale-1 rate for every job)"),
    M("imp-beta-inverted", "interference-placement", "importer", "optsched/workloads/interference.py",
      "b = iso[i] / float(pair[0]) - 1.0", "b = float(pair[0]) / iso[i] - 1.0",
      "interference read as co-located / isolated throughput"),
    M("learned-advantage-sign", "online-knapsack", "learned", "optsched/online/learned.py",
      "adv_pr = (w_all - base_w[:, None, None, None]) / b_opt[:, None, None, None]",
      "adv_pr = (base_w[:, None, None, None] - w_all) / b_opt[:, None, None, None]",
      "the policy's training advantage sign flipped"),
    M("learned-advantage-sign-packing", "online-packing", "learned", "optsched/online/learned.py",
      "adv_pr = (w_all - base_w[:, None, None, None]) / b_opt[:, None, None, None]",
      "adv_pr = (base_w[:, None, None, None] - w_all) / b_opt[:, None, None, None]",
      "the policy's training advantage sign flipped (multi-resource)"),
    M("learned-feature-inverted", "online-packing", "learned", "optsched/online/learned.py",
      "    return xp.stack([z, xp.broadcast_to(tau[:, None], (n, m)),",
      "    return xp.stack([1.0 - z, xp.broadcast_to(tau[:, None], (n, m)),",
      "the utilization feature inverted"),
    M("learned-sees-present", "online-knapsack", "learned", "optsched/online/learned.py",
      "        p = price_fn(z, t)\n        d = demands[:, t, :]\n",
      "        d = demands[:, t, :]\n        p = price_fn(z + d, t)\n",
      "the training simulator's posted price sees the current request"),
    M("packing-sees-present", "online-packing", "learned", PP + "online_packing/algorithms.py",
      "        p = np.asarray(price(z.copy(), t), float)\n        d = d_all[t]\n",
      "        d = d_all[t]\n        p = np.asarray(price(z + d, t), float)\n",
      "a posted price computed after seeing the request's demand"),
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
]


def _problem_dir(problem: str) -> str:
    return {"online-knapsack": "online", "srpt": "online", "rar-makespan": "ring_allreduce",
            "rar-online": "ring_allreduce"}.get(problem, problem.replace("-", "_"))


def fast_tests(problem: str) -> list[str]:
    d = _problem_dir(problem)
    checker = {"online-knapsack": "test_checker_constraints_knapsack.py", "srpt": "test_checker_constraints_srpt.py",
               "rar-makespan": "test_checker_constraints_makespan.py",
               "rar-online": "test_checker_constraints_online.py"}.get(problem, "test_checker_constraints.py")
    fast = [f"tests/{d}/{checker}"] if (ROOT / "tests" / d / checker).exists() else []
    # the cross-problem referee, generator and option tests of this problem (issue 35)
    fast += [f"tests/test_check_referee.py::{t}[{problem}]" for t in ("test_checkers_never_crash_on_malformed_solutions",
                                                                      "test_a_genuine_record_passes")]
    fast += [f"tests/test_generator_params.py::test_bad_values_through_the_api_and_the_cli_agree[{problem}]",
             "tests/test_generator_params.py::test_every_parameter_is_declared_with_a_type_and_a_finite_range"]
    if problem == "mknap":  # the shared layers' own tests: the referee, the option ranges, the readers
        fast += ["tests/test_check_referee.py", "tests/test_option_ranges.py", "tests/test_generator_params.py"]
    if problem in ("graph-partition", "dag-pipeline", "hetero-sharding"):  # their importers' validation
        fast += ["tests/test_importer_validation.py"]
    # the cross-problem status, bound and guarantee tests of this problem (status branch)
    fast += [node for path in STATUS_FILES for node in _collected(path) if _mentions(node, problem)]
    if problem == "mknap":  # the core's guard and the portfolio's combination
        fast += [node for node in _collected("tests/test_status_honesty.py")
                 if "core_guard" in node or "portfolio" in node or "integral_bound" in node]
    # the importers against hand-computed values, and the learned policies' learning checks
    hand = {"srpt": "test_import_handcomputed_srpt.py", "rar-makespan": "test_import_handcomputed_makespan.py",
            "rar-online": "test_import_handcomputed_online.py"}.get(problem, "test_import_handcomputed.py")
    fast += [f"tests/{d}/{f}" for f in (hand, "test_learned_learns.py") if (ROOT / "tests" / d / f).exists()]
    if problem == "online-knapsack":
        fast += [f"tests/online/test_learned.py::{t}" for t in ("test_training_beats_the_untrained_policy_on_a_fixed_input",
                                                                "test_simulator_agrees_with_online_knapsack_posted_prices")]
    quality = f"tests/test_quality.py::test_no_method_worse_than_recorded[{problem}]"
    return fast + ([quality] if quality in _collected("tests/test_quality.py") else [])


STATUS_FILES = ("tests/test_status_honesty.py", "tests/test_bounds_are_bounds.py", "tests/test_guarantee_constants.py")


def _mentions(node: str, problem: str) -> bool:
    """Whether a test id is about ``problem`` (its parameter or its function name names it)."""
    import re

    name = node.split("::", 1)[1]
    return bool(re.search(r"[\[/-]" + re.escape(problem) + r"[\]/-]", name)) or problem.replace("-", "_") in name


def full_tests(problem: str) -> list[str]:
    d = _problem_dir(problem)
    return [f"tests/{d}"] + [node for node in _conformance_nodes() if f"[{problem}]" in node or f"[{problem}-" in node]


_NODES: list[str] = []
_COLLECTED: dict[str, list[str]] = {}


def _collected(path: str) -> list[str]:
    """The test ids of one test file (collected once)."""
    if path not in _COLLECTED:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([PY, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", path], cwd=ROOT,
                              env=env, capture_output=True, text=True)
        _COLLECTED[path] = [ln.strip() for ln in proc.stdout.splitlines() if ln.startswith(path + "::")]
    return _COLLECTED[path]


def _conformance_nodes() -> list[str]:
    """The conformance suite's test ids (``test_x[problem]``, ``test_y[problem-method]``)."""
    if not _NODES:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([PY, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                               "tests/test_conformance.py"], cwd=ROOT, env=env, capture_output=True, text=True)
        _NODES.extend(ln.strip() for ln in proc.stdout.splitlines() if ln.startswith("tests/test_conformance.py::"))
    return _NODES


def _copy(dst: Path) -> None:
    ignore = shutil.ignore_patterns(".git", "__pycache__", ".hypothesis", ".pytest_cache", "results", ".venv",
                                    "*.egg-info", ".benchmarks")
    shutil.copytree(ROOT, dst, ignore=ignore, dirs_exist_ok=True)


def _pytest(work: Path, tests: list[str], timeout: float) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not slow", *tests]
    try:
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "timeout"
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    tail = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
    return proc.returncode, "; ".join(lines[:2] or tail)


def run(selected: list[Mutation], timeout: float = 900.0) -> list[dict]:
    out = []
    with tempfile.TemporaryDirectory(prefix="optsched-mut-") as tmp:
        work = Path(tmp)
        _copy(work)
        for m in selected:
            target = work / m.path
            original = target.read_text()
            count = original.count(m.old)
            if count != 1:
                out.append({"id": m.id, "result": "invalid", "detail": f"snippet occurs {count} times"})
                print(f"{m.id:28s} INVALID ({count} occurrences)", flush=True)
                continue
            target.write_text(original.replace(m.old, m.new))
            start = time.time()
            try:
                stage = "fast"
                rc, detail = _pytest(work, fast_tests(m.problem), timeout)
                if rc == 0 or rc == 5:
                    stage = "full"
                    rc, detail = _pytest(work, full_tests(m.problem), timeout)
            finally:
                target.write_text(original)
            # 1: a test failed; 2: collection/import error (the mutated code does not import); -1: timeout
            result = "survived" if rc in (0, 5) else "error" if rc in (3, 4) else "killed"
            out.append({"id": m.id, "problem": m.problem, "category": m.category, "what": m.what,
                        "result": result, "stage": stage, "detail": detail, "seconds": round(time.time() - start, 1)})
            print(f"{m.id:28s} {result:8s} ({stage}, {time.time() - start:.0f} s) {detail[:150]}", flush=True)
    return out


def main(argv: list[str]) -> int:
    if "--list" in argv:
        for m in MUTATIONS:
            print(f"{m.id:28s} {m.category:10s} {m.problem:18s} {m.what}")
        return 0
    json_out = None
    if "--json" in argv:
        json_out = argv[argv.index("--json") + 1]
        argv = [a for a in argv if a not in ("--json", json_out)]
    ids = set(argv)
    selected = [m for m in MUTATIONS if not ids or m.id in ids or m.problem in ids or m.category in ids]
    results = run(selected)
    valid = [r for r in results if r["result"] in ("killed", "survived")]
    killed = sum(r["result"] == "killed" for r in valid)
    print(f"\nmutation score: {killed} / {len(valid)} killed ({100 * killed / max(1, len(valid)):.0f}%)")
    if json_out:
        Path(json_out).write_text(json.dumps(results, indent=1) + "\n")
    return 0 if killed == len(valid) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
