"""No option is silently clamped: an out-of-range option is an error naming it (exit 2, one line),
in the API as on the command line; a device read as a file is refused, never read without end."""

from __future__ import annotations

import math
import os

import pytest

import optsched
from optsched.cli import main
from optsched.core.errors import InvalidOptionError
from optsched.core.params import MAX_THREADS
from tests.declared import exact_model_method, pick, solves_tiny_exactly

#: the problem of the cases: a ``tiny`` preset and an exact back-end method that proves its optimum
PROBLEM = pick(solves_tiny_exactly, "with a tiny preset solved exactly on a back-end").name
EXACT = exact_model_method(optsched.get_problem(PROBLEM))
#: every registered import format
IMPORTERS = sorted(name for prob in optsched.core.registry.problems().values() for name in prob.importers)


@pytest.fixture(scope="module")
def instance_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("ranges") / "instance.json"
    path.write_text(optsched.generate(PROBLEM, seed=0, preset="tiny").dumps())
    return str(path)


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("value", ["1e6", "1000000", str(MAX_THREADS + 1), "0", "-1", "two"])
def test_threads_out_of_range_is_an_error(instance_file, capsys, value):
    assert main(["solve", PROBLEM, instance_file, "--method", EXACT, "--quiet", "--threads", value]) == 2
    assert "--threads" in one_line_error(capsys)


def test_threads_at_the_bounds_are_accepted(instance_file, capsys):
    assert main(["solve", PROBLEM, instance_file, "--method", EXACT, "--quiet", "--threads", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("setting,value", [("threads", 10 ** 6), ("threads", 0), ("threads", 2.0), ("threads", True),
                                           ("mip_rel_gap", math.nan), ("mip_rel_gap", -0.1), ("mip_rel_gap", math.inf),
                                           ("node_limit", -1), ("node_limit", 1.5), ("seed", 1.5),
                                           ("time_limit", math.inf), ("time_limit", 0), ("time_limit", "5")])
def test_the_api_refuses_the_same_settings(setting, value):
    inst = optsched.generate(PROBLEM, seed=0, preset="tiny")
    with pytest.raises(InvalidOptionError) as err:
        optsched.solve(inst, EXACT, **{setting: value})
    assert err.value.field == setting


@pytest.mark.parametrize("value", ["1000000", str(MAX_THREADS + 1)])
def test_repro_jobs_beyond_the_bound_is_an_error(tmp_path, capsys, value):
    assert main(["repro", "--quick", "--only", "T1", "--jobs", value, "--out", str(tmp_path)]) == 2
    assert "--jobs" in one_line_error(capsys)
    assert not any(tmp_path.iterdir())


@pytest.mark.skipif(not os.path.exists("/dev/urandom"), reason="no /dev/urandom on this system")
@pytest.mark.parametrize("argv", [["solve", PROBLEM, "/dev/urandom", "--quiet"],
                                  ["check", PROBLEM, "/dev/urandom", "/dev/urandom"]]
                         + [["import", fmt, device] for fmt in IMPORTERS for device in ("/dev/urandom", "/dev/zero")],
                         ids=lambda argv: "-".join(a.rsplit("/", 1)[-1] for a in argv[:3]))
def test_a_device_is_refused_in_one_line(argv, capsys):
    assert main(argv) == 2
    assert "device, not a file" in one_line_error(capsys)


def test_a_pipe_is_still_read(instance_file, capsys):
    read, write = os.pipe()
    with open(instance_file, "rb") as f:
        data = f.read()
    assert len(data) < 60_000  # fits a pipe's buffer: no writer thread needed
    os.write(write, data)
    os.close(write)
    try:
        assert main(["solve", PROBLEM, f"/dev/fd/{read}", "--method", EXACT, "--quiet"]) == 0
    finally:
        os.close(read)
    assert "optimal" in capsys.readouterr().out
