"""The quick-start notebooks in ``notebooks/`` run from top to bottom without an error.

Each notebook asserts its own facts (exact methods are optimal, no method beats the optimum, a bound
is a bound), so an error in any cell, including a failed assertion, fails its test here. Executed
with ``nbclient`` on ipykernel's built-in ``python3`` kernel, which is the interpreter running
the tests,, in the
repository root, with small presets; the per-cell timeout only stops a hung kernel.
"""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_every_family_has_a_notebook():
    names = {p.stem for p in NOTEBOOKS}
    assert {"knapsack_smd", "placement", "ring_allreduce", "pipeline", "online", "sharding_graphs"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path):
    book = nbformat.read(path, as_version=4)
    assert not any(cell.get("outputs") for cell in book.cells if cell.cell_type == "code"), \
        "commit notebooks without outputs"
    client = nbclient.NotebookClient(book, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    errors = [out for cell in book.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
              if out.get("output_type") == "error"]
    assert not errors
