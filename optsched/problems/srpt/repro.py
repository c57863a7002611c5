"""This problem's experiments for ``optsched repro``: T7 (A-SRPT against the baselines and the
lower bound) and its part of T8 (the adversarial search against its online methods); and its online
method's adversary for T15's adapters part (:data:`ADVERSARIES`)."""

from optsched.problems.srpt.repro_t7 import EXPERIMENT as T7
from optsched.problems.srpt.repro_t8 import EXPERIMENT as T8

EXPERIMENTS = [T7, T8]


def _a_srpt_adversary():
    from optsched.problems.srpt.adversary import SrptAdversary

    return SrptAdversary("a-srpt", jobs=5)


#: this problem's online methods, each with its adversary adapter, for T15's adapters part
#: (``paper_repro/t15_adapters.py``); ``order``: the row's place in that table; ``reference``: what
#: the table's note says of the ratio's reference
ADVERSARIES = [dict(method="srpt/a-srpt", order=3, adapter=_a_srpt_adversary,
                    reference="srpt: a lower bound, so the ratio over-states ALG / OPT")]
