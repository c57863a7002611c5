"""Inputs that once ended in a Python traceback: each is now one line on stderr with a typed
error's exit status, and nothing is written.

* a folder where an instance file belongs (``optsched solve PROBLEM .``);
* ``optsched data fetch --from`` with something that is not a mirror URL;
* ``optsched repro --executor dask --scheduler`` at an address nobody answers (after a bounded
  ``--connect-timeout``, exit 1) or that is not an address (exit 2).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import optsched
from optsched.cli import main
from tests.declared import pick, solves_tiny_exactly

PROBLEM = pick(lambda p: solves_tiny_exactly(p), "with a tiny preset solved exactly").name
METHOD = optsched.get_problem(PROBLEM).default_method


def _one_line(capsys, code, status, *words, progress: bool = False):
    """The one error line (after ``repro``'s progress lines when ``progress``)."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == status, (code, err[-800:])
    if progress:  # the error is the last line, the only one of its kind
        errors = [line for line in lines if line.startswith("optsched: error: ")]
        assert lines[-1:] == errors, err[-800:]
        lines = errors
    assert len(lines) == 1 and lines[0].startswith("optsched: error: "), err[-800:]
    assert "Traceback" not in err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("folder", [".", "..", "/", "tmp"])
@pytest.mark.parametrize("verb", ["solve", "check", "compare"])
def test_a_folder_as_the_instance_is_one_line(verb, folder, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    where = str(tmp_path) if folder == "tmp" else folder
    argv = {"solve": ["solve", PROBLEM, where, "--method", METHOD, "--quiet"],
            "check": ["check", PROBLEM, where, where],
            "compare": ["compare", PROBLEM, where, "--methods", METHOD, "--quiet", "-o", str(tmp_path / "c.csv")]}[verb]
    _one_line(capsys, main(argv), 2, "(file)")
    assert list(tmp_path.iterdir()) == []


def test_load_instance_of_a_folder_is_a_typed_error(tmp_path):
    from optsched.core.errors import InvalidInstanceError

    for path in (".", tmp_path):
        with pytest.raises(InvalidInstanceError):
            optsched.load_instance(path)


@pytest.mark.parametrize("mirror", ["::bogus::", "not a url", "/a/local/folder", "file:///tmp/x", "https://",
                                    "http://[unbalanced", "gopher://example.org/data"])
def test_data_fetch_from_something_that_is_not_a_mirror_url(mirror, tmp_path, capsys):
    from optsched.core.datasets import DATASETS

    target = tmp_path / "data"
    code = main(["data", "fetch", sorted(DATASETS)[0], "--dir", str(target), "--from", mirror])
    _one_line(capsys, code, 2, "'--from'")
    assert not target.exists()  # refused before the data directory is even created


def test_a_mirror_url_is_accepted_by_the_check():
    from optsched.core.datasets import check_mirror

    for url in ("https://example.org/optsched-data", "http://127.0.0.1:8000/", "ftp://mirror.example.org/d",
                "sftp://host/d"):
        check_mirror(url)


# ---- repro on a dask scheduler that does not answer ---------------------------------------------
@pytest.fixture
def tiny_repro(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from tests.repro.tiny import write_tiny

    write_tiny(tmp_path / "paper_repro")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_unreachable_scheduler_is_one_line_after_the_connect_timeout(tiny_repro, capsys):
    """Nothing listens on 127.0.0.1:1 (a privileged port): the join gives up after the connect
    timeout (0.5 s here; default 10 s, not dask's 30 s) with one line and exit 1."""
    code = main(["repro", "--quick", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1",
                 "--connect-timeout", "0.5", "--out", "out"])
    line = _one_line(capsys, code, 1, "cannot reach the dask scheduler at tcp://127.0.0.1:1", "within 0.5 s",
                     progress=True)
    assert "--connect-timeout" in line


def test_the_executor_itself_raises_a_typed_error(tiny_repro):
    from optsched.repro.executors import SchedulerUnreachable, make_executor

    with pytest.raises(SchedulerUnreachable, match="within 0.2 s"):
        make_executor("dask", 1, "tcp://127.0.0.1:1", connect_timeout=0.2)


@pytest.mark.parametrize("argv, option", [
    (["--scheduler", "::bogus::"], "'--scheduler'"),
    (["--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "0"], "'--connect-timeout'"),
    (["--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "-1"], "'--connect-timeout'"),
    (["--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "nan"], "'--connect-timeout'"),
    (["--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "1e9"], "'--connect-timeout'"),
    (["--connect-timeout", "1"], "'--connect-timeout'"),
])
def test_a_malformed_scheduler_or_timeout_is_invalid_input(tiny_repro, capsys, argv, option):
    code = main(["repro", "--quick", "--executor", "dask", *argv, "--out", "out"])
    _one_line(capsys, code, 2, option, progress=True)
    assert not math.isnan(code) and not (Path("out") / "quick" / "index.md").exists()
