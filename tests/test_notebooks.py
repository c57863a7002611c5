"""The quick-start notebooks run from top to bottom without an error and show their figures.

A problem's notebooks live in its folder, ``optsched/problems/<folder>/examples/*.ipynb`` (found
there; no list names them); every registered problem has one, ``examples/quickstart.ipynb`` (as
the README says), and each is about that problem alone: it generates, imports and names
no other problem (the one-folder promise, with the matcher of ``tests/test_one_folder.py``).

Each notebook asserts its own facts (exact methods are optimal, no method beats the optimum, a bound
is a bound), so an error in any cell, including a failed assertion, fails its test here. Executed
with ``nbclient`` on ipykernel's built-in ``python3`` kernel, which is the interpreter running
the tests, in the repository root, with small presets and no ``MPLBACKEND`` (a kernel draws inline,
as for a user); the per-cell timeout only stops a hung kernel. Every notebook must produce at least
one image, and no figure may come out as the text ``<Figure size ...>`` (a forced non-inline
backend). Each uses ``optsched.compare`` rather than a helper of its own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import optsched
from tests.test_one_folder import mentions

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "optsched" / "problems").glob("*/examples/*.ipynb"))


def _folder_of_every_name() -> dict[str, str]:
    """Every problem's name and folder name -> its folder."""
    owners = {}
    for name, problem in optsched.core.registry.problems().items():
        folder = (problem.package or "").rsplit(".", 1)[-1] or name.replace("-", "_")
        owners[name] = owners[folder] = folder
    return owners


def test_every_notebook_is_about_the_problem_of_its_folder():
    assert NOTEBOOKS, "no notebook under optsched/problems/<folder>/examples/"
    owners = _folder_of_every_name()
    for path in NOTEBOOKS:
        where, folder = path.relative_to(ROOT).as_posix(), path.parent.parent.name
        assert folder in owners.values(), f"{where}: not the folder of a registered problem"
        assert not mentions([where]), f"{where} names another problem: {mentions([where])}"
        text = "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)
        own = [name for name, owner in owners.items() if owner == folder]
        assert any(re.search(rf"(?<![A-Za-z0-9_-]){re.escape(n)}(?![A-Za-z0-9_])", text) for n in own), \
            f"{where} never names its own problem"


def test_every_problem_has_a_quickstart_notebook():
    have = {path.parent.parent.name for path in NOTEBOOKS if path.name == "quickstart.ipynb"}
    missing = sorted(set(_folder_of_every_name().values()) - have)
    assert not missing, f"problems without optsched/problems/<folder>/examples/quickstart.ipynb: {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[f"{p.parent.parent.name}/{p.stem}" for p in NOTEBOOKS])
def test_notebook_runs_and_shows_images(path, monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)
    book = nbformat.read(path, as_version=4)
    code = "\n".join(cell.source for cell in book.cells if cell.cell_type == "code")
    assert "optsched.compare(" in code and "def compare" not in code
    assert not any(cell.get("outputs") for cell in book.cells if cell.cell_type == "code"), \
        "commit notebooks without outputs"
    client = nbclient.NotebookClient(book, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    errors = [out for cell in book.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
              if out.get("output_type") == "error"]
    assert not errors
    outputs = [out for cell in book.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    images = [out for out in outputs if "image/png" in out.get("data", {})]
    assert len(images) >= 1, "the notebook showed no figure"
    as_text = [out for out in outputs if "<Figure size" in str(out.get("data", {}).get("text/plain", ""))
               and "image/png" not in out.get("data", {})]
    assert not as_text, "a figure came out as text, not as an image"
    for cell in book.cells:   # every drawing cell shows its figure (not only the kernel's first)
        if cell.cell_type == "code" and "plot" in cell.source and cell.source.rstrip().endswith(";"):
            assert any("image/png" in out.get("data", {}) for out in cell.get("outputs", [])), cell.source
