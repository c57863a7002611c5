"""T15, part ``packing``: online packing with several resources, the multi-resource variant of
learned online pricing. The table's header (the one-resource pricing game) is declared in that
problem's folder; the parts run as one table (``optsched repro --only T15``). Cells:

* ``packing-certified``: the certified staircase on one-resource streams (m = 2, 3; the LP bound
  applies because one-resource streams are packing inputs), demand on the last resource, 1/64;
* ``packing``: the search adversary (``optsched.online.adversary``, local search, 200 evaluations;
  QUICK run: 20) on multi-resource streams (no LP bound: uncertified).

Formulation [ours]; learned = the bundled m = 2 policy [reconstruction], threshold = per-resource
prices [ours]. Also declares this problem's online methods for the table's adapters part
(:data:`ADVERSARIES`).
"""

from __future__ import annotations

import math

from optsched.experiments import Experiment
from optsched.experiments.stats import table_number as _fmt

METHODS = ("threshold", "learned", "fixed-price", "greedy")
#: the certified adversary's evaluation grids
GRIDS = (20, 200)


def cells(quick: bool) -> list[dict]:
    out = []
    for m in (2, 3):
        for method in METHODS:
            out.append({"part": "packing-certified", "method": method, "resources": m})
            for family in ("free", "increasing"):
                out.append({"part": "packing", "method": method, "resources": m, "family": family,
                            "strategy": "local", "budget": 20 if quick else 200})
    return out


def _finite(x):
    return x if (x is None or math.isfinite(x)) else "inf"


def run_cell(params: dict, seed: int) -> dict:
    if params["part"] == "packing-certified":
        from optsched.problems.online_packing.certified import certify

        rep = certify(params["method"], params["resources"], 1.0, 16.0, grids=GRIDS, copies=(64,),
                      tracking=params["method"] != "learned", resource=params["resources"] - 1, milp_max=300)
        return dict(params, found=_finite(rep["found"]), lp_ratio=rep["lp_ratio"], certified=rep["certified"],
                    zero_alg=rep["zero_alg"])
    from optsched.online.guarantees import attack, attack_summary
    from optsched.problems.online_packing.adversary import PackingAdversary

    adapter = PackingAdversary(params["method"], resources=params["resources"], requests=30, family=params["family"])
    rep = attack(adapter, strategies=(params["strategy"],), budget=params["budget"], seed=seed, problem=None)
    return dict(params, **attack_summary(rep))


def report(rows: list[dict], out) -> None:
    pc = [r for r in rows if r["part"] == "packing-certified"]
    out.table("packing_certified", [{"m": r["resources"], "method": r["method"], "LP rho_200": _fmt(r["lp_ratio"]),
                                     "found": _fmt(r["found"]), "certified": r["certified"], "ALG=0": r["zero_alg"]}
                                    for r in pc],
              caption="online-packing, U/L = 16: the certified staircase on one-resource streams (demand on the last "
                      "resource, 1/64): the LP bound applies because one-resource streams are packing inputs [ours]")
    pk = [r for r in rows if r["part"] == "packing"]
    out.table("packing", [{"m": r["resources"], "method": r["method"], "family": r["family"],
                           "budget": r["budget"], "worst OPT/ALG": _fmt(r["worst_ratio"]), "ALG=0": r["zero_alg"]}
                          for r in pk],
              caption="online-packing (U/L = 16, eps = 0.1, <= 30 requests, multi-resource streams): search-adversary "
                      "worst cases, uncertified; learned = the bundled m = 2 policy [reconstruction], threshold = "
                      "per-resource prices [ours]",
              notes=["No LP bound on the optimal competitive ratio is computed for multi-resource inputs; the "
                     "one-resource rho_K is a valid lower bound for every m but not known to be attainable."])


def _packing_adversary(method: str):
    def make():
        from optsched.problems.online_packing.adversary import PackingAdversary

        return PackingAdversary(method, resources=2, requests=30)
    return make


#: this problem's online methods, each with its adversary adapter, for T15's adapters part
#: (``paper_repro/t15_adapters.py``); ``order``: the row's place in that table
ADVERSARIES = [dict(method="online-packing/learned", order=7, adapter=_packing_adversary("learned")),
               dict(method="online-packing/threshold", order=8, adapter=_packing_adversary("threshold"))]


EXPERIMENT = Experiment(
    id="T15", part="packing", order=1, title="", paper="", formulation="[ours]; learned policy [reconstruction]",
    cells=cells, run_cell=run_cell, report=report,
    methods=("online-packing/learned", "online-packing/threshold", "online-packing/milp"),
)
