"""T16: solvers beyond HiGHS: agreement of every exact model across six back-ends, and time to a
proven optimum per back-end (HiGHS, SCIP, CP-SAT and the HiGHS+SCIP portfolio).

Two kinds of cells:

* ``agree`` (one per problem): every exact or bound method that solves a model, on the problem's
  reference instances (the tiny instances of seeds 0-3, QUICK 0-1, and in the full run the stored
  files of ``instances/<problem>/``), through highs, scipy, pyomo, cvxpy, scip and cpsat (and, in
  the full run, the portfolio). A back-end agrees when its status equals HiGHS' and its value is
  within 1e-6 relative (:func:`optsched.core.solving.objective_tolerance`: solver feasibility
  tolerances are 1e-7 relative); a back-end that refuses the model says why (CP-SAT: a continuous
  column, or data without an exact integer scaling within its limits).
* ``time`` (one per instance): the exact method each problem declares for this table (the
  ``SOLVER_TIMING`` of its folder's ``repro.py``) on one larger instance per problem (generated,
  seed 0, the preset named in the row) and, in the full run only, on the published instances a
  problem declares (e.g. OR-Library ``mknapcb1`` instances 0-4; QUICK times only the small generated
  instances, so that it stays
  within its budget on a loaded 2-core machine), once per back-end with the same wall-clock limit, one thread each; the portfolio
  races HiGHS (CP-SAT on the models it accepts) in the calling process and SCIP in a child process
  at idle CPU priority (it gets the cycles nobody else wants; see ``docs/solvers.md``). The
  fastest back-end to a proven optimum is named per row; ``portfolio_excess_s`` is the portfolio's time minus the fastest single back-end's, and
  ``startup_s`` the portfolio's start-up cost measured in the same cell: the wall time for its
  child member (SCIP; HiGHS races in the calling process) to start a fresh interpreter, read a
  one-column model and answer (:func:`optsched.core.backends.portfolio.child_startup_s`).

Timings depend on the machine's load: every back-end runs ``TIME_REPEATS`` times (QUICK:
``QUICK_TIME_REPEATS``) in round robin (highs, scip, cpsat, portfolio, highs, ...), and the table
gives each back-end's fastest run that proved optimality (else its last run), so that a change of
load during the cell does not fall on one back-end only. Each time cell records the 1-minute load average before it
ran (``load_before_s``; named with the timing suffix only so that run-to-run comparisons drop it);
run ``optsched repro --only T16 --jobs 1`` for timings that are not disturbed by a second cell.

What is whose: the mknapcb1 instances are Chu & Beasley's (1998, OR-Library); every model, the
back-ends and every number here are optsched's [ours].
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import optsched
from optsched.core.data import DataUnavailable, data_file
from optsched.core.errors import BackendRefused, OptschedError
from optsched.core.references import read_reference
from optsched.core.solving import objective_tolerance
from optsched.repro import Experiment

AGREE_BACKENDS = ("highs", "scipy", "pyomo", "cvxpy", "scip", "cpsat")
TIME_BACKENDS = ("highs", "scip", "cpsat", "portfolio")
#: the same wall-clock limit for every back-end in a time cell (s)
TIME_LIMIT_S = 60.0
QUICK_TIME_LIMIT_S = 10.0
#: each back-end runs this many times per time cell, in round robin; the fastest proving run counts
TIME_REPEATS = 3
QUICK_TIME_REPEATS = 3


def timing_declarations() -> list[tuple[str, dict]]:
    """``(problem, SOLVER_TIMING)`` of every problem folder that declares its time rows, problems in
    name order: ``preset`` and ``method`` (one generated instance, seed 0) and optionally
    ``published`` (``name``, ``count``, ``method``, ``requires_data``, ``load(index)``: the full
    run's rows on published instances)."""
    from optsched.repro.discovery import load_script, problem_scripts

    registered = optsched.core.registry.problems()
    out = []
    for path, _ in problem_scripts():
        declared = getattr(load_script(path), "SOLVER_TIMING", None)
        if declared is None:
            continue
        name = next(n for n, p in registered.items() if p.package and path.parent.name == p.package.rsplit(".", 1)[-1])
        out.append((name, declared))
    return out


ROOT = Path(__file__).resolve().parents[1]


def cells(quick: bool) -> list[dict]:
    out = []
    for p in sorted(optsched.core.registry.problems().values(), key=lambda p: p.name):
        if p.tiny_instances is not None and any(m.uses_backend and m.kind in ("exact", "bound")
                                                for m in p.methods.values()):
            out.append({"kind": "agree", "problem": p.name, "quick": quick})
    declared = timing_declarations()
    for problem, timing in declared:
        out.append({"kind": "time", "problem": problem, "preset": timing["preset"], "method": timing["method"],
                    "quick": quick})
    if quick:  # QUICK times the small generated instances only (each solves in well under 1 s)
        return out
    for problem, timing in declared:
        published = timing.get("published")
        if published is None:
            continue
        try:
            data_file(published["requires_data"])
        except DataUnavailable:  # these rows need the data directory; the rest runs without it
            continue
        for index in range(published["count"]):
            out.append({"kind": "time", "problem": problem, "published": index, "method": published["method"],
                        "quick": quick})
    return out


def _reference_instances(problem, quick: bool) -> list[tuple[str, object]]:
    out = [(f"tiny-s{s}", problem.tiny_instances(s)) for s in ((0, 1) if quick else (0, 1, 2, 3))]
    if not quick:
        folder = ROOT / "instances" / problem.name.replace("-", "_")
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
            try:
                data = json.loads(path.read_text())
                if data.get("problem") == problem.name and "reference" in data:
                    out.append((path.stem, read_reference(path)[0]))
            except (OptschedError, ValueError):
                continue
    return out


def _agree_cell(params: dict, quick: bool) -> dict:
    problem = optsched.get_problem(params["problem"])
    backends = AGREE_BACKENDS + (() if quick else ("portfolio",))
    instances = _reference_instances(problem, quick)
    rows = []
    for meth in problem.methods.values():
        if not (meth.uses_backend and meth.kind in ("exact", "bound")):
            continue
        verdicts = {b: {"agree": 0, "refused": None, "differs": [], "errors": []} for b in backends}
        used = 0
        for label, inst in instances:
            if not meth.applicable(inst)[0]:
                continue
            used += 1
            ref = optsched.solve(inst, meth.name, seed=0)
            for b in backends:
                v = verdicts[b]
                try:
                    res = ref if b == "highs" else optsched.solve(inst, meth.name, seed=0, backend=b)
                except BackendRefused as exc:
                    v["refused"] = v["refused"] or exc.reason
                    continue
                except Exception as exc:  # a crash is reported in the table, not hidden
                    v["errors"].append(f"{label}: {type(exc).__name__}: {str(exc)[:80]}")
                    continue
                same_status = res.status == ref.status
                same_value = (res.objective is None and ref.objective is None) or (
                    res.objective is not None and ref.objective is not None
                    and abs(res.objective - ref.objective) <= objective_tolerance(ref.objective))
                if res.status == "error":
                    v["errors"].append(f"{label}: {res.reason}"[:120])
                elif same_status and same_value:
                    v["agree"] += 1
                else:
                    v["differs"].append(f"{label}: {res.status} {res.objective} vs highs {ref.status} {ref.objective}")
        row = {"problem": problem.name, "method": meth.name, "kind": meth.kind, "instances": used}
        for b in backends:
            v = verdicts[b]
            if used == 0:
                text = "-"
            elif v["differs"] or v["errors"]:
                text = "; ".join((["DIFFERS " + d for d in v["differs"]] + ["ERROR " + e for e in v["errors"]])[:2])
            elif v["refused"] is not None and v["agree"] == 0:
                text = f"refused: {v['refused']}"
            elif v["refused"] is not None:
                text = f"agrees {v['agree']}/{used}, refused the rest: {v['refused']}"
            else:
                text = f"agrees {v['agree']}/{used}"
            row[b] = text
        rows.append(row)
    return {"kind": "agree", "problem": problem.name, "rows": rows}


def _startup_cost() -> float:
    from optsched.core.backends.portfolio import child_startup_s

    return child_startup_s("scip")


def _portfolio_summary(stats: dict) -> tuple[str | None, str | None]:
    """The members that raced and the one that answered; for a method that solves several models
    (one per stage count, per round), the winners with how many models each answered."""
    sub = stats.get("subsolves") or {}
    winners = sub.get("portfolio_winners")
    if winners and sum(winners.values()) > 1:
        total = sum(winners.values())
        raced = sub.get("portfolio_members") or []
        return "+".join(raced) or None, ", ".join(f"{m} ({n} of {total})" for m, n in winners.items())
    raced = stats.get("portfolio_members")
    return ("+".join(raced) if raced else None), stats.get("portfolio_winner")


def _time_cell(params: dict, seed: int, quick: bool) -> dict:
    problem = optsched.get_problem(params["problem"])
    if "published" in params:
        published = dict(timing_declarations())[problem.name]["published"]
        inst = published["load"](params["published"])
        label = f"{published['name']} #{params['published']}"
    else:
        inst = optsched.generate(problem.name, seed=0, preset=params["preset"])
        label = f"{params['preset']} s0"
    limit = QUICK_TIME_LIMIT_S if quick else TIME_LIMIT_S
    row = {"kind": "time", "problem": problem.name, "instance": label, "method": params["method"],
           "time_limit": limit, "load_before_s": os.getloadavg()[0]}
    proven = {}
    runs: dict[str, list] = {b: [] for b in TIME_BACKENDS}
    refused: dict[str, str] = {}
    repeats = QUICK_TIME_REPEATS if quick else TIME_REPEATS
    for _ in range(repeats):  # round robin: a change of the machine's load hits every back-end
        for b in TIME_BACKENDS:
            if b in refused:
                continue
            try:
                runs[b].append(optsched.solve(inst, params["method"], backend=b, time_limit=limit, seed=0))
            except BackendRefused as exc:
                refused[b] = exc.reason
    row["repeats"] = repeats
    for b in TIME_BACKENDS:
        if b in refused:
            row[f"{b}_status"] = "refused"
            row[f"{b}_note"] = refused[b]
            continue
        # the fastest run that proved optimality (the least disturbed by the load), else the last
        optimal = [r for r in runs[b] if r.status == "optimal"]
        r = min(optimal, key=lambda r: r.wall_s) if optimal else runs[b][-1]
        row[f"{b}_status"] = r.status
        row[f"{b}_objective"] = r.objective
        row[f"{b}_bound"] = r.bound
        row[f"{b}_gap"] = r.gap
        row[f"{b}_wall_s"] = r.wall_s
        row[f"{b}_runs"] = " ".join(f"{x.wall_s:.2f}{'' if x.status == 'optimal' else '(' + x.status + ')'}"
                                    for x in runs[b])  # every run, in order: the spread the load caused
        if b == "portfolio":
            row["portfolio_raced"], row["portfolio_winner"] = _portfolio_summary(r.stats)
        if r.status == "optimal":
            proven[b] = r.wall_s
    singles = {b: t for b, t in proven.items() if b != "portfolio"}
    row["fastest"] = min(singles, key=singles.get) if singles else "none proved"
    if singles:  # how far apart the fastest back-end's own runs were (the measurement's noise)
        walls = [x.wall_s for x in runs[row["fastest"]] if x.status == "optimal"]
        row["fastest_spread_s"] = max(walls) - min(walls)
    row["startup_s"] = _startup_cost()
    if singles and "portfolio" in proven:
        row["portfolio_excess_s"] = proven["portfolio"] - min(singles.values())
        raced = (row.get("portfolio_raced") or "highs+scip").split("+")
        members = [proven[b] for b in raced if b in proven]  # the portfolio's own members
        if members:
            row["portfolio_excess_over_members_s"] = proven["portfolio"] - min(members)
    return row


def run_cell(params: dict, seed: int) -> dict:
    if params["kind"] == "agree":
        return _agree_cell(params, params["quick"])
    return _time_cell(params, seed, params["quick"])


def report(rows: list[dict], out) -> None:
    agree = [r for cell in rows if cell["kind"] == "agree" for r in cell["rows"]]
    backends = [b for b in AGREE_BACKENDS + ("portfolio",) if any(b in r for r in agree)]
    bad = [f"{r['problem']}/{r['method']} on {b}" for r in agree for b in backends
           if str(r.get(b, "")).startswith(("DIFFERS", "ERROR"))]
    out.table("agreement", agree, ["problem", "method", "kind", "instances"] + backends,
              caption="Every exact and bound model through every back-end on the reference instances: "
                      "agrees with HiGHS (same status, value within 1e-6 relative) on k of n instances, "
                      "or refused with the back-end's reason.",
              notes=[("Disagreements or errors: " + ", ".join(bad)) if bad else
                     "No back-end disagrees with HiGHS or fails on any reference instance."])
    times = [r for r in rows if r["kind"] == "time"]
    cols = ["problem", "instance", "method", "time_limit", "repeats"]
    for b in TIME_BACKENDS:
        cols += [f"{b}_status", f"{b}_wall_s"]
    cols += ["fastest", "fastest_spread_s", "portfolio_raced", "portfolio_winner", "portfolio_excess_s", "portfolio_excess_over_members_s", "startup_s",
             "load_before_s"]
    slow = [f"{r['problem']} {r['instance']}" for r in times
            if r.get("portfolio_excess_s") is not None and r["portfolio_excess_s"] > r["startup_s"]]
    slow_members = [f"{r['problem']} {r['instance']}" for r in times
                    if r.get("portfolio_excess_over_members_s") is not None
                    and r["portfolio_excess_over_members_s"] > r["startup_s"]]
    limited = [f"{r['problem']} {r['instance']}" for r in times if r["fastest"] == "none proved"]
    notes = [
        "Wall times in seconds (model building included, one thread per solver; the portfolio uses two "
        "processes, its child member at idle CPU priority): each back-end's fastest proving run of 'repeats' "
        "round-robin runs. 'fastest' is the single back-end with the shortest time to a proven optimum.",
        "Portfolio slower than the fastest single back-end by more than its start-up cost on: "
        + (", ".join(slow) if slow else "no row") + "; slower than the faster of its own members (highs, "
        "scip, or cpsat and scip) by more than its start-up cost on: " + (", ".join(slow_members) if slow_members else "no row")
        + ". The portfolio's two members share the cores with whatever else runs (see load_before_s).",
        "load_before_s is the machine's 1-minute load average (2 cores) before the cell ran; fastest_spread_s "
        "is the largest minus the smallest time of the fastest back-end's own proving runs (the noise of the "
        "measurement; every run's time is in the runs table).",
    ]
    if limited:
        notes.append("No back-end proved optimality within the limit on: " + ", ".join(limited) + ".")
    out.table("times", times, cols,
              caption="Time to a proven optimum per back-end with the same wall-clock limit, and the portfolio.",
              notes=notes,
              formats={f"{b}_wall_s": ".2f" for b in TIME_BACKENDS} | {
                  "portfolio_excess_s": ".2f", "portfolio_excess_over_members_s": ".2f", "startup_s": ".2f",
                  "fastest_spread_s": ".2f",
                  "load_before_s": ".2f"})
    out.table("runs", times, ["problem", "instance", "repeats"] + [f"{b}_runs" for b in TIME_BACKENDS],
              caption="Every run of the time table, in round-robin order (wall seconds; a status other than "
                      "optimal in parentheses): the spread the machine's load caused.")
    refusals = sorted({r[f"{b}_note"] for r in times for b in TIME_BACKENDS if f"{b}_note" in r})
    if refusals:
        out.note("Refusals in the time table: " + " | ".join(refusals))


def _published_methods() -> tuple[str, ...]:
    """The methods timed on published instances, named in the table's header."""
    return tuple(f"{problem}/{timing['published']['method']}" for problem, timing in timing_declarations()
                 if timing.get("published"))


EXPERIMENT = Experiment(
    id="T16",
    title="Solvers beyond HiGHS: agreement across six back-ends, time to proven optimum, portfolio",
    paper="Chu & Beasley 1998 (OR-Library mknapcb1) for the knapsack rows; otherwise optsched's own",
    formulation="[ours] every problem's exact model (optsched.core.linear) through each back-end",
    cells=cells,
    run_cell=run_cell,
    report=report,
    quick_budget_s=300.0,
    revision=1,  # round-robin repeats per back-end (was one run each)
    methods=_published_methods(),
    instance_family="each problem's tiny reference instances and stored instances; one generated instance "
                    "per problem; OR-Library mknapcb1 (5 x 100, instances 0-4; full run only)",
    settings=f"one thread per solver; time cells: the same wall-clock limit per back-end "
             f"({QUICK_TIME_LIMIT_S:.0f} s QUICK, {TIME_LIMIT_S:.0f} s full); portfolio = highs + scip (scip in a child at idle CPU priority), cpsat in HiGHS' place on the models it accepts",
)
