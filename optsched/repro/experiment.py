"""How a paper table or figure is declared: :mod:`optsched.experiments.declaration`, re-exported
here (the declaration lives below the problems, so a problem's ``repro.py`` can use it)."""

from optsched.experiments.declaration import TIMING_SUFFIX, Experiment, ReportWriter

__all__ = ["Experiment", "ReportWriter", "TIMING_SUFFIX"]
