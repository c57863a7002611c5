"""T5b (``optsched/problems/pipeline_graph/repro.py``): the files it reads from the repository are
where it looks for them, and its cells are JSON-able."""

from __future__ import annotations

import json

from tests.repro_support import load_problem_script


def test_reference_file_and_cells():
    t5b = load_problem_script("pipeline_graph")
    assert t5b.EXPERIMENT.id == "T5b"
    assert t5b.REFERENCE.is_file(), t5b.REFERENCE   # PipeDream's printed values, instances/pipeline_graph/
    assert json.loads(t5b.REFERENCE.read_text())
    quick, full = t5b.cells(True), t5b.cells(False)
    json.dumps(full)
    assert 0 < len(quick) <= len(full)
