"""T6, part ``schedule`` (the table's header): synchronous microbatch scheduling: GPipe, 1F1B, kFkB, list vs the exact optimum and the
lower bound, with memory; Ada-Grouper vs 1F1B and an oracle under bandwidth preemption.

Part ``schedule``: one cell per (family, seed) on generated instances (``pipeline-schedule``
generator, seeds from 100 on: seeds 0-9 of ``hetero-small`` were used to choose ``list``'s rule,
so they are left out here):

* ``hetero-small`` (3 stages, 4 microbatches, heterogeneous, transfers, all-reduces, caps K - k),
* ``hetero-small-uncapped`` (the same without caps),
* ``medium`` (8 stages, 32 microbatches, no cap; too large for ``milp``: ratios to LB only).

Every method's makespan is the simulator's; OPT is ``milp`` (HiGHS, mip_rel_gap 0, a 60 s
wall-clock safety net flagged when hit); LB is the lower bound proved in
optsched/problems/pipeline_schedule/README.md [ours]. A public schedule that needs more in flight than a cap allows
is reported as not fitting (no makespan).

Part ``ada`` (declared in the folder of the adaptive problem; both parts run as one table,
``optsched repro --only T6``): Ada-Grouper under bandwidth preemption. Its rows draw the right
panel of the table's figure, whose left panel is drawn here.

What is whose: GPipe [paper], 1F1B [code], kFkB and Ada-Grouper's idea [paper: Ada-Grouper
abstract]; the kFkB layout, the adaptive policy, the oracle, the cost and trace models, ``list``,
``milp``, LB and every number here are optsched's [ours]. No paper numbers exist to set beside
these (the papers' abstracts give none on these instances).
"""

from __future__ import annotations

from optsched.core.errors import NotApplicable
from optsched.core.solving import solve
from optsched.experiments import Experiment, ci_summary, generate

FAMILIES = {
    "hetero-small": {"preset": "hetero-small"},
    "hetero-small-uncapped": {"preset": "hetero-small", "cap": "none"},
    "medium": {"preset": "medium"},
}
MILP_FAMILIES = ("hetero-small", "hetero-small-uncapped")
METHODS = (("gpipe", {}), ("1f1b", {}), ("kfkb", {"group_size": 2}), ("list", {}))
SEED_BASE = 100
QUICK_SEEDS, FULL_SEEDS = 5, 20
#: wall-clock safety net only: these milp solves take well under 2 s on the reference machine
TIME_LIMIT_S = 60.0


def cells(quick: bool) -> list[dict]:
    n = QUICK_SEEDS if quick else FULL_SEEDS
    out = [{"part": "schedule", "family": f, "seed": SEED_BASE + s} for f in FAMILIES for s in range(n)]
    return out


def _label(name: str, options: dict) -> str:
    return name if not options else f"{name}-{options['group_size']}"


def _schedule_row(params: dict) -> dict:
    inst = generate("pipeline-schedule", seed=params["seed"], **FAMILIES[params["family"]])
    row = {"part": "schedule", "family": params["family"], "seed": params["seed"], "stages": inst.stages,
           "microbatches": inst.microbatches, "capped": inst.inflight_cap is not None}
    first = None
    for name, options in METHODS:
        label = _label(name, options)
        try:
            r = solve(inst, name, options=options)
        except NotApplicable:   # a published schedule above the instance's caps
            r = None
        fits = r is not None and r.status == "feasible"
        row[f"{label}_makespan"] = r.objective if fits else None
        row[f"{label}_peak_inflight"] = max(r.stats["peak_inflight"]) if fits else None
        row[f"{label}_peak_memory_gb"] = max(r.stats["peak_memory_bytes"]) / 1e9 if fits else None
        row[f"{label}_s"] = r.wall_s if r is not None else 0.0
        first = first or (r if fits else None)
    row["lower_bound"] = first.stats["lower_bound"]
    row.update(milp_status=None, opt=None, milp_bound=None, milp_nodes=None, milp_s=None, hit_time_limit=False)
    if params["family"] in MILP_FAMILIES:
        milp = solve(inst, "milp", time_limit=TIME_LIMIT_S)
        row.update(milp_status=milp.status, milp_bound=milp.bound, milp_nodes=milp.stats.get("nodes"),
                   hit_time_limit=milp.status == "time_limit", milp_s=milp.wall_s)
        row["opt"] = milp.objective if milp.status == "optimal" else None
    return row


def run_cell(params: dict, seed: int) -> dict:
    """One instance; deterministic: every method is deterministic and HiGHS runs on one thread
    with its default seed."""
    return _schedule_row(params)


def schedule_summary(rows: list[dict]) -> list[dict]:
    out = []
    for family in FAMILIES:
        fam = [r for r in rows if r["part"] == "schedule" and r["family"] == family]
        for name, options in METHODS:
            label = _label(name, options)
            fits = [r for r in fam if r[f"{label}_makespan"] is not None]
            entry = {"family": family, "method": label, "instances": len(fam), "fits_cap": len(fits)}
            lb = ci_summary([r[f"{label}_makespan"] / r["lower_bound"] for r in fits])
            opt = ci_summary([r[f"{label}_makespan"] / r["opt"] for r in fits if r["opt"] is not None])
            entry.update({"vs_LB_mean": lb["mean"], "vs_LB_ci95": lb["ci95_half_width"], "vs_LB_max": lb["max"],
                          "vs_OPT_n": opt["n"], "vs_OPT_mean": opt["mean"], "vs_OPT_ci95": opt["ci95_half_width"],
                          "vs_OPT_max": opt["max"],
                          "peak_inflight_mean": ci_summary([r[f"{label}_peak_inflight"] for r in fits])["mean"],
                          "peak_memory_gb_mean": ci_summary([r[f"{label}_peak_memory_gb"] for r in fits])["mean"]})
            out.append(entry)
        opt_lb = ci_summary([r["opt"] / r["lower_bound"] for r in fam if r["opt"] is not None])
        if opt_lb["n"]:
            out.append({"family": family, "method": "milp (OPT)", "instances": len(fam), "fits_cap": opt_lb["n"],
                        "vs_LB_mean": opt_lb["mean"], "vs_LB_ci95": opt_lb["ci95_half_width"],
                        "vs_LB_max": opt_lb["max"], "vs_OPT_n": opt_lb["n"], "vs_OPT_mean": 1.0,
                        "vs_OPT_ci95": 0.0, "vs_OPT_max": 1.0})
    return out


def report(rows: list[dict], out) -> None:
    sched = [r for r in rows if r["part"] == "schedule"]
    limited = [f"{r['family']}/{r['seed']}" for r in sched if r["hit_time_limit"]]
    notes = [
        "Makespans are the exact event simulator's; LB is optsched's lower bound [ours] (proof in "
        "optsched/problems/pipeline_schedule/README.md); OPT is milp's proven optimum (mip_rel_gap 0). Ratios are over the "
        "instances where the method fits the caps (fits_cap) and, for vs_OPT, where milp proved optimality.",
        "Fidelity: gpipe [paper], 1f1b [code], kfkb-2 [reconstruction: group layout ours], list [ours], "
        "milp [ours]. The formulation (tasks, transfer delays, caps, all-reduce tail) is optsched's own [ours].",
        f"Seeds {SEED_BASE}-{SEED_BASE + len(sched) // len(FAMILIES) - 1} per family; list's tie rule was chosen "
        "on hetero-small seeds 0-9, which are not used here.",
        "hetero-small caps are K - k (what 1F1B needs): GPipe and kFkB-2 do not fit them; memory columns are "
        "means of the largest per-stage peak (in-flight microbatches; GB with the generator's synthetic "
        "stash and static bytes).",
    ]
    if limited:
        notes.append(f"FLAGGED: the {TIME_LIMIT_S:.0f} s safety net stopped milp on {', '.join(limited)}.")
    out.table("schedules", schedule_summary(rows),
              caption="Makespan ratios to LB and to OPT (mean, 95% t-interval half-width over seeds, max), "
                      "and peak memory, per instance family and schedule.",
              notes=notes,
              formats={c: ".4f" for c in ("vs_LB_mean", "vs_LB_ci95", "vs_LB_max", "vs_OPT_mean", "vs_OPT_ci95",
                                          "vs_OPT_max", "peak_inflight_mean", "peak_memory_gb_mean")})
    columns = ["family", "seed", "stages", "microbatches", "lower_bound", "opt", "milp_status", "milp_nodes"]
    for name, options in METHODS:
        columns += [f"{_label(name, options)}_makespan", f"{_label(name, options)}_peak_inflight"]
    out.table("schedule_cells", sched, columns + ["hit_time_limit", "milp_s", "list_s"],
              caption="Per instance: makespans (s), peak in-flight microbatches, LB, OPT.",
              formats={c: ".3f" for c in columns if c.endswith("makespan") or c in ("lower_bound", "opt")})
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    fam = [r for r in sched if r["family"] == "hetero-small-uncapped" and r["opt"] is not None]
    data = [[r[f"{_label(n, o)}_makespan"] / r["opt"] for r in fam if r[f"{_label(n, o)}_makespan"] is not None]
            for n, o in METHODS]
    left.boxplot(data, tick_labels=[_label(n, o) for n, o in METHODS])
    left.set_ylabel("makespan / OPT (dimensionless)")
    left.set_title("hetero-small, no cap")

    def save() -> None:
        fig.tight_layout()
        out.figure("summary", fig, caption="Left: makespan / OPT of each schedule on uncapped hetero-small instances. "
                                           "Right: mean iteration time per preemption trace for fixed 1F1B, fixed "
                                           "kFkB-8, the adaptive policy and the oracle.")

    # the right panel is the table's other part's (drawn when it reports); the figure is saved after both
    getattr(out, "shared", {})["summary_right"] = right
    if hasattr(out, "at_end"):
        out.at_end.append(save)
    else:
        save()


EXPERIMENT = Experiment(
    id="T6", part="schedule", order=0,
    title="Microbatch schedules vs OPT and LB with memory; Ada-Grouper under preemption",
    paper="Luo et al., INFOCOM 2022 (scheduler); GPipe; 1F1B (PipeDream-Flush); Ada-Grouper (arXiv 2303.01675)",
    formulation="[ours] optsched/problems/pipeline_schedule/README.md: tasks with transfer delays, per-stage caps, all-reduce tail",
    cells=cells,
    run_cell=run_cell,
    report=report,
    quick_budget_s=120.0,
    methods=("pipeline-schedule/gpipe", "pipeline-schedule/1f1b", "pipeline-schedule/kfkb",
             "pipeline-schedule/list", "pipeline-schedule/milp"),
    instance_family="pipeline-schedule generator presets hetero-small (K=3, M=4; with and without caps) and "
                    "medium (K=8, M=32), seeds from 100; Ada-Grouper: 4-stage example setting, seeded "
                    "preemption traces",
    settings=f"milp: mip_rel_gap 0, HiGHS random_seed 0, {TIME_LIMIT_S:.0f} s wall-clock safety net (flagged)",
)


#: this problem's row of T16's time table (``paper_repro/t16_solvers.py``): the exact method on one
#: generated instance, seed 0 of ``preset``
SOLVER_TIMING = dict(preset="hetero-small", method="milp")
