"""What mknap's tests declare for the cross-problem tests (``tests/declared.py``)."""

from __future__ import annotations

import optsched
from tests.guarantee_support import Tight


def _mknap_family():
    """m = 1: capacity 2N; item A (w 1, p 2), items B, C (w N, p N). The LP takes A, B and
    (N - 1) / N of C; rounding down keeps A and B (N + 2), the best single item is N, and OPT = B +
    C = 2N. OPT / ALG = 2N / (N + 2) -> 2 = m + 1."""
    from optsched.problems.mknap.instance import MknapInstance

    for n in (100, 1000):
        inst = MknapInstance(profits=[2, n, n], weights=[[1, n, n]], capacities=[2 * n])
        yield inst, optsched.solve(inst, "milp").objective


#: ``tests/test_guarantee_constants.py``: per guaranteed method, a (near-)tight family (checked by
#: ``test_guarantee_constants.py`` here) or the sentence saying that none is known
GUARANTEE_TIGHTNESS = {
    "lp-round": Tight(_mknap_family, 0.01, "2N / (N + 2) at N = 1000 is 1.996: within 0.4% of 2"),
}

#: ``tests/test_cli_failures.py``: fields whose values at 1e308 once made an objective inf or crashed
#: a simulation; they must be refused naming the field ("magnitude")
HUGE_VALUE_FIELDS = ["profits"]

#: ``tests/test_output_failures.py``: an importer and the file of the real data directory it reads
IMPORT_EXAMPLE = ("orlib-mknap", "mknap/mknapcb1.txt")
