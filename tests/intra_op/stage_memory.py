"""Where ``intra-op``'s default spends time and memory on one large instance (not CI).

Usage (from the repository root; one run at a time, it loads a core for the whole limit)::

    python tests/intra_op/stage_memory.py FILE [--limit 300] [--iopddl]

``FILE`` is a stored instance (``optsched import iopddl ... -o FILE``) or, with ``--iopddl``, an
IOPDDL file. The anytime method's building blocks are wrapped (without editing them) so that each
call prints one line on entry and on exit: seconds since the solve started, the resident memory
now and the process's peak so far (``ru_maxrss``), in MB. A call whose exit line shows a higher
peak than its entry line raised the peak itself (or a call inside it did: the lines nest).
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import sys
import time

T0 = [time.perf_counter()]


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _log(depth: list, name: str, what: str) -> None:
    print(f"{time.perf_counter() - T0[0]:8.2f}s {'  ' * depth[0]}{what} {name:28s} rss {_rss_mb():8.0f} MB"
          f"  peak {_peak_mb():8.0f} MB", flush=True)


def _wrap(owner, attr: str, label: str, depth: list) -> None:
    fn = getattr(owner, attr)

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        _log(depth, label, ">")
        depth[0] += 1
        try:
            return fn(*args, **kwargs)
        finally:
            depth[0] -= 1
            _log(depth, label, "<")

    setattr(owner, attr, wrapped)


def instrument() -> None:
    from optsched.problems.intra_op import anytime, dual, state, structure

    depth = [0]
    for name in ("structure", "least_memory_plan", "priced_instance", "eliminate", "lagrangian_value",
                 "loads_at_points", "path_chains", "_core_plan", "_make_feasible", "_polish", "_lns_round",
                 "_lean_plan", "_lagrange", "core_instance", "sequential_greedy", "build_model"):
        if hasattr(anytime, name):
            _wrap(anytime, name, name, depth)
    for name in ("__init__", "diffuse", "set_costs", "sequential_decode", "decode", "release"):
        _wrap(dual.Core, name, f"Core.{name}", depth)
    # where the Lagrangian stage drops the moves' working edge costs (rebuilt by the next repair)
    _wrap(structure.Structure, "release_edge_costs", "Structure.release_edge_costs", depth)
    _wrap(state.PlanState, "__init__", "PlanState.__init__", depth)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--limit", type=float, default=300.0)
    ap.add_argument("--iopddl", action="store_true", help="FILE is an IOPDDL file (else a stored instance)")
    args = ap.parse_args(argv)
    import optsched
    from optsched.problems.intra_op import IntraOpInstance, load_iopddl

    t = time.perf_counter()
    inst = load_iopddl(args.file) if args.iopddl else IntraOpInstance.load(args.file)
    print(f"read {time.perf_counter() - t:.2f} s, rss {_rss_mb():.0f} MB, peak {_peak_mb():.0f} MB", flush=True)
    t = time.perf_counter()
    inst.sha256()
    print(f"hash {time.perf_counter() - t:.2f} s, peak {_peak_mb():.0f} MB", flush=True)
    instrument()
    T0[0] = time.perf_counter()
    r = optsched.solve(inst, "anytime", time_limit=args.limit, seed=0)
    print(f"status {r.status} cost {r.objective} bound {r.bound} gap {r.gap} wall {r.wall_s:.1f} s "
          f"peak {_peak_mb():.0f} MB load {os.getloadavg()[0]:.2f}")
    print({k: v for k, v in r.stats.items() if k != "trace"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
