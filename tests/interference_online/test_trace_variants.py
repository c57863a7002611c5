"""interference-online's Gavel trace format on a trace unlike the ones in the data directory
(traces: ``tests/trace_files.py``)."""

import json

from optsched.cli import main
from tests.conftest import require_data
from tests.trace_files import ROWS, ten_columns


def test_gavel_online_on_another_trace(tmp_path):
    require_data("throughputs/gavel/simulation_throughputs.json")
    trace = ten_columns(tmp_path / "vc.trace")
    inst = tmp_path / "x.json"
    assert main(["import", "gavel-online", str(trace), "--index", "0", "-o", str(inst)]) == 0
    order = sorted(ROWS, key=lambda r: r[2])  # arrival order
    assert [j["gpus"] for j in json.loads(inst.read_text())["jobs"]] == [g for _, _, _, g in order]
    res = tmp_path / "r.json"
    assert main(["solve", "interference-online", str(inst), "--time-limit", "20", "-o", str(res)]) == 0
    assert main(["check", "interference-online", str(inst), str(res)]) == 0
