"""What hetero-sharding's tests declare for the cross-problem tests (``tests/declared.py``)."""

from __future__ import annotations

import optsched
from tests.guarantee_support import Tight


def _hetero_family():
    """One stage of a FLOPs (no communication) on one segment of length L = n, a slow device 0
    (F) and n - 1 fast ones (f F, f = s1 / s0): the optimal ratios put s0 = 1/n + 1e-3 units of the
    segment on device 0 and s1 = 1 + (1 - s0) / (n - 1) on each fast one. Largest remainder gives
    device 0 (the largest remainder, s0) a whole unit, so its time grows from a s0 / (L F) to
    a / (L F): ALG - OPT = (1 - s0) a / (L F) = (1 - 1/n - 1e-3) Delta. At n = 50 that is 0.979
    Delta, so a 3% smaller additive term fails."""
    import json

    p = optsched.get_problem("hetero-sharding")
    data = json.loads(p.tiny_instances(0).dumps())
    for n in (20, 50):
        s0 = 1 / n + 1e-3
        s1 = 1 + (1 - s0) / (n - 1)
        data.update(device_flops=[1e12] + [s1 / s0 * 1e12] * (n - 1), segment_lengths=[n], device_names=[],
                    name=f"rounding-tight-{n}",
                    stages=[{"name": "s0", "options": [{"name": "o0", "segment": 0, "sharded_flops": 1e12,
                                                         "replicated_flops": 0.0, "collectives": []}]}])
        inst = p.instance_type.from_json(data)
        r = optsched.solve(inst, "milp")
        assert r.status == "optimal"
        yield inst, r.objective


#: ``tests/test_guarantee_constants.py``: per guaranteed method, a (near-)tight family (checked by
#: ``test_guarantee_constants.py`` here) or the sentence saying that none is known
GUARANTEE_TIGHTNESS = {
    "milp-round": Tight(_hetero_family, 0.03, "ALG - OPT = 0.979 Delta at n = 50"),
}
