"""mknap's ``orlib-mknap`` importer against values computed by hand from OR-Library's format.

Format (``FORMAT.txt`` of the OR-Library collection): K, then per problem n, m, the best known
value (0: unknown), the n profits, then for each of the m constraints its n weights (a row per
constraint), then the m capacities; numbers separated by any whitespace. ``--index`` picks the
problem, 0-based.
"""

from __future__ import annotations

import pytest

from optsched.problems.mknap.orlib import load_orlib

from tests.conftest import require_data

# two problems; the second has n = 3 items and m = 2 constraints (a transposed reading, 3 rows of
# 2, would mix the rows), line breaks in odd places
TEXT = """2
2 1 0
 4 5
 1 2 3
3 2 17
10 20
30
1 2 3
4 5 6 7 8
"""


def test_index_rows_and_header(tmp_path):
    path = tmp_path / "mknap.txt"
    path.write_text(TEXT)
    first = load_orlib(path, 0)
    assert list(first.profits) == [4, 5] and [list(r) for r in first.weights] == [[1, 2]]
    assert list(first.capacities) == [3]
    assert first.reference_value is None            # header 0: no best known value
    second = load_orlib(path, 1)
    assert list(second.profits) == [10, 20, 30]
    assert [list(r) for r in second.weights] == [[1, 2, 3], [4, 5, 6]]  # constraint i = row i
    assert list(second.capacities) == [7, 8]
    assert second.reference_value == 17.0
    assert load_orlib(path) == first                 # default: the first problem


def _tokens(path):
    return [float(x) for x in path.read_text().split()]


@pytest.mark.data
@pytest.mark.parametrize("index", [0, 29])
def test_real_mknapcb1_against_the_tokens_read_directly(index):
    path = require_data("mknap/mknapcb1.txt")
    tok = _tokens(path)
    pos, count = 1, int(tok[0])
    assert count == 30
    for k in range(index + 1):
        n, m, header = int(tok[pos]), int(tok[pos + 1]), tok[pos + 2]
        profits = tok[pos + 3:pos + 3 + n]
        rows = [tok[pos + 3 + n + i * n:pos + 3 + n + (i + 1) * n] for i in range(m)]
        caps = tok[pos + 3 + n + m * n:pos + 3 + n + m * n + m]
        pos += 3 + n + m * n + m
    inst = load_orlib(path, index)
    assert (n, m) == (100, 5)
    assert list(inst.profits) == profits
    assert [list(r) for r in inst.weights] == rows
    assert list(inst.capacities) == caps
    assert inst.reference_value == header
