"""T12: HAP sharding ratios on heterogeneous GPU mixes (``hetero-sharding``): speed-up of the
optimal ratios (joint program + ratio MILP) over the even and the FLOP/s-proportional splits.

Device speeds: GPU types scaled by Gavel's measured isolated throughputs of a Transformer job
(batch 64) with the V100 at HAP's measured 5.97 TFLOP/s [data: Gavel; code: HAP master.py; the
scaling is ours]; collective bandwidths are HAP's measured ones [code: HAP master.py]. Models:
HAP's transformer (config.py: 12 layers, emsize 768, nhid 3072, seqlen 128, batch 32 x 8) and
dnn-partitioning layer graphs (training, forward layers merged into 12 stages).

The transformer's 12 layers are identical, so OPT(12 layers) = 12 x OPT(1 layer) (every layer
picks the cheapest option for the shared ratios, the same in every layer); the exact column
solves one layer and multiplies, and the 12-layer alternation is run in full.

HAP reports up to 2.41x over its baselines on its own testbed [paper abstract]; its baselines are
systems (DeepSpeed, Megatron-style even sharding), its devices and collectives are its own, so
only the even-split column is comparable in spirit, and a gap is expected.
"""

from __future__ import annotations

from optsched.core.solving import solve
from optsched.core.data import data_file
from optsched.problems.hetero_sharding.generate import (GAVEL_FILE, gavel_device_flops, operator_graph_program,
                                                        parse_devices, transformer_program)
from optsched.experiments import Experiment

MIXES_QUICK = ("v100:4,k80:4", "v100:2,p100:3,k80:3")
MIXES_FULL = MIXES_QUICK + ("v100:6,k80:2", "p100:4,k80:4")
MODELS_QUICK = ("transformer", "resnet50_training")
MODELS_FULL = MODELS_QUICK + ("bert24_training", "gnmt_training")
GRAPH_DIR = "graphs/dnn-partitioning/throughput-inputs/LayerGraphs/"
STAGES = 12
#: safety net: the joint MILP's McCormick relaxation is weak; a row that hits it says so
TIME_LIMIT_S = 60.0
HAP_HEADLINE = 2.41


def cells(quick: bool) -> list[dict]:
    return [{"model": m, "mix": x} for m in (MODELS_QUICK if quick else MODELS_FULL)
            for x in (MIXES_QUICK if quick else MIXES_FULL)]


def _instance(model: str, mix: str, layers: int = 12):
    types = parse_devices(mix)
    flops = gavel_device_flops(types)
    if model == "transformer":
        return transformer_program(flops, layers=layers, device_names=types, name=f"transformer-{mix}")
    return operator_graph_program(data_file(GRAPH_DIR + model + ".json"), flops, max_stages=STAGES,
                                  device_names=types)


def run_cell(params: dict, seed: int) -> dict:
    model, mix = params["model"], params["mix"]
    inst = _instance(model, mix)
    values = {m: solve(inst, m).objective for m in ("even", "proportional")}
    alt = solve(inst, "alternate")
    if model == "transformer":
        one = _instance(model, mix, layers=1)
        exact = solve(one, "milp", time_limit=TIME_LIMIT_S)
        scale = inst.num_stages // one.num_stages
        opt = exact.objective * scale if exact.status == "optimal" else None
        status, bound, milp_s = exact.status, (exact.bound or 0) * scale, exact.wall_s
        rnd = solve(one, "milp-round", time_limit=TIME_LIMIT_S)
        rounded, delta = rnd.objective * scale, rnd.stats.get("bound_delta", 0) * scale
    else:
        exact = solve(inst, "milp", time_limit=TIME_LIMIT_S)
        opt = exact.objective if exact.status == "optimal" else None
        status, bound, milp_s = exact.status, exact.bound, exact.wall_s
        rnd = solve(inst, "milp-round", time_limit=TIME_LIMIT_S)
        rounded = rnd.objective if rnd.status == "feasible" else None
        delta = rnd.stats.get("bound_delta")
    best = opt if opt is not None else min(v for v in (alt.objective, exact.objective) if v is not None)
    return {
        "model": model, "mix": mix, "devices": inst.num_devices, "stages": inst.num_stages,
        "even": values["even"], "proportional": values["proportional"], "alternate": alt.objective,
        "alternate_rounds": alt.stats.get("rounds"), "opt": opt, "milp_status": status, "milp_bound": bound,
        "best_known": best, "speedup_vs_even": values["even"] / best,
        "speedup_vs_proportional": values["proportional"] / best,
        "alternate_over_best": alt.objective / best,
        "rounded": rounded, "rounding_loss": None if rounded is None or opt is None else rounded - opt,
        "rounding_bound": delta, "hit_time_limit": status == "time_limit", "milp_s": milp_s,
    }


COLUMNS = ["model", "mix", "stages", "even", "proportional", "alternate", "opt", "milp_status", "milp_bound",
           "speedup_vs_even", "speedup_vs_proportional", "alternate_over_best", "rounding_loss", "rounding_bound",
           "milp_s"]


def report(rows: list[dict], out) -> None:
    top = max(rows, key=lambda r: r["speedup_vs_even"]) if rows else None
    unproven = [f"{r['model']}/{r['mix']}" for r in rows if r["opt"] is None]
    notes = [
        "Times are seconds per iteration of the model (sum over stages of max-device compute + max-device "
        "communication). speedup_vs_X = X / best, best = the proven optimum (opt) when the MILP closed, else the "
        "best plan found (alternation or the MILP incumbent), flagged by milp_status.",
        f"HAP's headline: up to {HAP_HEADLINE}x over its baselines on its testbed [paper abstract]. Ours: up to "
        + (f"{top['speedup_vs_even']:.2f}x over the even split ({top['model']}, {top['mix']})." if top else "n/a.")
        + " A gap is expected: HAP's baselines are whole systems on its own GPUs and network, our devices are "
        "Gavel's GPU types scaled by measured throughputs, and the model charges no per-operator overheads.",
        "The proportional split is already optimal when data-parallel options dominate (compute balanced "
        "exactly, constant all-reduce); optimal ratios beat it when padded collectives (n max_d B_d |T|) make the "
        "communication term prefer evener ratios.",
        "Layer-graph rows take the files' node 'size' as parameter bytes; in these throughput-input files it sums "
        "to far more than the models' weights (38.8 GB for ResNet-50 training), so those rows are "
        "communication-bound and the even split wins: read them as the model on these inputs, not as ResNet-50.",
        "rounding_loss = cost with integer shard sizes (largest remainder, HAP's sharding_round) - opt; "
        "rounding_bound = the proven bound sum_t (a_t / min F + m_t) / L (optsched/problems/hetero_sharding/README.md).",
    ]
    if unproven:
        notes.append(f"MILP not closed within {TIME_LIMIT_S:.0f} s on: {', '.join(unproven)} (milp_bound is its "
                     "lower bound; the McCormick relaxation is weak).")
    out.table("speedup", rows, COLUMNS,
              caption="Optimal heterogeneous sharding ratios vs even and FLOP/s-proportional splits",
              notes=notes,
              formats={"even": ".5g", "proportional": ".5g", "alternate": ".5g", "opt": ".5g", "milp_bound": ".5g",
                       "speedup_vs_even": ".3f", "speedup_vs_proportional": ".3f", "alternate_over_best": ".4f",
                       "rounding_loss": ".3g", "rounding_bound": ".3g", "milp_s": ".1f"})


EXPERIMENT = Experiment(
    id="T12",
    title="HAP: optimal sharding ratios vs even and proportional splits on GPU mixes",
    paper="HAP, EuroSys'24 (arXiv 2401.05965; code alibaba/hap)",
    formulation="[code] HAP's cost model and ratio LP (units fixed); [ours] joint McCormick MILP",
    cells=cells, run_cell=run_cell, report=report,
    requires_data=(GAVEL_FILE, GRAPH_DIR + "resnet50_training.json"),
    quick_budget_s=180.0,
    methods=("hetero-sharding/milp", "hetero-sharding/alternate", "hetero-sharding/milp-round",
             "hetero-sharding/proportional", "hetero-sharding/even"),
    instance_family="HAP transformer (12 layers) and dnn-partitioning layer graphs (12 stages) on 8 GPUs of "
                    "2-3 Gavel types",
    settings=f"milp: mip_rel_gap 0, {TIME_LIMIT_S:.0f} s safety net (flagged)",
)
