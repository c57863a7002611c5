"""What pipeline-partition's tests declare for the cross-problem tests (``tests/declared.py``)."""

from __future__ import annotations

#: ``tests/test_guarantee_constants.py``: per guaranteed method, a (near-)tight family (checked by
#: ``test_guarantee_constants.py`` here) or the sentence saying that none is known
GUARANTEE_TIGHTNESS = {
    "tree-order-dp": "no tight instance known: b_max / b_min bounds every transfer's slow-down at once",
}
