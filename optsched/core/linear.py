"""The intermediate linear model every exact formulation builds once.

A formulation describes its (mixed-integer) linear program as a :class:`LinearModel`: named
blocks of variables, a sparse constraint matrix with row bounds, column bounds, integrality and
a linear objective. Back-ends (:mod:`optsched.core.backends`) consume this one object, so adding
a solver never touches a model; :func:`optsched.core.backends.write_mps` writes one as MPS for
any other solver. This module imports no back-end.

>>> b = ModelBuilder("toy", sense="max")
>>> x = b.add_block("x", 3, upper=1, integer=True, cost=[5, 4, 3])
>>> _ = b.add_rows("capacity", [[2, 3, 1]], upper=[4], cols=[x])
>>> m = b.build()
>>> m.num_cols, m.num_rows, m.objective_granularity
(3, 1, 1.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal, Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["LinearModel", "ModelBuilder", "RowGroup", "Block", "ModelSolution"]

INF = float("inf")


@dataclass(frozen=True)
class Block:
    """A named block of variables: columns ``start .. start + size``, reshaped to ``shape``."""

    name: str
    start: int
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    def indices(self) -> np.ndarray:
        """Column indices of the block, shaped like the block."""
        return np.arange(self.start, self.start + self.size).reshape(self.shape)


@dataclass(frozen=True)
class LinearModel:
    """``sense  c @ x + offset  s.t.  row_lower <= A x <= row_upper, col_lower <= x <= col_upper``.

    ``integrality[j]`` is True for integer columns. ``objective_granularity`` is the step of the
    objective over integer solutions when it is known (all cost on integer columns, integral
    coefficients): back-ends then use an absolute gap just below it, so "optimal" is exact.
    """

    name: str
    sense: Literal["min", "max"]
    cost: np.ndarray
    offset: float
    matrix: sp.csr_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    integrality: np.ndarray
    blocks: dict[str, Block] = field(default_factory=dict)
    row_blocks: dict[str, tuple[int, int]] = field(default_factory=dict)
    objective_granularity: float | None = None

    @property
    def num_cols(self) -> int:
        return int(self.cost.shape[0])

    @property
    def num_rows(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def is_mip(self) -> bool:
        return bool(self.integrality.any())

    def relaxed(self) -> "LinearModel":
        """The LP relaxation (integrality dropped)."""
        return replace(self, name=self.name + "-lp", integrality=np.zeros_like(self.integrality),
                       objective_granularity=None)

    def value(self, x: np.ndarray) -> float:
        """Objective value of a column vector."""
        return float(self.cost @ x + self.offset)

    def block_values(self, x: np.ndarray, name: str) -> np.ndarray:
        """The values of block ``name`` in ``x``, shaped like the block."""
        blk = self.blocks[name]
        return np.asarray(x[blk.start:blk.start + blk.size]).reshape(blk.shape)

    def violation(self, x: np.ndarray) -> float:
        """Largest violation of a row bound, column bound or integrality by ``x`` (0 if none)."""
        ax = self.matrix @ x
        worst = max(0.0, float(np.max(self.row_lower - ax, initial=0.0)),
                    float(np.max(ax - self.row_upper, initial=0.0)),
                    float(np.max(self.col_lower - x, initial=0.0)),
                    float(np.max(x - self.col_upper, initial=0.0)))
        xi = x[self.integrality]
        if xi.size:
            worst = max(worst, float(np.max(np.abs(xi - np.round(xi)))))
        return worst

class ModelBuilder:
    """Incremental construction of a :class:`LinearModel` from named blocks and row groups."""

    def __init__(self, name: str, sense: Literal["min", "max"] = "min"):
        if sense not in ("min", "max"):
            raise ValueError(f"sense must be 'min' or 'max', not {sense!r}")
        self.name, self.sense = name, sense
        self._blocks: dict[str, Block] = {}
        self._lower: list[np.ndarray] = []
        self._upper: list[np.ndarray] = []
        self._integer: list[np.ndarray] = []
        self._cost: list[np.ndarray] = []
        self._rows: list[sp.csr_matrix] = []
        self._row_lower: list[np.ndarray] = []
        self._row_upper: list[np.ndarray] = []
        self._row_blocks: dict[str, tuple[int, int]] = {}
        self._num_cols = 0
        self._num_rows = 0
        self.offset = 0.0

    def add_block(self, name: str, shape: int | Sequence[int], *, lower: float | np.ndarray = 0.0,
                  upper: float | np.ndarray = INF, integer: bool = False,
                  cost: float | Sequence[float] | np.ndarray = 0.0) -> np.ndarray:
        """Add a block of variables and return its column indices (shaped like the block)."""
        if name in self._blocks:
            raise ValueError(f"block {name!r} already exists")
        shape = (int(shape),) if np.isscalar(shape) else tuple(int(s) for s in shape)
        blk = Block(name, self._num_cols, shape)
        n = blk.size
        self._blocks[name] = blk
        self._lower.append(np.broadcast_to(np.asarray(lower, float), shape).ravel().copy())
        self._upper.append(np.broadcast_to(np.asarray(upper, float), shape).ravel().copy())
        self._integer.append(np.full(n, bool(integer)))
        self._cost.append(np.broadcast_to(np.asarray(cost, float), shape).ravel().copy())
        self._num_cols += n
        return blk.indices()

    def add_rows(self, name: str, coefficients, *, lower=-INF, upper=INF, cols=None) -> range:
        """Add a group of rows ``lower <= coefficients @ x[cols] <= upper``.

        ``coefficients`` is a dense array or scipy sparse matrix with one row per constraint.
        ``cols`` (list of index arrays, concatenated) maps its columns to model columns; without
        it the coefficients span all columns added so far.
        """
        mat = sp.csr_matrix(coefficients, dtype=float)
        if cols is not None:
            idx = np.concatenate([np.asarray(c).ravel() for c in cols])
            if idx.shape[0] != mat.shape[1]:
                raise ValueError(f"rows {name!r}: {mat.shape[1]} coefficient columns for {idx.shape[0]} variables")
            coo = mat.tocoo()
            mat = sp.csr_matrix((coo.data, (coo.row, idx[coo.col])), shape=(mat.shape[0], self._num_cols))
        return self._append_rows(name, mat, lower, upper)

    def add_sparse_rows(self, name: str, rows, cols, values, num_rows: int, *, lower=-INF,
                        upper=INF) -> range:
        """Add ``num_rows`` rows given as coordinate triplets over model columns."""
        mat = sp.csr_matrix((np.asarray(values, float), (np.asarray(rows), np.asarray(cols))),
                            shape=(num_rows, self._num_cols))
        return self._append_rows(name, mat, lower, upper)

    def rows(self, name: str, *, lower=-INF, upper=INF) -> "RowGroup":
        """A :class:`RowGroup` that collects rows one at a time and adds them as group ``name``
        when closed (use it as a context manager). ``lower``/``upper`` are the rows' default
        bounds; :meth:`RowGroup.add` may override them per row.

        >>> b = ModelBuilder("toy")
        >>> x = b.add_block("x", 3)
        >>> with b.rows("pairs", upper=1) as rows:
        ...     for k in range(2):
        ...         _ = rows.add([x[k], x[k + 1]], [1.0, 1.0])
        ...     _ = rows.add([x[0]], 2.0, lower=0.5, upper=3.0)
        >>> m = b.build()
        >>> m.matrix.toarray().tolist(), m.row_lower.tolist(), m.row_upper.tolist()
        ([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [2.0, 0.0, 0.0]], [-inf, -inf, 0.5], [1.0, 1.0, 3.0])
        """
        return RowGroup(self, name, lower, upper)

    def _append_rows(self, name, mat, lower, upper) -> range:
        if name in self._row_blocks:
            raise ValueError(f"row group {name!r} already exists")
        if mat.shape[1] < self._num_cols:
            mat = sp.csr_matrix((mat.data, mat.indices, mat.indptr), shape=(mat.shape[0], self._num_cols))
        m = mat.shape[0]
        self._rows.append(mat)
        self._row_lower.append(np.broadcast_to(np.asarray(lower, float), (m,)).copy())
        self._row_upper.append(np.broadcast_to(np.asarray(upper, float), (m,)).copy())
        self._row_blocks[name] = (self._num_rows, m)
        self._num_rows += m
        return range(self._num_rows - m, self._num_rows)

    def build(self) -> LinearModel:
        n = self._num_cols
        rows = [sp.csr_matrix((r.data, r.indices, r.indptr), shape=(r.shape[0], n)) for r in self._rows]
        matrix = sp.vstack(rows, format="csr") if rows else sp.csr_matrix((0, n))
        matrix.sum_duplicates()
        cost = np.concatenate(self._cost) if self._cost else np.zeros(0)
        integer = np.concatenate(self._integer) if self._integer else np.zeros(0, bool)
        granularity = None
        if n and integer.any() and np.all(cost[~integer] == 0) and np.all(cost == np.round(cost)):
            granularity = 1.0
        return LinearModel(
            name=self.name, sense=self.sense, cost=cost, offset=float(self.offset), matrix=matrix,
            row_lower=np.concatenate(self._row_lower) if rows else np.zeros(0),
            row_upper=np.concatenate(self._row_upper) if rows else np.zeros(0),
            col_lower=np.concatenate(self._lower) if n else np.zeros(0),
            col_upper=np.concatenate(self._upper) if n else np.zeros(0),
            integrality=integer, blocks=dict(self._blocks), row_blocks=dict(self._row_blocks),
            objective_granularity=granularity)


class RowGroup:
    """Rows of one named group, collected one at a time: the accumulator every formulation uses
    instead of hand-kept ``rows, cols, vals`` lists (see :meth:`ModelBuilder.rows`).

    Zero coefficients are dropped; repeated columns in one row add up. Closing the group (leaving
    the ``with`` block, or :meth:`close`) adds it to the builder; an empty group adds nothing.
    """

    def __init__(self, builder: ModelBuilder, name: str, lower=-INF, upper=INF):
        self.builder, self.name = builder, name
        self.default = (float(lower), float(upper))
        self._cols: list[np.ndarray] = []
        self._vals: list[np.ndarray] = []
        self._lower: list[float] = []
        self._upper: list[float] = []
        self.range: range | None = None

    def __len__(self) -> int:
        return len(self._lower)

    def add(self, cols, vals=1.0, *, lower: float | None = None, upper: float | None = None) -> int:
        """Add the row ``lower <= sum_k vals[k] x[cols[k]] <= upper`` (``vals`` may be a scalar
        for every column); returns the row's index inside the group."""
        c = np.asarray(cols, dtype=np.int64).ravel()
        v = np.broadcast_to(np.asarray(vals, dtype=float), c.shape).ravel()
        keep = v != 0.0
        self._cols.append(c[keep])
        self._vals.append(v[keep])
        self._lower.append(self.default[0] if lower is None else float(lower))
        self._upper.append(self.default[1] if upper is None else float(upper))
        return len(self._lower) - 1

    def add_terms(self, terms, *, lower: float | None = None, upper: float | None = None) -> int:
        """Add a row given as ``(column, coefficient)`` pairs."""
        terms = list(terms)
        return self.add([c for c, _ in terms], [v for _, v in terms], lower=lower, upper=upper)

    def close(self) -> range:
        """Add the collected rows to the builder (once); their model row indices."""
        if self.range is None:
            if not self._lower:
                self.range = range(self.builder._num_rows, self.builder._num_rows)
                return self.range
            counts = [len(c) for c in self._cols]
            rows = np.repeat(np.arange(len(counts)), counts)
            cols = np.concatenate(self._cols)
            vals = np.concatenate(self._vals)
            self.range = self.builder.add_sparse_rows(self.name, rows, cols, vals, len(counts),
                                                      lower=np.asarray(self._lower), upper=np.asarray(self._upper))
        return self.range

    def __enter__(self) -> "RowGroup":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()


@dataclass
class ModelSolution:
    """What a back-end returns for a :class:`LinearModel`.

    ``status`` is one of ``optimal | feasible | infeasible | time_limit | error`` (``feasible``
    when a deterministic work limit stopped the search with an incumbent). ``objective`` and
    ``bound`` are in the model's sense; ``x`` is None when the back-end returned no point.
    """

    status: str
    x: np.ndarray | None
    objective: float | None
    bound: float | None
    backend: str
    solver_version: str
    run_time: float
    message: str = ""
    stats: dict = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        from .gaps import relative_gap

        return relative_gap(self.objective, self.bound)
