"""rar-online's Gavel trace format on traces unlike the ones in the data directory: the 10-column
layout end to end, an unknown job type, and max_workers capped to the cluster (traces:
``tests/trace_files.py``)."""

from tests.trace_files import ROWS, gavel_cli_end_to_end_without_data, gavel_unknown_job_type_is_exit_2_naming_the_line
from tests.trace_files import seven_columns as _seven_columns


def test_gavel_cli_end_to_end_without_data(tmp_path):
    gavel_cli_end_to_end_without_data(tmp_path, "gavel-trace-online", "rar-online")


def test_gavel_unknown_job_type_is_exit_2_naming_the_line(tmp_path, capsys):
    gavel_unknown_job_type_is_exit_2_naming_the_line(tmp_path, capsys, "gavel-trace-online")


def test_rar_online_caps_max_workers_and_says_so(tmp_path):
    from optsched.problems.rar_online.generate import load_gavel_online

    trace = _seven_columns(tmp_path / "big.trace", [("A3C", 1000, 0, 400), ("CycleGAN", 1000, 0, 2)])
    inst = load_gavel_online(trace)  # 20 x 8 = 160 GPUs
    assert [j.max_workers for j in inst.jobs] == [160, 2]
    assert "max_workers of 1 job(s)" in inst.provenance
    assert "capped" not in load_gavel_online(_seven_columns(tmp_path / "s.trace", ROWS)).provenance
