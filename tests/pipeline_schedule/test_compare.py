"""``optsched.compare`` on pipeline-schedule: a method that does not apply gets a row saying why."""

from __future__ import annotations

import optsched


def test_a_method_that_does_not_apply_gets_a_row_saying_why():
    inst = optsched.generate("pipeline-schedule", seed=0, preset="hetero-small")
    frame = optsched.compare(inst, ["gpipe", "1f1b"], reference=1.0)
    gpipe = frame.set_index("method").loc["gpipe"]
    assert gpipe["status"] == "not_applicable" and "in flight" in gpipe["reason"] and gpipe["ratio"] != gpipe["ratio"]
    assert frame.set_index("method").loc["1f1b", "status"] == "feasible"
