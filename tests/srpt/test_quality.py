"""srpt's documented steps that a method exposes as an option, switched off: the recorded
instances (``instances/quality/srpt.json``, checked by ``tests/test_quality.py``) must show the
difference, a worse value on at least one of them. Steps without an option are switched off by
source mutations in ``tests/mutations.py`` (category ``step``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from optsched.quality import load_table, regressions

ROOT = Path(__file__).resolve().parents[2] / "instances" / "quality"

#: (method, the options that switch a step off)
STEP_OPTIONS = [
    ("a-srpt", {"preemption": False}),       # preemption by the virtual SRPT order
]


@pytest.mark.parametrize("method,options", STEP_OPTIONS, ids=[f"{m}-{next(iter(o))}" for m, o in STEP_OPTIONS])
def test_each_optional_step_changes_a_recorded_result(method, options):
    table = load_table(ROOT, "srpt")
    assert regressions(table, methods=[method], options=options), \
        f"switching off {options} of {method} changes no recorded value: the instances do not exercise it"
