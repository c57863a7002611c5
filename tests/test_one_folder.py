"""No problem is named outside its folder: the one-folder promise, checked on the repository text.

For every registered problem, its name (e.g. ``ab-cd``) and its folder's name (``ab_cd``) must
not occur, as a whole word, in any tracked text file of the
repository (the package's shared layers and every *other* problem's folder, the tests of shared
code, the docs pages and the site's build code, the benchmarks, the ``Makefile``, ``README.md``,
``pyproject.toml``, ...), except:

* in the problem's own folder ``optsched/problems/<folder>/`` (its code, page ``README.md``, docs
  fragments ``docs/<topic>.md``, repro tables ``repro.py``, notebooks ``examples/``) and its tests
  ``tests/<folder>/`` (its tests, benchmarks ``bench_*.py``, mutants ``mutants.py``, golden files);
* in generated files, which carry a problem's name as data: the stored data ``instances/`` and its
  quality tables (``make instances``), the repro results ``paper_repro/results/`` (``make repro``),
  the figures ``docs/img/`` (``make figures``), and what ``python -m optsched.docs_build`` writes:
  the cross-cutting pages (:func:`optsched.docs_build.cross_pages`), the registered-guarantee table
  of ``docs/guarantees.md`` and the marked blocks of ``README.md``; and the tables' index
  ``paper_repro/README.md`` (``python -m optsched.repro.readme``)
  (:func:`optsched.docs_build.strip_generated`); tests check that each is fresh;
* in docstring examples (``>>>`` lines and their expected output): they run as doctests and must
  name a real problem to run, so a renamed problem fails them instead of leaving stale text;
* on the lines of :data:`ALLOWED`, each with its reason (data-format tags and external names that
  happen to equal a problem's name).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import optsched

ROOT = Path(__file__).resolve().parents[1]
#: tracked files read as text (the rest are binary: figures, pickles, compressed data)
TEXT = (".py", ".toml", ".md", ".txt", ".json", ".cfg", ".ipynb", ".yml", ".yaml", ".csv", ".rst", ".cff", ".lock",
        "Makefile", "/run")
#: generated folders (see the module docstring)
GENERATED_DIRS = ("instances/", "paper_repro/results/", "docs/img/")
#: generated files outside them: the tables' index (``python -m optsched.repro.readme``)
GENERATED_FILES = ("paper_repro/README.md",)

#: (path, how the line starts, why it may name a problem); kept short. Keyed by the line's start
#: so that this list itself names no problem.
ALLOWED = {
    ("optsched/pipeline/partition/instance.py", "FORMAT = "):
        "the chain-partition plan format's tag, in every stored plan file and seeded draw since "
        "before the format moved into the shared layer (changing it changes their bytes)",
    ("optsched/simulation/pipeline.py", "PROBLEM = "):
        "the first word of the pipeline simulator's user-visible errors, the schedule format's name",
    ("optsched/core/datasets.py", "DataSet("):
        "a public data set's name and its directory under OPTSCHED_DATA_DIR (the shared data layout)",
}


def _tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [f for f in out.stdout.split() if f.endswith(TEXT) and not f.startswith(GENERATED_DIRS)
            and f not in GENERATED_FILES and (ROOT / f).is_file()]


def _generated_pages() -> set[str]:
    """The docs pages ``python -m optsched.docs_build`` writes whole."""
    from optsched.docs_build import cross_pages

    return {path.resolve().relative_to(ROOT).as_posix() for path in cross_pages(ROOT)}


def _blank(match: re.Match) -> str:
    return "\n" * match.group(0).count("\n")


def hand_written(path: str, text: str) -> str:
    """``text`` with its generated blocks blanked (line numbers kept): the registered-guarantee
    table of ``docs/guarantees.md`` and the marked blocks of ``README.md``."""
    text = re.sub(r"<!-- BEGIN registered guarantees .*?<!-- END registered guarantees -->", _blank, text, flags=re.S)
    return re.sub(r"<!-- BEGIN generated:([\w-]+) .*?<!-- END generated:\1 -->", _blank, text, flags=re.S)


def _pattern(names: list[str]) -> re.Pattern:
    """A whole-word match of any of ``names``: not inside a longer name (``smd-small``,
    ``mknapcb1``, ``a-srpt``, ``intra_op_parallelism``)."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_-])({alternatives})(?![A-Za-z0-9_])(?!-[a-z])")


def _lines_outside_doctests(text: str):
    """(number, line) of every line that is not a docstring example or its expected output."""
    in_example = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith((">>>", "... ")) or stripped == "...":
            in_example = True
            continue
        if in_example and stripped and not stripped.startswith('"""'):
            continue  # expected output of the example above
        in_example = False
        yield number, line


def registered_names() -> dict[str, str]:
    """``{name or folder name: folder}`` of every registered problem."""
    owners = {}
    for name, problem in optsched.core.registry.problems().items():
        folder = (problem.package or "").rsplit(".", 1)[-1] or name.replace("-", "_")
        owners[name] = owners[folder] = folder
    return owners


def mentions(files: list[str], owners: dict[str, str] | None = None) -> list[str]:
    """Every line of ``files`` naming a problem (``owners``: name or folder name -> folder; default
    every registered problem's) outside its folder and tests, not allowed."""
    owners = registered_names() if owners is None else owners
    pattern = _pattern(list(owners))
    found = []
    for path in files:
        text = hand_written(path, (ROOT / path).read_text(errors="replace"))
        for number, line in _lines_outside_doctests(text):
            for match in pattern.finditer(line):
                folder = owners[match.group(1)]
                if path.startswith((f"optsched/problems/{folder}/", f"tests/{folder}/")):
                    continue
                if any(path == where and line.strip().startswith(start) for where, start in ALLOWED):
                    continue
                found.append(f"{path}:{number}: {line.strip()[:120]}")
    return found


def test_no_problem_is_named_outside_its_folder():
    generated = _generated_pages()
    found = mentions([f for f in _tracked() if f not in generated])
    assert not found, "a problem named outside its folder:\n" + "\n".join(found)


def test_the_check_finds_a_name_and_ignores_longer_words(tmp_path, monkeypatch):
    """The matcher itself, on two made-up problems ``ab-cd`` (folder ``ab_cd``) and ``ef``: a shared
    file naming one is caught; longer words, the problem's own folder and tests, doctest output and
    generated blocks are not."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    owners = {"ab-cd": "ab_cd", "ab_cd": "ab_cd", "ef": "ef"}
    shared = tmp_path / "optsched" / "chain" / "x.py"
    shared.parent.mkdir(parents=True)
    shared.write_text('"""Used by ``ab-cd``.\n\n'
                      '>>> f("ef")\n\'ef/milp\'\n"""\n'
                      'PRESET = "ab-cd-small"  # efcb1, x-ef, ab_cd_more\n'
                      'from optsched.problems.ef import x\n'
                      'import optsched.problems.ab_cd.model\n'
                      'PATH = "optsched/problems/ef/plot.py"\n')
    own = tmp_path / "optsched" / "problems" / "ef" / "y.py"
    own.parent.mkdir(parents=True)
    own.write_text('NAME = "ef"\n')
    tests = tmp_path / "tests" / "ab_cd" / "test_z.py"
    tests.parent.mkdir(parents=True)
    tests.write_text('NAME = "ab-cd"\n')
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- BEGIN generated:problems (x) -->\n| ef |\n<!-- END generated:problems -->\nsee ef\n")
    found = mentions(["optsched/chain/x.py", "optsched/problems/ef/y.py", "tests/ab_cd/test_z.py", "README.md"],
                     owners)
    assert [":".join(f.split(":")[:2]) for f in found] == [
        "optsched/chain/x.py:1", "optsched/chain/x.py:7", "optsched/chain/x.py:8", "optsched/chain/x.py:9",
        "README.md:5"], found


def test_every_allowed_line_still_exists():
    """An allowance for a line that is gone is removed, so the list stays short."""
    for path, start in ALLOWED:
        assert any(l.strip().startswith(start) for l in (ROOT / path).read_text().splitlines()), (path, start)
