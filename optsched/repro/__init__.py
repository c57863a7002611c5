"""Reproduction framework: experiments, sweep runner, results database (``optsched repro``).

* :class:`Experiment`, :class:`ReportWriter`: how a table is declared (a problem folder's ``repro.py``, or a
  problem-free ``paper_repro/<id>_*.py``); defined in :mod:`optsched.experiments`, below the problems.
* :func:`mean_ci95`: mean and 95% t-interval over seeds, for every table.
* :func:`run` with :class:`RunOptions`: the runner behind ``optsched repro``.
* :class:`ResultsDB`, :func:`cell_key`, :func:`cell_seed`: the results database and cell identity.
"""

from .db import ResultsDB
from optsched.experiments.declaration import Experiment, ReportWriter
from .keys import cell_key, cell_seed
from .runner import RunOptions, run
from optsched.experiments.stats import MeanCI, mean_ci95
from optsched.frames import ResultsFolderNotFound


def load(experiment_id: str, out=None, quick: bool = False):
    """The cells a sweep stored for ``experiment_id`` as a pandas DataFrame
    (:func:`optsched.frames.repro_frame`), one row per cell.

    ``out`` (default: the ``paper_repro/results`` of the repository checkout the package is
    imported from, whatever the working directory) is the folder ``optsched repro --out`` wrote.
    Raises :class:`~optsched.frames.ResultsFolderNotFound` (an ``InvalidOptionError`` saying where
    it looked) when the package is installed outside a checkout and ``out`` is not given, and
    ``InvalidOptionError`` when the folder has no database of that table's run."""
    from optsched.frames import repro_frame

    return repro_frame(experiment_id, out, quick)

__all__ = ["Experiment", "ReportWriter", "mean_ci95", "MeanCI", "RunOptions", "run", "ResultsDB", "cell_key",
           "cell_seed", "load", "ResultsFolderNotFound"]
