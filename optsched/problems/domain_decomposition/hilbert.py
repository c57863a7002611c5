"""Vectorized 3-D Peano-Hilbert keys (Skilling's transform in numpy) [classical].

The Hilbert index of an integer point ``(x, y, z)`` with ``bits`` bits per axis is computed by
J. Skilling's "transpose" algorithm (AIP Conf. Proc. 707, 2004): undo excess work with
conditional exchanges and inversions from the top bit down, Gray-encode, then interleave the
three transposed words bit by bit (x's bit first). Every step is a whole-array numpy operation,
so 10^7 points take seconds instead of the ~8 minutes of a pure-Python loop (the ``hilbertcurve``
package implements the same transform per point; the tests compare keys with it).

* :func:`hilbert_keys` -- ``(N, 3)`` integer coordinates -> ``N`` uint64 keys (``bits <= 21``).
* :func:`hilbert_points` -- the inverse, keys -> coordinates.
* :func:`quantize` -- positions in ``[0, 1)^3`` -> integer coordinates.

>>> hilbert_keys(np.array([[1, 2, 3], [0, 0, 1]]), bits=3).tolist()
[48, 3]
>>> hilbert_points(np.array([48, 3], dtype=np.uint64), bits=3).tolist()
[[1, 2, 3], [0, 0, 1]]

Complexity: O(N * bits) array operations, memory a few ``N``-word arrays.
"""

from __future__ import annotations

import numpy as np

__all__ = ["hilbert_keys", "hilbert_points", "quantize", "MAX_BITS"]

MAX_BITS = 21  # 3 * 21 = 63 bits fit a uint64


def _check_bits(bits: int) -> int:
    bits = int(bits)
    if not 1 <= bits <= MAX_BITS:
        raise ValueError(f"bits must be in 1..{MAX_BITS}, got {bits}")
    return bits


def _spread3(v: np.ndarray) -> np.ndarray:
    """Insert two zero bits between the low 21 bits of ``v`` (magic-number bit spreading)."""
    v = v & np.uint64(0x1FFFFF)
    v = (v | (v << np.uint64(32))) & np.uint64(0x1F00000000FFFF)
    v = (v | (v << np.uint64(16))) & np.uint64(0x1F0000FF0000FF)
    v = (v | (v << np.uint64(8))) & np.uint64(0x100F00F00F00F00F)
    v = (v | (v << np.uint64(4))) & np.uint64(0x10C30C30C30C30C3)
    v = (v | (v << np.uint64(2))) & np.uint64(0x1249249249249249)
    return v


def _compact3(v: np.ndarray) -> np.ndarray:
    """Inverse of :func:`_spread3`."""
    v = v & np.uint64(0x1249249249249249)
    v = (v | (v >> np.uint64(2))) & np.uint64(0x10C30C30C30C30C3)
    v = (v | (v >> np.uint64(4))) & np.uint64(0x100F00F00F00F00F)
    v = (v | (v >> np.uint64(8))) & np.uint64(0x1F0000FF0000FF)
    v = (v | (v >> np.uint64(16))) & np.uint64(0x1F00000000FFFF)
    v = (v | (v >> np.uint64(32))) & np.uint64(0x1FFFFF)
    return v


def hilbert_keys(coords, bits: int, chunk: int = 1 << 20) -> np.ndarray:
    """Hilbert index of each row of ``coords`` (ints in ``0 .. 2^bits - 1``), as uint64.

    Branch-free: a conditional exchange ``if bit: X0 ^= P else swap low bits of X0, Xi`` is
    written ``t = ((X0 ^ Xi) & P) * (1 - bit); X0 ^= bit * P | t; Xi ^= t``; rows are processed in
    chunks of ``chunk`` so that the temporaries stay in cache.
    """
    bits = _check_bits(bits)
    c = np.asarray(coords)
    if c.ndim != 2 or c.shape[1] != 3:
        raise ValueError(f"coords must have shape (N, 3), got {c.shape}")
    if c.size and (c.min() < 0 or c.max() >= (1 << bits)):
        raise ValueError(f"coordinates must lie in 0..{(1 << bits) - 1}")
    out = np.empty(len(c), dtype=np.uint64)
    for a in range(0, len(c), chunk):
        out[a:a + chunk] = _keys_chunk(c[a:a + chunk], bits)
    return out


def _keys_chunk(c: np.ndarray, bits: int) -> np.ndarray:
    one = np.uint64(1)
    X = [np.ascontiguousarray(c[:, i]).astype(np.uint64) for i in range(3)]
    bit = np.empty_like(X[0])
    t = np.empty_like(X[0])
    for s in range(bits - 1, 0, -1):  # inverse undo, Q = 2^s
        P = np.uint64((1 << s) - 1)
        S = np.uint64(s)
        np.right_shift(X[0], S, out=bit)
        bit &= one
        bit *= P
        X[0] ^= bit
        for i in (1, 2):
            np.right_shift(X[i], S, out=bit)
            bit &= one
            np.bitwise_xor(X[0], X[i], out=t)
            t &= P
            t *= one - bit
            bit *= P
            bit |= t
            X[0] ^= bit
            X[i] ^= t
    X[1] ^= X[0]  # Gray encode
    X[2] ^= X[1]
    acc = np.zeros_like(X[2])
    for s in range(bits - 1, 0, -1):
        np.right_shift(X[2], np.uint64(s), out=bit)
        bit &= one
        bit *= np.uint64((1 << s) - 1)
        acc ^= bit
    for i in range(3):
        X[i] ^= acc
    return (_spread3(X[0]) << np.uint64(2)) | (_spread3(X[1]) << np.uint64(1)) | _spread3(X[2])


def hilbert_points(keys, bits: int) -> np.ndarray:
    """Coordinates ``(N, 3)`` (int64) of Hilbert indices ``keys`` (Skilling's TransposetoAxes)."""
    bits = _check_bits(bits)
    h = np.asarray(keys, dtype=np.uint64)
    X = [_compact3(h >> np.uint64(2)), _compact3(h >> np.uint64(1)), _compact3(h)]
    N = np.uint64(2 << (bits - 1))
    t = X[2] >> np.uint64(1)  # Gray decode
    X[2] ^= X[1]
    X[1] ^= X[0]
    X[0] ^= t
    Q = 2
    while Q != int(N):  # undo excess work
        P = np.uint64(Q - 1)
        q = np.uint64(Q)
        for i in (2, 1, 0):
            hit = (X[i] & q) != 0
            if i == 0:
                X[0] = np.where(hit, X[0] ^ P, X[0])
            else:
                t = (X[0] ^ X[i]) & P
                t = np.where(hit, np.uint64(0), t)
                X[0] = np.where(hit, X[0] ^ P, X[0] ^ t)
                X[i] = X[i] ^ t
        Q <<= 1
    return np.stack(X, axis=1).astype(np.int64)


def quantize(positions, bits: int) -> np.ndarray:
    """Positions in ``[0, 1)^3`` to integer cells ``floor(x * 2^bits)`` (clipped into the grid)."""
    bits = _check_bits(bits)
    p = np.asarray(positions, dtype=np.float64)
    side = 1 << bits
    return np.clip((p * side).astype(np.int64), 0, side - 1)
