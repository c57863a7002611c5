"""Transcendental functions and distributions whose results are the same bits on every machine.

A seeded instance must be the same bytes on every machine. numpy's transcendental ufuncs
(``np.exp``, ``np.log``, ``np.power`` and ``**`` on arrays, ``sin``, ``tanh`` ...) dispatch at
run time to SIMD kernels chosen by the CPU (baseline, AVX2/FMA3, AVX-512, SVML) and differ in the
last bits between them; the C library's scalar ``exp``/``log``/``pow`` (behind Python's ``math``
and behind numpy's ``Generator.exponential``, ``normal``, ``lognormal``, ``pareto``, ``gamma``
...) are not specified to the last bit either and differ between C libraries (glibc versions,
macOS) and between glibc's FMA and non-FMA variants on x86-64. **[ours]**

The functions here use only operations whose results IEEE 754 specifies exactly: ``+ - * /``,
``sqrt``, ``rint``, ``frexp``/``ldexp`` and comparisons, each a separate numpy ufunc call (so no
compiler can fuse a multiply and an add), with float constants written as literals or computed
from integers by one division. They are accurate to a few units in the last place (``exp`` and
``log`` are checked against the C library in ``tests/core/test_portable.py``) and give the
same bits for the same input on any IEEE 754 machine, with or without SIMD.

Distributions are built from ``Generator.random`` alone (53-bit multiples of ``2**-53``, exact):

* :func:`log_uniform` -- ``low * (high/low) ** U``;
* :func:`exponential` -- ``-scale * log(1 - U)`` (inverse CDF; ``1 - U`` is exact);
* :func:`standard_normal` -- Marsaglia's polar method (uniform pairs in the unit disc, a log and
  a square root); :func:`lognormal` is ``exp(mean + sigma * Z)``;
* :func:`pareto` -- numpy's Pareto II (Lomax) ``(1 - U) ** (-1/a) - 1``.

They consume the generator's stream differently from numpy's own methods of the same name, so
switching a generator to them changes its instances once (regenerated with ``make instances``).

>>> exp(0.0), log(1.0), power(2.0, 10.0)
(1.0, 0.0, 1024.0)
>>> abs(exp(1.0) - 2.718281828459045) < 1e-15
True
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["exp", "log", "power", "log_uniform", "exponential", "standard_normal", "lognormal", "pareto"]

# ln 2 split so that k * _LN2_HI is exact for |k| < 2**20 (fdlibm's constants; the high part has
# 21 trailing zero bits)
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e+00
_SQRT_HALF = 0.70710678118654752440
# Taylor coefficients of exp on |r| <= ln2/2: 1/j! by one exact-integer division each (correctly
# rounded, so the same on every machine); the degree-14 remainder is below 2**-60 relative.
_EXP_COEF = tuple(1.0 / math.factorial(j) for j in range(15))
# 2*atanh(s) = log((1+s)/(1-s)) = 2 (s + s^3/3 + s^5/5 + ...), |s| <= 0.1716 (s^2 <= 0.0295):
# 14 terms leave a remainder below 2**-70 relative.
_ATANH_COEF = tuple(1.0 / (2 * j + 1) for j in range(14))


def _out(x, value):
    return float(value) if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else value


def exp(x):
    """``e ** x``, elementwise, the same bits everywhere (a few ulp from the exact value)."""
    a = np.asarray(x, dtype=float)
    k = np.rint(np.multiply(a, _INV_LN2))
    with np.errstate(invalid="ignore"):
        r = np.subtract(np.subtract(a, np.multiply(k, _LN2_HI)), np.multiply(k, _LN2_LO))
    p = np.full(r.shape, _EXP_COEF[-1])
    for c in _EXP_COEF[-2::-1]:
        p = np.add(np.multiply(p, r), c)
    kk = np.clip(np.nan_to_num(k), -2000, 2000).astype(np.int64)
    with np.errstate(over="ignore"):
        out = np.ldexp(p, kk)
    out = np.where(np.isnan(a), np.nan, out)
    return _out(x, out)


def log(x):
    """Natural logarithm, elementwise, the same bits everywhere (``nan`` below 0, ``-inf`` at 0)."""
    a = np.asarray(x, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _out(x, _log(a))


def _log(a):
    m, e = np.frexp(a)                       # a = m * 2**e, m in [0.5, 1)
    low = m < _SQRT_HALF
    m = np.where(low, np.multiply(m, 2.0), m)  # m in [sqrt(1/2), sqrt(2))
    e = np.where(low, e - 1, e).astype(float)
    f = np.subtract(m, 1.0)                  # exact (Sterbenz)
    s = np.divide(f, np.add(f, 2.0))
    z = np.multiply(s, s)
    p = np.full(z.shape, _ATANH_COEF[-1])
    for c in _ATANH_COEF[-2::-1]:
        p = np.add(np.multiply(p, z), c)
    logm = np.multiply(np.multiply(s, 2.0), p)
    out = np.add(np.multiply(e, _LN2_HI), np.add(np.multiply(e, _LN2_LO), logm))
    out = np.where(a > 0, out, np.where(a == 0, -np.inf, np.nan))
    return np.where(np.isinf(a) & (a > 0), np.inf, out)


def power(base, exponent):
    """``base ** exponent`` for ``base > 0`` as ``exp(exponent * log(base))``, the same bits
    everywhere (relative error a few ulp times ``|exponent * log(base)|``)."""
    b = np.asarray(base, dtype=float)
    if np.any(b <= 0):
        raise ValueError("portable.power needs a positive base")
    out = exp(np.multiply(exponent, log(b)))
    scalar = np.ndim(base) == 0 and np.ndim(exponent) == 0 and not isinstance(exponent, np.ndarray)
    return float(out) if scalar else np.asarray(out)


def _random(rng: np.random.Generator, size):
    return rng.random() if size is None else rng.random(size)


def log_uniform(rng: np.random.Generator, low: float, high: float, size=None):
    """``low * (high/low) ** U``, ``U`` uniform on [0, 1): log-uniform on ``[low, high)``."""
    if not 0 < low <= high:
        raise ValueError("log_uniform needs 0 < low <= high")
    u = _random(rng, size)
    out = np.multiply(low, exp(np.multiply(u, log(high / low))))
    return float(out) if size is None else out


def exponential(rng: np.random.Generator, scale: float = 1.0, size=None):
    """Exponential with mean ``scale`` by inversion: ``-scale * log(1 - U)``."""
    u = _random(rng, size)
    out = np.multiply(-scale, log(np.subtract(1.0, u)))
    return float(out) if size is None else out


def standard_normal(rng: np.random.Generator, size=None):
    """Standard normal draws by Marsaglia's polar method: pairs ``V`` uniform on the square
    ``[-1, 1)^2`` kept when ``0 < s = |V|^2 < 1``, each giving ``V * sqrt(-2 log(s) / s)``."""
    shape = () if size is None else (size if isinstance(size, tuple) else (int(size),))
    n = int(np.prod(shape, dtype=np.int64))
    out = np.empty(n)
    filled = 0
    while filled < n:
        need = n - filled
        pairs = (need + 1) // 2
        batch = pairs + pairs // 4 + 8        # acceptance pi/4: usually one round
        v = np.subtract(np.multiply(rng.random((batch, 2)), 2.0), 1.0)
        s = np.add(np.multiply(v[:, 0], v[:, 0]), np.multiply(v[:, 1], v[:, 1]))
        ok = (s > 0) & (s < 1)
        v, s = v[ok], s[ok]
        f = np.sqrt(np.divide(np.multiply(-2.0, log(s)), s))
        z = np.multiply(v, f[:, None]).ravel()
        take = min(z.size, need)
        out[filled:filled + take] = z[:take]
        filled += take
    return float(out[0]) if size is None else out.reshape(shape)


def lognormal(rng: np.random.Generator, mean: float = 0.0, sigma: float = 1.0, size=None):
    """``exp(mean + sigma * Z)``, ``Z`` from :func:`standard_normal`."""
    z = standard_normal(rng, size)
    out = exp(np.add(mean, np.multiply(sigma, z)))
    return float(out) if size is None else out


def pareto(rng: np.random.Generator, a: float, size=None):
    """numpy's Pareto II (Lomax) with shape ``a``: ``(1 - U) ** (-1/a) - 1`` (``1 + pareto`` is
    the classical Pareto with minimum 1)."""
    if not a > 0:
        raise ValueError("pareto needs a > 0")
    u = _random(rng, size)
    out = np.subtract(exp(np.multiply(log(np.subtract(1.0, u)), -1.0 / a)), 1.0)
    return float(out) if size is None else out
