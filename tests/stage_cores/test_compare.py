"""``optsched.compare`` on stage-cores: a ratio known by hand."""

from __future__ import annotations

import pytest

import optsched


def cores_case():
    """Two stages with 1 and 3 items/s per core, 4 cores: the equal split (2, 2) gives
    min(2, 6) = 2 items/s, the best split (3, 1) gives min(3, 3) = 3: ratio OPT/ALG = 1.5."""
    from optsched.problems.stage_cores.instance import StageCoresInstance

    return StageCoresInstance(stages=["sample", "fetch"], rate_per_core=[1.0, 3.0], cores=4, name="two-stages")


def test_known_ratios():
    cores = optsched.compare(cores_case(), ["equal", "greedy"])         # default reference: milp
    by = cores.set_index("method")
    assert by.loc["equal", "objective"] == pytest.approx(2.0)
    assert by.loc["equal", "ratio"] == pytest.approx(1.5)
    assert by.loc["greedy", "ratio"] >= 1.0 - 1e-12
