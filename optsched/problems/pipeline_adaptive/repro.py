"""T6, part ``ada``: Ada-Grouper vs 1F1B and an oracle under bandwidth preemption.

One cell per preemption trace (``adagrouper.preemption_trace``, 4-stage example setting of
``adagrouper.example_setting``): mean iteration time (switch costs included) of fixed 1F1B, fixed
kFkB-8 (the largest group that fits), the adaptive policy and the oracle. The table's header and its
microbatch-schedule part are declared in that problem's folder; both run as one table
(``optsched repro --only T6``), and these rows draw the right panel of its figure.

What is whose: Ada-Grouper's idea [paper: Ada-Grouper abstract]; the adaptive policy, the oracle,
the cost and trace models and every number here are optsched's [ours].
"""

from __future__ import annotations

from optsched.core.solving import solve
from optsched.experiments import Experiment, ci_summary
from optsched.problems.pipeline_adaptive.generate import generate as generate_adaptive
from optsched.problems.pipeline_adaptive.instance import replay

QUICK_TRACES, FULL_TRACES = 3, 10
ADA_ITERATIONS, ADA_PERIODS, ADA_PERIOD_S, ADA_BASE_BW = 120, 60, 5.0, 1.25e9


def cells(quick: bool) -> list[dict]:
    return [{"part": "ada", "seed": s} for s in range(QUICK_TRACES if quick else FULL_TRACES)]


def _ada_row(params: dict) -> dict:
    """The registered ``pipeline-adaptive`` methods on one seeded trace (each result re-simulated
    by the problem's checker)."""
    inst = generate_adaptive(params["seed"], iterations=ADA_ITERATIONS, periods=ADA_PERIODS, period=ADA_PERIOD_S,
                             bandwidth=ADA_BASE_BW)
    row = {"part": "ada", "seed": params["seed"],
           "preempted_share": float((inst.trace.bandwidth < 0.5 * ADA_BASE_BW).mean())}
    runs = {"1f1b": ("fixed", {"group_size": 1}), "kfkb-8": ("fixed", {"group_size": 8}),
            "ada-grouper": ("ada-grouper", None), "oracle": ("oracle", None)}
    for label, (method, options) in runs.items():
        res = solve(inst, method, options=options)
        run = replay(inst, res.solution["group_sizes"])
        row[f"{label}_mean_iteration"] = res.objective / inst.iterations
        row[f"{label}_switches"] = run.switches
        row[f"{label}_memory_fraction"] = float(max(run.peak_memory / inst.setting.memory_bytes[0]))
    return row


def run_cell(params: dict, seed: int) -> dict:
    """One trace; deterministic: every policy is deterministic."""
    return _ada_row(params)


ADA_POLICIES = ("1f1b", "kfkb-8", "ada-grouper", "oracle")


def ada_summary(rows: list[dict]) -> list[dict]:
    ada = [r for r in rows if r["part"] == "ada"]
    out = []
    for label, num, den in (("ada-grouper / 1f1b", "ada-grouper", "1f1b"), ("ada-grouper / oracle", "ada-grouper", "oracle"),
                            ("oracle / 1f1b", "oracle", "1f1b"), ("kfkb-8 / oracle", "kfkb-8", "oracle")):
        ci = ci_summary([r[f"{num}_mean_iteration"] / r[f"{den}_mean_iteration"] for r in ada])
        out.append({"ratio of mean iteration times": label, "traces": ci["n"], "mean": ci["mean"],
                    "ci95_half_width": ci["ci95_half_width"], "max": ci["max"]})
    return out


def report(rows: list[dict], out) -> None:
    ada = [r for r in rows if r["part"] == "ada"]
    out.table("ada_grouper", ada_summary(rows),
              caption="Ada-Grouper under bandwidth preemption: ratios of mean iteration times (switch costs "
                      "included) over traces, mean with 95% t-interval half-width.",
              notes=["Model, policy, oracle and traces are optsched's reconstruction [ours] of Ada-Grouper's "
                     "idea [paper abstract: 4%-30% over 1F1B on its own setting; not comparable to these "
                     "synthetic numbers]. The oracle is clairvoyant but not a proven optimum; the adaptive "
                     "policy sees only bandwidths of ended periods.",
                     f"Setting: 4 stages, global batch 128, group sizes 1-8 under a memory limit, switch cost "
                     f"0.5 s, {ADA_ITERATIONS} iterations; traces of {ADA_PERIODS} periods of {ADA_PERIOD_S:.0f} s "
                     f"at {ADA_BASE_BW / 1e9:.2f} GB/s nominal. No policy exceeded memory (memory_fraction <= 1)."],
              formats={"mean": ".4f", "ci95_half_width": ".4f", "max": ".4f"})
    ada_columns = ["seed", "preempted_share"] + [f"{p}_mean_iteration" for p in ADA_POLICIES] + \
        [f"{p}_switches" for p in ("ada-grouper", "oracle")] + [f"{p}_memory_fraction" for p in ADA_POLICIES]
    out.table("ada_grouper_traces", ada, ada_columns,
              caption="Per trace: mean iteration time (s) per policy, switches, peak memory / limit.",
              formats={c: ".4f" for c in ada_columns if c not in ("seed",) and not c.endswith("switches")})
    right = getattr(out, "shared", {}).get("summary_right")
    if right is None:  # the figure's left panel (the schedule part) is not in this run
        return
    x = [r["seed"] for r in ada]
    for p, marker in zip(ADA_POLICIES, "osd^"):
        right.plot(x, [r[f"{p}_mean_iteration"] for r in ada], marker, label=p)
    right.set_xlabel("preemption trace seed")
    right.set_ylabel("mean iteration time (s)")
    right.set_xticks(x)
    right.legend()


EXPERIMENT = Experiment(
    id="T6", part="ada", order=1, title="", paper="Ada-Grouper (arXiv 2303.01675)", formulation="[ours]",
    cells=cells, run_cell=run_cell, report=report,
)


def _ada_grouper_adversary():
    from optsched.problems.pipeline_adaptive.adversary import AdaGrouperAdversary

    return AdaGrouperAdversary()


#: this problem's online methods, each with its adversary adapter, for T15's adapters part
#: (``paper_repro/t15_adapters.py``); ``order``: the row's place in that table; ``reference``: what
#: the table's note says of the ratio's reference
ADVERSARIES = [dict(method="pipeline-adaptive/ada-grouper", order=4, adapter=_ada_grouper_adversary,
                    reference="Ada-Grouper: the best hindsight choice among the oracle and fixed group sizes, "
                              "not a bound")]
