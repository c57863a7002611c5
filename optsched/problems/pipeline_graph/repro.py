"""T5b: pipeline partition on the whole layer DAG (issue 23).

Per PipeDream profile, worker count and objective: the whole-graph optimum (``antichain-dp``,
every down-set of the layer DAG), how much optsched's one-path linearization loses against it
(``chain-dp``: the optimum over the cuts on one path of PipeDream's antichain DAG, which is what
the chain partition, ``optsched.pipeline.partition``, searches), PipeDream's planner as a baseline (``pipedream``: its DP over its
antichain states, every machine used) and the value PipeDream's own planner printed
(``instances/pipeline_graph/pipedream_reference.json``, with its time), and every method's time.

Objectives: ``pipedream`` (PipeDream's planner cost, transfers ignored: its default) and
``pipedream+transfer`` (``--activation_compression_ratio 1``), and ``bottleneck`` (optsched's
cost model, :mod:`optsched.pipeline.costs`). Bandwidth 1 GB/s (PipeDream's default), the
profiling batch as the batch.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from optsched.experiments import Experiment

PROFILES = ("vgg16", "resnet50", "inception_v3", "densenet121", "resnext101", "gnmt", "gnmt_large")
BRANCHING = ("resnet50", "inception_v3", "densenet121", "resnext101", "gnmt", "gnmt_large")
OBJECTIVES = {"pipedream": ("pipedream", None), "pipedream+transfer": ("pipedream", 1.0),
              "bottleneck": ("bottleneck", None)}
REFERENCE = Path(__file__).resolve().parents[3] / "instances" / "pipeline_graph" / "pipedream_reference.json"


def cells(quick: bool) -> list[dict]:
    profiles = ("resnet50", "resnext101", "gnmt", "inception_v3") if quick else PROFILES
    workers = (16,) if quick else (8, 16)
    objectives = ("pipedream", "pipedream+transfer") if quick else tuple(OBJECTIVES)
    return [{"profile": p, "workers": n, "objective": o} for p in profiles for n in workers for o in objectives]


def run_cell(params: dict, seed: int) -> dict:
    from optsched.core.registry import get_problem
    from optsched.core.solving import solve
    from optsched.core.data import data_file
    from optsched.problems.pipeline_graph.generate import from_pipedream

    objective, ratio = OBJECTIVES[params["objective"]]
    path = data_file(f"profiles/pipedream/{params['profile']}.graph.txt")
    inst = from_pipedream(path, params["workers"], objective=objective, activation_compression_ratio=ratio)
    row = {**params, "layers": inst.num_layers}
    for name in ("antichain-dp", "chain-dp", "pipedream"):
        ok, why = get_problem("pipeline-graph").get_method(name).applicable(inst)
        if not ok:
            row[name], row[f"{name}_s"], row[f"{name}_status"] = None, None, f"not applicable: {why}"
            continue
        start = time.perf_counter()
        r = solve(inst, name)
        row[f"{name}_s"] = time.perf_counter() - start
        row[name], row[f"{name}_status"] = r.objective, r.status
        if name == "antichain-dp":
            row["states"] = r.stats.get("states")
            row["probes"] = r.stats.get("probes")
            row["stages"] = len(r.solution["stages"])
        if name == "pipedream":
            row["pipedream_states"] = r.stats.get("pipedream_states")
    ref = None
    if objective == "pipedream":
        for run in json.loads(REFERENCE.read_text())["runs"]:
            if (run["model"], run["workers"], run["activation_compression_ratio"]) == (
                    params["profile"], params["workers"], ratio):
                ref = run
    row["planner"] = ref["value"] if ref else None
    row["planner_s"] = ref["wall_s"] if ref else None
    row["planner_status"] = ref["status"] if ref else "not applicable (other objective)"
    return row


def report(rows: list[dict], out) -> None:
    table = []
    for r in rows:
        opt = r["antichain-dp"]
        ratio = (lambda v: None if v is None or not opt else v / opt)
        table.append({"profile": r["profile"], "N": r["workers"], "objective": r["objective"],
                      "branching": r["profile"] in BRANCHING, "whole-graph opt": opt,
                      "status": r["antichain-dp_status"], "chain / opt": ratio(r["chain-dp"]),
                      "pipedream / opt": ratio(r["pipedream"]), "planner printed / opt": ratio(r["planner"]),
                      "planner": r["planner_status"], "stages": r.get("stages"), "down-sets": r.get("states")})
    out.table("whole_graph", table, caption=(
        "T5b: whole-graph optimum (antichain-dp, seconds per batch) and each planner's value divided by it "
        "(>= 1: no better). chain / opt - 1 is what the one-path linearization of the chain partition loses; "
        "pipedream is PipeDream's DP over its own antichain states with every machine used (its default); "
        "'planner printed' is the value PipeDream's own optimizer_graph_hierarchical.py printed (commit 7db6a1c)."),
        formats={"whole-graph opt": ".7g", "chain / opt": ".5f", "pipedream / opt": ".5f",
                 "planner printed / opt": ".5f"},
        notes=["Fidelity: antichain-dp and chain-dp [ours]; pipedream [code] (reproduces the planner's printed "
               "value to 1e-15 relative on every run that finished: tests/pipeline_graph/test_pipedream_reference.py); "
               "objective pipedream [code], bottleneck [ours].",
               "PipeDream's planner did not finish on inception_v3 (out of memory under a 6 GB cap; its O(S^2 N) "
               "table over 221,564 states); our pipedream port is limited to 5,000 states for the same reason."])
    timing = [{"profile": r["profile"], "N": r["workers"], "objective": r["objective"],
               "antichain-dp_s": r["antichain-dp_s"], "probes": r.get("probes"), "chain-dp_s": r["chain-dp_s"],
               "pipedream_s": r["pipedream_s"], "planner_s": r["planner_s"],
               "planner / antichain-dp": (r["planner_s"] / r["antichain-dp_s"]
                                          if r["planner_s"] and r["planner"] and r["antichain-dp_s"] else None)}
              for r in rows]
    out.table("runtimes", timing, caption=(
        "T5b: wall times (seconds, one thread, shared 2-core machine); planner_s is PipeDream's own planner "
        "(unmodified, Python 3.11, measured once with /usr/bin/time; not re-run here)."),
        formats={"antichain-dp_s": ".3f", "chain-dp_s": ".3f", "pipedream_s": ".3f", "planner_s": ".2f",
                 "planner / antichain-dp": ".1f"})


EXPERIMENT = Experiment(
    id="T5b", title="Pipeline partition on the whole layer DAG: one-path chain vs the whole-graph optimum",
    paper="PipeDream (SOSP 2019), its optimizer_graph_hierarchical.py",
    formulation="[ours] (whole-graph DP); PipeDream's cost [code]",
    cells=cells, run_cell=run_cell, report=report,
    requires_data=tuple(f"profiles/pipedream/{p}.graph.txt" for p in PROFILES),
    quick_budget_s=120.0,
    methods=("pipeline-graph/antichain-dp", "pipeline-graph/chain-dp", "pipeline-graph/pipedream"),
    instance_family="PipeDream's seven released profiles (whole layer DAGs), 8 and 16 workers at 1 GB/s",
)
