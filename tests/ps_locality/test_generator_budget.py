"""The generator refuses, before simulating, a stream whose baseline schedules (they fix the
horizon) would take more than ``GENERATE_MAX_STEPS`` (slot, job) steps: 100,000 jobs on the default
3 machines ran for hours."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidOptionError
import importlib

gen = importlib.import_module("optsched.problems.ps_locality.generate")


def test_a_stream_too_long_to_simulate_is_refused_naming_jobs(monkeypatch):
    monkeypatch.setattr(gen, "baseline_horizon", lambda inst: pytest.fail("simulated before refusing"))
    with pytest.raises(InvalidOptionError, match="field 'jobs'.*more machines or fewer jobs"):
        optsched.generate("ps-locality", seed=0, jobs=100_000)


def test_the_estimate_scales_with_jobs_per_gpu():
    assert gen.baseline_steps(2_000, 500, 4, 4, 4) < gen.GENERATE_MAX_STEPS      # the benchmark's stream
    assert gen.baseline_steps(100_000, 3, 4, 4, 4) > gen.GENERATE_MAX_STEPS
    assert gen.baseline_steps(6, 3, 4, 4, 10_000) < gen.GENERATE_MAX_STEPS      # long jobs, few of them
