"""This problem's experiments for ``optsched repro``: its parts of T8 (threshold pricing against
its bound, certified and searched worst cases) and of T15 (learned online pricing, the minimax LP),
each the table's header; and its online methods' adversaries for T15's adapters part
(:data:`ADVERSARIES`)."""

from optsched.problems.online_knapsack.repro_t15 import EPS, REQUESTS, EXPERIMENT as T15
from optsched.problems.online_knapsack.repro_t8 import EXPERIMENT as T8

EXPERIMENTS = [T8, T15]


def _adversary(method: str):
    def make():
        from optsched.problems.online_knapsack.adversary import KnapsackAdversary

        return KnapsackAdversary(method, lower=1.0, upper=16.0, eps=EPS, requests=REQUESTS, family="staircase")
    return make


#: this problem's online methods, each with its adversary adapter, for T15's adapters part
#: (``paper_repro/t15_adapters.py``); ``order``: the row's place in that table
ADVERSARIES = [dict(method="online-knapsack/learned", order=5, adapter=_adversary("learned")),
               dict(method="online-knapsack/threshold", order=6, adapter=_adversary("threshold"))]


#: this problem's row of T16's time table (``paper_repro/t16_solvers.py``): the exact method on one
#: generated instance, seed 0 of ``preset``
SOLVER_TIMING = dict(preset="large", method="milp")
