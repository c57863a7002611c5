"""Which of numpy's SIMD code paths this CPU runs, so that a test run can switch them off.

numpy compiles some ufuncs (power, exp, log, the trigonometric functions, ...) several times, for a
baseline instruction set and for wider ones (AVX2, AVX-512, ...), and picks one at import time by
the CPU. Those versions may differ in the last bits, which is why no seeded instance or stored
reference value of optsched goes through them (``docs/portability.md``; "Seeded instances are the same bytes
on every machine"). ``make test-portable`` checks that promise: it runs the instance-identity and
stored-reference tests with ``NPY_DISABLE_CPU_FEATURES`` set to what this module prints, so that
numpy runs its baseline code paths, and the tests assert the same hashes as on the full CPU.

    python -m optsched.core.simd --cpu-features     # e.g. "X86_V3 X86_V4 AVX512_ICL"
"""

from __future__ import annotations

import sys


def dispatched_features() -> list[str]:
    """numpy's dispatch targets (beyond its compiled baseline) that this CPU supports.

    Setting ``NPY_DISABLE_CPU_FEATURES`` to these names (space separated) before numpy is imported
    makes every dispatched ufunc take its baseline path.
    """
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    return [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]


def active_features() -> list[str]:
    """The dispatch targets in use in this process (empty when all are disabled)."""
    return dispatched_features()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args != ["--cpu-features"]:
        print("usage: python -m optsched.core.simd --cpu-features", file=sys.stderr)
        return 2
    print(" ".join(dispatched_features()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
