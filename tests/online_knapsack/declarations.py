"""What online-knapsack's tests declare for the cross-problem tests (``tests/declared.py``)."""

from __future__ import annotations

import optsched
from tests.guarantee_support import Tight


def _threshold_family():
    """The classical worst case of threshold pricing: requests of demand eps whose values follow
    the price psi(z) as the utilization z climbs to 0.95 (all accepted), then 1 / eps requests
    just below the final price (all refused). ALG = sum eps psi(k eps) ~ psi(z*) / c, while a
    feasible set (the refused requests) is worth psi(z*) (1 - 1e-9): REF here is that set's value,
    a lower bound on OPT, which is enough to refute the tightened claim OPT <= v' ALG; the declared
    claim is checked against the LP value (an upper bound on OPT). OPT / ALG = 0.9885 v at eps =
    0.002 (measured), so a 2% tightening fails."""
    from optsched.problems.online_knapsack.algorithms import threshold_price
    from optsched.problems.online_knapsack.instance import OnlineKnapsackInstance

    L, U, eps = 1.0, 16.0, 0.002
    d, v, z = [], [], 0.0
    while z + eps <= 0.95 + 1e-12:
        d.append(eps)
        v.append(threshold_price(z, L, U))  # the price the method will post: accepted
        z += eps
    top = threshold_price(z, L, U) * (1 - 1e-9)  # just below the final price: refused
    n = int(round(1 / eps))
    inst = OnlineKnapsackInstance(lower=L, upper=U, eps=eps, demands=d + [eps] * n, values=v + [top] * n)
    yield inst, top * n * eps


def _lp_value(inst):
    """The declared claim is checked against the LP value, an upper bound on OPT (the family's REF is
    a feasible set's value, a lower bound on it)."""
    return optsched.solve(inst, "lp").objective


#: ``tests/test_guarantee_constants.py``: per guaranteed method, a (near-)tight family (checked by
#: ``test_guarantee_constants.py`` here) or the sentence saying that none is known
GUARANTEE_TIGHTNESS = {
    "threshold": Tight(_threshold_family, 0.02, "ratio 0.9885 of the constant at eps = 0.002",
                       declared_reference=_lp_value),
}
