"""The random chain's declared size: 10^6 positions (the supported scale: loaded and solved
within a time limit, ``bench_pipeline_partition.py``) is accepted, one more is refused."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidOptionError
from optsched.core.params import validate_parameters
from optsched.core.registry import get_problem

PROBLEM = get_problem("pipeline-partition")


def test_a_million_positions_is_accepted_and_one_more_refused():
    options = PROBLEM.generator_options
    assert validate_parameters(PROBLEM.name, options, {"layers": 1_000_000})["layers"] == 1_000_000
    with pytest.raises(InvalidOptionError, match="layers"):
        optsched.generate("pipeline-partition", seed=0, layers=1_000_001)
