"""The reference instances in ``instances/pipeline_partition/`` still have their recorded optimum."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import optsched
from optsched.problems.pipeline_partition import PipelinePartitionInstance

FOLDER = Path(__file__).resolve().parents[2] / "instances" / "pipeline_partition"
REFERENCES = json.loads((FOLDER / "reference.json").read_text())["references"]


@pytest.mark.parametrize("ref", REFERENCES, ids=[r["file"] for r in REFERENCES])
def test_reference_optimum(ref):
    inst = PipelinePartitionInstance.load(FOLDER / ref["file"])
    assert inst.sha256() == ref["instance_sha256"]
    for method in ("subset-dp", "milp"):
        r = optsched.solve(inst, method)
        assert r.status == "optimal"
        # 1e-9 relative: exact methods; only the order of float sums differs between routes
        assert r.objective == pytest.approx(ref["optimum"], rel=1e-9), method
    assert optsched.check(inst, ref["solution"]).objective == pytest.approx(ref["optimum"], rel=1e-12)
