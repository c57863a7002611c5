"""Side-by-side run of ``intra-op``'s default on the shared IOPDDL contest instances (not CI).

Usage (from the repository root; one instance at a time, each in a fresh interpreter so that the
peak memory is its own)::

    OPTSCHED_DATA_DIR=/path/to/data python tests/intra_op/contest_benchmark.py [A B G M S] \
        [--method anytime] [--scale 1.0] [--peer 'CMD {file} {timeout}'] [--json out.json]

Each instance gets the contest's time-out (A-E 60 s, F-J 120 s, K-O 180 s, P-T 240 s, U-Y 300 s)
[code: google/iopddl README] times ``--scale``. Printed per instance: cost, certified bound,
gap, wall time of the solve and of the whole child (import included), peak RSS, the machine's
load average at the start, and the organisers' published final scores of the winner (team01)
and of XLA's auto-sharding where published [code: google/iopddl, final leaderboard as quoted in
optsched/problems/intra_op/README.md]. ``--peer`` runs another solver the user has built (for example the winner's
public solver, MIT, built outside this repository) with the same time-out, after optsched's run
(never at the same time): ``{file}`` is replaced by the instance path (gzip), ``{json}`` by a
decompressed copy in a temporary folder, ``{timeout}`` by the seconds; its last output line that
starts with ``[`` must be the plan as a JSON list, which is scored by optsched's checker. The
environment variable ``OPTSCHED_PEER`` is the default template. For example, with the
winner's solver built at ``$PEER``::

    python tests/intra_op/contest_benchmark.py A M S --peer "$PEER/iopddl {json} {timeout} -j 2 -q"

``--cli`` times optsched through its command line instead (``optsched import iopddl`` once, its
wall time and peak memory reported, then ``optsched solve intra-op FILE --time-limit T`` as a
fresh process: the whole command's wall time, interpreter start and reading included, which is
what ``--time-limit`` bounds). ``--file PATH`` runs any IOPDDL file the same way with the time-out
``--limit`` (default 300 s), e.g. the synthetic 3-D-mesh-sized file of
``tests/intra_op/big_instance.py``::

    python tests/intra_op/big_instance.py /tmp/big.json
    python tests/intra_op/contest_benchmark.py --cli --file /tmp/big.json --limit 300
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
    """A contest instance's letter, or any IOPDDL file's path (``--file``)."""
    if os.path.isfile(letter):
        return letter
    base = os.environ.get("OPTSCHED_DATA_DIR", "")
    return os.path.join(base, "iopddl", f"asplos-2025-iopddl-{letter}.json.gz")


def _timed(cmd: list[str], env: dict) -> tuple[int, float, float, str]:
    """Run ``cmd``: (exit status, wall seconds, the child's own peak RSS in MB, its stderr)."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak memory
    return os.waitstatus_to_exitcode(status), time.perf_counter() - t, usage.ru_maxrss / 1024, err


def run_optsched(letter: str, method: str, limit: float) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, _path(letter), method, str(limit)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_cli(letter: str, limit: float, workdir: str) -> dict:
    """``optsched import iopddl FILE -o inst.json`` (once; its wall time and peak memory are
    reported when this run made it), then ``optsched solve intra-op inst.json --time-limit T`` as
    its own process; the wall time is the whole command's."""
    stem = os.path.basename(letter).removesuffix(".gz").removesuffix(".json")
    inst_path = os.path.join(workdir, f"{stem}.json")
    out_path = os.path.join(workdir, f"{stem}.result.json")
    env = dict(os.environ)
    row = {}
    if not os.path.exists(inst_path):
        code, wall, rss, err = _timed([sys.executable, "-m", "optsched.cli", "import", "iopddl", _path(letter),
                                       "-o", inst_path], env)
        if code != 0:
            return {"error": (err.strip().splitlines() or [f"import: exit {code}"])[-1]}
        row.update(import_wall_s=wall, import_peak_rss_mb=rss)
    code, wall, rss, err = _timed([sys.executable, "-m", "optsched.cli", "solve", "intra-op", inst_path,
                                   "--time-limit", str(limit), "-o", out_path, "--quiet"], env)
    if code != 0:
        return {**row, "error": (err.strip().splitlines() or [f"exit {code}"])[-1], "cli_wall_s": wall}
    with open(out_path) as fh:
        r = json.load(fh)
    return {**row, "status": r["status"], "cost": r["objective"], "bound": r.get("bound"), "gap": r.get("gap"),
            "solve_wall_s": r.get("wall_s"), "cli_wall_s": wall, "cli_wall_over_limit": wall / limit,
            "peak_rss_mb": rss,
            "bound_source": r["stats"].get("bound_source"), "found_by": r["stats"].get("found_by"),
            "stages": r["stats"].get("stages")}


def run_peer(template: str, letter: str, limit: float) -> dict:
    import gzip
    import shutil
    import tempfile

    from optsched.problems.intra_op import check, load_iopddl

    with tempfile.TemporaryDirectory() as tmp:
        plain = os.path.join(tmp, f"asplos-2025-iopddl-{letter}.json")
        if "{json}" in template:
            with gzip.open(_path(letter), "rb") as src, open(plain, "wb") as dst:
                shutil.copyfileobj(src, dst)
        cmd = template.format(file=_path(letter), json=plain, timeout=int(limit))
        t = time.perf_counter()
        # in the temporary folder: the winner's solver writes a weights file into its working folder
        out = subprocess.run(cmd, shell=True, capture_output=True, text=True, check=False, cwd=tmp)
        wall = time.perf_counter() - t
    lines = [ln for ln in out.stdout.strip().splitlines() if ln.strip().startswith("[")]
    if not lines:
        return {"peer_error": f"no plan printed (exit {out.returncode})", "peer_wall_s": wall}
    rep = check(load_iopddl(_path(letter)), json.loads(lines[-1]))
    return {"peer_cost": rep.objective if rep.feasible else None, "peer_feasible": rep.feasible, "peer_wall_s": wall}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("instances", nargs="*", default=None)
    ap.add_argument("--file", action="append", default=[],
                    help="any IOPDDL file (.json or .json.gz; e.g. from tests/intra_op/big_instance.py), "
                         "solved with the time-out --limit")
    ap.add_argument("--limit", type=float, default=300.0, help="--file's time-out in seconds (default: U-Y's 300)")
    ap.add_argument("--method", default="anytime")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every time-out (e.g. 0.25 for a smoke run)")
    ap.add_argument("--peer", default=os.environ.get("OPTSCHED_PEER"),
                    help="a command template running another solver: {file} {json} {timeout} (default: $OPTSCHED_PEER)")
    ap.add_argument("--cli", action="store_true", help="time the whole `optsched solve` command (fresh process)")
    ap.add_argument("--workdir", default=None, help="--cli: where imported instances and results go (default: a temp dir)")
    ap.add_argument("--json", default=None, help="also write the rows to this file")
    args = ap.parse_args(argv)
    rows = []
    import tempfile

    workdir = args.workdir or tempfile.mkdtemp(prefix="iopddl-bench-")
    os.makedirs(workdir, exist_ok=True)
    if args.instances is None:
        args.instances = [] if args.file else ["A", "B", "G", "M", "S"]
    for letter in [*args.instances, *args.file]:
        limit = (args.limit if os.path.isfile(letter) else timeout_s(letter)) * args.scale
        row = {"instance": letter, "time_limit_s": limit, "load_avg_1m": os.getloadavg()[0]}
        row.update(run_cli(letter, limit, workdir) if args.cli else run_optsched(letter, args.method, limit))
        row["load_avg_1m_after"] = os.getloadavg()[0]
        if args.peer:
            row["peer_load_avg_1m"] = os.getloadavg()[0]
            row.update(run_peer(args.peer, letter, limit))
            if row.get("peer_cost") and row.get("cost"):
                row["cost_over_peer"] = row["cost"] / row["peer_cost"]
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
