"""The Gavel-trace importer needs Gavel's throughput table, a public data set: without it the
command says so in one line and exits 2 (an input that is missing), never with a traceback; the
user's own file is read first, so an unreadable trace is reported as such even then."""

from optsched.cli import main
from tests.gavel_files import A, write_gavel_files


def test_a_missing_data_set_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    empty = tmp_path / "no-data"
    empty.mkdir()
    monkeypatch.setenv("OPTSCHED_DATA_DIR", str(empty))
    trace, _ = write_gavel_files(tmp_path, f"{A}\tcmd\t-n\t1\t1000\t5.0\t2\n")
    out = tmp_path / "i.json"
    assert main(["import", "gavel-online", str(trace), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "simulation_throughputs.json" in err[0] and "optsched data fetch" in err[0], err
    assert not out.exists()


def test_an_unreadable_trace_is_reported_before_the_missing_data(tmp_path, monkeypatch, capsys):
    empty = tmp_path / "no-data"
    empty.mkdir()
    monkeypatch.setenv("OPTSCHED_DATA_DIR", str(empty))
    assert main(["import", "gavel-online", "/dev/zero"]) == 2
    assert "device, not a file" in capsys.readouterr().err
