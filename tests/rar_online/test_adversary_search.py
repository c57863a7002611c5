"""The search adversary of rar-online against the exact optimum: its structured starts, its encoding,
the guarantee check and its ratio / factor record, and the GADGET table's adversary part."""

import math

import numpy as np
import pytest

from optsched.core.solving import solve
from optsched.problems.rar_online import THEOREM_G
from optsched.problems.rar_online.adversary import (THEOREM_G_TEMPLATE, RarOnlineAdversary, TEMPLATES,
                                                   attack_method)


def test_structured_starts_are_the_template_a_flood_then_a_burst_and_all_at_once():
    a = RarOnlineAdversary("fifo", preset=THEOREM_G_TEMPLATE)
    template, flood, together = a.starts()
    assert template == a.template
    n, half = a.template.num_jobs, a.template.num_jobs // 2
    assert [j.arrival for j in flood.jobs] == [0] * half + [1] * (n - half)
    assert [j.utility.value for j in flood.jobs] == [1.0] * half + [10.0] * (n - half)
    # the flood is 4x the template's work, the burst the template's
    assert all(f.iterations == max(1, round(t.iterations * 4)) for f, t in zip(flood.jobs[:half], template.jobs))
    assert all(f.iterations == t.iterations for f, t in zip(flood.jobs[half:], template.jobs[half:]))
    assert [j.arrival for j in together.jobs] == [0] * n
    values = [j.utility.value for j in together.jobs]
    assert values == sorted(values) and values[0] == 1.0 and values[-1] == 10.0
    # Theorem G applies on the template and on both structured inputs
    assert all(THEOREM_G.applies(i)[0] for i in (template, flood, together))


def test_encoding_recovers_the_time_scale_of_every_utility_kind():
    a = RarOnlineAdversary("gadget", preset=THEOREM_G_TEMPLATE)
    x = np.random.default_rng(3).random(len(a.bounds))
    inst = a.decode(x)
    assert {j.utility.kind for j in a.template.jobs} == {"step", "linear", "sigmoid"}
    back = a.encode(inst).reshape(4, -1)
    x = x.reshape(4, -1)
    for k, job in enumerate(a.template.jobs):
        if job.utility.kind in ("linear", "sigmoid"):
            # exact up to the float rounding of log2 (~1e-15)
            assert back[3, k] == pytest.approx(x[3, k], abs=1e-9)
        else:
            # a step deadline is rounded up by decode: the encoded scale decodes to the same deadline
            assert a.decode(a.encode(inst)).jobs[k].utility.deadline == inst.jobs[k].utility.deadline


def test_the_flood_start_is_what_finds_fifos_bad_case():
    # budget 3 with local search evaluates exactly the 3 structured starts; the flood then burst input
    # makes fifo admit the cheap long jobs first (OPT/ALG > 3; random inputs of this template give ~1.1)
    r = attack_method("fifo", "theorem-g", budget=3, seed=0, strategies=("local",), milp_time_limit=600.0)
    assert r["evaluations"] == 3 and r["worst_ratio"] > 2.0


def _by_hand(method, template):
    a = RarOnlineAdversary(method, preset=TEMPLATES[template])
    out = []
    for inst in a.starts():
        opt, alg = solve(inst, "milp").objective, solve(inst, method).objective
        out.append((opt / alg, THEOREM_G.value(inst)))
    return out


def test_ratio_over_factor_is_recorded_where_theorem_g_applies():
    r = attack_method("gadget-exact", "theorem-g", budget=3, seed=0, strategies=("local",), milp_time_limit=600.0)
    hand = _by_hand("gadget-exact", "theorem-g")
    assert r["checked"] == 3 and r["violations"] == 0 and r["not_applicable"] == 0
    assert r["worst_ratio"] == pytest.approx(max(q for q, _ in hand), rel=1e-12)
    assert r["max_ratio_over_factor"] == pytest.approx(max(q / f for q, f in hand), rel=1e-12)
    assert 0 < r["max_ratio_over_factor"] < 1
    # no guarantee applies on the small template (beta >= 2), and none is registered for fifo
    assert attack_method("gadget-exact", "small", budget=2, seed=0, strategies=("local",), milp_time_limit=600.0)["max_ratio_over_factor"] is None
    assert attack_method("fifo", "theorem-g", budget=2, seed=0, strategies=("local",), milp_time_limit=600.0)["max_ratio_over_factor"] is None


def test_a_violation_is_reported(monkeypatch):
    # a method that earned 1/1000 of what gadget-exact earns would break Theorem G (factor ~ 300 here)
    from optsched.problems.rar_online import repro

    real = RarOnlineAdversary.evaluate
    monkeypatch.setattr(RarOnlineAdversary, "evaluate",
                        lambda self, inst: (lambda ref, alg: (ref, alg / 1000))(*real(self, inst)))
    r = attack_method("gadget-exact", "theorem-g", budget=2, seed=0, strategies=("local",), milp_time_limit=600.0)
    assert r["violations"] == 2 and r["max_ratio_over_factor"] > 1
    text = repro.adversary_verdict([dict(r, part="adversary")])
    assert text.startswith("THEOREM G VIOLATED: 2 of the 2 inputs")


def test_the_verdict_when_it_holds():
    from optsched.problems.rar_online import repro

    rows = [{"checked": 4, "violations": 0, "max_ratio_over_factor": 0.004},
            {"checked": 0, "violations": 0, "max_ratio_over_factor": None}]
    assert repro.adversary_verdict(rows) == ("Theorem G held on all 4 inputs where it applies (no violation); the "
                                             "largest OPT / ALG found there is 0.004 of the guaranteed factor.")
    assert repro.adversary_verdict(rows[1:]).startswith("Theorem G was checked on no input")


class _Out:
    def __init__(self):
        self.tables = {}

    def table(self, name, rows, caption="", notes=None):
        self.tables[name] = (rows, caption, notes or [])

    def note(self, text):
        pass


def test_the_table_keeps_the_largest_ratio_per_method_over_seeds():
    from optsched.problems.rar_online import repro

    def row(method, seed, ratio, checked=0, q=None, factor=None):
        return {"part": "adversary", "template": "theorem-g", "method": method, "seed": seed, "budget": 4,
                "strategies": ["random", "local"], "worst_ratio": ratio, "by_strategy": {"random": 1.0, "local": ratio},
                "evaluations": 8, "zero_alg": 0, "checked": checked, "not_applicable": 0, "violations": 0,
                "guarantee_value": factor, "max_ratio_over_factor": q}
    rows = [row("fifo", 0, 1.5), row("fifo", 1, 3.0), row("fifo", 2, 2.0),
            row("gadget-exact", 0, 1.2, 8, 0.004, 300.0), row("gadget-exact", 1, 1.1, 8, 0.005, 310.0)]
    out = _Out()
    repro.adversary_report(rows, out)
    table, caption, notes = out.tables["adversary"]
    fifo = next(r for r in table if r["method"] == "fifo")
    assert fifo["worst OPT / ALG"] == 3.0 and fifo["found by"] == "seed 1, local" and fifo["inputs"] == 24
    exact = next(r for r in table if r["method"] == "gadget-exact")
    assert exact["worst OPT / ALG"] == 1.2 and exact["checked on"] == 16 and exact["max (OPT/ALG) / factor"] == "0.005"
    assert "seeds [0, 1, 2]" in caption and "Budget 4 evaluations per strategy" in caption
    assert notes[0].startswith("Theorem G held on all 16 inputs")


def test_quick_cells_stay_cheap():
    from optsched.problems.rar_online import repro

    ad = [c for c in repro.cells(True) if c["part"] == "adversary"]
    assert len(ad) == 8 and sum(c["budget"] * len(c["strategies"]) for c in ad) <= 40
    full = [c for c in repro.cells(False) if c["part"] == "adversary"]
    assert {c["method"] for c in full} == {"gadget", "gadget-exact", "fifo", "tiresias-las"}
    assert {c["template"] for c in full} == {"small", "theorem-g"}


@pytest.mark.parametrize("seed", [0, 1])
def test_the_lp_bound_is_above_opt_on_small_instances(seed):
    from optsched.problems.rar_online import repro

    row = repro.run_cell({"part": "small", "objective": "utility", "instance_seed": seed}, seed)
    gaps = repro.lp_gaps([row])
    # the LP relaxation bounds OPT: LP / OPT >= 1 up to the solvers' float tolerance (1e-7 relative)
    assert len(gaps) == 1 and gaps[0] >= 1 - 1e-7 and math.isfinite(gaps[0])
