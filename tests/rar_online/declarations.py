"""What rar-online's tests declare for the cross-problem tests (``tests/declared.py``)."""

from __future__ import annotations

#: ``tests/test_guarantee_constants.py``: per guaranteed method, a (near-)tight family (checked by
#: ``test_guarantee_constants.py`` here) or the sentence saying that none is known
GUARANTEE_TIGHTNESS = {
    "gadget-exact": "no tight instance known: Theorem G's (2 - beta) / (2 alpha beta^2) is a worst-case pricing argument",
}

#: ``tests/test_cli_failures.py``: fields whose values at 1e308 once made an objective inf or crashed
#: a simulation; they must be refused naming the field ("magnitude")
HUGE_VALUE_FIELDS = ["slot_s"]

#: ``tests/test_extreme_values.py``: (field, largest valid value, other fields set for the run at it) of
#: each field whose value a method iterates over (docs/io.md, "Numeric limits"); at the servers
#: bound a horizon of 4 slots keeps the run at the bound within its time limit's hard bound
EXTREME_BOUNDS = [("horizon", 1_000_000, {}), ("servers", 4096, {"horizon": 4})]
