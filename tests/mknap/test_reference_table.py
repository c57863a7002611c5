"""The OR-Library mknapcb1 reference table (``instances/mknap/mknapcb1.json``, ``make instances``)
matches the data file it was built from (the stored optima of every problem:
``tests/test_instances.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from optsched.core.data import DataUnavailable, data_file, sha256_file

ROOT = Path(__file__).resolve().parents[2] / "instances"


def test_mknapcb1_reference_table_matches_the_data():
    table = ROOT / "mknap" / "mknapcb1.json"
    if not table.is_file():
        pytest.skip("instances/mknap/mknapcb1.json not built (make instances with the data directory)")
    try:
        path = data_file("mknap/mknapcb1.txt")
    except DataUnavailable as exc:
        pytest.skip(f"data: {exc}")
    from optsched.problems.mknap import load_orlib

    data = json.loads(table.read_text())
    assert data["source_sha256"] == sha256_file(path)
    for entry in data["entries"]:
        inst = load_orlib(path, entry["index"])
        assert entry["best_known"] == inst.reference_value
        assert entry["optsched_status"] == "optimal"
        assert entry["optsched_optimum"] >= entry["best_known"]
        assert entry["published_lp"] is None or entry["published_lp"] >= entry["optsched_optimum"]
