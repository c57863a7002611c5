"""What srpt's tests declare for the cross-problem tests (``tests/declared.py``)."""

from __future__ import annotations

#: ``tests/test_extreme_values.py``: (field, largest valid value, other fields set for the run at it) of
#: each field whose value a method iterates over (docs/io.md, "Numeric limits")
EXTREME_BOUNDS = [("gpus_per_server", 1024, {})]

#: ``tests/test_status_honesty.py``: milp's rank bound may meet its incumbent (the proof "bound",
#: no model solve), so with every solve stopped it may still be optimal;
#: ``test_srpt_exact.py`` checks each proof path (bound, cutoff, MILP) and its status
STATUS_OTHER_PROOF = {"milp"}
