"""What pipeline-adaptive's tests declare for the cross-problem tests (``tests/declared.py``)."""

from __future__ import annotations

#: ``tests/test_extreme_values.py``: (field, largest valid value, other fields set for the run at it) of
#: each field whose value a method iterates over (docs/io.md, "Numeric limits")
EXTREME_BOUNDS = [("global_batch", 65536, {})]
