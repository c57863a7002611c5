"""mknap on the command line: its listing, its bound-violating selection, its field paths, its
OR-Library importer, its exported model and its large output into a closed pipe, through the CLI; HiGHS' progress callbacks on its hard preset (the problem-free CLI cases:
``tests/test_cli.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import optsched
from optsched.cli import main
from optsched.core.backends import highs as highs_backend
from optsched.problems.mknap import MknapInstance, generate

ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.json"
    generate(3, items=8, rows=2).save(path)
    return path


def test_methods_listing_shows_the_lp_round_guarantee(capsys):
    code, out, _ = run(capsys, "methods", "mknap")
    assert code == 0 and "lp-round" in out and "ALG >= OPT / (m + 1)" in out and "classical" in out


def test_generator_options_on_the_command_line(capsys, tmp_path):
    inst_path = tmp_path / "i.json"
    code, _, _ = run(capsys, "generate", "mknap", "--seed", "4", "--items", "10", "--rows", "2", "-o", str(inst_path))
    assert code == 0 and MknapInstance.load(inst_path).num_items == 10


def test_check_reports_violations_with_status_1(capsys, tiny, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"selected": list(range(8))}))
    code, out, _ = run(capsys, "check", "mknap", str(tiny), str(bad))
    assert code == 1 and "violation" in out


def test_invalid_weight_exits_2_naming_its_path(capsys, tiny, tmp_path):
    data = json.loads(tiny.read_text())
    data["weights"][0][0] = -5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code, out, err = run(capsys, "solve", "mknap", str(bad))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "mknap" in err and repr("weights[0][0]") in err and "Traceback" not in err


def test_truncated_orlib_exits_2(capsys, tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("1\n3 1 0\n 1 2 3\n 1 1\n")
    code, _, err = run(capsys, "import", "orlib-mknap", str(path), "--index", "0", "-o", str(tmp_path / "o.json"))
    assert code == 2 and "ends early" in err and err.count("\n") == 1


def test_export_writes_mps(capsys, tiny, tmp_path):
    out_path = tmp_path / "model.mps"
    code, out, _ = run(capsys, "export", "mknap", str(tiny), "-o", str(out_path))
    assert code == 0 and "8 columns (8 integer), 2 rows" in out
    text = out_path.read_text()
    assert "ROWS" in text and "COLUMNS" in text and "BOUNDS" in text
    # the MPS file is a faithful model: HiGHS reading it back finds the same optimum
    import highspy
    import optsched

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(out_path))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(
        optsched.solve(MknapInstance.load(tiny), "milp").objective, rel=1e-9)


@pytest.mark.load_sensitive
def test_broken_pipe():
    from tests.core.patience import patient

    # a large output of the generator (3000 items, 30 rows) (about 1 MB, far beyond a pipe buffer) into a reader that stops after 10 bytes
    cmd = f"{sys.executable} -m optsched.cli generate mknap --items 3000 --rows 30 | head -c 10"
    p = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd + "; echo \" rc=${PIPESTATUS[0]}\""],
                       capture_output=True, text=True, env=ENV, timeout=patient(120.0))  # a guard only
    assert "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr, p.stderr
    assert p.stdout.strip().endswith("rc=141"), p.stdout  # documented: as SIGPIPE would


def test_highs_callbacks_report_improving_incumbents_up_to_the_final_one():
    """A MIP solve stopped by a node limit (deterministic, no clock): the listener hears every
    improving incumbent, each no better than the bound, the last one equal to the result's."""
    inst = optsched.generate("mknap", seed=1, preset="hard")
    infos: list[dict] = []
    with highs_backend.progress_listener(infos.append):
        result = optsched.solve(inst, "milp", node_limit=50)
    assert infos and result.objective is not None
    found = [i["incumbent"] for i in infos if i["incumbent"] is not None]
    assert found == sorted(found)          # maximization: the incumbent only improves
    # every improving solution is heard, not only those an interrupt check happens to see: HiGHS
    # (deterministic: one thread, fixed seed) finds 6 here, the interrupt callback alone sees 3
    assert len(set(found)) >= 5
    for info in infos:
        if info["incumbent"] is not None and info["bound"] is not None:
            assert info["incumbent"] <= info["bound"] + 1e-6 * abs(info["bound"])  # solver tolerance
            assert info["gap"] == pytest.approx(abs(info["bound"] - info["incumbent"]) / abs(info["incumbent"]))
    assert found[-1] == pytest.approx(result.objective, rel=1e-9)
    assert highs_backend._PROGRESS_LISTENERS == []
