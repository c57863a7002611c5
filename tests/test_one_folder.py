"""No problem is named outside its folder: the one-folder promise, checked on the repository text.

For every registered problem, its name (``pipeline-partition``) and its folder's name
(``pipeline_partition``) must not occur, as a whole word, in any tracked file of the package
``optsched/`` (every shared layer, the command line, the docs and repro machinery, and every
*other* problem's folder), in ``pyproject.toml`` nor in the docs site's build code (``docs/_ext/``,
``docs/conf.py``), except:

* in the problem's own folder ``optsched/problems/<folder>/`` and its tests ``tests/<folder>/``;
* in a path of a docs page, ``docs/<page>.md``: a page is documentation, which may cover several
  problems (BGL's three problems share ``docs/graph_partition.md``); citing it names no problem;
* in docstring examples (``>>>`` lines and their expected output): they run as doctests and must
  name a real problem to run, so a renamed problem fails them instead of leaving stale text;
* on the lines of :data:`ALLOWED`, each with its reason.

Scope, decided here: the package, its build file and the site's build code, which hold no
generated docs. Not checked yet (they still name problems): ``README.md`` and the hand-written
``docs/*.md`` pages, which describe problems by name; the experiment scripts ``paper_repro/``,
``benchmarks/`` and ``notebooks/``, consumers above the package that compare problems; the
cross-problem tests (``tests/test_cli*.py``, ``tests/mutations.py``, ...); the ``Makefile`` (its
list of the tests that need jax). Generated, and so outside the promise: the stored data
``instances/<folder>/`` and quality tables (``make instances``), the repro tables (``make
repro``), ``docs/img/<folder>.png`` (``make figures``) and ``docs/guarantees.md`` (``python -m
optsched.docs_build``), which carry a problem's name as data.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import optsched

ROOT = Path(__file__).resolve().parents[1]
SCOPE = ("optsched", "pyproject.toml", "docs/_ext", "docs/conf.py")

#: (path, the exact stripped line, why it may name a problem); kept short
ALLOWED = {
    ("optsched/pipeline/partition/instance.py", 'FORMAT = "pipeline-partition"'):
        "the chain-partition plan format's tag, in every stored plan file and seeded draw since "
        "before the format moved into the shared layer (changing it changes their bytes)",
    ("optsched/simulation/pipeline.py", 'PROBLEM = "pipeline-schedule"'):
        "the first word of the pipeline simulator's user-visible errors, the schedule format's name",
    ("optsched/core/datasets.py", 'DataSet("mknap", "mknap", "talentam/AI_method_memetic_algorithm", '
                                  '"7261e27aa87913cb8284ebab5dda4bd43533e64f",'):
        "a data set's name and its directory under OPTSCHED_DATA_DIR (the shared data layout)",
}


def _tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", *SCOPE], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [f for f in out.stdout.split() if f.endswith((".py", ".toml", ".md", ".txt", ".json", ".cfg"))]


def _pattern(names: list[str]) -> re.Pattern:
    """A whole-word match of any of ``names``: not inside a longer name (``smd-small``,
    ``mknapcb1``, ``a-srpt``, ``intra_op_parallelism``), and not a docs page's path."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_-])(?<!docs/)({alternatives})(?![A-Za-z0-9_])(?!-[a-z])")


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


def mentions(files: list[str]) -> list[str]:
    """Every line of ``files`` naming a problem outside its folder and tests, not allowed."""
    owners = {}
    for name, problem in optsched.list_problems().items():
        folder = (problem.package or "").rsplit(".", 1)[-1] or name.replace("-", "_")
        owners[name] = owners[folder] = folder
    pattern = _pattern(list(owners))
    found = []
    for path in files:
        text = (ROOT / path).read_text(errors="replace")
        for number, line in _lines_outside_doctests(text):
            for match in pattern.finditer(line):
                folder = owners[match.group(1)]
                if path.startswith((f"optsched/problems/{folder}/", f"tests/{folder}/")):
                    continue
                if (path, line.strip()) in ALLOWED:
                    continue
                found.append(f"{path}:{number}: {line.strip()[:120]}")
    return found


def test_no_problem_is_named_outside_its_folder():
    found = mentions(_tracked())
    assert not found, "a problem named outside its folder:\n" + "\n".join(found)


def test_the_check_finds_a_name_and_ignores_longer_words(tmp_path, monkeypatch):
    """The matcher itself: a shared module naming a problem is caught; longer words, docs paths and
    doctest output are not."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    shared = tmp_path / "optsched" / "chain" / "x.py"
    shared.parent.mkdir(parents=True)
    shared.write_text('"""Used by ``pipeline-partition``; see docs/pipeline_partition.md.\n\n'
                      '>>> f("mknap")\n\'mknap/milp\'\n"""\n'
                      'PRESET = "smd-small"  # mknapcb1, a-srpt\n'
                      'from optsched.problems.srpt import x\n'
                      'import optsched.problems.smd.model\n'
                      'PATH = "optsched/problems/intra_op/plot.py"\n')
    own = tmp_path / "optsched" / "problems" / "mknap" / "y.py"
    own.parent.mkdir(parents=True)
    own.write_text('NAME = "mknap"\n')
    found = mentions(["optsched/chain/x.py", "optsched/problems/mknap/y.py"])
    assert [f.split(":")[1] for f in found] == ["1", "7", "8", "9"], found


def test_every_allowed_line_still_exists():
    """An allowance for a line that is gone is removed, so the list stays short."""
    for path, line in ALLOWED:
        assert line in [l.strip() for l in (ROOT / path).read_text().splitlines()], (path, line)
