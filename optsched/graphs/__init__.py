"""Shared graph machinery, below the problems: one graph record and the algorithms on it.

Device graphs, operator graphs and data graphs are all held as a :class:`Graph` (arrays of
edge endpoints and weights, optional node weights and names; convertible to and from networkx).
Algorithms that more than one problem needs (cuts, partitions, refinement) live in this package
and import no problem.
"""

from __future__ import annotations

from .record import Graph

__all__ = ["Graph"]
