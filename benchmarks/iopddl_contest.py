"""Side-by-side run of ``intra-op``'s default on the shared IOPDDL contest instances (not CI).

Usage (from the repository root; one instance at a time, each in a fresh interpreter so that the
peak memory is its own)::

    OPTSCHED_DATA_DIR=/path/to/data python benchmarks/iopddl_contest.py [A B G M S] \
        [--method anytime] [--scale 1.0] [--peer 'CMD {file} {timeout}'] [--json out.json]

Each instance gets the contest's time-out (A-E 60 s, F-J 120 s, K-O 180 s, P-T 240 s, U-Y 300 s)
[code: google/iopddl README] times ``--scale``. Printed per instance: cost, certified bound,
gap, wall time of the solve and of the whole child (import included), peak RSS, the machine's
load average at the start, and the organisers' published final scores of the winner (team01)
and of XLA's auto-sharding where published [code: google/iopddl, final leaderboard as quoted in
docs/intra_op.md]. ``--peer`` runs another solver the user has built (for example the winner's
public solver) with the same time-out: ``{file}`` is replaced by the instance path and
``{timeout}`` by the seconds; its last output line must be the plan as a JSON list, which is
scored by optsched's checker.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

#: the contest's time-out by instance letter [code: google/iopddl README]
def timeout_s(letter: str) -> float:
    i = "ABCDEFGHIJKLMNOPQRSTUVWXY".index(letter.upper())
    return (60.0, 120.0, 180.0, 240.0, 300.0)[i // 5]


#: the organisers' published final costs: team01 (winner) and XLA auto-sharding (where listed)
WINNER = {"A": 6_569_457_676, "B": 532_843, "G": 217_039, "M": 49_928_460_991, "S": 1_534_613_444}
XLA = {"A": 13.2e9, "B": 990_205, "G": 1_264_777}

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import optsched
from optsched.problems.intra_op import load_iopddl
inst = load_iopddl(sys.argv[1])
load_s = time.perf_counter() - t0
r = optsched.solve(inst, sys.argv[2], time_limit=float(sys.argv[3]), seed=0)
print(json.dumps({"status": r.status, "cost": r.objective, "bound": r.bound, "gap": r.gap,
                  "solve_wall_s": r.wall_s, "load_s": load_s, "child_wall_s": time.perf_counter() - t0,
                  "bound_source": r.stats.get("bound_source"), "found_by": r.stats.get("found_by"),
                  "stages": r.stats.get("stages"),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _path(letter: str) -> str:
    base = os.environ.get("OPTSCHED_DATA_DIR", "")
    return os.path.join(base, "iopddl", f"asplos-2025-iopddl-{letter}.json.gz")


def run_optsched(letter: str, method: str, limit: float) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, _path(letter), method, str(limit)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_peer(template: str, letter: str, limit: float) -> dict:
    from optsched.problems.intra_op import check, load_iopddl

    cmd = template.format(file=_path(letter), timeout=int(limit))
    t = time.perf_counter()
    out = subprocess.run(cmd, shell=True, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    lines = [ln for ln in out.stdout.strip().splitlines() if ln.strip().startswith("[")]
    if not lines:
        return {"peer_error": f"no plan printed (exit {out.returncode})", "peer_wall_s": wall}
    rep = check(load_iopddl(_path(letter)), json.loads(lines[-1]))
    return {"peer_cost": rep.objective if rep.feasible else None, "peer_feasible": rep.feasible, "peer_wall_s": wall}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("instances", nargs="*", default=["A", "B", "G", "M", "S"])
    ap.add_argument("--method", default="anytime")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every time-out (e.g. 0.25 for a smoke run)")
    ap.add_argument("--peer", default=None, help="a command template running another solver: {file} {timeout}")
    ap.add_argument("--json", default=None, help="also write the rows to this file")
    args = ap.parse_args(argv)
    rows = []
    for letter in args.instances:
        limit = timeout_s(letter) * args.scale
        row = {"instance": letter, "time_limit_s": limit, "load_avg_1m": os.getloadavg()[0]}
        row.update(run_optsched(letter, args.method, limit))
        if args.peer:
            row.update(run_peer(args.peer, letter, limit))
        w = WINNER.get(letter)
        row["winner_published"] = w
        row["xla_published"] = XLA.get(letter)
        if w and row.get("cost"):
            row["cost_over_winner"] = row["cost"] / w
        if row.get("solve_wall_s") is not None:
            row["over_limit_pct"] = 100.0 * (row["solve_wall_s"] / limit - 1.0)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
