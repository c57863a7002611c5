"""The bulk conversion and validation paths of optsched.core.instance give the same values and the
same typed errors (field and first offending index) as the element-wise path."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from optsched.core.errors import InvalidInstanceError
from optsched.core.instance import Instance


@dataclass(frozen=True)
class Arrays(Instance):
    problem = "arrays"
    values: tuple[float, ...]
    counts: tuple[int, ...]
    edges: tuple[tuple[int, int, float], ...]
    matrix: tuple[tuple[float, ...], ...] = ()

    def validate(self):
        self.require_nonnegative("values", self.values)
        self.require_nonnegative("matrix", self.matrix)


def data(**over):
    base = {"format_version": 1, "problem": "arrays", "values": [1, 2.5, 3], "counts": [1, 2],
            "edges": [[0, 1, 2], [1, 2, 0.5]], "matrix": [[1.0, 2], [3, 4.0]]}
    return {**base, **over}


def test_bulk_conversion_matches_the_element_wise_types():
    inst = Arrays.from_json(data())
    assert inst.values == (1.0, 2.5, 3.0) and all(type(v) is float for v in inst.values)
    assert inst.edges == ((0, 1, 2.0), (1, 2, 0.5)) and type(inst.edges[0][2]) is float
    assert type(inst.edges[0][0]) is int
    assert inst.matrix == ((1.0, 2.0), (3.0, 4.0))
    assert Arrays.from_json(inst.to_json()) == inst


def test_numpy_arrays_from_generators():
    inst = Arrays(values=np.array([1.0, 2.0]), counts=np.array([3, 4]), edges=[(0, 1, 1.0)])
    assert inst.values == (1.0, 2.0) and inst.counts == (3, 4) and type(inst.counts[0]) is int


@pytest.mark.parametrize("over,field", [
    ({"values": [1.0, True, 2.0]}, "values[1]"),          # a boolean is not a number
    ({"values": [1.0, "2", 2.0]}, "values[1]"),
    ({"counts": [1, 2.0]}, "counts[1]"),                  # an integer field given a float
    ({"edges": [[0, 1, 2.0], [1, 2]]}, "edges[1]"),       # a short row
    ({"edges": [[0, 1.5, 2.0]]}, "edges[0][1]"),
    ({"values": [1.0, 10**400]}, "values[1]"),            # beyond the float range
])
def test_errors_name_the_first_offending_element(over, field):
    with pytest.raises(InvalidInstanceError) as err:
        Arrays.from_json(data(**over))
    assert err.value.field == field


@pytest.mark.parametrize("over,field", [
    ({"values": [1.0, -2.0, -3.0]}, "values[1]"),
    ({"matrix": [[1.0, 2.0], [3.0, -4.0]]}, "matrix[1][1]"),
    ({"matrix": [[1.0], [3.0, -4.0]]}, "matrix[1][1]"),   # ragged rows: the element-wise walk
])
def test_vectorized_validation_names_the_first_offending_index(over, field):
    with pytest.raises(InvalidInstanceError) as err:
        Arrays.from_json(data(**over))
    assert err.value.field == field


def test_sha256_is_cached_and_matches_a_fresh_computation():
    inst = Arrays.from_json(data())
    first = inst.sha256()
    assert inst.sha256() is first
    assert Arrays.from_json(data()).sha256() == first


def test_large_instances_are_saved_compactly_and_round_trip(tmp_path):
    n = 300_000
    inst = Arrays(values=np.arange(n, dtype=float), counts=[1], edges=[])
    path = tmp_path / "big.json"
    inst.save(path)
    assert path.read_text().count("\n") == 1        # compact: one line
    assert Arrays.load(path) == inst
