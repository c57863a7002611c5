"""SMD's sum-of-ratios outer loop alone (``target_gap = inf``: no branch and bound), whose steps the
certification would otherwise hide: each documented step must still show.

The outer loop has no guarantee, so its quality is guarded like ``instances/quality``: a recorded
table (``outer_loop_values.json``) of its value on fixed generated instances, which a change may not
worsen beyond 1e-6 relative (every step is deterministic; the tolerance is the core's between two
computations of one objective). Regenerate after a deliberate change and review the diff::

    PYTHONPATH=$PWD python -m tests.smd.test_outer_loop --record
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import optsched
from optsched.core.solving import objective_tolerance
from optsched.problems.smd import generate
from optsched.problems.smd.generate import PRESETS

TABLE = Path(__file__).with_name("outer_loop_values.json")
OUTER_ONLY = {"target_gap": float("inf")}
#: the recorded instances: smd-small at three tightnesses and a few smd-medium seeds
INSTANCES = ([("smd-small", 0.5, s) for s in range(30)] + [("smd-small", 0.8, s) for s in range(10)]
             + [("smd-small", 0.3, s) for s in range(10)] + [("smd-medium", 0.5, s) for s in range(3)])


def _instance(preset: str, tightness: float, seed: int):
    return generate(seed, **{**PRESETS[preset], "tightness": tightness})


def _record() -> list[dict]:
    rows = []
    for preset, tightness, seed in INSTANCES:
        inst = _instance(preset, tightness, seed)
        r = optsched.solve(inst, "smd", options=OUTER_ONLY)
        rows.append({"preset": preset, "tightness": tightness, "seed": seed, "sha256": inst.sha256(),
                     "outer_value": r.objective, "opt": optsched.solve(inst, "milp").objective})
    return rows


@pytest.fixture(scope="module")
def table() -> list[dict]:
    return json.loads(TABLE.read_text())["rows"]


def test_outer_loop_not_worse_than_recorded(table):
    worse = []
    for row in table:
        inst = _instance(row["preset"], row["tightness"], row["seed"])
        assert inst.sha256() == row["sha256"], f"the generator changed: {row['preset']} seed {row['seed']}"
        r = optsched.solve(inst, "smd", options=OUTER_ONLY)
        assert r.stats["bnb_nodes"] == 0 and r.stats["certify"] in ("certified", "not_asked")
        if r.objective > row["outer_value"] + objective_tolerance(row["outer_value"]):
            worse.append(f"{row['preset']} t={row['tightness']} seed {row['seed']}: {r.objective} > {row['outer_value']}")
    assert not worse, "\n".join(worse)


def test_recorded_table_can_catch_a_worse_outer_loop(table):
    """The table is not vacuous: on many recorded instances the outer loop stops above OPT, and
    OPT is never above a recorded value."""
    above = [r for r in table if r["outer_value"] > r["opt"] + objective_tolerance(r["opt"])]
    assert len(above) >= 10
    assert all(r["outer_value"] >= r["opt"] - objective_tolerance(r["opt"]) for r in table)


def test_polish_changes_the_outer_loop_result():
    """smd-small seed 118: the greedy polish of the inner solutions gives a better outer-loop value
    (it rarely does: seed 118 is the only one of seeds 0-159 of the portable generator where it
    changes the value; tests/test_quality.py's smd rows show it at the recorded tightnesses)."""
    inst = generate(118, **PRESETS["smd-small"])
    with_polish = optsched.solve(inst, "smd", options=OUTER_ONLY)
    without = optsched.solve(inst, "smd", options={**OUTER_ONLY, "polish": False})
    assert with_polish.objective < without.objective - objective_tolerance(without.objective)


def test_outer_loop_bound_is_reported_without_branch_and_bound():
    """target_gap = inf still reports the Lagrangian bound and the honest gap."""
    inst = generate(3, **PRESETS["smd-small"])
    opt = optsched.solve(inst, "milp").objective
    r = optsched.solve(inst, "smd", options=OUTER_ONLY)
    assert r.bound is not None and r.bound <= opt + objective_tolerance(opt)
    assert r.gap is not None and r.gap >= 0


if __name__ == "__main__" and "--record" in sys.argv:
    TABLE.write_text(json.dumps({"what": "smd outer loop alone (target_gap = inf): value per instance; "
                                         "opt: the milp optimum", "rows": _record()}, indent=1) + "\n")
    print(f"wrote {TABLE}")
