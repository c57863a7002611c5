"""Results as pandas data frames, for analysis in a notebook or a script.

* :func:`results_frame`: one row per result (records, result files, or folders of them): the
  record's scalar fields (problem, method, the method's registered ``kind``, fidelity, status, objective, bound, gap, wall_s,
  backend, seed, instance_sha256, ...), the method's options and the scalar ``stats`` as columns
  (``option.<name>``, ``stats.<name>``); solutions stay out (they are per-problem structures).
* :func:`repro_frame` (also ``optsched.repro.load``): the rows a sweep stored in its results
  database (``<out>/.runs/<ID>[-quick].sqlite``), one row per cell, with the cell's key, seed,
  wall and CPU time and worker beside the experiment's own columns.

To measure methods against a reference (instance id, reference value, ratio per run), use
:func:`optsched.compare`, which runs them and returns such a frame directly.

>>> import optsched
>>> inst = optsched.generate("mknap", seed=1, preset="tiny")
>>> frame = results_frame([optsched.solve(inst, m) for m in ("milp", "greedy", "lp-round")])
>>> list(frame["method"]), bool((frame["objective"] <= frame.loc[0, "objective"]).all())
(['milp', 'greedy', 'lp-round'], True)
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Iterable

from .core.errors import InvalidInstanceError, InvalidOptionError
from .core.result import Result, result_row

__all__ = ["results_frame", "result_row", "repro_frame", "repository_results", "ResultsFolderNotFound"]

def _results(items: Iterable[Any]) -> Iterable[Result]:
    for item in items:
        if isinstance(item, Result):
            yield item
        elif isinstance(item, dict):
            yield Result.from_json(item)
        else:
            path = Path(item)
            if path.is_dir():
                yield from _results(sorted(path.glob("*.json")))
            else:
                try:
                    data = json.loads(path.read_text())
                except (OSError, json.JSONDecodeError) as exc:
                    raise InvalidInstanceError("result", str(path), f"cannot read a result: {exc}") from None
                yield Result.from_json(data)


def results_frame(items: Result | Iterable[Any]):
    """A pandas DataFrame with one row per result (see the module docstring)."""
    import pandas as pd

    if isinstance(items, (Result, dict, str, Path)):
        items = [items]
    return pd.DataFrame([result_row(r) for r in _results(items)])


class ResultsFolderNotFound(InvalidOptionError):
    """No ``paper_repro/results`` folder beside the imported package (optsched installed outside a
    repository checkout): the message says where it looked; ``out=`` names the folder."""

    def __init__(self, looked: Path):
        self.looked = looked
        super().__init__("repro", "out", f"no results folder at {looked} (the paper_repro/results of the "
                         "checkout optsched is imported from; it is installed outside a repository checkout?): "
                         "pass out= naming the results folder (optsched repro --out DIR writes one)")


def repository_results() -> Path:
    """The ``paper_repro/results`` folder of the repository checkout this package is imported from
    (beside the ``optsched`` package folder), whatever the working directory;
    :class:`ResultsFolderNotFound` (saying where it looked) when there is none."""
    looked = Path(__file__).resolve().parents[1] / "paper_repro" / "results"
    if not looked.is_dir():
        raise ResultsFolderNotFound(looked)
    return looked


def repro_frame(experiment_id: str, out: str | Path | None = None, quick: bool = False):
    """The cells a sweep stored for ``experiment_id`` as a DataFrame (see the module docstring).

    ``out`` is the results folder ``optsched repro --out`` wrote (its ``.runs/`` holds the
    databases); by default the repository's ``paper_repro/results`` found from the package's own
    location (:func:`repository_results`), so it works from any working directory."""
    import pandas as pd

    out = repository_results() if out is None else Path(out)
    path = out / ".runs" / f"{experiment_id}{'-quick' if quick else ''}.sqlite"
    if not path.is_file():
        raise InvalidOptionError("repro", str(path), f"no results database for {experiment_id!r} "
                                   f"({'QUICK' if quick else 'full'} run) under {out}")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        cells = conn.execute("SELECT key, seed, row, wall_s, cpu_s, worker FROM cells ORDER BY rowid").fetchall()
    rows = [{**json.loads(row), "cell_key": key, "cell_seed": seed, "cell_wall_s": wall, "cell_cpu_s": cpu,
             "worker": worker} for key, seed, row, wall, cpu, worker in cells]
    return pd.DataFrame(rows)
