"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields).

Run history: in the full run of 2026-11-24 (68 mutations) ``gadget-greedy-order`` and
``gadget-worker-choices`` survived; they are now killed only by the comparison with the stored
outputs of the previous implementation (``tests/rar_online/test_rar_online_scale.py``,
``tests/golden.md``), not by a quality value.
"""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers: stop enforcing one constraint ------------------------------------------------------
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
    # -- heuristic steps -----------------------------------------------------------------------------
    M("gadget-greedy-order", "rar-online", "step", PP + "rar_online/gadget.py",
      "order = ok[np.argsort(gpu_price[ok] + r * link_price[ok] / np.maximum(free[ok], 1), kind=\"stable\")]",
      "order = ok[::-1]", "GADGET: spread embedding ignores prices"),
    M("gadget-admission", "rar-online", "step", PP + "rar_online/gadget.py",
      "if response is not None and response[0] > 0:", "if response is not None:",
      "GADGET: admits jobs of non-positive value"),
    M("gadget-worker-choices", "rar-online", "step", PP + "rar_online/gadget.py",
      "return sorted({1 << k for k in range(int(math.log2(wmax)) + 1)} | {wmax})", "return [wmax]",
      "GADGET: only the largest worker count is tried"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-rar-online-slot-rounding", "rar-online", "importer", PP + "rar_online/generate.py",
      "arrival=int(job.arrival_s // arrival_s_per_slot)", "arrival=int(math.ceil(job.arrival_s / arrival_s_per_slot))",
      "arrival slots rounded up"),
    # -- the search adversary against the exact optimum (T3's adversary part) ------------------------
    M("raro-adversary-no-starts", "rar-online", "step", PP + "rar_online/adversary.py",
      "                 starts=adapter.starts())", "                 starts=())",
      "the adversary skips its structured starts", fast=("tests/rar_online/test_adversary_search.py",)),
    M("raro-adversary-burst-cheap", "rar-online", "step", PP + "rar_online/adversary.py",
      "        flood[2, half:] = 1.0\n", "        flood[2, half:] = 0.0\n",
      "the burst after the flood is as cheap as the flood", fast=("tests/rar_online/test_adversary_search.py",)),
    M("raro-adversary-linear-scale", "rar-online", "step", PP + "rar_online/adversary.py",
      "                scale = b.slope / u.slope", "                scale = u.slope / b.slope",
      "the encoding inverts a linear utility's time scale", fast=("tests/rar_online/test_adversary_search.py",)),
    M("raro-adversary-factor", "rar-online", "guarantee", PP + "rar_online/adversary.py",
      "            q = ratio / factor", "            q = ratio / factor / 10",
      "the ratio / factor record understates how close the search came", fast=("tests/rar_online/test_adversary_search.py",)),
    M("raro-adversary-verdict", "rar-online", "guarantee", PP + "rar_online/repro.py",
      "    if violations:\n", "    if False:\n",
      "T3 says Theorem G held when the adversary found violations", fast=("tests/rar_online/test_adversary_search.py",)),
    M("raro-adversary-table-best", "rar-online", "status", PP + "rar_online/repro.py",
      "            worst = max(sel, key=lambda r: r[\"worst_ratio\"])", "            worst = sel[0]",
      "T3's adversary table keeps the first seed, not the worst", fast=("tests/rar_online/test_adversary_search.py",)),
]

