"""T10, part ``cores``: throughput of the equal and proportional core splits between BGL's
preprocessing stages against the exact allocation (formulation [ours]). The table's header and its
partition part are declared in that problem's folder; the parts run as one table
(``optsched repro --only T10``).
"""

from __future__ import annotations

from optsched.experiments import Experiment, ci_cell


def cells(quick: bool) -> list[dict]:
    out = []
    for seed in range(10 if quick else 50):
        out.append({"part": "cores", "seed": seed, "cores": 24, "stages": 3})
    return out


def run_cell(params: dict, seed: int) -> dict:
    from optsched.core.solving import solve
    from optsched.experiments import generate

    inst = generate("stage-cores", seed=params["seed"], cores=params["cores"], stages=params["stages"])
    opt = solve(inst, "greedy").objective
    milp = solve(inst, "milp").objective
    return dict(params, opt=opt, milp=milp, equal=solve(inst, "equal").objective,
                proportional=solve(inst, "proportional").objective)


def report(rows: list[dict], out) -> None:
    cores = [r for r in rows if r["part"] == "cores"]
    out.table("cores", [{"instances": len(cores), "milp = greedy": all(abs(r["opt"] - r["milp"]) <= 1e-6 * r["opt"]
                                                                         for r in cores),
                         "equal / OPT": ci_cell([r["equal"] / r["opt"] for r in cores]),
                         "proportional / OPT": ci_cell([r["proportional"] / r["opt"] for r in cores])}],
              caption="Cores per stage (sampling, feature retrieval, transfer; 24 cores; per-core rates log-uniform "
                      "within 8x [ours]): throughput of the splits over the exact allocation")


EXPERIMENT = Experiment(
    id="T10", part="cores", order=2, title="", paper="", formulation="[ours]",
    cells=cells, run_cell=run_cell, report=report,
    methods=("stage-cores/greedy", "stage-cores/milp", "stage-cores/equal", "stage-cores/proportional"),
)
