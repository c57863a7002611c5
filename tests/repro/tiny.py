"""A tiny experiment script for the runner tests, written into a test's folder.

Cells: ``{"instance": i}``; ``run_cell`` generates a ``tiny`` instance of :func:`tiny_problem`
from the cell's seed and solves it with ``greedy`` and ``milp`` (HiGHS). Test hooks come from the environment (the
worker processes inherit it): ``TINY_CELLS`` (QUICK cell count), ``TINY_DELAY`` (seconds each
cell sleeps), ``TINY_SIDE_FILE`` and ``TINY_PHASE`` (each call appends "<phase> <instance>" to the
side file, so a test can see which cells were computed by which run), ``TINY_DONE_FILE`` (each
call appends "<instance>" after its delay), ``TINY_FAIL``
(``"<id>:<instance>"``: that cell raises), ``TINY_CRASH`` (the same: that cell's worker process
kills itself) and ``TINY_REPORT_FAIL`` (``"<id>"``: that report raises).
"""

from __future__ import annotations

import functools
from pathlib import Path


@functools.lru_cache(maxsize=None)
def tiny_problem() -> str:
    """The problem the runner tests sweep, picked by what it declares, not by name: the first
    registered problem (name order) with a ``tiny`` preset drawn from the seed (seeds 0-3 give four
    different instances), an exact ``milp`` and ``brute`` and a baseline ``greedy`` whose answer on
    them is feasible with a positive value (so ``greedy / milp`` is a ratio)."""
    import optsched

    for name, problem in sorted(optsched.core.registry.problems().items()):
        methods = problem.methods
        if "tiny" not in problem.presets or not {"greedy", "milp", "brute"} <= set(methods):
            continue
        if methods["milp"].kind != "exact" or methods["brute"].kind != "exact" or methods["greedy"].kind != "baseline":
            continue
        instances = [optsched.generate(name, seed=s, preset="tiny") for s in range(4)]
        if len({repr(i) for i in instances}) < 4:
            continue   # a fixed example, not a seeded draw: every cell would sweep the same instance
        results = [optsched.solve(i, "greedy") for i in instances]
        if all(r.status in ("feasible", "optimal") and (r.objective or 0) > 0 for r in results):
            return name
    raise LookupError("no registered problem has a tiny preset, exact milp and brute, and a feasible greedy")

SCRIPT = '''
import os
import time

import optsched
from optsched.repro import Experiment
from optsched.repro.stats import mean_ci95


def cells(quick):
    count = int(os.environ.get("TINY_CELLS", "4"))
    return [{"instance": i} for i in range(count if quick else 2 * count)]


def run_cell(params, seed):
    side = os.environ.get("TINY_SIDE_FILE")
    if side:
        with open(side, "a") as fh:
            fh.write(f"{os.environ.get('TINY_PHASE', '')} {params['instance']}\\n")
    if os.environ.get("TINY_CRASH") == f"{EXPERIMENT.id}:{params['instance']}":
        os.kill(os.getpid(), 9)
    if os.environ.get("TINY_FAIL") == f"{EXPERIMENT.id}:{params['instance']}":
        raise RuntimeError("cell failure requested by TINY_FAIL")
    time.sleep(float(os.environ.get("TINY_DELAY", "0")))
    done = os.environ.get("TINY_DONE_FILE")
    if done:
        with open(done, "a") as fh:
            fh.write(f"{params['instance']}\\n")
    instance = optsched.generate("@PROBLEM@", seed=seed, preset="tiny")
    greedy = optsched.solve(instance, "greedy")
    milp = optsched.solve(instance, "milp")
    return {"instance": params["instance"], "seed": seed, "greedy": greedy.objective, "milp": milp.objective,
            "milp_status": milp.status, "ratio": greedy.objective / milp.objective, "milp_s": milp.wall_s}


def report(rows, out):
    if os.environ.get("TINY_REPORT_FAIL") == EXPERIMENT.id:
        raise ValueError("report failure requested by TINY_REPORT_FAIL")
    out.table("rows", rows, caption="tiny rows")
    ci = mean_ci95([r["ratio"] for r in rows])
    out.table("summary", [{"n": ci.n, "mean": ci.mean, "ci95_half_width": ci.half_width}])


EXPERIMENT = Experiment(id="@ID@", title="tiny @PROBLEM@ sweep", paper="(test)", formulation="[ours]",
                        cells=cells, run_cell=run_cell, report=report, quick_budget_s=60.0,
                        methods=("@PROBLEM@/greedy", "@PROBLEM@/milp"), instance_family="@PROBLEM@ preset tiny")
'''


def write_tiny(folder: Path, name: str = "k1_tiny.py", experiment_id: str = "K1") -> Path:
    """Write the tiny experiment script into ``folder`` (created) and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(SCRIPT.replace("@ID@", experiment_id).replace("@PROBLEM@", tiny_problem()))
    return path


def read_csv_without_timings(path: Path) -> list[list[str]]:
    """The CSV's cells with every timing column (name ending ``_s``) removed."""
    import csv

    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    keep = [i for i, name in enumerate(rows[0]) if not name.endswith("_s")]
    return [[row[i] for i in keep] for row in rows]
