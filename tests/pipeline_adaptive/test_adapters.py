"""The adversary adapter of pipeline-adaptive, and the guarantee watch on it."""

import numpy as np
import pytest

from optsched.online.guarantees import GuaranteeWatch
from optsched.problems.pipeline_adaptive.adversary import AdaGrouperAdversary


def test_watch_has_no_guarantee_to_check():
    assert GuaranteeWatch(AdaGrouperAdversary(periods=2, iterations=5), "pipeline-adaptive").guarantee is None


def test_ada_grouper_constant_trace_ratio_one():
    # constant full bandwidth: the adaptive policy picks the best fixed group size and keeps it
    a = AdaGrouperAdversary(periods=3, iterations=20)
    ref, alg = a.evaluate(a.decode(np.ones(len(a.bounds))))
    assert alg == pytest.approx(ref, rel=1e-12)
