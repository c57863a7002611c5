"""What smd's tests declare for the cross-problem tests (``tests/declared.py``)."""

from __future__ import annotations

#: ``tests/test_guarantee_constants.py``: per guaranteed method, a (near-)tight family (checked by
#: ``test_guarantee_constants.py`` here) or the sentence saying that none is known
GUARANTEE_TIGHTNESS = {
    "lp-round": (
        "no tight instance known: the bound charges every one of the |Res| fractional jobs its full deferral "
        "penalty, while fill usually places them"),
    "smd": (
        "no tight instance known: the run stops once ALG <= (1 + target_gap) x its certified bound, and the "
        "bound is usually below OPT, so ALG / OPT is smaller still"),
}
