"""The affine guarantee form (ALG <= ratio x REF + additive term, or ALG >= REF / ratio - additive
term) and its two special cases, multiplicative and additive.

The checks are exact at the threshold and fail just past it, so a guarantee that is checked too
loosely (an additive term dropped, a ratio inverted) is caught. ``holds`` allows a relative
slack of 1e-7 for float noise (``Guarantee.holds``); the steps past the threshold here are 1e-3
relative, far above that slack."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from optsched.core.registry import Guarantee

finite = st.floats(min_value=1.0, max_value=1e6, allow_nan=False)


def affine(sense, ratio, extra):
    return Guarantee("affine", sense, lambda i: ratio, "OPT", "affine", "ours", "x", additive=lambda i: extra)


@given(ratio=finite, extra=st.floats(min_value=0.0, max_value=1e6), ref=finite)
def test_affine_thresholds_and_the_right_side(ratio, extra, ref):
    low = affine("<=", ratio, extra)  # minimization: ALG <= ratio * OPT + extra
    t = low.threshold(None, ref)
    assert t == ratio * ref + extra
    assert low.holds(None, t, ref) and not low.holds(None, t * (1 + 1e-3) + 1e-3, ref)
    high = affine(">=", ratio, extra)  # maximization: ALG >= OPT / ratio - extra
    t = high.threshold(None, ref)
    assert t == ref / ratio - extra
    assert high.holds(None, t, ref) and not high.holds(None, t - 1e-3 * max(1.0, abs(t)) - 1e-3, ref)


@given(ratio=finite, extra=st.floats(min_value=0.0, max_value=1e6), ref=finite)
def test_multiplicative_and_additive_are_the_affine_special_cases(ratio, extra, ref):
    for sense in ("<=", ">="):
        mult = Guarantee("multiplicative", sense, lambda i: ratio, "OPT", "m", "ours", "x")
        assert mult.threshold(None, ref) == affine(sense, ratio, 0.0).threshold(None, ref)
        assert (mult.ratio(None), mult.additive_term(None)) == (ratio, 0.0)
        add = Guarantee("additive", sense, lambda i: extra, "OPT", "a", "ours", "x")
        assert add.threshold(None, ref) == affine(sense, 1.0, extra).threshold(None, ref)
        assert (add.ratio(None), add.additive_term(None)) == (1.0, extra)


def test_an_affine_bound_is_not_a_multiplicative_one():
    # ALG <= 2 OPT + 3 with OPT = 10: 23 holds, 24 does not; the ratio alone (20) would reject 23
    g = affine("<=", 2.0, 3.0)
    assert g.holds(None, 23.0, 10.0) and not g.holds(None, 24.0, 10.0)
    assert not Guarantee("multiplicative", "<=", lambda i: 2.0, "OPT", "m", "ours", "x").holds(None, 23.0, 10.0)


def test_an_additive_term_belongs_to_the_affine_form_only():
    with pytest.raises(ValueError, match="affine"):
        Guarantee("multiplicative", "<=", lambda i: 2.0, "OPT", "m", "ours", "x", additive=lambda i: 1.0)
    prob = Guarantee("probabilistic", "<=", lambda i: 2.0, "OPT", "p", "ours", "x")
    for call in (prob.ratio, prob.additive_term):
        with pytest.raises(ValueError, match="probabilistic"):
            call(None)
