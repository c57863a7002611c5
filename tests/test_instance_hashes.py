"""Every preset's seeded instance is the same bytes on every machine: its SHA-256 equals the one
stored in ``instances/hashes.json`` (regenerate with ``python -m optsched.instances_build
--hashes`` after a deliberate generator change and review the diff).

``make test-portable`` (in CI) runs this module, ``tests/test_quality.py``,
``tests/test_instances.py`` and ``tests/core/test_portable.py`` a second time with numpy's SIMD
dispatch narrowed to the baseline::

    NPY_DISABLE_CPU_FEATURES="$(python -m optsched.core.simd --cpu-features)" python -m pytest -q ...

and :func:`test_narrowed_dispatch_is_in_effect` makes sure that second run is not a no-op.
"""

from __future__ import annotations

import os

import pytest

import optsched
from optsched.instance_hashes import load_hashes, preset_hash

STORED = load_hashes()
KEYS = sorted(f"{name}/{preset}" for name, problem in optsched.core.registry.problems().items() for preset in problem.presets)


@pytest.mark.parametrize("key", KEYS)
def test_preset_instance_has_the_stored_hash(key):
    assert key in STORED["hashes"], f"{key} has no stored hash: python -m optsched.instances_build --hashes"
    problem, preset = key.split("/")
    if key in STORED["needs_data"]:
        from optsched.core.data import DataUnavailable, data_dir

        if data_dir() is None:
            pytest.skip(f"data: {key} reads a real data set and OPTSCHED_DATA_DIR is not set")
        try:  # a data folder that lacks this preset's file (e.g. only some sets fetched): skip too
            digest = preset_hash(problem, preset)
        except Exception as exc:
            if not _caused_by(exc, DataUnavailable):
                raise
            pytest.skip(f"data: {key} reads a real data set that is not in {data_dir()}")
    else:
        digest = preset_hash(problem, preset)
    assert digest == STORED["hashes"][key], \
        f"{key}: the generator no longer gives the stored instance (deliberate? python -m optsched.instances_build --hashes)"


def _caused_by(exc: BaseException, kind: type) -> bool:
    """Whether ``exc`` or an exception it was raised from or during is a ``kind``."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, kind):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def test_no_stale_hashes():
    assert sorted(STORED["hashes"]) == KEYS


def test_narrowed_dispatch_is_in_effect():
    """When ``NPY_DISABLE_CPU_FEATURES`` is set, numpy really runs without the features it names
    (a misspelt or ignored name would make the second CI run repeat the first)."""
    value = os.environ.get("NPY_DISABLE_CPU_FEATURES")
    if not value:
        pytest.skip("NPY_DISABLE_CPU_FEATURES is not set (the second CI run sets it)")
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    named = value.replace(",", " ").split()
    assert named, value
    assert not [f for f in named if __cpu_features__.get(f)], f"still enabled: {named}"
    still = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    assert still == [], f"dispatch targets this CPU has are still enabled: {still}"
    assert set(named) <= set(__cpu_dispatch__)
