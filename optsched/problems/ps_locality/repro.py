"""T1: worker/PS placement with locality (TNSE 2022, arXiv 2108.02917).

Total completion time of randomized rounding (``rr``, reconstruction) and its online rolling
version (``online-rr``) against the offline optimum (``milp``), the LP bound (``lp``) and the
baselines FIFO-locality and DRF (ours), over job counts and bandwidth ratios b_in / b_ex, on
seeded generated instances (offered load 1.5: placement matters). Also: the LP bound without the
cumulative covering rows, and the rounding's pre-repair capacity violations against optsched's
theorem (kappa (1 + delta), probability >= 1 - 1/m).

What is whose: the paper's abstract gives the problem (joint allocation and locality, a mixed
packing-covering IP, randomized rounding with an approximation analysis) [paper]; the
formulation, the instances, the rounding details, the theorem, the baselines and every number
here are optsched's [ours]. The paper's own numbers are not public (abstract only), so no column
stands beside ours.
"""

from __future__ import annotations

from optsched.core.solving import objective_tolerance, solve
from optsched.experiments import Experiment, generate, mean_ci95

METHODS = ("rr", "online-rr", "fifo-locality", "drf")
#: wall-clock safety net only: these instances solve in well under 10 s (flagged if hit)
TIME_LIMIT_S = 120.0


def cells(quick: bool) -> list[dict]:
    jobs = (3, 4) if quick else (3, 4, 5, 6)
    machines = 2 if quick else 3
    seeds = range(3) if quick else range(8)
    return [{"jobs": n, "machines": machines, "bandwidth_ratio": ratio, "seed": s}
            for n in jobs for ratio in (2.0, 8.0, 32.0) for s in seeds]


def _ratio(value, reference):
    return None if value is None or reference in (None, 0) else value / reference


def run_cell(params: dict, seed: int) -> dict:
    """One generated instance, every method. Deterministic: HiGHS on one thread, rr and online-rr
    seeded with ``seed``."""
    inst = generate("ps-locality", seed=seed, jobs=params["jobs"], machines=params["machines"],
                             gpus_per_machine=4, min_workers=2, max_workers=4, job_slots=3, load=1.5,
                             bandwidth_ratio=params["bandwidth_ratio"])
    milp = solve(inst, "milp", time_limit=TIME_LIMIT_S)
    opt = milp.objective if milp.status == "optimal" else None
    lp = solve(inst, "lp")
    lp_plain = solve(inst, "lp", options={"cumulative_rows": False, "activity_rows": False})
    row = {**params, "horizon_slots": inst.horizon_slots, "milp_status": milp.status, "opt": opt,
           "hit_time_limit": milp.status == "time_limit", "lp": lp.objective, "lp_over_opt": _ratio(lp.objective, opt),
           "lp_without_link_rows_over_opt": _ratio(lp_plain.objective, opt), "milp_s": milp.wall_s}
    for method in METHODS:
        r = solve(inst, method, seed=seed % 2**31)
        key = method.replace("-", "_")
        row[f"{key}_status"] = r.status
        row[key] = r.objective
        row[f"{key}_over_opt"] = _ratio(r.objective, opt)
        row[f"{key}_s"] = r.wall_s
        if method == "rr" and r.status == "feasible":
            pre = r.stats["pre_repair"]
            row["rr_trials"] = len(pre)
            row["rr_rounding_factor"] = r.stats["rounding_factor"]
            row["rr_packing_rows"] = r.stats["packing_rows"]
            row["rr_trials_overloaded"] = sum(t["overloaded_rows"] > 0 for t in pre)
            row["rr_trials_beyond_bound"] = sum(t["rows_beyond_bound"] > 0 for t in pre)
            row["rr_max_load_ratio"] = max(t["max_load_ratio"] for t in pre)
            row["rr_short_jobs_mean"] = sum(t["short_jobs"] for t in pre) / len(pre)
            row["rr_repair_worker_slot_change"] = sum(t["final_worker_slots"] - t["planned_worker_slots"]
                                                      for t in pre) / len(pre)
    return row


CELL_COLUMNS = ["jobs", "machines", "bandwidth_ratio", "seed", "horizon_slots", "milp_status", "opt", "lp_over_opt",
                "lp_without_link_rows_over_opt", "rr_over_opt", "online_rr_over_opt", "fifo_locality_over_opt",
                "drf_over_opt", "rr_max_load_ratio", "rr_rounding_factor", "rr_trials_overloaded",
                "rr_trials_beyond_bound", "milp_s", "rr_s", "online_rr_s"]


def summarize(rows: list[dict]) -> list[dict]:
    """Mean ratio to OPT with a 95% t-interval, per (jobs, bandwidth ratio) and method."""
    out = []
    groups = sorted({(r["jobs"], r["bandwidth_ratio"]) for r in rows})
    for jobs, ratio in groups:
        cell = [r for r in rows if (r["jobs"], r["bandwidth_ratio"]) == (jobs, ratio) and r["opt"] is not None]
        entry = {"jobs": jobs, "bandwidth_ratio": ratio, "seeds": len(cell)}
        for col in ("lp_over_opt", "lp_without_link_rows_over_opt", "rr_over_opt", "online_rr_over_opt",
                    "fifo_locality_over_opt", "drf_over_opt"):
            values = [r[col] for r in cell if r.get(col) is not None]
            entry[col] = mean_ci95(values).format(4) if values else "-"
        out.append(entry)
    return out


def rounding_summary(rows: list[dict]) -> list[dict]:
    """Pre-repair capacity violations of rr's trials, pooled over every cell."""
    used = [r for r in rows if r.get("rr_trials")]
    trials = sum(r["rr_trials"] for r in used)
    overloaded = sum(r["rr_trials_overloaded"] for r in used)
    beyond = sum(r["rr_trials_beyond_bound"] for r in used)
    allowed = sum(r["rr_trials"] / r["rr_packing_rows"] for r in used)
    return [{"trials": trials, "trials_with_an_overloaded_row": overloaded,
             "trials_beyond_kappa(1+delta)": beyond,
             "expected_at_most_(theorem, sum 1/m)": round(allowed, 3),
             "largest_load_ratio_seen": max((r["rr_max_load_ratio"] for r in used), default=None),
             "smallest_rounding_factor": min((r["rr_rounding_factor"] for r in used), default=None)}]


def report(rows: list[dict], out) -> None:
    solved = [r for r in rows if r["opt"] is not None]
    failures = [f"{r['jobs']}j/{r['bandwidth_ratio']}/{r['seed']}: {m} {r[m.replace('-', '_') + '_status']}"
                for r in rows for m in METHODS if r[m.replace("-", "_") + "_status"] != "feasible"]
    below = [r for r in solved for m in METHODS if r[m.replace("-", "_")] is not None
             and r[m.replace("-", "_")] < r["opt"] - objective_tolerance(r["opt"])]
    notes = [
        f"{len(solved)} of {len(rows)} instances solved to proven optimality (milp, mip_rel_gap 0).",
        "Instances [ours]: optsched's generator, offered load 1.5, machines with 4 GPUs, jobs with 2-4 workers, "
        "solo durations 2-3 slots, gradient sizes from the job-type table, b_ex = 6000 MB per slot.",
        "lp_without_link_rows: the LP with neither the cumulative covering rows nor the activity rows (completion "
        "unlinked from progress; only the solo cut keeps it above n).",
    ]
    if failures:
        notes.append("NOT feasible: " + "; ".join(failures))
    if below:
        notes.append(f"BUG: {len(below)} heuristic value(s) below OPT")
    limited = [r for r in rows if r["hit_time_limit"]]
    if limited:
        notes.append(f"FLAGGED: {len(limited)} cell(s) hit the {TIME_LIMIT_S:.0f} s safety net; excluded from ratios.")
    out.table("cells", rows, CELL_COLUMNS, caption="Per instance: ratios to the exact optimum, rr pre-repair loads, "
              "times (s, one thread).", notes=notes,
              formats={c: ".4f" for c in CELL_COLUMNS if c.endswith("_over_opt") or c.startswith("rr_max")
                       or c == "rr_rounding_factor"}
              | {c: ".2f" for c in CELL_COLUMNS if c.endswith("_s")})
    out.table("summary", summarize(rows), caption="Mean value / OPT with the 95% Student-t interval over seeds "
              "(n = seeds solved to optimality), per job count and b_in / b_ex.")
    out.table("rounding", rounding_summary(rows),
              caption="rr before repair, pooled over cells: trials with some (machine, resource, slot) load above "
                      "capacity, and above optsched's bound kappa (1 + delta) times capacity, which the theorem "
                      "allows in at most a 1/m fraction of trials in expectation [ours].")
    if solved:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 3.6))
        cols = ["lp_over_opt", "rr_over_opt", "online_rr_over_opt", "fifo_locality_over_opt", "drf_over_opt"]
        data = [[r[c] for r in solved if r.get(c) is not None] for c in cols]
        ax.boxplot(data)
        ax.set_xticks(range(1, len(cols) + 1), ["LP", "rr", "online-rr", "FIFO-loc.", "DRF"])
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_ylabel("total completion time / OPT (dimensionless)")
        ax.set_xlabel("method")
        fig.tight_layout()
        out.figure("ratios", fig, caption="Distribution over instances of value / OPT (total completion time in "
                                          "slots) for the LP bound, the rounding, its online version and the "
                                          "baselines.")


EXPERIMENT = Experiment(
    id="T1",
    title="PS/worker placement with locality: randomized rounding vs OPT, LP, FIFO-locality, DRF",
    paper="Yu, Liu, Wu, Ji, Bentley, IEEE TNSE 2022 (arXiv 2108.02917)",
    formulation="[ours] time-indexed mixed packing-covering IP (optsched/problems/ps_locality/README.md)",
    cells=cells,
    run_cell=run_cell,
    report=report,
    quick_budget_s=120.0,
    methods=("ps-locality/milp", "ps-locality/lp", "ps-locality/rr", "ps-locality/online-rr",
             "ps-locality/fifo-locality", "ps-locality/drf"),
    instance_family="optsched ps-locality generator: 3-6 jobs, 2-3 machines x 4 GPUs, load 1.5, "
                    "b_in / b_ex in {2, 8, 32} (QUICK: 3-4 jobs, 2 machines, 3 seeds)",
    settings=f"one thread, mip_rel_gap 0, time_limit {TIME_LIMIT_S:.0f} s (safety net), rr 8 trials",
    revision=1,
)


def _online_rr_adversary():
    from optsched.problems.ps_locality.adversary import PsLocalityAdversary

    return PsLocalityAdversary("online-rr", preset="small")


#: this problem's online methods, each with its adversary adapter, for T15's adapters part
#: (``paper_repro/t15_adapters.py``); ``order``: the row's place in that table
ADVERSARIES = [dict(method="ps-locality/online-rr", order=2, adapter=_online_rr_adversary)]


#: this problem's row of T16's time table (``paper_repro/t16_solvers.py``): the exact method on one
#: generated instance, seed 0 of ``preset``
SOLVER_TIMING = dict(preset="small", method="milp")
