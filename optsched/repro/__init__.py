"""Reproduction framework: experiments, sweep runner, results database (``optsched repro``)."""

from .experiment import Experiment, ReportWriter

__all__ = ["Experiment", "ReportWriter"]
