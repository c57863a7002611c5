"""Every method at every declared generator bound, through the CLI with ``--time-limit`` (``make bench-bounds``).

For each problem, each integer generator option with a declared interval is set to its largest
value, the others keep their defaults (one option at a time: the instance a user gets by asking
for that bound). The instance is generated first (``optsched generate``, its time printed, up to ``GENERATE_S``); then every method of the
problem runs as a user would run it, ``optsched solve PROBLEM FILE --method M --time-limit L -o
OUT`` in a fresh interpreter, and the whole command's wall time is measured (start-up, imports,
reading, hashing, the method, writing, exit).

The acceptance rule of the time limits [ours]: the command ends within ``1.5 * L + 5`` seconds
with an answer in the sense of ``docs/cli.md``'s exit statuses: a result (exit 0), a typed refusal
(exit 2: the instance is beyond what the method handles, said before any work), a proof of
infeasibility (exit 3), or a result record of status ``error`` (exit 1: a baseline's plan that its
checker rejects, written to ``-o``). Any other exit 1 (an internal error) is a miss, as is a
command still running at ``HARD_KILL_S`` (killed).

Wall times depend on the machine and its load; they are reported with the 1-minute load average
at each case, never asserted in ``make test``. Usage::

    python benchmarks/declared_bounds.py [--limit 5] [--problem NAME ...] [--out results.csv]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from optsched.core.registry import problems

HARD_KILL_S = 120.0
#: the generator gets this long (it has no time limit; a slower one is reported, not waited for)
GENERATE_S = 180.0


def allowed(limit: float) -> float:
    """The rule: at most 1.5 x the limit plus 5 s for start-up, reading and writing [ours]."""
    return 1.5 * limit + 5.0


def cases(names: list[str] | None):
    """``(problem, option, value)`` for every integer option with a declared upper end."""
    for name, problem in sorted(problems().items()):
        if names and name not in names:
            continue
        for option, decl in problem.generator_options.items():
            bounds = getattr(decl, "bounds", None)
            if decl.type is not int or bounds is None or bounds.high is None:
                continue
            yield name, option, int(bounds.high)


def run_case(problem: str, method: str, path: Path, limit: float, workdir: Path) -> dict:
    out = workdir / f"{method}.json"
    cmd = [sys.executable, "-m", "optsched.cli", "solve", problem, str(path), "--method", method,
           "--time-limit", str(limit), "--quiet", "-o", str(out)]
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=HARD_KILL_S)
        code, err = done.returncode, done.stderr.strip().splitlines()[-1:] if done.stderr else []
    except subprocess.TimeoutExpired:
        code, err = "killed", [f"still running after {HARD_KILL_S:.0f} s"]
    wall = time.perf_counter() - start
    row = {"problem": problem, "method": method, "exit": code, "wall_s": round(wall, 2),
           "wall_over_limit": round(wall / limit, 2), "load": round(os.getloadavg()[0], 2),
           "status": "", "message": err[0][:160] if err else ""}
    if code in (0, 1, 3) and out.exists():
        row["status"] = json.loads(out.read_text()).get("status", "")
    answered = code in (0, 2, 3) or (code == 1 and row["status"] == "error")
    row["ok"] = answered and wall <= allowed(limit)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=5.0)
    ap.add_argument("--problem", nargs="*")
    ap.add_argument("--method", nargs="*")
    ap.add_argument("--option", nargs="*", help="only these generator options (problem:option or option)")
    ap.add_argument("--out", default="declared_bounds.csv")
    args = ap.parse_args(argv)
    rows = []
    fields = ["problem", "option", "value", "method", "exit", "status", "wall_s", "wall_over_limit",
              "load", "ok", "message"]
    with open(args.out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for problem, option, value in cases(args.problem):
            if args.option and option not in args.option and f"{problem}:{option}" not in args.option:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                workdir = Path(tmp)
                path = workdir / "instance.json"
                flag = f"--{option.replace('_', '-')}"
                cmd = [sys.executable, "-m", "optsched.cli", "generate", problem, flag, str(value),
                       "--seed", "0", "-o", str(path)]
                start = time.perf_counter()
                try:
                    done = subprocess.run(cmd, capture_output=True, text=True, timeout=GENERATE_S)
                except subprocess.TimeoutExpired:
                    print(f"SLOW {problem} {option}={value}: the generator ran past {GENERATE_S:.0f} s", flush=True)
                    continue
                if done.returncode != 0:
                    why = done.stderr.strip().splitlines()[-1:] if done.stderr else [f"exit {done.returncode}"]
                    print(f"{problem} {option}={value}: not generated ({why[0]})"[:200], flush=True)
                    continue
                print(f"gen  {problem} {option}={value}: {time.perf_counter() - start:.1f} s", flush=True)
                for method in problems()[problem].methods:
                    if args.method and method not in args.method:
                        continue
                    row = run_case(problem, method, path, args.limit, workdir)
                    row.update(option=option, value=value)
                    rows.append(row)
                    writer.writerow(row)
                    fh.flush()
                    flag = "ok  " if row["ok"] else "MISS"
                    print(f"{flag} {problem} {option}={value} {method}: exit {row['exit']} "
                          f"{row['status']} {row['wall_s']} s (load {row['load']}) {row['message']}"[:220],
                          flush=True)
    misses = [r for r in rows if not r["ok"]]
    print(f"\n{len(rows)} cases, {len(misses)} over {allowed(args.limit):.1f} s or without a result")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
