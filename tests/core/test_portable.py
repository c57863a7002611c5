"""optsched.core.portable: transcendental functions and draws built from exactly specified
operations. Their portability is shown by ``tests/test_instance_hashes.py`` run a second time with
numpy's CPU dispatch narrowed; here: accuracy, edge cases and the distributions' moments."""

from __future__ import annotations

import math

import numpy as np
import pytest

from optsched.core import portable


def _ulps(got, ref):
    ref = np.asarray(ref, float)
    return np.abs(np.asarray(got) - ref) / np.spacing(np.abs(ref))


def test_exp_and_log_are_within_a_few_ulp_of_the_c_library():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-700, 700, 20000), rng.uniform(-1, 1, 20000), [0.0, 1.0, -1.0, 1e-12]])
    # the C library is itself within 1 ulp of exact; our polynomial adds one or two roundings
    assert _ulps(portable.exp(x), [math.exp(v) for v in x]).max() <= 2
    y = np.concatenate([np.exp(rng.uniform(-700, 700, 20000)), rng.uniform(0.5, 2.0, 20000),
                        1.0 + rng.uniform(-1e-6, 1e-6, 2000), [2.0, 10.0, 1e-300, 1e300]])
    # s = f / (2 + f) and the two-part e * ln2 add up to three roundings (measured max: 3 ulp)
    assert _ulps(portable.log(y), [math.log(v) for v in y]).max() <= 4


def test_scalars_edges_and_exact_values():
    assert portable.exp(0.0) == 1.0 and isinstance(portable.exp(0.5), float)
    assert portable.log(1.0) == 0.0 and portable.log(0.0) == -math.inf
    assert math.isnan(portable.log(-1.0)) and portable.log(math.inf) == math.inf
    assert portable.exp(-800.0) == 0.0 and portable.exp(800.0) == math.inf
    assert portable.power(2.0, 10.0) == 1024.0
    assert portable.power(10.0, 3.0) == pytest.approx(1000.0, rel=4e-16 * 8)  # a few ulp of |3 ln 10|
    with pytest.raises(ValueError):
        portable.power(-1.0, 0.5)
    assert portable.exp(np.array([0.0, 1.0])).shape == (2,)


def test_draws_have_the_intended_distribution():
    n = 200_000
    # tolerances: 6 standard errors of the mean for n = 200000 draws
    z = portable.standard_normal(np.random.default_rng(1), n)
    assert abs(z.mean()) < 6 / math.sqrt(n) and abs(z.var() - 1) < 6 * math.sqrt(2 / n)
    assert abs(np.mean(z < -1.0) - 0.15865525393145707) < 6 * math.sqrt(0.16 * 0.84 / n)
    e = portable.exponential(np.random.default_rng(2), 2.0, n)
    assert e.min() >= 0 and abs(e.mean() - 2.0) < 6 * 2.0 / math.sqrt(n)
    u = portable.log_uniform(np.random.default_rng(3), 0.5, 32.0, n)
    assert 0.5 <= u.min() and u.max() < 32.0
    # log-uniform: each of the 6 octaves holds 1/6 of the draws
    counts = np.histogram(np.log2(u), bins=6, range=(-1, 5))[0] / n
    assert np.abs(counts - 1 / 6).max() < 6 * math.sqrt(1 / 6 * 5 / 6 / n)
    p = portable.pareto(np.random.default_rng(4), 3.0, n)     # Lomax(3): mean 1/2, P(X > 1) = 1/8
    assert p.min() >= 0 and abs(np.mean(p > 1.0) - 0.125) < 6 * math.sqrt(0.125 * 0.875 / n)
    ln = portable.lognormal(np.random.default_rng(5), 1.0, 0.5, n)
    assert abs(np.median(ln) - math.e) < 0.02                 # median e^mu; 6 sigma of the sample median is ~0.013
    assert portable.standard_normal(np.random.default_rng(6), (3, 4)).shape == (3, 4)


def test_normal_quantile_matches_scipy():
    from scipy.special import ndtri

    rng = np.random.default_rng(9)
    p = np.concatenate([rng.random(50000), 10.0 ** -rng.uniform(1, 15, 5000), 1 - 10.0 ** -rng.uniform(1, 15, 5000),
                        [2.0 ** -53, 0.5, 0.075, 0.925]])
    # AS 241 is accurate to about 1e-16 relative; rounding in the rational functions adds a few ulp
    # (measured: 1.1e-15)
    assert np.allclose(portable.normal_quantile(p), ndtri(p), rtol=4e-15, atol=0)
    assert portable.normal_quantile(np.array([0.0]))[0] == pytest.approx(ndtri(2.0 ** -54), rel=4e-15)


def test_one_normal_per_uniform_whatever_the_batch():
    batch = portable.standard_normal(np.random.default_rng(10), 50)
    rng = np.random.default_rng(10)
    single = [portable.standard_normal(rng) for _ in range(50)]
    assert batch.tolist() == single


def test_draws_are_a_function_of_the_seed():
    a = portable.standard_normal(np.random.default_rng(7), 1001)
    b = portable.standard_normal(np.random.default_rng(7), 1001)
    assert a.tobytes() == b.tobytes()
    assert portable.standard_normal(np.random.default_rng(8), 1001).tobytes() != a.tobytes()
