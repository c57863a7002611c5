"""The README's examples run as written: every ``python`` block (from the repository root, as the
README says, whatever directory pytest was started in) and every ``optsched ...`` line of the
``sh`` blocks (in a fresh folder, through ``optsched.cli.main``), and every local path it names
exists. Its problem table and its examples are generated (``python -m optsched.docs_build``, from the
registry and the example each problem's folder declares): they are fresh, and the hand-written
rest names no problem (``text`` blocks hold the commands with placeholders, not run)."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README.read_text(), flags=re.S)


def test_python_examples_run_from_any_directory(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    blocks = _blocks("python")
    assert blocks, "the README has no Python example"
    for block in blocks:
        monkeypatch.chdir(ROOT)
        exec(compile(block, "README.md", "exec"), {})


def _cli_lines() -> list[str]:
    lines = []
    for block in _blocks("sh"):
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            if line.startswith("optsched "):
                lines.append(line)
    return lines


#: lines that take over 5 s on the 2-core machine: none of the generated examples today (the
#: slow variant runs every line; the fast one skips these)
HEAVY: tuple[str, ...] = ()


def _run_cli_lines(tmp_path, monkeypatch, *, heavy: bool) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from optsched.cli import main

    data = os.environ.get("OPTSCHED_DATA_DIR")
    monkeypatch.chdir(tmp_path)
    ran = 0
    for line in _cli_lines():
        if not heavy and any(h in line for h in HEAVY):
            continue
        if "$OPTSCHED_DATA_DIR" in line:
            if not data:
                continue          # needs the real data (marked in the README by the variable)
            line = line.replace("$OPTSCHED_DATA_DIR", data)
        code = main(shlex.split(line)[1:])
        assert code == 0, f"{line!r} exited {code}"
        ran += 1
    return ran


def test_command_line_examples_run_in_a_fresh_folder(tmp_path, monkeypatch):
    import optsched

    # the featured problem's walk (7 lines or more) and each problem's generate, solve, check
    assert _run_cli_lines(tmp_path, monkeypatch, heavy=False) >= 7 + 3 * len(optsched.core.registry.problems())


@pytest.mark.slow
def test_every_command_line_example_runs(tmp_path, monkeypatch):
    assert _run_cli_lines(tmp_path, monkeypatch, heavy=True) >= 10


def test_generated_blocks_are_fresh():
    from optsched.docs_build import readme_blocks, render_readme

    text = README.read_text()
    for name in readme_blocks():
        assert text.count(f"<!-- BEGIN generated:{name} ") == 1 and text.count(f"<!-- END generated:{name} -->") == 1, name
    assert render_readme(text) == text, "README.md is stale: run python -m optsched.docs_build"


def test_the_hand_written_text_names_no_problem(tmp_path, monkeypatch):
    """Outside its generated blocks, the README names no problem (placeholders stand in)."""
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    import test_one_folder

    copy = tmp_path / "README.md"
    from optsched.docs_build import strip_generated

    copy.write_text(strip_generated(README.read_text()))
    monkeypatch.setattr(test_one_folder, "ROOT", tmp_path)
    assert not test_one_folder.mentions(["README.md"])
    # and the check is not vacuous: the generated blocks do name problems, which the check finds
    # once their markers are gone (it skips only marked generated blocks)
    copy.write_text(README.read_text().replace("<!-- BEGIN generated:", "<!-- BEGIN "))
    assert test_one_folder.mentions(["README.md"])


def test_local_paths_named_in_the_readme_exist():
    text = README.read_text()
    named = set(re.findall(r"\]\(((?:docs|notebooks|paper_repro|instances|optsched)/[^)#\s]*)", text))
    named |= set(re.findall(r'"((?:instances|docs)/[^"]+\.\w+)"', text))
    assert named
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, missing


def test_readme_names_the_two_commands():
    text = README.read_text()
    assert "make test" in text and "make repro" in text


@pytest.mark.parametrize("verb", ["compare", "plot"])
def test_readme_shows_the_new_verbs(verb):
    assert f"optsched {verb} " in README.read_text()
