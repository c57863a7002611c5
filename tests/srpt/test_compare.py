"""``optsched.compare`` on srpt: its reference is a bound, and the frame says so."""

from __future__ import annotations

import optsched


def test_a_bound_reference_is_marked_as_a_bound():
    inst = optsched.generate("srpt", seed=1, preset="tiny")
    frame = optsched.compare(inst, ["fifo"])                              # srpt's reference: lb
    assert frame.loc[0, "reference_kind"] == "bound" and frame.loc[0, "ratio"] >= 1.0
