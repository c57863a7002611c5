"""What ps-locality's tests declare for the cross-problem tests (``tests/declared.py``)."""

from __future__ import annotations

#: ``tests/test_status_honesty.py``: lower-bound is max(sum of solo times, pooled LP); the solo sum
#: is a proof that stands however the LP ends, so its bound is checked by
#: ``test_ps_locality_lower_bound_with_its_lp_stopped`` (``test_status_honesty.py`` here)
STATUS_OWN_BOUND_TEST = {"lower-bound"}

#: ``tests/test_guarantee_constants.py``: per guaranteed method, a (near-)tight family (checked by
#: ``test_guarantee_constants.py`` here) or the sentence saying that none is known
GUARANTEE_TIGHTNESS = {
    "rr": ("probabilistic (a Chernoff bound on each packing row's load before repair): no constant to tighten by "
           "one instance; checked by its one-sided binomial test"),
}
