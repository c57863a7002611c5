"""hetero-sharding's guarantees at their exact constant: a constant tightened by the stated margin fails on
the tight family declared in ``declarations.py`` (``GUARANTEE_TIGHTNESS``; the tightening and the
check: ``tests/guarantee_support.py``). The declared constant itself is checked on every problem's
tiny instances by ``tests/test_guarantee_constants.py``."""

from __future__ import annotations

import pytest

from tests.guarantee_support import Tight, check_tight_family
from tests.hetero_sharding.declarations import GUARANTEE_TIGHTNESS

TIGHT = [(m, t) for m, t in GUARANTEE_TIGHTNESS.items() if isinstance(t, Tight)]


@pytest.mark.parametrize("method,family", TIGHT, ids=[m for m, _ in TIGHT])
def test_tightened_constant_fails_on_a_tight_instance(method, family):
    check_tight_family("hetero-sharding", method, family)
