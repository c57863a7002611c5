"""The reference instances in ``instances/pipeline_partition/`` still have their recorded optimum
through the exact routes other than the one that recorded it (``tests/test_instances.py``
re-derives the recorded one), and the stored optimal plan still evaluates to it."""

from __future__ import annotations

from pathlib import Path

import pytest

import optsched
from optsched.core.references import read_reference

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "pipeline_partition"
FILES = sorted(FOLDER.glob("*.json"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_reference_optimum(path):
    inst, ref = read_reference(path)
    for backend in ("highs", "scipy"):
        r = optsched.solve(inst, "milp", backend=backend)
        assert r.status == "optimal"
        # 1e-9 relative: exact methods; only the order of float sums differs between routes
        assert r.objective == pytest.approx(ref["value"], rel=1e-9), backend
    assert optsched.check(inst, ref["solution"]).objective == pytest.approx(ref["value"], rel=1e-12)


def test_there_are_reference_instances():
    assert len(FILES) >= 3
