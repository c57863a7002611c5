"""Two numbers records are compared by: a method's ratio to the reference when one side is 0,
and the content hash of a binary sidecar, which must tell arrays of the same bytes apart by their
dtype and their shape (the decoded JSON data differ)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import optsched
from optsched.core.registry import problems
from optsched.core.sidecar import content_sha256


def _of_sense(sense: str):
    for prob in problems().values():
        if prob.sense == sense:
            return prob
    pytest.skip(f"no {sense} problem registered")


def test_a_zero_denominator_with_a_positive_numerator_is_an_infinite_ratio():
    """Minimization: ALG > 0 against OPT = 0 is infinitely worse, not optimal; maximization:
    ALG = 0 against OPT > 0 likewise. Both zero: equal, ratio 1."""
    low, high = _of_sense("min"), _of_sense("max")
    assert math.isinf(low.ratio(5.0, 0.0)) and math.isinf(high.ratio(0.0, 5.0))
    assert low.ratio(0.0, 0.0) == 1.0 and high.ratio(0.0, 0.0) == 1.0
    assert low.ratio(6.0, 3.0) == 2.0 and high.ratio(3.0, 6.0) == 2.0


def test_the_sidecar_hash_tells_dtype_and_shape_apart():
    skeleton = b'{"a":0}'
    ints = np.arange(6, dtype=np.int64)
    same_bytes_as_floats = ints.view(np.float64)
    assert ints.tobytes() == same_bytes_as_floats.tobytes()
    base = content_sha256(skeleton, {"a": ints.reshape(2, 3)})
    assert base != content_sha256(skeleton, {"a": ints.reshape(3, 2)})           # shape
    assert base != content_sha256(skeleton, {"a": same_bytes_as_floats.reshape(2, 3)})  # dtype
    assert base != content_sha256(skeleton, {"a": ints})                         # dimensions
    assert base == content_sha256(skeleton, {"a": np.arange(6, dtype=np.int64).reshape(2, 3)})
