"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
#: its importers' validation, in the cross-format importer test
FAST = ["tests/test_importer_validation.py", "tests/graph_partition/test_time_limit.py"]
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
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
    M("gp-node-balance", "graph-partition", "checker", PP + "graph_partition/instance.py",
      "if loads[0, i] > instance.capacity_nodes * (1 + LOAD_TOL):",
      "if loads[0, i] > 2 * instance.capacity_nodes * (1 + LOAD_TOL):", "node balance doubled"),
    M("gp-train-balance", "graph-partition", "checker", PP + "graph_partition/instance.py",
      "if loads[1, i] > instance.capacity_train * (1 + LOAD_TOL):",
      "if loads[1, i] > 2 * instance.capacity_train * (1 + LOAD_TOL):", "training-node balance doubled"),
    M("gp-degree-unbounded", "graph-partition", "error-path", PP + "graph_partition/problem.py",
      '"Chung-Lu mean degree", bounds=Interval(0, 100, closed="right")', '"Chung-Lu mean degree"',
      "the mean degree declares no interval"),
    # -- importers and learned policies ------------------------------------------------------------
    # importers: a unit, a direction, an id order, an interval end, a column, a row order read wrong
    # (killed by tests/<problem>/test_import_handcomputed*.py); learned policies: the training signal,
    # a feature or the information a past-only policy may see broken
    M("imp-edge-list-string-ids", "graph-partition", "importer", "optsched/graphs/io.py",
      "ids = sorted({int(s) for s in names})", "ids = sorted({int(s) for s in names}, key=str)",
      "edge-list ids ranked as strings"),
    M("imp-planetoid-test-index-one-based", "graph-partition", "importer", PP + "graph_partition/generate.py",
      "        is_test[test] = True\n    train = np.flatnonzero(~is_test)\n    if len(train) == 0:\n"
      '        raise InvalidInstanceError("graph-partition"',
      "        is_test[test - 1] = True\n    train = np.flatnonzero(~is_test)\n    if len(train) == 0:\n"
      '        raise InvalidInstanceError("graph-partition"',
      "planetoid test-node ids read as 1-based"),
    # -- metis-fm's trials and bgl's initial assignments ---------------------------------------------
    M("gp-metis-fm-seed-ignored", "graph-partition", "step", PP + "graph_partition/methods.py",
      "parts, stats = baselines.metis(instance, ctx.seed + t)", "parts, stats = baselines.metis(instance, t)",
      "metis-fm's trials ignore the run's seed (its first trial is not METIS with that seed)"),
    # -- the clock inside the loops (tests/graph_partition/test_time_limit.py) -------------------------
    M("gp-clock-coarsening", "graph-partition", "status", PP + "graph_partition/algorithms.py",
      "    while len(cur[0]) - 1 > target:\n        if poll is not None:\n            poll()\n",
      "    while len(cur[0]) - 1 > target:\n", "bgl's coarsening levels ignore the clock"),
    M("gp-clock-uncoarsening", "graph-partition", "status", PP + "graph_partition/algorithms.py",
      "    for (fine, blocks) in reversed(levels):\n        if poll is not None:\n            poll()\n",
      "    for (fine, blocks) in reversed(levels):\n", "bgl's refinement levels ignore the clock"),
    M("gp-clock-initial-trials", "graph-partition", "status", PP + "graph_partition/algorithms.py",
      "    for _ in range(trials - 1):\n        if poll is not None:\n            poll()\n",
      "    for _ in range(trials - 1):\n", "bgl's further initial assignments ignore the clock"),
    M("gp-clock-assignment", "graph-partition", "status", PP + "graph_partition/algorithms.py",
      "    if poll is not None:  # before the assignment of the coarsest graph\n        poll()\n", "",
      "bgl's V-cycles (and assignments) ignore the clock"),
    M("gp-clock-bgl1-trials", "graph-partition", "status", PP + "graph_partition/methods.py",
      '        _best_so_far(ctx, instance, best, lambda b: {**b[2], "trial_cuts": list(cuts)})\n', "",
      "bgl-1level's trials ignore the clock"),
    M("gp-fm-stop", "graph-partition", "status", "optsched/graphs/refine.py",
      "    for _ in range(max_passes):\n        if stop is not None and stop():\n            break\n",
      "    for _ in range(max_passes):\n", "FM's passes never ask the clock"),
    M("gp-kl-unbounded", "graph-partition", "error-path", PP + "graph_partition/methods.py",
      ",\n                applicable=_nodes_and_edges(KL_MAX_NODES, KL_MAX_EDGES, \"kl\"))", ")",
      "kl takes any graph (networkx's swaps ran past 100 s at 200,000 nodes)"),
    M("gp-vcycles-unbounded", "graph-partition", "error-path", PP + "graph_partition/methods.py",
      "bounds=Interval(0, BGL_MAX_VCYCLES)", "bounds=None", "bgl's vcycles declares no range (10^400 runs)"),
]
# -- method bgl's compiled engine (lean.py, algorithms.bgl_lean; tests/graph_partition/test_lean.py) ---
L = PP + "graph_partition/lean.py"
A = PP + "graph_partition/algorithms.py"
MUTATIONS += [
    M("gp-lean-bfs-order", "graph-partition", "step", L,
      "return _bfs_order(indptr, indices, rng.permutation(len(indptr) - 1))",
      "return rng.permutation(len(indptr) - 1)", "bgl visits nodes in random order instead of BFS order"),
    M("gp-lean-cluster-bound", "graph-partition", "step", L,
      "if c != own and rating[c] > best_r and _fits_cluster(cw, w, c, v, bound):",
      "if c != own and rating[c] > best_r:", "clusters grow past their weight bound"),
    M("gp-lean-held-ignored", "graph-partition", "step", L,
      "                if use_held and held[u] != held[v]:\n                    continue\n                c = cl[u]",
      "                c = cl[u]", "V-cycle clusters straddle two parts"),
    M("gp-lean-two-hop-off", "graph-partition", "step", L,
      "if c >= 0 and (not use_held or held[c] == held[v]) and _fits_cluster(cw, w, c, v, bound):",
      "if False:", "leftover singletons (star leaves, isolated nodes) are never grouped"),
    M("gp-lean-contract-overwrite", "graph-partition", "step", L,
      "cdat[pos[d]] += data[e]", "cdat[pos[d]] = data[e]", "parallel coarse edges keep one weight, not the sum"),
    M("gp-lean-lp-capacity", "graph-partition", "step", L,
      "if loads[r, p] + w[r, v] > caps[r, p] * (1.0 + 1e-9) + 1e-9:", "if False:",
      "label-propagation refinement ignores the capacities"),
    M("gp-lean-lp-off", "graph-partition", "step", A,
      "        if refine and lp:", "        if False:", "no label-propagation refinement per level"),
    M("gp-lean-fm-off", "graph-partition", "step", A,
      "        if refine and fm and (fm_max_edges", "        if False and (fm_max_edges", "no FM per level"),
    M("gp-kl-no-edge-limit", "graph-partition", "error-path", PP + "graph_partition/methods.py",
      "KL_MAX_NODES, KL_MAX_EDGES = 20_000, 40_000", "KL_MAX_NODES, KL_MAX_EDGES = 20_000, 10 ** 12",
      "kl takes a graph denser than any measured (networkx's swaps cannot be stopped)"),
    M("gp-generator-no-edge-cap", "graph-partition", "error-path", PP + "graph_partition/generate.py",
      "    if nodes * mean_degree / 2 > MAX_EXPECTED_EDGES:", "    if False:",
      "the generator makes graphs denser than any measured at the declared node bound"),
    M("gp-keeps-last-initial", "graph-partition", "step", PP + "graph_partition/algorithms.py",
      '        stats["initial_traffic"].append(c)\n        if c < best_cut:',
      '        stats["initial_traffic"].append(c)\n        if True:',
      "bgl (both engines) keeps its last initial assignment, even a worse one"),
    M("gp-lean-fast-profile-never", "graph-partition", "step", A,
      "kw = dict(LEAN_FAST) if num_edges > LEAN_FAST_EDGES else", "kw = dict(LEAN_FAST) if False else",
      "bgl never switches to its fast profile on large graphs"),
    M("gp-lean-one-run", "graph-partition", "step", A,
      "LEAN_SMALL_TRIALS = 4", "LEAN_SMALL_TRIALS = 1", "bgl runs once on small graphs"),
    M("gp-lean-clock-levels", "graph-partition", "status", A,
      "    while len(cur[0]) - 1 > target:  # coarsening levels\n        if poll is not None:\n            poll()\n",
      "    while len(cur[0]) - 1 > target:  # coarsening levels\n", "bgl's coarsening levels ignore the clock"),
    M("gp-lean-clock-before-fm", "graph-partition", "status", A,
      "            if poll is not None and fm:\n                poll()\n", "",
      "bgl starts FM after label propagation although the clock ran out"),
]
FAST += ["tests/graph_partition/test_lean.py"]
FAST += ["tests/graph_partition/test_multilevel.py::test_the_initial_assignment_kept_is_the_lowest_traffic_one",
         "tests/graph_partition/test_multilevel.py::test_metis_fm_first_trial_is_metis_with_the_runs_seed"]

