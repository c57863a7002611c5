"""T15, part ``adapters``: every online method attacked through its adversary adapter, with its
registered guarantee (if any) checked on every input evaluated [ours].

Problem-agnostic: the methods are those every problem folder declares in the ``ADVERSARIES`` list of
its ``repro.py`` (``method``: ``"<problem>/<method>"``; ``adapter``: a function that makes the
adapter; ``order``: the row's place in the table; optionally ``reference``: what the table's note
says of the ratio's reference). The table's header and its other parts are declared in the
problems' folders; the parts run as one table (``optsched repro --only T15``).

Each method is attacked by random sampling and local search, :data:`BUDGET` evaluations each
(every evaluation solves the method and its reference, e.g. an exact MILP): 60 in the full run,
6 in the QUICK run (a smoke test of every adapter and guarantee check within the QUICK budget; its
worst ratios are far from the full run's).
"""

from __future__ import annotations

from optsched.experiments.stats import table_number as _fmt
from optsched.repro import Experiment


def declared_adversaries() -> list[dict]:
    """Every problem folder's declared adversaries, in their ``order``."""
    from optsched.repro.discovery import load_script, problem_scripts

    found = []
    for path, _ in problem_scripts():
        found += list(getattr(load_script(path), "ADVERSARIES", ()))
    return sorted(found, key=lambda d: d["order"])


#: evaluations per strategy: (full run, QUICK run)
BUDGET = (60, 6)


def cells(quick: bool) -> list[dict]:
    return [{"part": "adapters", "method": d["method"], "budget": BUDGET[1] if quick else BUDGET[0]}
            for d in declared_adversaries()]


def run_cell(params: dict, seed: int) -> dict:
    from optsched.online.guarantees import attack, attack_summary

    declared = {d["method"]: d for d in declared_adversaries()}
    adapter = declared[params["method"]]["adapter"]()
    rep = attack(adapter, strategies=("random", "local"), budget=params["budget"], seed=seed,
                 problem=params["method"].split("/")[0])
    return dict(params, **attack_summary(rep))


def report(rows: list[dict], out) -> None:
    ad = [r for r in rows if r["part"] == "adapters"]
    named = "; ".join(d["reference"] for d in declared_adversaries() if d.get("reference"))
    out.table("adapters", [{"method": r["method"], "reference": r["reference"], "budget / strategy": r["budget"],
                            "worst ratio": _fmt(r["worst_ratio"]), "ALG=0": r["zero_alg"],
                            "guarantee": r["guarantee"] or "none registered",
                            "checked on": r["checked"], "not applicable": r["not_applicable"],
                            "bound at worst": _fmt(r["guarantee_value"]), "violations": r["violations"],
                            "unchecked because": r["unchecked_because"] or "-"} for r in ad],
              caption="Every online method attacked through its adapter (random + local search, seeded); registered "
                      "guarantees checked on every evaluated input [ours]",
              notes=["ratio = REF / ALG for welfare (max) problems and ALG / REF for cost (min) problems; REF as "
                     f"named ({named})." if named else "ratio = REF / ALG for welfare (max) problems and ALG / REF "
                     "for cost (min) problems; REF as named."])


def _registered(names: list[str]) -> tuple[str, ...]:
    """The declared methods that are registered (the table's header gives their fidelity)."""
    import optsched

    problems = optsched.core.registry.problems()
    out = []
    for name in names:
        problem, method = name.split("/", 1)
        if problem in problems and method in problems[problem].methods:
            out.append(name)
    return tuple(out)


EXPERIMENT = Experiment(
    id="T15", part="adapters", order=2, title="", paper="", formulation="[ours]",
    cells=cells, run_cell=run_cell, report=report,
    methods=_registered([d["method"] for d in declared_adversaries()]),
)
