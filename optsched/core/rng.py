"""Seeded randomness: every random choice in optsched comes from a generator made here.

Seeds are derived, never shared: ``derive_seed(seed, "trial", 3)`` gives an independent stream per
purpose, so adding a random draw in one place does not shift another's.

>>> derive_seed(7, "trial", 3) == derive_seed(7, "trial", 3)
True
>>> derive_seed(7, "trial", 3) != derive_seed(7, "trial", 4)
True
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["derive_seed", "make_rng"]


def derive_seed(seed: int, *keys: object) -> int:
    """A 63-bit seed derived from ``seed`` and ``keys`` by SHA-256 (stable across runs/platforms)."""
    text = repr((int(seed),) + tuple(str(k) for k in keys)).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


def make_rng(seed: int, *keys: object) -> np.random.Generator:
    """A numpy ``Generator`` (PCG64) for ``seed`` and purpose ``keys``."""
    return np.random.default_rng(derive_seed(seed, *keys) if keys else int(seed))
