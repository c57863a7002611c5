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
* :func:`standard_normal` -- inversion by Wichura's AS 241 normal quantile (one uniform per
  draw); :func:`lognormal` is ``exp(mean + sigma * Z)``;
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

__all__ = ["exp", "log", "power", "log_uniform", "exponential", "normal_quantile", "standard_normal", "lognormal",
           "pareto"]

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


# Wichura's AS 241 (PPND16), the normal quantile to about 1e-16 relative: rational functions
# (numerator, denominator; lowest degree first) on |p - 1/2| <= 0.425 and on r = sqrt(-log(tail))
# in (0, 5] and beyond. M. J. Wichura, Applied Statistics 37 (1988) 477-484.
_AS241 = (
    ((3.3871328727963666080e0, 1.3314166789178437745e+2, 1.9715909503065514427e+3, 1.3731693765509461125e+4,
      4.5921953931549871457e+4, 6.7265770927008700853e+4, 3.3430575583588128105e+4, 2.5090809287301226727e+3),
     (1.0, 4.2313330701600911252e+1, 6.8718700749205790830e+2, 5.3941960214247511077e+3,
      2.1213794301586595867e+4, 3.9307895800092710610e+4, 2.8729085735721942674e+4, 5.2264952788528545610e+3)),
    ((1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0, 3.64784832476320460504e0,
      1.27045825245236838258e0, 2.41780725177450611770e-1, 2.27238449892691845833e-2, 7.74545014278341407640e-4),
     (1.0, 2.05319162663775882187e0, 1.67638483018380384940e0, 6.89767334985100004550e-1,
      1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4, 1.05075007164441684324e-9)),
    ((6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0, 2.96560571828504891230e-1,
      2.65321895265761230930e-2, 1.24266094738807843860e-3, 2.71155556874348757815e-5, 2.01033439929228813265e-7),
     (1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
      7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7, 2.04426310338993978564e-15)),
)


def _horner(coef, x):
    p = np.full(np.shape(x), coef[-1])
    for c in coef[-2::-1]:
        p = np.add(np.multiply(p, x), c)
    return p


def normal_quantile(p):
    """The standard normal quantile of ``p`` in [0, 1) (AS 241; ``p = 0`` is taken as ``2**-54``,
    the half step below the smallest non-zero ``Generator.random`` value), elementwise."""
    p = np.asarray(p, dtype=float)
    q = np.subtract(p, 0.5)
    out = np.empty(p.shape)
    mid = np.abs(q) <= 0.425
    qm = q[mid]
    r = np.subtract(0.180625, np.multiply(qm, qm))
    (a, b), tail1, tail2 = _AS241
    out[mid] = np.divide(np.multiply(qm, _horner(a, r)), _horner(b, r))
    tail = ~mid
    qt, pt = q[tail], p[tail]
    r = np.where(qt < 0, pt, np.subtract(1.0, pt))              # exact: p is a multiple of 2**-53
    r = np.where(r == 0, 2.0 ** -54, r)
    r = np.sqrt(np.negative(log(r)))
    near = r <= 5.0
    x1, x2 = np.subtract(r, 1.6), np.subtract(r, 5.0)
    v = np.where(near, np.divide(_horner(tail1[0], x1), _horner(tail1[1], x1)),
                 np.divide(_horner(tail2[0], x2), _horner(tail2[1], x2)))
    out[tail] = np.where(qt < 0, np.negative(v), v)
    return out


def standard_normal(rng: np.random.Generator, size=None):
    """Standard normal draws by inversion, one ``Generator.random`` value each
    (:func:`normal_quantile`), so ``n`` draws of size 1 are the same stream as one draw of size ``n``."""
    u = _random(rng, size)
    out = normal_quantile(u)
    return float(out) if size is None else out


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
