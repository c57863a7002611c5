"""The reference values stored in instances/ are reproduced by the code as it is now."""

from __future__ import annotations

from pathlib import Path

import pytest

import optsched
from optsched.core.references import read_reference

ROOT = Path(__file__).resolve().parents[1] / "instances"
QUALITY_DIR = ROOT / "quality"   # quality tables (tests/test_quality.py), not reference optima
REFERENCE_FILES = sorted(p for p in ROOT.glob("*/*.json")
                         if p.parent != QUALITY_DIR and '"reference"' in p.read_text()[:200000])


@pytest.mark.parametrize("path", REFERENCE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stored_optimum_is_reproduced(path):
    instance, reference = read_reference(path)
    if reference["kind"] != "optimum":
        pytest.skip(f"{reference['kind']} values are not re-derived here")
    result = optsched.solve(instance, reference["method"])
    assert result.status == "optimal"
    # both values are checker objectives of optimal solutions: equal up to float summation order
    assert result.objective == pytest.approx(reference["value"], rel=1e-9, abs=1e-9)
