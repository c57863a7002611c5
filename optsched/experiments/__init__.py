"""What an experiment of ``optsched repro`` is declared with, below the problems.

A problem's ``repro.py`` (layer of the problems) declares its tables with these; the runner,
the results database and the discovery of the scripts are :mod:`optsched.repro` (above the
facade), which re-exports the same names (``optsched.repro.Experiment`` is this ``Experiment``).

* :class:`Experiment`, :class:`ReportWriter`: how a table (or one problem's part of a table) is
  declared (:mod:`.declaration`).
* :func:`mean_ci95`: mean and 95% t-interval over seeds, for every table (:mod:`.stats`).
* :func:`generate`: a problem's generated instance from its registered record, a preset overlaid
  with options, every option checked (what ``optsched.generate`` does, from below the facade).
"""

from .declaration import TIMING_SUFFIX, Experiment, ReportWriter
from .instances import check, generate
from .stats import MeanCI, ci_cell, ci_summary, mean_ci95

__all__ = ["Experiment", "ReportWriter", "TIMING_SUFFIX", "MeanCI", "mean_ci95", "ci_cell", "ci_summary", "generate", "check"]
