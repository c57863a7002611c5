"""interference-placement's Gavel trace format on traces unlike the ones in the data directory: another
trace, an unknown job type, and the default cluster grown to hold the largest job (traces:
``tests/trace_files.py``)."""

import json

import pytest

from optsched.cli import main
from optsched.core.errors import InvalidInstanceError
from tests.conftest import require_data
from tests.trace_files import ROWS, seven_columns, ten_columns


def test_gavel_snapshot_on_another_trace(tmp_path, capsys):
    require_data("throughputs/gavel/simulation_throughputs.json")
    trace = ten_columns(tmp_path / "vc.trace")
    inst = tmp_path / "x.json"
    assert main(["import", "gavel-snapshot", str(trace), "--index", "0", "-o", str(inst)]) == 0
    assert [j["gpus"] for j in json.loads(inst.read_text())["jobs"]] == [g for _, _, _, g in ROWS]  # file order
    res = tmp_path / "r.json"
    assert main(["solve", "interference-placement", str(inst), "--time-limit", "20", "-o", str(res)]) == 0
    assert main(["check", "interference-placement", str(inst), str(res)]) == 0
    bad = seven_columns(tmp_path / "u.trace", [("BERT (batch size 8)", 100, 5, 1)])
    assert main(["import", "gavel-snapshot", str(bad), "-o", str(tmp_path / "x.json")]) == 2
    assert "u.trace line 1 job_type" in capsys.readouterr().err


def test_gavel_snapshot_grows_the_default_cluster(tmp_path):
    require_data("throughputs/gavel/simulation_throughputs.json")
    from optsched.problems.interference_placement.generate import load_gavel_snapshot

    trace = seven_columns(tmp_path / "big.trace", [("A3C", 10, 0, 32), ("CycleGAN", 10, 0, 1)])
    inst = load_gavel_snapshot(trace)
    assert inst.gpus_per_server == (4,) * 8 and [j.gpus for j in inst.jobs] == [32, 1]
    with pytest.raises(InvalidInstanceError, match="line 1 scale_factor"):
        load_gavel_snapshot(trace, servers=4)
