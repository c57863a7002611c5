"""rar-online: extreme values inside the documented limits (the problem-free limits:
``tests/test_extreme_values.py``, docs/io.md, "Numeric limits")."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidInstanceError

def _tiny(problem: str) -> dict:
    return optsched.generate(problem, seed=0, preset="tiny").to_json()


def test_rar_online_utilities_keep_the_exact_models_decidable():
    data = _tiny("rar-online")
    cls = type(optsched.generate("rar-online", seed=0, preset="tiny"))
    data["jobs"][0]["utility"]["value"] = 1e24  # HiGHS answered kUnknown (status error)
    with pytest.raises(InvalidInstanceError, match=r"jobs\[0\]\.utility\.value"):
        cls.from_json(data)
    data["jobs"][0]["utility"]["value"] = 1e15  # the bound: both exact methods still decide
    inst = cls.from_json(data)
    for method in ("milp", "lp"):
        r = optsched.solve(inst, method, time_limit=3600)  # far beyond a tiny solve: optimal at any speed
        assert r.status == "optimal", (method, r.status, r.reason)
