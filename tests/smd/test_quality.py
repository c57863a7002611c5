"""smd's documented steps that a method exposes as an option, switched off: the recorded
instances (``instances/quality/smd.json``, checked by ``tests/test_quality.py``) must show the
difference, a worse value on at least one of them. Steps without an option are switched off by
source mutations in ``tests/mutations.py`` (category ``step``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from optsched.quality import load_table, regressions

ROOT = Path(__file__).resolve().parents[2] / "instances" / "quality"

#: (method, the options that switch a step off)
STEP_OPTIONS = [
    # greedy polish of every inner solution, seen on the reconstructed loop alone (the
    # certification that follows it would otherwise hide the difference)
    ("smd", {"polish": False, "target_gap": float("inf")}),
    ("lp-round", {"fill": False}),            # greedy fill of the rounded jobs
]


@pytest.mark.parametrize("method,options", STEP_OPTIONS, ids=[f"{m}-{next(iter(o))}" for m, o in STEP_OPTIONS])
def test_each_optional_step_changes_a_recorded_result(method, options):
    table = load_table(ROOT, "smd")
    assert regressions(table, methods=[method], options=options), \
        f"switching off {options} of {method} changes no recorded value: the instances do not exercise it"
