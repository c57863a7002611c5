"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("intra-edge-forbidden", "intra-op", "checker", PP + "intra_op/instance.py",
      "for e in np.flatnonzero(edge >= FORBIDDEN)[:20]:", "for e in np.flatnonzero(edge >= FORBIDDEN)[:0]:",
      "forbidden edge pairs ignored"),
    M("intra-node-forbidden", "intra-op", "checker", PP + "intra_op/instance.py",
      "for v in np.flatnonzero(node >= FORBIDDEN)[:20]:", "for v in np.flatnonzero(node >= FORBIDDEN)[:0]:",
      "forbidden node strategies ignored"),
    M("intra-memory", "intra-op", "checker", PP + "intra_op/instance.py",
      "over = np.flatnonzero(prof > instance.usage_limit * (1 + MEMORY_RTOL))",
      "over = np.flatnonzero(prof > 2 * instance.usage_limit * (1 + MEMORY_RTOL))", "memory limit doubled"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    # the block-wise readers (iopddl_io.py; killed by tests/intra_op/test_fast_io.py): a matrix's
    # last row lost (every file falls back to json.loads: the "fast path ran" assertions), an
    # edge's two nodes swapped (a wrong instance the fallback cannot hide), a flat list's count
    M("iopddl-fast-row-bounds", "intra-op", "importer", PP + "intra_op/iopddl_io.py",
      "cuts.append(_Cut(int(pos[a]), int(pos[b]), pos[a + 1:b:2], pos[a + 2:b:2]))",
      "cuts.append(_Cut(int(pos[a]), int(pos[b]), pos[a + 1:b - 2:2], pos[a + 2:b - 2:2]))",
      "the block-wise IOPDDL reader drops a matrix's last row (off by one in the row bounds)"),
    M("iopddl-fast-edge-order", "intra-op", "importer", PP + "intra_op/iopddl_io.py",
      "eu, ev = pairs.ints[0::2].copy(), pairs.ints[1::2].copy()",
      "ev, eu = pairs.ints[0::2].copy(), pairs.ints[1::2].copy()",
      "the block-wise IOPDDL reader swaps each edge's two nodes"),
    M("stored-fast-mixed-types", "intra-op", "importer", PP + "intra_op/iopddl_io.py",
      "            if out.dtype == np.int64:\n                out = out.astype(np.float64)\n            arr = arr.astype(np.float64)",
      "            arr = arr.astype(out.dtype)",
      "the block-wise stored reader types a list mixing ints and floats by its first block"),
    M("iopddl-fast-unread-lists", "intra-op", "importer", PP + "intra_op/iopddl_io.py",
      "    if not all(c.used for c in cuts):", "    if False:",
      "a list the block-wise readers cut out but do not use (a repeated or unknown key) goes unchecked"),
    M("iopddl-compiled-int", "intra-op", "importer", PP + "intra_op/iopddl_io.py",
      "        if isf or ovf:\n            return i, -1, isf, 0.0, 0", "        if ovf:\n            return i, -1, isf, 0.0, 0",
      "the compiled scan reads a float where a JSON integer is required (a node index 1.0)"),
    M("iopddl-compiled-fast-case", "intra-op", "importer", PP + "intra_op/iopddl_io.py",
      "    if not ovf and sig <= 15 and -22 <= k <= 22:", "    if not ovf and -22 <= k <= 22:",
      "the compiled scan's exact case taken for up to 19 significant digits (not correctly rounded)"),
    M("imp-iopddl-inclusive-end", "intra-op", "importer", PP + "intra_op/generate.py",
      "end=iv[:, 1].astype(np.int64), edge_u=eu", "end=iv[:, 1].astype(np.int64) + 1, edge_u=eu",
      "IOPDDL interval ends read as inclusive"),
    # -- anytime's binding regions and the LNS's adaptive share -----------------------------------
    M("intra-priced-levels-dropped", "intra-op", "step", PP + "intra_op/state.py",
      "attempts += [(False, float(a)) for a in levels if a > 0]", "attempts += []",
      "binding regions never try the memory prices"),
    M("intra-binding-seed-slack", "intra-op", "step", PP + "intra_op/state.py",
      "points = np.flatnonzero(self.load >= (1 - within) * self.limit)",
      "points = np.flatnonzero(self.load < (1 - within) * self.limit)", "binding regions seeded where memory is slack"),
    M("intra-mix-flat", "intra-op", "step", PP + "intra_op/anytime.py",
      "w[n] = 1.0 if r is None or top <= 0 else max(self.floor, r / top)", "w[n] = 1.0",
      "the LNS's rounds shared equally whatever each family gains"),
    M("intra-bound-negative-edges", "intra-op", "bound", PP + "intra_op/kernels.py",
      "        val += m\n    return val", "        val += max(m, 0.0)\n    return val",
      "the reparametrized bound drops the edges' negative minima (a bound above the optimum)"),
    M("iopddl-bool-as-number", "intra-op", "importer", PP + "intra_op/generate.py",
      "        if type(x) is not float and type(x) is not int:\n            raise _bad(field, \"must hold numbers\", x)",
      "        if False:\n            raise _bad(field, \"must hold numbers\", x)",
      "true, a string or null read as a number (1.0, 7.0, nan)"),
    M("intra-mix-always-runs", "intra-op", "step", PP + "intra_op/anytime.py",
      "return unit_s is None or share >= unit_s or rng.random() < share / unit_s", "return True",
      "a unit longer than its family's slice runs every round"),
    # -- the compiled group moves and the core search's diffusion decodes --------------------------
    M("intra-group-inner-edges", "intra-op", "step", PP + "intra_op/kernels.py",
      "                    ie_base[ne] = base\n                    ie_t[ne] = i\n                    ie_h[ne] = pos\n"
      "                    ne += 1",
      "                    ie_base[ne] = base\n                    ie_t[ne] = i\n                    ie_h[ne] = pos",
      "the group move's table leaves out the edges between the group's members"),
    M("intra-group-fit-each", "intra-op", "step", PP + "intra_op/kernels.py",
      "                delta += usage[off[x] + choice[i]] - usage[off[x] + s[x]]\n"
      "        if delta > 0.0 and _segmax(load, lo, hi) + delta > cap:",
      "                du = usage[off[x] + choice[i]] - usage[off[x] + s[x]]\n"
      "                if du > 0.0 and _segmax(load, lo, hi) + du > cap:\n                    return False\n"
      "        if delta > 0.0 and _segmax(load, lo, hi) + delta > cap:",
      "the group move checks each member's usage rise alone (no trade between members)"),
    M("intra-core-no-diffusion", "intra-op", "step", PP + "intra_op/core_search.py",
      "        starts += [as_vec(reparam.sequential_decode()), as_vec(reparam.decode())]",
      "        starts += []", "the core search drops the diffusion decodes"),
    M("intra-core-no-start", "intra-op", "step", PP + "intra_op/core_search.py",
      "    if start is not None:\n        starts.append(as_vec(start))", "    if False:\n        starts.append(as_vec(start))",
      "the core search ignores the current plan as a start"),
    M("intra-stagnation-no-patience", "intra-op", "step", PP + "intra_op/anytime.py",
      "return patience > 0 and steps >= max(min_steps, (1.0 + patience) * best_step)",
      "return patience > 0 and steps >= min_steps",
      "the Lagrangian stage stops after its least number of steps whenever its best plan came"),
    # -- memory: the lean elimination's flat core and the structure cache -------------------------
    M("intra-lean-core-sentinels", "intra-op", "step", PP + "intra_op/elimination.py",
      "            if key in raw:\n                np.copyto(seg, penalty, where=seg >= FORBIDDEN)",
      "            if False:\n                np.copyto(seg, penalty, where=seg >= FORBIDDEN)",
      "the lean elimination leaves the sentinels in the core's untouched edges (no working penalty)"),
    # -- the clock while the MILP is built, the memory rule (tests/intra_op/test_milp_time_limit.py) ----
    M("io-milp-clock-one-hot", "intra-op", "status", PP + "intra_op/model.py",
      "    step()\n    # one-hot rows", "    # one-hot rows", "the MILP's building does not poll before the one-hot rows"),
    M("io-milp-clock-memory", "intra-op", "status", PP + "intra_op/model.py",
      "    step()\n    if memory and inst.usage_limit is not None:", "    if memory and inst.usage_limit is not None:",
      "the MILP's building does not poll before the memory rows"),
    M("io-milp-clock-build", "intra-op", "status", PP + "intra_op/model.py",
      "    step()\n    model = b.build()", "    model = b.build()", "the MILP's building does not poll before build"),
    M("io-milp-memory-rule", "intra-op", "error-path", PP + "intra_op/model.py",
      "    if have is None or need <= have:", "    if True:", "an intra-op MILP that cannot fit is built anyway"),
]
FAST = ["tests/intra_op/test_binding_regions.py", "tests/intra_op/test_kernels.py",
        "tests/intra_op/test_core_diffusion.py", "tests/intra_op/test_memory_equivalence.py",
        "tests/intra_op/test_milp_time_limit.py"]
