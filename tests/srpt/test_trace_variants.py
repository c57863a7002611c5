"""srpt's Gavel trace format on traces unlike the ones in the data directory: the 10-column layout
end to end and an unknown job type (traces: ``tests/trace_files.py``)."""

from tests.trace_files import gavel_cli_end_to_end_without_data, gavel_unknown_job_type_is_exit_2_naming_the_line


def test_gavel_cli_end_to_end_without_data(tmp_path):
    doc = gavel_cli_end_to_end_without_data(tmp_path, "gavel-srpt", "srpt")
    assert len(doc["jobs"]) == 3  # history = first half by arrival (4 of 7 rounded), stream = the other 3


def test_gavel_unknown_job_type_is_exit_2_naming_the_line(tmp_path, capsys):
    gavel_unknown_job_type_is_exit_2_naming_the_line(tmp_path, capsys, "gavel-srpt")
