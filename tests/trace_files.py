"""Gavel traces in both layouts, written by hand, and the two checks every Gavel trace format must
pass through the command line; shared by the trace-format tests of the workloads layer and of each
problem that imports a Gavel trace."""

from __future__ import annotations

import json

from optsched.cli import main

ROWS = [("ResNet-18 (batch size 32)", 1000, 0.0, 1), ("LM (batch size 20)", 5000, 10.5, 2), ("A3C", 300, 10.5, 1),
        ("CycleGAN", 800, 3600, 4), ("Recommendation (batch size 512)", 2000, 7200, 1),
        ("Transformer (batch size 64)", 4000, 100, 8), ("ResNet-50 (batch size 128)", 1200, 50, 2)]


def ten_columns(path, rows=ROWS):
    # Gavel's scheduler/utils.py parse_trace: type, command, workdir, steps flag, needs data, steps,
    # scale factor, priority, SLO, arrival
    path.write_bytes("".join(f"{t}\tpython3 main.py\t/tmp/wd\t--num_steps\t1\t{s}.0\t{g}\t1.0\t1.2\t{a}\r\n"
                             for t, s, a, g in rows).encode())
    return path


def seven_columns(path, rows=ROWS):
    path.write_text("".join(f"{t}\tpython3 main.py\t-n\t0\t{s}\t{a}\t{g}\n\n" for t, s, a, g in rows))
    return path


def gavel_cli_end_to_end_without_data(tmp_path, fmt, problem) -> dict:
    """Import the ten-column trace with ``fmt``, solve and check it as ``problem``; return the
    imported instance's JSON."""
    trace = ten_columns(tmp_path / "vc.trace")
    inst = tmp_path / "x.json"
    assert main(["import", fmt, str(trace), "-o", str(inst)]) == 0
    doc = json.loads(inst.read_text())
    res = tmp_path / "r.json"
    assert main(["solve", problem, str(inst), "--time-limit", "20", "-o", str(res)]) == 0
    assert main(["check", problem, str(inst), str(res)]) == 0
    return doc


def gavel_unknown_job_type_is_exit_2_naming_the_line(tmp_path, capsys, fmt):
    trace = seven_columns(tmp_path / "u.trace", ROWS[:3] + [("BERT (batch size 8)", 100, 5, 1)] + ROWS[3:])
    assert main(["import", fmt, str(trace), "-o", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "u.trace line 7 job_type" in err and "'BERT'" in err and "Traceback" not in err
    assert err.count("\n") == 1
