"""What pipeline-schedule's tests declare for the cross-problem tests (``tests/declared.py``)."""

from __future__ import annotations

#: ``tests/test_cli_failures.py``: fields whose values at 1e308 once made an objective inf or crashed
#: a simulation; they must be refused naming the field ("magnitude")
HUGE_VALUE_FIELDS = ["forward"]
