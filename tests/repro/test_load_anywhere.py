"""``optsched.repro.load`` finds the repository's ``paper_repro/results`` from the package's own
location, whatever the working directory; installed outside a checkout, a typed error says where
it looked and that ``out=`` names the folder."""

from __future__ import annotations

from pathlib import Path

import pytest

import optsched
from optsched import frames
from optsched.core.errors import InvalidOptionError
from optsched.frames import ResultsFolderNotFound, repository_results
from optsched.repro import RunOptions, run

from .tiny import write_tiny

REPO = Path(__file__).resolve().parents[2]


def test_the_results_folder_is_the_checkouts_whatever_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert repository_results() == REPO / "paper_repro" / "results"


def test_load_from_another_directory_reads_the_packages_checkout(tmp_path, monkeypatch):
    # a checkout laid out as the repository is: <root>/optsched/frames.py beside <root>/paper_repro/results
    checkout = tmp_path / "checkout"
    (checkout / "optsched").mkdir(parents=True)
    monkeypatch.setattr(frames, "__file__", str(checkout / "optsched" / "frames.py"))
    monkeypatch.setenv("TINY_CELLS", "2")
    write_tiny(tmp_path / "scripts")
    assert run(RunOptions(quick=True, jobs=1, out=checkout / "paper_repro" / "results"),
               scripts_dir=tmp_path / "scripts") == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    frame = optsched.repro.load("K1", quick=True)
    assert sorted(frame["instance"]) == [0, 1]
    assert sorted(optsched.repro_frame("K1", quick=True)["instance"]) == [0, 1]


def test_installed_outside_a_checkout_says_where_it_looked(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    (site / "optsched").mkdir(parents=True)
    monkeypatch.setattr(frames, "__file__", str(site / "optsched" / "frames.py"))
    with pytest.raises(ResultsFolderNotFound) as info:
        optsched.repro.load("T1", quick=True)
    message = str(info.value)
    assert str(site / "paper_repro" / "results") in message and "out=" in message
    assert isinstance(info.value, InvalidOptionError)  # CLI exit 2, and caught as any invalid option
    # out= names the folder and is then used as given
    with pytest.raises(InvalidOptionError, match="no results database"):
        optsched.repro.load("T1", out=tmp_path, quick=True)
