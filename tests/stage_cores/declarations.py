"""What stage-cores's tests declare for the cross-problem tests (``tests/declared.py``)."""

from __future__ import annotations

import optsched
from tests.guarantee_support import Tight


def _stage_cores_family():
    """greedy is exact (ratio 1): every instance with OPT > 0 is tight."""
    p = optsched.get_problem("stage-cores")
    for seed in range(3):
        inst = p.tiny_instances(seed)
        yield inst, optsched.solve(inst, "milp").objective


#: ``tests/test_guarantee_constants.py``: per guaranteed method, a (near-)tight family (checked by
#: ``test_guarantee_constants.py`` here) or the sentence saying that none is known
GUARANTEE_TIGHTNESS = {
    "greedy": Tight(_stage_cores_family, 1e-3, "ALG = OPT"),
}

#: ``tests/test_extreme_values.py``: (field, largest valid value, other fields set for the run at it) of
#: each field whose value a method iterates over (docs/io.md, "Numeric limits")
EXTREME_BOUNDS = [("cores", 100_000, {})]
