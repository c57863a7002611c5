"""T13: interference-aware placement -- snapshot MILP vs brute force and greedy rules on generated
and Gavel/Philly snapshots; the interference model's held-out error. The online variant (every
policy and the learned multi-agent scheduler at 64 to 1,024 GPUs) is T13b, in its own folder.

Formulations [recon] after Zhao & Wu (arXiv 2112.13354, abstract only; the paper's numbers are
not reproduced). Interference: Gavel's measured v100 pair throughputs (MIT). No method has a
registered guarantee.
"""

from __future__ import annotations

from optsched.experiments import Experiment

TRACES = ("2869ce", "7f04ca", "e13805")
SNAP_RULES = ("least-interference", "pack", "spread")


def cells(quick: bool) -> list[dict]:
    out = []
    for rep in range(6 if quick else 20):
        out.append({"part": "tiny", "rep": rep})
    for preset in ("small", "medium"):
        for rep in range(3 if quick else 10):
            out.append({"part": "snapshot", "preset": preset, "rep": rep})
    for trace in TRACES:
        for start in ((0,) if quick else (0, 100, 200)):
            out.append({"part": "gavel-snapshot", "trace": trace, "start": start})
    out.append({"part": "interference-model"})
    return out


def run_cell(params: dict, seed: int) -> dict:
    from optsched.experiments import generate
    from optsched.core.solving import solve

    part = params["part"]
    if part == "interference-model":
        from optsched.core.data import data_file
        from optsched.workloads.interference import GAVEL_THROUGHPUTS, held_out_error, load_gavel_interference

        err = held_out_error(load_gavel_interference(data_file(GAVEL_THROUGHPUTS)), seed=0)
        return dict(params, **{f"{k}:{m}": v for k in ("unseen_pairs", "unseen_model_family")
                               for m, v in err[k].items()}, pairs=err["pairs"])
    if part in ("tiny", "snapshot", "gavel-snapshot"):
        if part == "tiny":
            inst = generate("interference-placement", seed=seed, preset="tiny")
        elif part == "snapshot":
            inst = generate("interference-placement", seed=seed, preset=params["preset"])
        else:
            from optsched.core.data import data_file
            from optsched.problems.interference_placement import load_gavel_snapshot

            inst = load_gavel_snapshot(data_file(f"traces/gavel_philly/{params['trace']}.trace"), jobs=10,
                                       servers=8, gpus_per_server=4, start=params["start"])
        exact = solve(inst, "milp", time_limit=300.0)
        row = dict(params, jobs=inst.num_jobs, milp=exact.objective, milp_status=exact.status, milp_gap=exact.gap,
                   hit_time_limit=exact.status == "time_limit", milp_wall_s=exact.wall_s)
        if part == "tiny":
            row["brute"] = solve(inst, "brute").objective
        for rule in SNAP_RULES:
            row[f"{rule}"] = solve(inst, rule).objective
        return row
    raise ValueError(f"unknown part {part!r}")


def report(rows: list[dict], out) -> None:
    from optsched.experiments import mean_ci95

    tiny = [r for r in rows if r["part"] == "tiny"]
    if tiny:
        worst = max(abs(r["milp"] - r["brute"]) / r["brute"] for r in tiny)
        out.table("snapshot_exact", [{"instances": len(tiny), "MILP optimal": sum(r["milp_status"] == "optimal" for r in tiny),
                                      "max |MILP - brute| / brute": f"{worst:.2e}"}],
                  caption="tiny snapshots (4 jobs, 3 servers x 2 GPUs, 1 resident): exact MILP vs brute force")
    table = []
    for key in ("snapshot:small", "snapshot:medium", "gavel-snapshot"):
        group = [r for r in rows if (r["part"] == "gavel-snapshot" if key == "gavel-snapshot"
                                     else r["part"] == "snapshot" and r.get("preset") == key.split(":")[1])]
        if not group:
            continue
        entry = {"snapshots": key, "n": len(group), "jobs": group[0]["jobs"],
                 "MILP optimal": sum(r["milp_status"] == "optimal" for r in group)}
        for rule in SNAP_RULES:
            ratios = [r[rule] / r["milp"] for r in group]
            entry[f"{rule}/MILP"] = mean_ci95(ratios).format(3)
            entry[f"{rule} worst"] = f"{max(ratios):.3f}"
        entry["MILP wall (s, mean)"] = round(sum(r["milp_wall_s"] for r in group) / len(group), 3)
        table.append(entry)
    out.table("snapshot_gaps", table, caption="greedy / exact MILP cost on snapshots (mean ± 95% CI; >= 1); "
              "Gavel snapshots: 10 consecutive trace jobs on 8 x 4 GPUs (the traces hold jobs of up to 32 GPUs), Gavel v100 interference")
    im = [r for r in rows if r["part"] == "interference-model"]
    if im:
        r = im[0]
        out.table("interference_model", [
            {"held out": what, "pairs": r["pairs"], "MAE slowdown": round(r[f"{k}:mae_slowdown"], 3),
             "MAE of the mean": round(r[f"{k}:mae_baseline_mean"], 3),
             "median abs error": round(r[f"{k}:median_abs_error"], 3), "Spearman": round(r[f"{k}:spearman"], 3)}
            for what, k in (("unseen pairs (5-fold, grouped by unordered pair)", "unseen_pairs"),
                            ("unseen model family (leave one family out)", "unseen_model_family"))],
            caption="interference model (gradient-boosted trees on job features) on Gavel v100 pairs: held-out error")


EXPERIMENT = Experiment(
    id="T13", title="Interference-aware placement: snapshot MILP vs greedy; the interference model",
    paper="Zhao & Wu, TNSM 2021 (arXiv 2112.13354)", formulation="[recon]",
    cells=cells, run_cell=run_cell, report=report,
    requires_data=("traces/gavel_philly/2869ce.trace", "throughputs/gavel/simulation_throughputs.json"),
    methods=("interference-placement/milp", "interference-placement/least-interference", "interference-placement/pack",
             "interference-placement/spread"),
    instance_family="generated snapshots; Gavel/Philly snapshots of traces 2869ce, 7f04ca, e13805 on 8 x 4 GPUs",
    settings="snapshot MILP time_limit 300 s (safety net)",
)
